import Foundation
import Testing
@testable import Kernels

@Suite("Pooling, gates, resize, transposed convolution, element-wise")
struct GateAndResizeTests {
    func referenceMean(_ x: [Float], channels: Int, pixels: Int) -> [Double] {
        (0..<channels).map { c in (0..<pixels).reduce(0.0) { $0 + Double(x[c * pixels + $1]) } / Double(pixels) }
    }

    /// sigmoid(W2·relu(W1·m + b1) + b2) in Double.
    func referenceGate(_ mean: [Double], w1: [Float], b1: [Float], w2: [Float], b2: [Float], hidden: Int) -> [Double] {
        let c = mean.count
        var h = [Double](repeating: 0, count: hidden)
        for j in 0..<hidden {
            var s = Double(b1[j])
            for i in 0..<c { s += Double(w1[j * c + i]) * mean[i] }
            h[j] = max(0, s)
        }
        var gate = [Double](repeating: 0, count: c)
        for i in 0..<c {
            var s = Double(b2[i])
            for j in 0..<hidden { s += Double(w2[i * hidden + j]) * h[j] }
            gate[i] = 1 / (1 + exp(-s))
        }
        return gate
    }

    @Test("global average pool is the mean of each channel's interior, in any layout")
    func averagePool() {
        for (c, h, w, pad) in [(1, 1, 1, 0), (3, 7, 9, 1), (17, 16, 16, 2), (24, 32, 33, 0)] {
            var random = Random(seed: UInt64(c + h))
            let x = random.array(c * h * w)
            let map = makeMap(x, channels: c, layout: .padded(width: w, height: h, pad: pad))
            var out = [Float](repeating: 0, count: c)
            out.withUnsafeMutableBufferPointer { globalAveragePool(map.map, output: $0.baseAddress!) }
            let ref = referenceMean(x, channels: c, pixels: h * w)
            expectClose(out, ref.map { Expected(value: $0, scale: 1) }, tolerance: 1e-6, "gap \(c)x\(h)x\(w)")
        }
    }

    @Test("squeeze-and-excite multiplies each channel by its gate, bit-identical on 1 and 2 threads")
    func squeezeExcite() {
        // MobileNetV3-Large's widest gate and a prime over a thousand channels.
        for (c, hidden, h, w, pad) in [(16, 8, 64, 64, 0), (96, 24, 16, 16, 0), (7, 3, 5, 9, 1), (128, 32, 1, 1, 0),
                                       (960, 240, 3, 3, 1), (1001, 17, 2, 5, 0)] {
            var random = Random(seed: UInt64(c * hidden))
            let x = random.array(c * h * w, scale: 4)
            // The wide ones' weights scaled so their sums stay O(1) (within the tolerance below).
            let wide = c * hidden >= 16_384
            let w1 = random.array(hidden * c, scale: wide ? 1 / Float(c).squareRoot() : 1), b1 = random.array(hidden)
            let w2 = random.array(c * hidden, scale: wide ? 1 / Float(hidden).squareRoot() : 1), b2 = random.array(c)
            let weights = GateWeights(reduce: w1, reduceBias: b1, expand: w2, expandBias: b2, channels: c, hiddenChannels: hidden)
            var results: [[Float]] = []
            for threads in [1, 2] {
                let input = makeMap(x, channels: c, layout: .padded(width: w, height: h, pad: pad))
                let output = FeatureMapStorage(channels: c, layout: .dense(width: w, height: h))
                Kernels.squeezeExcite(input.map, weights: weights, output: output.map, pool: WorkerPool(threads: threads))
                results.append(output.interior())
            }
            #expect(results[0] == results[1], "SE \(c) bit-identical")
            let gate = referenceGate(referenceMean(x, channels: c, pixels: h * w), w1: w1, b1: b1, w2: w2, b2: b2, hidden: hidden)
            let expected = x.indices.map { i in
                Expected(value: Double(x[i]) * gate[i / (h * w)], scale: abs(Double(x[i])))
            }
            // The gate passes a mean and two small matrix-vector products (≤ 128 terms) and a
            // sigmoid (slope ≤ 1/4); 2e-5 relative to |x| covers their rounding.
            expectClose(results[0], expected, "SE \(c)->\(hidden) \(h)x\(w)")
        }
    }

