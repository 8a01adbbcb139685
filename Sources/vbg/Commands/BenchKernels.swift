import CPUSupport
import Dispatch
import Foundation
import Kernels
import TargetFeatures

/// `vbg bench --kernels`: each kernel on the model's main layer shapes, median time and GFLOP/s.
///
/// A sample repeats the call until it takes ≥ 1 ms; the median of
/// `samples` samples is reported. GFLOP/s counts 2 FLOP per multiply-add of the convolutions
/// (element-wise kernels report their output elements per ns instead).
///
/// The machine is shared, so besides wall time each sample records the CPU time of the calling
/// thread (`CLOCK_THREAD_CPUTIME_ID`), which leaves out the time the thread was descheduled; with
/// 1 thread the GFLOP/s are computed from it. A 12-chain SIMD16 FMA probe timed the same way gives
/// the peak the kernels are compared with.
enum KernelBenchmark {
    struct Case {
        var name: String
        /// Multiply-adds per call (0 for element-wise kernels).
        var macs: Int
        /// Output elements per call.
        var elements: Int
        var run: () -> Void
    }

    static func run(threads: Int, samples: Int, filter: String?, json: Bool) {
        let pool = WorkerPool(threads: threads)
        var cases = makeCases(pool: pool)
        if let filter { cases = cases.filter { $0.name.contains(filter) } }
        if !json {
            print("kernels, \(pool.threadCount) thread(s), build \(CPUSupport.buildDescription), median of \(samples) samples")
            print("kernel".padding(toLength: 44, withPad: " ", startingAt: 0) + "      µs   GFLOP/s")
        }
        let peak = peakGFLOPs(samples: samples)
        if json {
            print("{\"kernel\":\"fma peak probe\",\"threads\":1,\"gflops\":\(String(format: "%.1f", peak))}")
        } else {
            print("fma peak probe (12 SIMD16 chains)".padding(toLength: 44, withPad: " ", startingAt: 0)
                  + String(format: "         %9.1f", peak))
        }
        for c in cases {
            let micros = medianMicroseconds(samples: samples, useCPUTime: pool.threadCount == 1, c.run)
            let gflops = c.macs > 0 ? 2 * Double(c.macs) / (micros * 1000) : 0
            if json {
                print("{\"kernel\":\"\(c.name)\",\"threads\":\(pool.threadCount),\"median_us\":\(String(format: "%.3f", micros)),\"gflops\":\(String(format: "%.1f", gflops))}")
            } else {
                let rate = c.macs > 0 ? String(format: "%9.1f", gflops)
                                      : String(format: "%6.2f G elem/s", Double(c.elements) / (micros * 1000))
                print(c.name.padding(toLength: 44, withPad: " ", startingAt: 0) + String(format: "%8.2f ", micros) + rate)
            }
        }
    }

