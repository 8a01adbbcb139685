import AllocationCounter
import Foundation
import Testing
@testable import Kernels

@Suite("Per-channel affine, PRelu, clip, channel softmax")
struct ChannelKernelTests {
    @Test("channelAffine is x·scale[c] + shift[c] (one rounding with FMA, two without), any layouts, in place too")
    func affine() {
        for (c, h, w) in oddShapes {
            for (inPad, outPad) in layoutPairs {
                var random = Random(seed: UInt64(c * 1000 + h * 10 + w + inPad))
                let x = random.array(c * h * w, scale: 4), scale = random.array(c, scale: 3), shift = random.array(c, scale: 2)
                let input = makeMap(x, channels: c, layout: .padded(width: w, height: h, pad: inPad))
                let got = runOnBothPools(input, outputChannels: c, outputHeight: h, outputWidth: w, outputPad: outPad,
                                         "affine \(c)x\(h)x\(w) pad \(inPad)->\(outPad)") { i, o, pool in
                    channelAffine(i, scale: scale, shift: shift, output: o, pool: pool)
                }
                var expected: [Expected] = []
                for ch in 0..<c {
                    for p in 0..<(h * w) {
                        let product = Double(x[ch * h * w + p]) * Double(scale[ch])
                        expected.append(Expected(value: product + Double(shift[ch]), scale: abs(product) + abs(Double(shift[ch]))))
                    }
                }
                // A multiply and an add round twice: |Δ| ≤ 2⁻²⁴(2|x·s| + |b|) ≤ 1.2e-7(|x·s| + |b|).
                expectClose(got, expected, tolerance: 1.2e-7, "affine \(c)x\(h)x\(w) pad \(inPad)->\(outPad)")

                // In place: the same values as into a separate output.
                let inPlace = makeMap(x, channels: c, layout: .padded(width: w, height: h, pad: inPad))
                channelAffine(inPlace.map, scale: scale, shift: shift, output: inPlace.map, pool: WorkerPool(threads: 2))
                #expect(inPlace.interior() == got, "affine in place \(c)x\(h)x\(w)")
            }
        }
    }

    @Test("channelAffine with an activation is that activation of each affine value, as its scalar form rounds it, any layouts",
          arguments: [Activation.relu, .relu6, .hardSwish, .sigmoid, .silu])
    func affineActivation(_ activation: Activation) {
        for (c, h, w) in oddShapes {
            for (inPad, outPad) in layoutPairs {
                var random = Random(seed: UInt64(c * 1000 + h * 10 + w + inPad))
                let x = random.array(c * h * w, scale: 4), scale = random.array(c, scale: 3), shift = random.array(c, scale: 2)
                let input = makeMap(x, channels: c, layout: .padded(width: w, height: h, pad: inPad))
                let label = "affine + \(activation) \(c)x\(h)x\(w) pad \(inPad)->\(outPad)"
                let plain = runOnBothPools(input, outputChannels: c, outputHeight: h, outputWidth: w, outputPad: outPad, label) { i, o, pool in
                    channelAffine(i, scale: scale, shift: shift, output: o, pool: pool)
                }
                let got = runOnBothPools(input, outputChannels: c, outputHeight: h, outputWidth: w, outputPad: outPad, label) { i, o, pool in
                    channelAffine(i, scale: scale, shift: shift, activation: activation, output: o, pool: pool)
                }
                // The vector activations agree with `Activation.apply` on every lane (sigmoid and
                // SiLU within their own ulp: the same polynomial, lane by lane).
                #expect(got == plain.map { activation.apply($0) }, "\(label)")
            }
        }
    }