    /// The gate as `GateWeights.gate` computes it, in scalar Float and the kernels' order: each
    /// hidden unit is 16 lanes of multiply-add chains over the channels (lane l takes channels
    /// l, l + 16, …), summed as `horizontalSum`'s tree, plus the bias; each gate value is its bias
    /// then one multiply-add per hidden unit in order; the activations as the vector code does.
    func orderedGate(_ mean: [Float], w1: [Float], b1: [Float], w2: [Float], b2: [Float], hidden: Int,
                     hiddenActivation: GateHiddenActivation, gateActivation: GateActivation) -> [Float] {
        let c = mean.count
        var h = [Float](repeating: 0, count: hidden)
        for j in 0..<hidden {
            var acc = [Float](repeating: 0, count: 16)
            for i in 0..<c { acc[i % 16] = multiplyAdd(acc[i % 16], w1[j * c + i], mean[i]) }
            let a = (0..<8).map { acc[$0] + acc[$0 + 8] }
            let b = (0..<4).map { a[$0] + a[$0 + 4] }
            let s = b1[j] + ((b[0] + b[2]) + (b[1] + b[3]))
            switch hiddenActivation {
            case .relu: h[j] = s < 0 ? 0 : s
            case .silu: h[j] = s * fastSigmoid(s)
            }
        }
        return (0..<c).map { i in
            var s = b2[i]
            for j in 0..<hidden { s = multiplyAdd(s, h[j], w2[i * hidden + j]) }
            switch gateActivation {
            case .sigmoid: return fastSigmoid(s)
            case let .hardSigmoid(alpha, beta): return max(0, min(1, alpha * s + beta))
            }
        }
    }

    @Test("the gate's two fully connected layers, every activation pair, channels and hidden units into the thousands: the kernels' order bit for bit, and within rounding of Double")
    func gateSweep() {
        let activations: [(GateHiddenActivation, GateActivation)] = [
            (.relu, .sigmoid), (.relu, .hardSigmoid(alpha: 1.0 / 6, beta: 0.5)), (.silu, .sigmoid),
            (.silu, .hardSigmoid(alpha: 0.2, beta: 0.5)),
        ]
        // Channels: 1, primes, the 16-lane vector and the 64-channel expansion panel ± 1, MobileNet's and wider;
        // hidden units: 1 to 5 (the 4-unit reduction ± 1), primes and thousands.
        let shapes = [(1, 1), (2, 3), (15, 4), (16, 5), (17, 1), (63, 7), (64, 16), (65, 8), (127, 31), (129, 3),
                      (240, 60), (672, 168), (960, 240), (1001, 13), (2048, 4), (3, 1031), (97, 2053)]
        for (c, hidden) in shapes {
            for (first, second) in activations {
                var random = Random(seed: UInt64(c * 7919 + hidden))
                let mean = random.array(c, scale: 3)
                let w1 = random.array(hidden * c, scale: 1 / Float(c).squareRoot()), b1 = random.array(hidden)
                let w2 = random.array(c * hidden, scale: 4 / Float(hidden).squareRoot()), b2 = random.array(c)
                let weights = GateWeights(reduce: w1, reduceBias: b1, expand: w2, expandBias: b2, channels: c,
                                          hiddenChannels: hidden, hiddenActivation: first, gateActivation: second)
                var gate = [Float](repeating: -1, count: c), scratch = [Float](repeating: 0, count: hidden)
                mean.withUnsafeBufferPointer { m in
                    scratch.withUnsafeMutableBufferPointer { h in
                        gate.withUnsafeMutableBufferPointer { weights.gate(mean: m.baseAddress!, hidden: h.baseAddress!, gate: $0.baseAddress!) }
                    }
                }
                let ordered = orderedGate(mean, w1: w1, b1: b1, w2: w2, b2: b2, hidden: hidden,
                                          hiddenActivation: first, gateActivation: second)
                #expect(gate.map(\.bitPattern) == ordered.map(\.bitPattern), "gate \(c)->\(hidden) \(first) \(second): kernel order")
                // And against Double: the hidden units to 1e-5 of their terms' size, the gate's
                // slope is at most 1/4 (sigmoid) or alpha.
                var hd = [Double](repeating: 0, count: hidden), hs = [Double](repeating: 0, count: hidden)
                for j in 0..<hidden {
                    var v = Double(b1[j]), size = abs(Double(b1[j]))
                    for i in 0..<c { v += Double(w1[j * c + i]) * Double(mean[i]); size += abs(Double(w1[j * c + i]) * Double(mean[i])) }
                    switch first {
                    case .relu: hd[j] = max(0, v)
                    case .silu: hd[j] = v / (1 + exp(-v))
                    }
                    hs[j] = size * 1.1 + 1e-30
                }
                let expected = (0..<c).map { i -> Expected in
                    var v = Double(b2[i]), size = abs(Double(b2[i]))
                    for j in 0..<hidden { v += Double(w2[i * hidden + j]) * hd[j]; size += abs(Double(w2[i * hidden + j])) * hs[j] }
                    switch second {
                    case .sigmoid: return Expected(value: 1 / (1 + exp(-v)), scale: size / 4 + 0.01)
                    case let .hardSigmoid(alpha, beta):
                        return Expected(value: min(1, max(0, Double(alpha) * v + Double(beta))), scale: size * Double(alpha) + 1)
                    }
                }
                expectClose(gate, expected, "gate \(c)->\(hidden) \(first) \(second)")
            }
        }
    }