    /// Nanoseconds of CPU time of the calling thread.
    static func threadCPUTime() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }

    static func now(_ useCPUTime: Bool) -> UInt64 {
        useCPUTime ? threadCPUTime() : DispatchTime.now().uptimeNanoseconds
    }

    static func medianMicroseconds(samples: Int, useCPUTime: Bool, _ body: () -> Void) -> Double {
        for _ in 0..<3 { body() }
        var repeats = 1
        while true {
            let start = now(useCPUTime)
            for _ in 0..<repeats { body() }
            let elapsed = now(useCPUTime) - start
            if elapsed >= 1_000_000 || repeats >= 1 << 20 { break }
            repeats *= 2
        }
        var times: [Double] = []
        for _ in 0..<samples {
            let start = now(useCPUTime)
            for _ in 0..<repeats { body() }
            times.append(Double(now(useCPUTime) - start) / Double(repeats) / 1000)
        }
        times.sort()
        return times[times.count / 2]
    }

    /// GFLOP/s of 12 independent SIMD16 FMA chains (the core's FMA throughput), thread CPU time.
    static func peakGFLOPs(samples: Int) -> Double {
        let iterations = 20_000
        var sink: Float = 0
        let micros = medianMicroseconds(samples: samples, useCPUTime: true) {
            sink += fmaProbe(iterations, sink == 12345 ? 1 : 1e-9)
        }
        if sink.isNaN { print("") }
        return Double(iterations) * 12 * 32 / (micros * 1000)
    }

    @inline(never)
    static func fmaProbe(_ n: Int, _ s: Float) -> Float {
        typealias V = SIMD16<Float>
        var a0 = V(repeating: 1), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0
        var a6 = a0, a7 = a0, a8 = a0, a9 = a0, a10 = a0, a11 = a0
        let x = V(repeating: 0.999)
        for _ in 0..<n {
            if VBG_TARGET_FMA != 0 {
                a0 = a0.addingProduct(s, x); a1 = a1.addingProduct(s, x); a2 = a2.addingProduct(s, x)
                a3 = a3.addingProduct(s, x); a4 = a4.addingProduct(s, x); a5 = a5.addingProduct(s, x)
                a6 = a6.addingProduct(s, x); a7 = a7.addingProduct(s, x); a8 = a8.addingProduct(s, x)
                a9 = a9.addingProduct(s, x); a10 = a10.addingProduct(s, x); a11 = a11.addingProduct(s, x)
            } else {
                a0 = a0 + s * x; a1 = a1 + s * x; a2 = a2 + s * x; a3 = a3 + s * x; a4 = a4 + s * x; a5 = a5 + s * x
                a6 = a6 + s * x; a7 = a7 + s * x; a8 = a8 + s * x; a9 = a9 + s * x; a10 = a10 + s * x; a11 = a11 + s * x
            }
        }
        let t0 = a0 + a1 + a2 + a3, t1 = a4 + a5 + a6 + a7, t2 = a8 + a9 + a10 + a11
        let t = t0 + t1 + t2
        return t[0] + t[7]
    }

    static func random(_ count: Int, seed: Int) -> [Float] {
        var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int(state >> 40) % 2001 - 1000) / 1000
        }
    }

    static func map(_ channels: Int, _ height: Int, _ width: Int, pad: Int = 0, seed: Int = 1) -> FeatureMapStorage {
        let storage = FeatureMapStorage(channels: channels, layout: .padded(width: width, height: height, pad: pad))
        storage.setInterior(random(channels * height * width, seed: seed))
        return storage
    }

    /// Every case, one kernel family after another.
    static func makeCases(pool: WorkerPool) -> [Case] {
        inputCases(pool: pool) + layerCases(pool: pool) + gateCases(pool: pool) + upsamplingCases(pool: pool)
            + elementwiseCases(pool: pool) + resizeCases(pool: pool)
    }

    /// The model's input: the stem convolution and the transpose of RGB pixels into its planes.
    private static func inputCases(pool: WorkerPool) -> [Case] {
        var cases: [Case] = []
        // The stem: 3x3 stride 2, 3→16, 256² → 128², hard-swish.
        do {
            let weights = ConvolutionWeights(weights: random(16 * 27, seed: 3), bias: random(16, seed: 4),
                                             outputChannels: 16, inputChannels: 3, kernelSize: 3)
            let input = map(3, 256, 256, pad: 1), output = FeatureMapStorage(channels: 16, layout: .dense(width: 128, height: 128))
            cases.append(Case(name: "stem conv3x3 s2 3->16 256x256", macs: 27 * 16 * 128 * 128, elements: 16 * 128 * 128) {
                convolution(input.map, weights: weights, stride: 2, padTop: 0, padLeft: 0, activation: .hardSwish,
                            output: output.map, pool: pool)
            })
        }
        // The input transpose: NHWC RGB pixels into the stem's zero-bordered planes.
        do {
            let pixels = random(3 * 256 * 256, seed: 5), output = FeatureMapStorage(channels: 3, layout: .padded(width: 256, height: 256, pad: 1))
            cases.append(Case(name: "deinterleave 3ch 256x256 ->pad1", macs: 0, elements: 3 * 256 * 256) {
                pixels.withUnsafeBufferPointer { deinterleaveChannels($0.baseAddress!, output: output.map, pool: pool) }
            })
        }
        return cases
    }

    /// The 1x1 and depthwise convolutions on the shapes of the models' layers.
    private static func layerCases(pool: WorkerPool) -> [Case] {
        var cases: [Case] = []

        func pointwise(_ cin: Int, _ cout: Int, _ h: Int, _ w: Int, activation: Activation = .relu, outputPad: Int = 0) {
            let weights = PointwiseWeights(weights: random(cin * cout, seed: cin), bias: random(cout, seed: cout),
                                           outputChannels: cout, inputChannels: cin)
            let input = map(cin, h, w), output = FeatureMapStorage(channels: cout, layout: .padded(width: w, height: h, pad: outputPad))
            let name = "conv1x1 \(cin)->\(cout) \(h)x\(w)" + (outputPad > 0 ? " ->pad\(outputPad)" : "")
            cases.append(Case(name: name, macs: cin * cout * h * w, elements: cout * h * w) {
                pointwiseConvolution(input.map, weights: weights, activation: activation, output: output.map, pool: pool)
            })
        }
        func depthwise(_ c: Int, _ h: Int, _ w: Int, k: Int, stride: Int) {
            let pads = stride == 1 ? (k / 2, k / 2) : (k == 3 ? (0, 0) : (1, 1))
            let weights = DepthwiseWeights(weights: random(c * k * k, seed: k), bias: random(c, seed: c), channels: c, kernelSize: k)
            let input = map(c, h, w, pad: k / 2)
            let output = FeatureMapStorage(channels: c, layout: .dense(width: w / stride, height: h / stride))
            cases.append(Case(name: "dw\(k)x\(k) s\(stride) \(c)ch \(h)x\(w)", macs: c * k * k * (h / stride) * (w / stride),
                              elements: c * (h / stride) * (w / stride)) {
                depthwiseConvolution(input.map, weights: weights, stride: stride, padTop: pads.0, padLeft: pads.1,
                                     activation: .relu, output: output.map, pool: pool)
            })
        }

        // A 16 -> 72 -> 24 expansion block at 64x64, the shape the kernels are tuned on.
        pointwise(16, 72, 64, 64)
        pointwise(72, 24, 64, 64, activation: .none)
        depthwise(72, 64, 64, k: 3, stride: 1)
        depthwise(72, 64, 64, k: 3, stride: 2)
        // The general model's layers.
        pointwise(16, 16, 128, 128)
        pointwise(16, 16, 128, 128, outputPad: 1)
        depthwise(16, 128, 128, k: 3, stride: 2)
        pointwise(16, 72, 64, 64, outputPad: 1)
        pointwise(72, 24, 32, 32, activation: .none)
        pointwise(24, 88, 32, 32, outputPad: 1)
        depthwise(88, 32, 32, k: 3, stride: 1)
        pointwise(88, 24, 32, 32, activation: .none)
        pointwise(24, 96, 32, 32, activation: .hardSwish, outputPad: 2)
        depthwise(96, 32, 32, k: 5, stride: 2)
        pointwise(32, 128, 16, 16, activation: .hardSwish, outputPad: 2)
        depthwise(128, 16, 16, k: 5, stride: 1)
        pointwise(128, 32, 16, 16, activation: .none)
        pointwise(128, 24, 32, 32, activation: .none)
        pointwise(16, 16, 64, 64, outputPad: 1)
        depthwise(16, 64, 64, k: 3, stride: 1)
        depthwise(16, 128, 128, k: 3, stride: 1)
        return cases
    }

    /// Squeeze-excite and the attention gate.
    private static func gateCases(pool: WorkerPool) -> [Case] {
        var cases: [Case] = []
        do {
            let c = 96, hidden = 24
            let weights = GateWeights(reduce: random(c * hidden, seed: 5), reduceBias: random(hidden, seed: 6),
                                      expand: random(c * hidden, seed: 7), expandBias: random(c, seed: 8),
                                      channels: c, hiddenChannels: hidden)
            let x = map(c, 16, 16), out = map(c, 16, 16)
            cases.append(Case(name: "squeeze-excite 96->24 16x16", macs: 0, elements: c * 256) {
                squeezeExcite(x.map, weights: weights, output: out.map, pool: pool)
            })
        }
        do {
            let c = 16
            let weights = GateWeights(reduce: random(c * c, seed: 5), reduceBias: random(c, seed: 6),
                                      expand: random(c * c, seed: 7), expandBias: random(c, seed: 8),
                                      channels: c, hiddenChannels: c)
            let s = map(c, 128, 128, seed: 1), u = map(c, 128, 128, seed: 2), out = map(c, 128, 128)
            cases.append(Case(name: "attention gate 16ch 128x128", macs: 0, elements: c * 128 * 128) {
                attentionGate(skip: s.map, upsampled: u.map, weights: weights, output: out.map, pool: pool)
            })
        }
        return cases
    }

    /// The decoder's upsampling: bilinear x2 and the 2x2 stride-2 transposed convolution.
    private static func upsamplingCases(pool: WorkerPool) -> [Case] {
        var cases: [Case] = []
        for (c, h, w) in [(128, 16, 16), (24, 32, 32), (16, 64, 64)] {
            let x = map(c, h, w), out = map(c, 2 * h, 2 * w)
            cases.append(Case(name: "resize x2 \(c)ch \(h)x\(w)", macs: 0, elements: c * 4 * h * w) {
                resizeBilinear2x(x.map, output: out.map, pool: pool)
            })
        }
        do {
            let weights = TransposedConvolutionWeights(weights: random(64, seed: 9), bias: [0.1], inputChannels: 16, outputChannels: 1)
            let x = map(16, 128, 128), out = map(1, 256, 256)
            cases.append(Case(name: "tconv2x2 s2 16->1 128x128 +sigmoid", macs: 16 * 4 * 128 * 128, elements: 256 * 256) {
                transposedConvolution2x2(x.map, weights: weights, activation: .sigmoid, output: out.map, pool: pool)
            })
        }
        return cases
    }

    /// Per-channel element-wise kernels, pooling, channel copies and the channel softmax.
    private static func elementwiseCases(pool: WorkerPool) -> [Case] {
        var cases: [Case] = []
        do {
            let c = 48, h = 80, w = 80
            let x = map(c, h, w), out = map(c, h, w), padded = map(c, h, w, pad: 1)
            let scale = FloatBuffer(random(c, seed: 11)), shift = FloatBuffer(random(c, seed: 12))
            cases.append(Case(name: "affine \(c)ch \(h)x\(w)", macs: 0, elements: c * h * w) {
                channelAffine(x.map, scale: scale.baseAddress, shift: shift.baseAddress, output: out.map, pool: pool)
            })
            cases.append(Case(name: "prelu \(c)ch \(h)x\(w)", macs: 0, elements: c * h * w) {
                parametricReLU(x.map, slope: scale.baseAddress, slopeIsPerChannel: true, output: out.map, pool: pool)
            })
            cases.append(Case(name: "clip \(c)ch \(h)x\(w) (1 thread)", macs: 0, elements: c * h * w) {
                clamp(x.map.base, lower: -0.5, upper: 0.5, output: out.map.base, count: c * h * w)
            })
            cases.append(Case(name: "avgpool 3x3 s1 pad1 \(c)ch \(h)x\(w)", macs: 0, elements: c * h * w) {
                pool2D(x.map, kind: .average(countIncludesPad: false), kernelHeight: 3, kernelWidth: 3, strideHeight: 1,
                       strideWidth: 1, padTop: 1, padLeft: 1, output: out.map, pool: pool)
            })
            let half = map(c, h / 2, w / 2)
            cases.append(Case(name: "maxpool 3x3 s2 pad1 \(c)ch \(h)x\(w)", macs: 0, elements: c * h * w / 4) {
                pool2D(x.map, kind: .max, kernelHeight: 3, kernelWidth: 3, strideHeight: 2, strideWidth: 2,
                       padTop: 1, padLeft: 1, output: half.map, pool: pool)
            })
            cases.append(Case(name: "copy channels \(c)ch \(h)x\(w) ->pad1 (1 thread)", macs: 0, elements: c * h * w) {
                copyChannels(x.map, output: padded.map)
            })
            cases.append(Case(name: "shuffle channels \(c)ch g2 \(h)x\(w) (1 thread)", macs: 0, elements: c * h * w) {
                shuffleChannels(x.map, groups: 2, output: out.map)
            })
        }
        do {
            let x = map(2, 320, 320), out = map(2, 320, 320)
            cases.append(Case(name: "softmax 2ch 320x320", macs: 0, elements: 2 * 320 * 320) {
                softmaxOverChannels(x.map, output: out.map, pool: pool)
            })
        }
        return cases
    }

    /// Table-driven resize: bilinear (ONNX half_pixel) and nearest.
    private static func resizeCases(pool: WorkerPool) -> [Case] {
        var cases: [Case] = []
        // ONNX Resize linear half_pixel 65 → 513 (a DeepLab-style logits upscale).
        func halfPixel(_ input: Int, _ output: Int) -> ResizeAxis {
            var first: [Int] = [], second: [Int] = [], weight: [Float] = []
            for o in 0..<output {
                let x = min(max((Double(o) + 0.5) * Double(input) / Double(output) - 0.5, 0), Double(input - 1))
                first.append(Int(x))
                second.append(min(Int(x) + 1, input - 1))
                weight.append(Float(x - Double(Int(x))))
            }
            return ResizeAxis(first: first, second: second, weight: weight)
        }
        let axis = halfPixel(65, 513)
        let x = map(2, 65, 65), out = map(2, 513, 513)
        cases.append(Case(name: "resize bilinear 2ch 65x65->513x513", macs: 0, elements: 2 * 513 * 513) {
            resizeBilinear(x.map, rows: axis, columns: axis, output: out.map, pool: pool)
        })
        let small = map(16, 64, 64), doubled = map(16, 128, 128)
        let indices = (0..<128).map { $0 / 2 }
        cases.append(Case(name: "resize nearest x2 16ch 64x64", macs: 0, elements: 16 * 128 * 128) {
            resizeNearest(small.map, rows: indices, columns: indices, output: doubled.map, pool: pool)
        })
        return cases
    }
}