    @Test("parametricReLU is x < 0 ? x·slope : x with a per-channel or a single slope, any layouts, in place too")
    func prelu() {
        for (c, h, w) in oddShapes {
            for (inPad, outPad) in layoutPairs {
                for perChannel in [true, false] {
                    var random = Random(seed: UInt64(c * 7 + h * 3 + w + inPad * 5 + (perChannel ? 1 : 0)))
                    let x = random.array(c * h * w, scale: 4), slope = random.array(perChannel ? c : 1, scale: 2)
                    let what = "prelu \(c)x\(h)x\(w) pad \(inPad)->\(outPad) perChannel \(perChannel)"
                    let input = makeMap(x, channels: c, layout: .padded(width: w, height: h, pad: inPad))
                    let got = runOnBothPools(input, outputChannels: c, outputHeight: h, outputWidth: w, outputPad: outPad,
                                             what) { i, o, pool in
                        parametricReLU(i, slope: slope, slopeIsPerChannel: perChannel, output: o, pool: pool)
                    }
                    var expected: [Float] = []
                    for ch in 0..<c {
                        let s = slope[perChannel ? ch : 0]
                        for p in 0..<(h * w) {
                            let v = x[ch * h * w + p]
                            expected.append(v < 0 ? v * s : v)
                        }
                    }
                    #expect(got == expected, "\(what)")
                    let inPlace = makeMap(x, channels: c, layout: .padded(width: w, height: h, pad: inPad))
                    parametricReLU(inPlace.map, slope: slope, slopeIsPerChannel: perChannel, output: inPlace.map,
                                   pool: WorkerPool(threads: 2))
                    #expect(inPlace.interior() == expected, "\(what) in place")
                }
            }
        }
    }

    @Test("clamp is min(max(x, lower), upper) on odd counts; lower > upper gives upper; NaN stays NaN")
    func clip() {
        for count in [1, 15, 16, 17, 33, 100] {
            var random = Random(seed: UInt64(count))
            var x = random.array(count, scale: 10)
            x[0] = .infinity
            if count > 2 { x[1] = -.infinity; x[2] = -0.0 }
            for (lower, upper) in [(Float(-6), Float(6)), (0, 6), (-.infinity, 1.5), (-2, .infinity), (3, -3)] {
                var out = [Float](repeating: .nan, count: count)
                x.withUnsafeBufferPointer { px in
                    out.withUnsafeMutableBufferPointer { po in
                        clamp(px.baseAddress!, lower: lower, upper: upper, output: po.baseAddress!, count: count)
                    }
                }
                #expect(out == x.map { Swift.min(Swift.max($0, lower), upper) }, "clip \(count) [\(lower), \(upper)]")
            }
            // In place, with a NaN.
            var y = x
            y[count - 1] = .nan
            y.withUnsafeMutableBufferPointer { p in
                clamp(p.baseAddress!, lower: -1, upper: 1, output: p.baseAddress!, count: count)
            }
            #expect(y[count - 1].isNaN, "clip keeps NaN")
            #expect(y.dropLast() == x.dropLast().map { Swift.min(Swift.max($0, -1), 1) }[...], "clip in place \(count)")
        }
    }

    @Test("expVector is within 2 ulp of Foundation's exp over [-87.33, 0] and exactly 0 below")
    func expAccuracy() {
        var worst = 0.0
        var arguments: [Float] = stride(from: Float(-87.33), through: 0, by: 0.00731).map { $0 }
        arguments += stride(from: Float(-1e-3), through: 0, by: 1e-6).map { $0 }
        arguments += [-Float.leastNonzeroMagnitude, -1e-30, -0.0, 0, -0.346_573_6, -0.693_147_2, -87.3, -87.33]
        for start in stride(from: 0, to: arguments.count, by: lanes) {
            var v = Vector()
            let n = min(lanes, arguments.count - start)
            for lane in 0..<n { v[lane] = arguments[start + lane] }
            let e = expVector(v)
            for lane in 0..<n {
                let exact = Foundation.exp(Double(arguments[start + lane]))
                let ulps = abs(Double(e[lane]) - exact) / Double(Float(exact).ulp)
                worst = max(worst, ulps)
                #expect(ulps <= 2, "exp(\(arguments[start + lane])) = \(e[lane]), exact \(exact)")
            }
        }
        #expect(worst <= 2)
        #expect(expVector(Vector(repeating: 0))[0] == 1)
        for tiny: Float in [-87.34, -87.5, -88, -100, -1e30, -.infinity] {
            #expect(expVector(Vector(repeating: tiny))[0] == 0, "exp(\(tiny)) is 0")
        }
        #expect(expVector(Vector(repeating: .nan))[0].isNaN)
    }