    @Test("the hard sigmoid of the gate: ONNX's max(0, min(1, alpha·x + beta)) without a fused multiply-add, NaN to 1 as Swift's min gives")
    func hardSigmoidValues() {
        let xs: [Float] = [-.infinity, -1e30, -3.0000002, -3, -2.9999998, -1, -0, 0, 1e-30, 0.1, 1, 2.9999998, 3, 3.0000002,
                           1e30, .infinity, .nan, 1.0 / 3, -0.7, 2.5]
        for (alpha, beta) in [(Float(1) / 6, Float(0.5)), (0.2, 0.5), (0.7, -0.1), (-0.3, 0.4)] {
            var v = SIMD16<Float>(), expected = [Float]()
            for (lane, x) in xs.prefix(16).enumerated() { v[lane] = x }
            for x in xs.prefix(16) { expected.append(max(0, min(1, alpha * x + beta))) }
            let got = hardSigmoidVector(v, alpha: alpha, beta: beta)
            #expect((0..<16).map { got[$0].bitPattern } == expected.map(\.bitPattern), "alpha \(alpha) beta \(beta)")
        }
    }

    @Test("the decoder's attention gate computes s·sigmoid(fc(relu(fc(mean(s+u))))) + u")
    func attentionGate() {
        for (c, h, w) in [(24, 32, 32), (16, 7, 13), (3, 1, 1)] {
            var random = Random(seed: UInt64(c + w))
            let s = random.array(c * h * w, scale: 3), u = random.array(c * h * w, scale: 3)
            let w1 = random.array(c * c), b1 = random.array(c), w2 = random.array(c * c), b2 = random.array(c)
            let weights = GateWeights(reduce: w1, reduceBias: b1, expand: w2, expandBias: b2, channels: c, hiddenChannels: c)
            var results: [[Float]] = []
            for threads in [1, 2] {
                let skip = makeMap(s, channels: c, layout: .dense(width: w, height: h))
                let up = makeMap(u, channels: c, layout: .dense(width: w, height: h))
                let output = FeatureMapStorage(channels: c, layout: .dense(width: w, height: h))
                Kernels.attentionGate(skip: skip.map, upsampled: up.map, weights: weights, output: output.map,
                                      pool: WorkerPool(threads: threads))
                results.append(output.interior())
            }
            #expect(results[0] == results[1], "gate \(c) bit-identical")
            let sum = zip(s, u).map { $0 + $1 }
            let gate = referenceGate(referenceMean(sum, channels: c, pixels: h * w), w1: w1, b1: b1, w2: w2, b2: b2, hidden: c)
            let expected = s.indices.map { i in
                Expected(value: Double(s[i]) * gate[i / (h * w)] + Double(u[i]), scale: abs(Double(s[i])) + abs(Double(u[i])))
            }
            expectClose(results[0], expected, "gate \(c) \(h)x\(w)")
        }
    }

    /// ONNX Resize, mode linear, half_pixel, scale 2, coordinates clamped to the input.
    func referenceResize(_ input: [Float], channels: Int, height: Int, width: Int) -> [Expected] {
        func taps(_ o: Int, _ size: Int) -> (Int, Int, Double) {
            let coordinate = min(max((Double(o) + 0.5) / 2 - 0.5, 0), Double(size - 1))
            let i0 = Int(coordinate.rounded(.down)), i1 = min(i0 + 1, size - 1)
            return (i0, i1, coordinate - Double(i0))
        }
        var out: [Expected] = []
        for c in 0..<channels {
            for yo in 0..<(2 * height) {
                let (y0, y1, dy) = taps(yo, height)
                for xo in 0..<(2 * width) {
                    let (x0, x1, dx) = taps(xo, width)
                    func p(_ y: Int, _ x: Int) -> Double { Double(input[(c * height + y) * width + x]) }
                    let t0: Double = (1 - dy) * (1 - dx) * p(y0, x0)
                    let t1: Double = (1 - dy) * dx * p(y0, x1)
                    let t2: Double = dy * (1 - dx) * p(y1, x0)
                    let t3: Double = dy * dx * p(y1, x1)
                    let scale: Double = abs(t0) + abs(t1) + abs(t2) + abs(t3) + 1e-6
                    out.append(Expected(value: t0 + t1 + t2 + t3, scale: scale))
                }
            }
        }
        return out
    }

    @Test("bilinear x2 matches ONNX Resize linear half_pixel, edges clamped, any size")
    func resize() {
        for (c, h, w, pad) in [(1, 1, 1, 0), (2, 1, 5, 0), (3, 3, 7, 1), (24, 16, 16, 0), (5, 9, 16, 2), (2, 17, 33, 0), (1, 2, 40, 0)] {
            var random = Random(seed: UInt64(h * 100 + w))
            let x = random.array(c * h * w)
            var results: [[Float]] = []
            for threads in [1, 2] {
                let input = makeMap(x, channels: c, layout: .padded(width: w, height: h, pad: pad))
                let output = FeatureMapStorage(channels: c, layout: .padded(width: 2 * w, height: 2 * h, pad: pad))
                resizeBilinear2x(input.map, output: output.map, pool: WorkerPool(threads: threads))
                #expect(borderIsZero(output))
                results.append(output.interior())
            }
            #expect(results[0] == results[1], "resize bit-identical")
            // Two blends of two terms each: a few roundings of values ≤ max|x|.
            expectClose(results[0], referenceResize(x, channels: c, height: h, width: w), tolerance: 1e-6,
                        "resize \(c)x\(h)x\(w)")
        }
    }

    @Test("2x2 stride-2 transposed convolution + bias (+ sigmoid) writes each input pixel's 2x2 block")
    func transposedConvolution() {
        for (cin, cout, h, w, activation) in [(16, 1, 16, 16, Activation.sigmoid), (16, 1, 9, 21, .none), (1, 1, 1, 1, .none),
                                               (7, 2, 5, 33, .sigmoid), (3, 3, 2, 8, .relu)] {
            var random = Random(seed: UInt64(cin * 31 + w))
            let x = random.array(cin * h * w, scale: 2)
            let wt = random.array(cin * cout * 4), b = random.array(cout)
            let weights = TransposedConvolutionWeights(weights: wt, bias: b, inputChannels: cin, outputChannels: cout)
            var results: [[Float]] = []
            for threads in [1, 2] {
                let input = makeMap(x, channels: cin, layout: .dense(width: w, height: h))
                let output = FeatureMapStorage(channels: cout, layout: .dense(width: 2 * w, height: 2 * h))
                transposedConvolution2x2(input.map, weights: weights, activation: activation, output: output.map,
                                         pool: WorkerPool(threads: threads))
                results.append(output.interior())
            }
            #expect(results[0] == results[1], "transposed conv bit-identical")
            var expected: [Expected] = []
            for o in 0..<cout {
                for yo in 0..<(2 * h) {
                    for xo in 0..<(2 * w) {
                        var sum = Double(b[o]), scale = abs(sum)
                        for c in 0..<cin {
                            let t = Double(wt[((c * cout + o) * 2 + yo % 2) * 2 + xo % 2]) * Double(x[(c * h + yo / 2) * w + xo / 2])
                            sum += t
                            scale += abs(t)
                        }
                        expected.append(Expected(value: applyActivation(activation, sum), scale: scale))
                    }
                }
            }
            expectClose(results[0], expected, "tconv \(cin)->\(cout) \(h)x\(w) \(activation)")
        }
    }