    /// Softmax over channels with the kernel's max subtraction in Float, then Foundation's exp and
    /// the sum and division in Double.
    func referenceSoftmax(_ x: [Float], channels: Int, pixels: Int) -> [Double] {
        var out = [Double](repeating: 0, count: x.count)
        for p in 0..<pixels {
            var m = x[p]
            for c in 1..<channels { m = Swift.max(m, x[c * pixels + p]) }
            var sum = 0.0
            for c in 0..<channels { sum += Foundation.exp(Double(x[c * pixels + p] - m)) }
            for c in 0..<channels { out[c * pixels + p] = Foundation.exp(Double(x[c * pixels + p] - m)) / sum }
        }
        return out
    }

    @Test("softmaxOverChannels is within 1e-6 relative of exp(x − max)/Σ per pixel, any layouts")
    func softmax() {
        for (c, h, w) in oddShapes + [(2, 9, 23)] {
            for (inPad, outPad) in layoutPairs {
                for scale: Float in [4, 60] {
                    var random = Random(seed: UInt64(c * 31 + h * 17 + w + inPad))
                    let x = random.array(c * h * w, scale: scale)
                    let what = "softmax \(c)x\(h)x\(w) pad \(inPad)->\(outPad) scale \(scale)"
                    let input = makeMap(x, channels: c, layout: .padded(width: w, height: h, pad: inPad))
                    let got = runOnBothPools(input, outputChannels: c, outputHeight: h, outputWidth: w, outputPad: outPad,
                                             what) { i, o, pool in
                        softmaxOverChannels(i, output: o, pool: pool)
                    }
                    let expected = referenceSoftmax(x, channels: c, pixels: h * w)
                    // Relative to each output; below 1e-30 (exponents under −69) absolutely.
                    expectClose(got, expected.map { Expected(value: $0, scale: $0) }, tolerance: 1e-6, what)
                }
            }
        }
    }

    @Test("softmaxOverChannels saturates: logits of ±800 give exact 0s and 1s, no NaN")
    func softmaxSaturates() {
        let c = 3, h = 1, w = 20
        var x = [Float](repeating: 0, count: c * h * w)
        for p in 0..<w {
            x[p] = 800; x[w + p] = -800; x[2 * w + p] = Float(p) * 10 - 100
        }
        let input = makeMap(x, channels: c, layout: .dense(width: w, height: h))
        let got = runOnBothPools(input, outputChannels: c, outputHeight: h, outputWidth: w, outputPad: 0, "softmax ±800") { i, o, pool in
            softmaxOverChannels(i, output: o, pool: pool)
        }
        #expect(got[0..<w].allSatisfy { $0 == 1 })
        #expect(got[w...].allSatisfy { $0 == 0 })
    }

    @Test("affine, PRelu, clip and softmax allocate nothing per call on 1 and 2 threads",
          .enabled(if: vbg_allocation_counting_is_active() == 1))
    func noAllocation() {
        let c = 17, h = 33, w = 19
        var random = Random(seed: 5)
        let x = random.array(c * h * w), scale = random.array(c), shift = random.array(c)
        let input = makeMap(x, channels: c, layout: .padded(width: w, height: h, pad: 1))
        let output = FeatureMapStorage(channels: c, layout: .dense(width: w, height: h))
        for threads in [1, 2] {
            let pool = WorkerPool(threads: threads)
            let kernels: [(String, () -> Void)] = [
                ("channelAffine", { channelAffine(input.map, scale: scale, shift: shift, output: output.map, pool: pool) }),
                ("parametricReLU", { parametricReLU(input.map, slope: scale, slopeIsPerChannel: true, output: output.map, pool: pool) }),
                ("clamp", { clamp(input.map.base, lower: -0.5, upper: 0.5, output: output.map.base, count: c * h * w) }),
                ("softmaxOverChannels", { softmaxOverChannels(input.map, output: output.map, pool: pool) }),
            ]
            for (name, kernel) in kernels {
                kernel()
                let n = allocations { for _ in 0..<10 { kernel() } }
                #expect(n == 0, "\(name) on \(threads) thread(s): \(n) allocations in 10 calls")
            }
        }
    }
}