    /// onnxruntime's logistic (MLAS, `MlasLogisticKernelFma3`) written out in Swift, step by step:
    /// what the vector and scalar kernels must equal bit for bit from −10 on.
    static func mlasLogistic(_ x: Float) -> Float {
        func madd(_ a: Float, _ b: Float, _ c: Float) -> Float { targetHasFMA ? a.addingProduct(b, c) : a + b * c }
        var v = x < -18 ? -18 : x
        v = v > 18 ? 18 : v
        let v2 = v * v
        var p = madd(1.15627324459942e-07, v2, 4.37031012579801e-11)
        for a: Float in [6.08574864600143e-05, 8.51377133304701e-03, 2.48287947061529e-01] { p = madd(a, v2, p) }
        p = v * p
        var q = madd(5.76102136993427e-09, v2, 6.10247389755681e-13)
        for b: Float in [6.29106785017040e-06, 1.70198817374094e-03, 1.16817656904453e-01, 9.93151921023180e-01] { q = madd(b, v2, q) }
        let r = p / q + 0.5
        return r < 0 ? 0 : r
    }

    @Test("sigmoid: onnxruntime's logistic bit for bit from −10 on (within 1.71e-7 of the exact value), within 3 ulp of the exact value below, saturating to exactly 0 and 1")
    func sigmoidAccuracy() {
        let from = sigmoidLikeOnnxruntimeFrom
        #expect(from == -10)
        var points: [Float] = []
        var x: Float = -100
        while x <= 25 { points.append(x); x += 0.00137 }
        var random = Random(seed: 91)
        points += random.array(20_000, scale: 30) + [from, from.nextUp, from.nextDown, -15, -15.8, -87]
        var worstAbove = 0.0, worstBelow: Float = 0
        for x in points {
            let got = fastSigmoid(x), exact = 1 / (1 + exp(-Double(x)))
            if x >= from {
                #expect(got.bitPattern == Self.mlasLogistic(x).bitPattern, "sigmoid(\(x)) = \(got), MLAS \(Self.mlasLogistic(x))")
                #expect(logisticLikeOnnxruntime(x).bitPattern == got.bitPattern, "scalar sigmoid(\(x))")
                worstAbove = max(worstAbove, abs(Double(got) - exact))
            } else if exact > 1e-37 {
                let ulps = Float(abs(Double(got) - exact)) / Float(exact).ulp
                worstBelow = max(worstBelow, ulps)
                #expect(ulps <= 3, "sigmoid(\(x)) = \(got), exact \(exact)")
            }
        }
        // MLAS's own error: 1.57e-7 with FMA, 1.70004e-7 without (each step rounded twice).
        #expect(worstAbove <= (targetHasFMA ? 1.6e-7 : 1.71e-7), "worst from −10 on: \(worstAbove)")
        #expect(worstBelow <= 3, "worst below −10: \(worstBelow) ulp")
        print("sigmoid: worst \(worstAbove) absolute from −10 on (onnxruntime's logistic), \(worstBelow) ulp below")
        for big: Float in [18, 88, 100, 800, 1e30, .infinity] { #expect(fastSigmoid(big) == 1) }
        for big: Float in [88, 100, 800, 1e30, .infinity] { #expect(fastSigmoid(-big) == 0) }
        #expect(fastSigmoid(0) == 0.5)
        #expect(fastSigmoid(.nan).isNaN && logisticLikeOnnxruntime(.nan).isNaN)
        // MLAS's rational function (with FMA) passes 1 near 17.87, and onnxruntime does not clamp it there.
        if targetHasFMA { #expect(fastSigmoid(17.87294) == 1.0000001) }
        // Where MLAS's logistic has lost its relative accuracy (at −17 a multiple of 2^−25, 8.9e-8
        // with FMA and 3.0e-8 without, for 4.1e-8), the sigmoid has not.
        let exact17 = 1 / (1 + exp(17.0))
        #expect(abs(Double(Self.mlasLogistic(-17)) - exact17) > 0.2 * exact17)
        #expect(abs(Double(fastSigmoid(-17)) - exact17) <= 3 * Double(Float(exact17).ulp))
    }

    @Test("sigmoid on vectors whose lanes straddle −10 equals the one-lane sigmoid of each value")
    func sigmoidAcrossTheSeam() {
        let count = 4_099
        var random = Random(seed: 17)
        // Values around −10 in runs of every mix: all above, all below, alternating, random.
        let x: [Float] = (0..<count).map { i in
            switch (i / 64) % 4 {
            case 0: return -10 + 2 * abs(random.next())
            case 1: return Float(-10).nextDown - 2 * abs(random.next())
            case 2: return i % 2 == 0 ? -9.5 : -10.5
            default: return -10 + 3 * random.next()
            }
        }
        var out = [Float](repeating: .nan, count: count)
        x.withUnsafeBufferPointer { px in
            out.withUnsafeMutableBufferPointer { sigmoid(px.baseAddress!, output: $0.baseAddress!, count: count) }
        }
        let differing = (0..<count).filter { out[$0].bitPattern != fastSigmoid(x[$0]).bitPattern }
        #expect(differing.isEmpty, "\(differing.count) differ, first at x = \(differing.first.map { x[$0] } ?? 0)")
    }

    @Test("the global mean in onnxruntime's order: four lane sums, (s0 + s2) + (s1 + s3), the tail, / n")
    func globalMeanLikeOnnxruntime() {
        var random = Random(seed: 5)
        for (planes, size) in [(1, 1), (1, 3), (3, 4), (5, 7), (4, 784), (9, 169), (13, 899), (2, 12544)] {
            let x = random.array(planes * size, scale: 3).map { $0 + 0.25 }
            var got = [Float](repeating: .nan, count: planes)
            x.withUnsafeBufferPointer { px in
                got.withUnsafeMutableBufferPointer { globalAveragePoolLikeOnnxruntime(px.baseAddress!, planes: planes, planeSize: size, output: $0.baseAddress!) }
            }
            for p in 0..<planes {
                let plane = x[(p * size)..<((p + 1) * size)].map { $0 }
                var lanes: [Float] = [0, 0, 0, 0]
                let runs = size / 4 * 4
                for i in 0..<runs { lanes[i % 4] = lanes[i % 4] + plane[i] }
                var sum = (lanes[0] + lanes[2]) + (lanes[1] + lanes[3])
                for i in runs..<size { sum = sum + plane[i] }
                #expect(got[p].bitPattern == (sum / Float(size)).bitPattern, "\(planes)x\(size) plane \(p)")
            }
        }
    }

    @Test("element-wise activations and sigmoid on odd counts")
    func elementwise() {
        for count in [1, 15, 16, 17, 100] {
            var random = Random(seed: UInt64(count))
            let a = random.array(count, scale: 8)
            var out = [Float](repeating: .nan, count: count)
            for activation in [Activation.relu, .hardSwish, .sigmoid, .none] {
                a.withUnsafeBufferPointer { pa in
                    out.withUnsafeMutableBufferPointer { po in
                        activate(pa.baseAddress!, activation: activation, output: po.baseAddress!, count: count)
                    }
                }
                expectClose(out, a.map { Expected(value: applyActivation(activation, Double($0)), scale: max(1, abs(Double($0)))) },
                            tolerance: 1e-6, "\(activation) \(count)")
            }
            a.withUnsafeBufferPointer { pa in
                out.withUnsafeMutableBufferPointer { po in sigmoid(pa.baseAddress!, output: po.baseAddress!, count: count) }
            }
            #expect(out == a.map(fastSigmoid))
        }
    }

    @Test("a thread split covers every index once, on tile boundaries")
    func split() {
        for total in [0, 1, 47, 48, 49, 4096, 16385] {
            for granularity in [1, 16, 48] {
                let a = WorkerPool.range(total, part: 0, of: 2, granularity: granularity)
                let b = WorkerPool.range(total, part: 1, of: 2, granularity: granularity)
                #expect(a.lowerBound == 0 && a.upperBound == b.lowerBound && b.upperBound == total)
                #expect(a.upperBound % granularity == 0 || a.upperBound == total)
            }
        }
    }

    @Test("the 2-thread pool runs both parts of many short jobs and stops cleanly")
    func poolRunsJobs() {
        let pool = WorkerPool(threads: 2)
        let counts = FloatBuffer(count: 2)
        struct Count: PoolJob {
            let counts: UnsafeMutablePointer<Float>
            func run(part: Int, pool: WorkerPool) { counts[part] += 1 }
        }
        for _ in 0..<10_000 {
            pool.run(Count(counts: counts.baseAddress))
        }
        #expect(counts.baseAddress[0] == 10_000)
        #expect(counts.baseAddress[1] == Float(pool.threadCount == 2 ? 10_000 : 0))
    }
}
