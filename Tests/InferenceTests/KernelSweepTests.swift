import Foundation
import Testing
import TestSupport
import Kernels
@testable import Inference

/// Every fast kernel and single-node fast step, on seeded random shapes and attributes of what it
/// takes, as one-node ONNX graphs (the convolutions with the activation or residual Add their
/// step absorbs) run on the fast path (1 and 2 threads) and on the reference path and compared
/// (`PathComparison`: relative to the largest |reference| output, 1e-5).
///
/// Sizes are drawn from lists that hold every internal tile or block size ± 1 (8 output channels,
/// 16, 32 and 48 pixels, 128, 512, …), primes, and sizes past every scratch or panel limit, then
/// cut down (largest dimension first) to the multiply-add budget of the run: a few cases per
/// kernel in `swift test`, many more and larger with `VBG_LONG_TESTS=1`. The seed is printed;
/// `VBG_TEST_SEED=N` replays a run.
@Suite("Fast kernels swept against the reference path")
struct KernelSweepTests {
    typealias B = ONNXBuilder
    typealias P = PathComparison

    static let seed = TestRun.seed("KernelSweepTests", default: 23)
    /// Cases per kernel.
    static let cases = TestRun.isLong ? 60 : 5
    /// Multiply-adds (or elements, for elementwise kernels) per case.
    static let budget = TestRun.isLong ? 40_000_000 : 300_000

    /// Channel counts: tile sizes ± 1, primes, the old scratch limits (170, 512, 1365) ± 1, up to 4096.
    static let channelCounts = [1, 2, 3, 4, 5, 7, 8, 9, 11, 13, 15, 16, 17, 23, 24, 25, 31, 32, 33, 47, 48, 49, 63, 64, 65,
                                97, 127, 128, 129, 169, 170, 171, 251, 256, 257, 509, 511, 512, 513, 1021, 1024, 1365,
                                1366, 2039, 2048, 4093, 4096]
    /// Spatial sizes: vector and tile widths ± 1 (16, 32, 48), odd and prime, up to 100.
    static let spatialSizes = [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 13, 15, 16, 17, 19, 23, 29, 31, 32, 33, 37, 47, 48, 49, 53,
                               61, 64, 65, 79, 97, 100]

    /// The generator of one test: the run's seed mixed with the test's own number, so each test
    /// draws the same cases whichever tests run.
    static func random(_ test: UInt64) -> SeededGenerator { SeededGenerator(seed: seed &* 0x2545_F491_4F6C_DD1D &+ test) }

    /// Halves a randomly chosen one of `dims` (of those at index `shrinkable`) until `cost(dims)`
    /// fits the budget, so that a large channel count survives on a small map and the other way round.
    static func fit(_ dims: inout [Int], shrinkable: [Int], _ random: inout SeededGenerator, cost: ([Int]) -> Int) {
        while cost(dims) > budget {
            let candidates = shrinkable.filter { dims[$0] > 1 }
            guard !candidates.isEmpty else { return }
            let i = random.pick(candidates)
            dims[i] = (dims[i] + 1) / 2
        }
    }

    /// An activation the convolution steps absorb (or run after), as the nodes after `value`.
    enum Act: CaseIterable {
        case none, relu, relu6, hardSwish, sigmoid, silu

        func nodes(_ input: String, _ output: String) -> [[UInt8]] {
            switch self {
            case .none: []
            case .relu: [B.node("Relu", inputs: [input], outputs: [output])]
            case .relu6: [B.node("Clip", inputs: [input, "zero", "six"], outputs: [output])]
            case .hardSwish: [B.node("HardSwish", inputs: [input], outputs: [output])]
            case .sigmoid: [B.node("Sigmoid", inputs: [input], outputs: [output])]
            case .silu: [B.node("Sigmoid", inputs: [input], outputs: [output + "_sigmoid"]),
                         B.node("Mul", inputs: [input, output + "_sigmoid"], outputs: [output])]
            }
        }

        var initializers: [[UInt8]] { self == .relu6 ? [B.floatTensor("zero", [], [0]), B.floatTensor("six", [], [6])] : [] }
    }

    /// A 2-D convolution and what follows it.
    struct ConvolutionCase: CustomStringConvertible {
        var inputChannels: Int, outputChannels: Int, group = 1
        var kernel: (Int, Int) = (1, 1), stride: (Int, Int) = (1, 1), dilation: (Int, Int) = (1, 1)
        /// top, left, bottom, right
        var pads = [0, 0, 0, 0]
        var height: Int, width: Int
        var bias = true
        var activation = Act.none
        /// An Add of the input after the activation (same shapes only).
        var residual = false
        /// An Add of a second graph input `r` of the output's shape after the activation (what a
        /// dense K×K absorbs: not its own input).
        var addsOther = false
        /// A Relu after the residual Add (a ResNet block's end).
        var rectified = false

        var outputHeight: Int { (height + pads[0] + pads[2] - ((kernel.0 - 1) * dilation.0 + 1)) / stride.0 + 1 }
        var outputWidth: Int { (width + pads[1] + pads[3] - ((kernel.1 - 1) * dilation.1 + 1)) / stride.1 + 1 }
        var valid: Bool {
            height + pads[0] + pads[2] >= (kernel.0 - 1) * dilation.0 + 1 && width + pads[1] + pads[3] >= (kernel.1 - 1) * dilation.1 + 1
        }
        /// Whether some output window reads an input pixel (not only padding), on both axes.
        var readsInput: Bool {
            func reads(_ outputs: Int, _ input: Int, _ k: Int, _ s: Int, _ d: Int, _ pad: Int) -> Bool {
                (0..<outputs).contains { o in (0..<k).contains { (0..<input).contains(o * s - pad + $0 * d) } }
            }
            return reads(outputHeight, height, kernel.0, stride.0, dilation.0, pads[0])
                && reads(outputWidth, width, kernel.1, stride.1, dilation.1, pads[1])
        }
        /// Terms of each output's sum.
        var fanIn: Int { inputChannels / group * kernel.0 * kernel.1 }
        var canAddInput: Bool {
            inputChannels == outputChannels && outputHeight == height && outputWidth == width
        }

        var description: String {
            "Conv \(inputChannels)→\(outputChannels) group \(group) on \(height)×\(width), kernel \(kernel), stride \(stride), "
                + "dilation \(dilation), pads \(pads), bias \(bias), then \(activation)\(residual ? " + input" : "")"
                + "\(addsOther ? " + r" : "")\(rectified ? ", Relu" : "")"
        }

        func model(_ random: inout SeededGenerator) -> (bytes: [UInt8], feeds: [String: [Float]]) {
            let adds = residual || addsOther, summed = adds && rectified ? "s" : "y"
            let activated = adds ? "a" : "y", convolved = activation == .none ? activated : "c"
            var nodes = [B.node("Conv", inputs: ["x", "w"] + (bias ? ["b"] : []), outputs: [convolved], attributes: [
                .ints("kernel_shape", [Int64(kernel.0), Int64(kernel.1)]), .ints("strides", [Int64(stride.0), Int64(stride.1)]),
                .ints("dilations", [Int64(dilation.0), Int64(dilation.1)]), .ints("pads", pads.map(Int64.init)),
                .int("group", Int64(group))])]
            nodes += activation.nodes(convolved, activated)
            if adds { nodes.append(B.node("Add", inputs: [activated, residual ? "x" : "r"], outputs: [summed])) }
            if adds && rectified { nodes.append(B.node("Relu", inputs: [summed], outputs: ["y"])) }
            var initializers = [P.tensor("w", [outputChannels, inputChannels / group, kernel.0, kernel.1], &random,
                                         scale: 2 / Float(fanIn).squareRoot())]
            if bias { initializers.append(P.tensor("b", [outputChannels], &random)) }
            let other = addsOther ? [P.value("r", [1, outputChannels, outputHeight, outputWidth])] : []
            let bytes = B.model(nodes: nodes, initializers: initializers + activation.initializers,
                                inputs: [P.value("x", [1, inputChannels, height, width])] + other,
                                outputs: [B.valueInfo("y", dims: nil)])
            var feeds = ["x": random.floats(inputChannels * height * width)]
            if addsOther { feeds["r"] = random.floats(outputChannels * outputHeight * outputWidth) }
            return (bytes, feeds)
        }
    }

    /// One case: a model, its inputs, and whether the fast path takes every node of it.
    struct Made {
        var label: String, bytes: [UInt8], feeds: [String: [Float]]
        var fast = true
    }

    /// Runs `count` cases made by `make`, skipping the invalid ones it returns nil for.
    func sweep(_ test: UInt64, _ kind: String, _ make: (inout SeededGenerator) -> Made?,
               sourceLocation: SourceLocation = #_sourceLocation) throws {
        var random = Self.random(test)
        var ran = 0, attempts = 0, worst: (Float, String) = (0, "")
        while ran < Self.cases && attempts < 100 * Self.cases {
            attempts += 1
            guard let made = make(&random) else { continue }
            if ProcessInfo.processInfo.environment["VBG_SWEEP_VERBOSE"] == "1" { print("\(kind) case \(ran): \(made.label)") }
            let error = try P.check(made.bytes, feeds: made.feeds, fast: made.fast, "\(kind) case \(ran): \(made.label)",
                                    sourceLocation: sourceLocation)
            if error >= worst.0 { worst = (error, made.label) }
            ran += 1
        }
        #expect(ran == Self.cases, "\(kind): only \(ran) valid cases", sourceLocation: sourceLocation)
        print("\(kind): \(ran) cases, worst relative error \(worst.0) (\(worst.1))")
    }

    static func convolution(_ c: ConvolutionCase, _ random: inout SeededGenerator) -> Made? {
        // A case whose every window lies in the padding computes only the bias: not a test of the sums.
        guard c.valid, c.outputHeight >= 1, c.outputWidth >= 1, c.fanIn <= P.maximumTerms, c.readsInput else { return nil }
        let (bytes, feeds) = c.model(&random)
        return Made(label: c.description, bytes: bytes, feeds: feeds)
    }

    @Test("1x1 convolution (and grouped): any channel counts, sizes, bias, activation, residual")
    func pointwiseSweep() throws {
        try sweep(1, "1x1") { random in
            var dims = [random.pick(Self.channelCounts), random.pick(Self.channelCounts), random.pick(Self.spatialSizes),
                        random.pick(Self.spatialSizes)]
            Self.fit(&dims, shrinkable: [0, 1, 2, 3], &random) { $0.reduce(1, *) }
            var c = ConvolutionCase(inputChannels: dims[0], outputChannels: dims[1], height: dims[2], width: dims[3])
            let groups = [1, 2, 3, 4, 8].filter { c.inputChannels % $0 == 0 && c.outputChannels % $0 == 0 }
            c.group = Bool.random(using: &random) ? 1 : random.pick(groups)
            c.bias = Bool.random(using: &random)
            c.activation = random.pick(Act.allCases)
            c.residual = c.canAddInput && Bool.random(using: &random)
            return Self.convolution(c, &random)
        }
    }

    @Test("strided 1x1 convolution (the pixels it reads gathered, then the 1x1's GEMM): strides 2 to 4, odd and even sizes, small maps and large, activation")
    func subsampledPointwiseSweep() throws {
        try sweep(26, "strided 1x1") { random in
            let stride = random.pick([2, 2, 3, 4])
            var dims = [random.pick(Self.channelCounts), random.pick(Self.channelCounts), random.pick(Self.spatialSizes),
                        random.pick(Self.spatialSizes)]
            Self.fit(&dims, shrinkable: [0, 1, 2, 3], &random) { $0.reduce(1, *) / (stride * stride) }
            var c = ConvolutionCase(inputChannels: dims[0], outputChannels: dims[1], stride: (stride, stride),
                                    height: dims[2], width: dims[3])
            c.bias = Bool.random(using: &random)
            c.activation = random.pick(Act.allCases)
            return Self.convolution(c, &random)
        }
    }

    @Test("convolutions on small maps (1x1 to 9x8; K×K on rows of 8 or fewer runs as the packed patch GEMM), channels into the thousands")
    func smallMapSweep() throws {
        try sweep(14, "small-map") { random in
            // Pixel counts around the 12-row panels (11, 12, 13, 24, 25) and the one-pixel product.
            let sides = [(1, 1), (1, 2), (2, 2), (3, 3), (3, 4), (4, 3), (2, 6), (5, 5), (1, 13), (4, 6), (7, 7), (6, 9), (5, 7),
                         (8, 8), (3, 8), (9, 8)]
            let (height, width) = random.pick(sides)
            let k = random.pick([1, 1, 3, 3, 5])
            var dims = [random.pick(Self.channelCounts), random.pick(Self.channelCounts)]
            Self.fit(&dims, shrinkable: [0, 1], &random) { $0[0] * $0[1] * height * width * k * k }
            let pads = k == 1 ? [0, 0, 0, 0] : (0..<4).map { _ in random.pick([0, k / 2, k - 1]) }
            var c = ConvolutionCase(inputChannels: dims[0], outputChannels: dims[1], kernel: (k, k), pads: pads,
                                    height: height, width: width)
            c.bias = Bool.random(using: &random)
            c.activation = random.pick(Act.allCases)
            c.residual = c.canAddInput && Bool.random(using: &random)
            return Self.convolution(c, &random)
        }
    }

    @Test("depthwise convolution: 3x3, 5x5 and other windows up to 16, strides 1 and 2, dilation, asymmetric pads")
    func depthwiseSweep() throws {
        try sweep(2, "depthwise") { random in
            let k = random.pick([2, 3, 3, 3, 4, 5, 5, 7, 9, 16])
            let dilation = random.pick([1, 1, 1, 2, 3, 4])
            let stride = random.pick([1, 2])
            var dims = [random.pick(Self.channelCounts), random.pick(Self.spatialSizes), random.pick(Self.spatialSizes)]
            Self.fit(&dims, shrinkable: [0, 1, 2], &random) { $0.reduce(1, *) * k * k }
            let pads = (0..<4).map { _ in random.pick(Array(0...min(8, (k - 1) * dilation))) }
            var c = ConvolutionCase(inputChannels: dims[0], outputChannels: dims[0], group: dims[0], kernel: (k, k),
                                    stride: (stride, stride), dilation: (dilation, dilation), pads: pads,
                                    height: dims[1], width: dims[2])
            c.bias = Bool.random(using: &random)
            c.activation = random.pick(Act.allCases)
            c.residual = c.canAddInput && Bool.random(using: &random)
            return Self.convolution(c, &random)
        }
    }

    @Test("depthwise convolution on small maps (rows of at most 24 outputs run vectorised over channels where the input's blocks fit the scratch): channels into the thousands, windows up to 9, strides 1 and 2, dilation, asymmetric pads")
    func smallMapDepthwiseSweep() throws {
        try sweep(15, "small-map depthwise") { random in
            let k = random.pick([2, 3, 3, 3, 5, 5, 7, 9])
            let dilation = random.pick([1, 1, 1, 2, 3])
            let stride = random.pick([1, 2])
            // Output widths around the routing limits (8, 9; 16, 17; 24, 25; stride 2's inputs of
            // 23 to 49, past what the scratch takes) and the 64-channel blocks ± 1.
            let sizes = [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 16, 17, 19, 23, 24, 25]
                + (stride == 2 ? [23, 24, 28, 31, 32, 33, 37, 40, 47, 49] : [])
            var dims = [random.pick(Self.channelCounts + [63, 64, 65, 127, 128, 129, 191, 192, 193, 960, 1152]),
                        random.pick(sizes), random.pick(sizes)]
            Self.fit(&dims, shrinkable: [0], &random) { $0.reduce(1, *) * k * k }
            let pads = (0..<4).map { _ in random.pick(Array(0...min(8, (k - 1) * dilation))) }
            var c = ConvolutionCase(inputChannels: dims[0], outputChannels: dims[0], group: dims[0], kernel: (k, k),
                                    stride: (stride, stride), dilation: (dilation, dilation), pads: pads,
                                    height: dims[1], width: dims[2])
            c.bias = Bool.random(using: &random)
            c.activation = random.pick(Act.allCases)
            c.residual = c.canAddInput && Bool.random(using: &random)
            return Self.convolution(c, &random)
        }
    }

    @Test("dense K×K convolution: windows 2…7, strides 1 and 2, dilation, asymmetric pads, groups, the 3x3 s2 stem, a residual and a Relu after it")
    func denseSweep() throws {
        try sweep(3, "dense") { random in
            let k = random.pick([2, 3, 3, 3, 4, 5, 7])
            let dilation = random.pick([1, 1, 1, 2, 3])
            let stride = random.pick([1, 2, 2])
            var dims = [random.pick(Self.channelCounts), random.pick(Self.channelCounts), random.pick(Self.spatialSizes),
                        random.pick(Self.spatialSizes)]
            if random.pick([false, false, true]) { dims[0] = 3 }   // an image stem
            let group = random.pick([1, 1, 1, 2, 3, 4])
            guard dims[0] % group == 0, dims[1] % group == 0 else { return nil }
            Self.fit(&dims, shrinkable: [0, 1, 2, 3], &random) { $0[0] / group * $0[1] * $0[2] * $0[3] * k * k / (stride * stride) }
            guard dims[0] % group == 0, dims[1] % group == 0 else { return nil }
            let pads = (0..<4).map { _ in random.pick(Array(0...min(8, (k - 1) * dilation))) }
            var c = ConvolutionCase(inputChannels: dims[0], outputChannels: dims[1], group: group, kernel: (k, k),
                                    stride: (stride, stride), dilation: (dilation, dilation), pads: pads,
                                    height: dims[2], width: dims[3])
            c.bias = Bool.random(using: &random)
            c.activation = random.pick(Act.allCases)
            c.residual = c.canAddInput && Bool.random(using: &random)
            Self.drawOtherResidual(&c, &random)
            return Self.convolution(c, &random)
        }
    }

    @Test("dense convolution only the small-map kernel runs: windows 8 to 11 and strides 3 and 4 (AlexNet's 11x11 stride-4 stem), image stems and wide inputs, pads up to 8, a residual and a Relu after it")
    func largeWindowSweep() throws {
        try sweep(27, "large window") { random in
            let (k, stride) = random.pick([(11, 4), (11, 4), (8, 1), (9, 2), (10, 3), (11, 1), (3, 3), (4, 4), (5, 3), (7, 4), (2, 4)])
            var dims = [random.pick(Self.channelCounts), random.pick(Self.channelCounts), random.pick(Self.spatialSizes),
                        random.pick(Self.spatialSizes)]
            if random.pick([false, true]) { dims[0] = 3 }   // an image stem
            dims[2] = max(dims[2], k)
            dims[3] = max(dims[3], k)
            Self.fit(&dims, shrinkable: [0, 1], &random) { $0[0] * $0[1] * $0[2] * $0[3] * k * k / (stride * stride) }
            let pads = (0..<4).map { _ in random.pick(Array(0...min(8, k - 1))) }
            var c = ConvolutionCase(inputChannels: dims[0], outputChannels: dims[1], kernel: (k, k), stride: (stride, stride),
                                    pads: pads, height: dims[2], width: dims[3])
            c.bias = Bool.random(using: &random)
            c.activation = random.pick(Act.allCases)
            c.residual = c.canAddInput && Bool.random(using: &random)
            Self.drawOtherResidual(&c, &random)
            return Self.convolution(c, &random)
        }
    }

    /// Half the cases without the input added get a second input `r` added (what a dense K×K
    /// absorbs), and half of those that add anything a Relu after the sum.
    static func drawOtherResidual(_ c: inout ConvolutionCase, _ random: inout SeededGenerator) {
        c.addsOther = !c.residual && Bool.random(using: &random)
        c.rectified = (c.residual || c.addsOther) && Bool.random(using: &random)
    }

    @Test("dense convolution with taps in the padding: dilations up to and past the map size, 1x1 maps, asymmetric pads, strides")
    func paddingTapSweep() throws {
        try sweep(13, "padding taps") { random in
            // Small maps (1x1 up to 17), where whole rows and columns of taps read only padding.
            let sizes = [1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17]
            let k = random.pick([2, 3, 3, 3, 5, 7])
            let stride = random.pick([1, 1, 2])
            var dims = [random.pick(Self.channelCounts), random.pick(Self.channelCounts), random.pick(sizes), random.pick(sizes)]
            let group = random.pick([1, 1, 1, 2])
            guard dims[0] % group == 0, dims[1] % group == 0 else { return nil }
            let side = max(dims[2], dims[3])
            // Below, at and past the map size, and DeepLabV3's ASPP rates.
            let dilation = random.pick([1, 2, 3, max(1, side - 1), side, side + 1, 12, 24, 36])
            Self.fit(&dims, shrinkable: [0, 1], &random) { $0[0] / group * $0[1] * $0[2] * $0[3] * k * k }
            guard dims[0] % group == 0, dims[1] % group == 0 else { return nil }
            let span = (k - 1) * dilation
            // "Same" borders (ASPP), or each side anywhere from 0 to the window's span.
            let pads = Bool.random(using: &random) ? [span / 2, span / 2, span - span / 2, span - span / 2]
                : (0..<4).map { _ in random.pick([0, 1, span / 2, span]) }
            var c = ConvolutionCase(inputChannels: dims[0], outputChannels: dims[1], group: group, kernel: (k, k),
                                    stride: (stride, stride), dilation: (dilation, dilation), pads: pads,
                                    height: dims[2], width: dims[3])
            c.bias = Bool.random(using: &random)
            c.activation = random.pick(Act.allCases)
            c.residual = c.canAddInput && Bool.random(using: &random)
            Self.drawOtherResidual(&c, &random)
            return Self.convolution(c, &random)
        }
    }

    @Test("dilated convolution with a border past 8 (ASPP at rate 12 on 12×12 to 24×20 maps, every tap reading the input for some output; 2 to 897 input channels, strides 1 and 2) runs on the small-map kernel, as the reference path does")
    func wideBorderDilation() throws {
        var random = SeededGenerator(seed: 12)
        // DeepLabV3's 960 → 256 at rate 12 on 16×16 shrunk to the tolerance's longest sum (897 · 9 taps).
        for (cin, cout, h, w, k, dilation, stride) in [(897, 33, 16, 16, 3, 12, 1), (40, 36, 13, 13, 3, 12, 1),
                                                       (5, 64, 24, 20, 3, 12, 1), (96, 7, 12, 17, 3, 9, 1),
                                                       (2, 31, 16, 16, 3, 12, 2), (40, 32, 20, 20, 5, 5, 1),
                                                       (33, 17, 17, 17, 3, 16, 1)] {
            let span = (k - 1) * dilation
            var c = ConvolutionCase(inputChannels: cin, outputChannels: cout,
                                    kernel: (k, k), stride: (stride, stride), dilation: (dilation, dilation),
                                    pads: [span / 2, span / 2, span - span / 2, span - span / 2], height: h, width: w)
            c.bias = true
            c.activation = random.pick(Act.allCases)
            let made = try #require(Self.convolution(c, &random))
            let session = try InferenceSession(model: try InferenceModel(bytes: made.bytes), path: .fast)
            #expect(session.steps.contains { $0 is SmallMapConvolutionStep } == smallMapTilesSpanRows, "\(made.label)")
            try PathComparison.check(made.bytes, feeds: made.feeds, made.label)
        }
    }

    @Test("3x3 convolutions Winograd runs whole (transformed weights of 4 MiB and more, with and without a residual) or on its sub-lattices (dilations 2 to 6, pads of the dilation), against the reference path; a dilated one with a residual stays on the direct kernel")
    func winogradWholeMapAndDilated() throws {
        var random = SeededGenerator(seed: 33)
        for (cin, cout, h, w, dilation, residual) in [(512, 130, 14, 20, 1, false), (300, 260, 16, 16, 1, true),
                                                      (256, 64, 32, 32, 2, false), (64, 130, 33, 31, 2, false),
                                                      (48, 40, 32, 32, 4, false), (24, 48, 31, 29, 3, false),
                                                      (40, 24, 24, 24, 6, false), (40, 40, 32, 32, 2, true)] {
            var c = ConvolutionCase(inputChannels: cin, outputChannels: cout, kernel: (3, 3), dilation: (dilation, dilation),
                                    pads: [dilation, dilation, dilation, dilation], height: h, width: w)
            c.bias = true
            c.activation = random.pick(Act.allCases)
            // A second input added (a dense K×K absorbs it; its own input it never takes as the residual).
            c.addsOther = residual
            let made = try #require(Self.convolution(c, &random))
            let session = try InferenceSession(model: try InferenceModel(bytes: made.bytes), path: .fast)
            let dilated = session.steps.contains { $0 is DilatedWinogradConvolutionStep }
            let winograd = session.steps.contains { $0 is WinogradConvolutionStep }
            let fits = dilation == 1 ? winogradFits(inputChannels: cin, outputChannels: cout, outputWidth: w, outputHeight: h)
                : dilatedWinogradFits(inputChannels: cin, outputChannels: cout, width: w, height: h, dilation: dilation)
            #expect(dilated == (fits && dilation > 1 && !residual), "\(made.label): sub-lattices")
            #expect(winograd == (fits && dilation == 1), "\(made.label): whole map")
            try PathComparison.check(made.bytes, feeds: made.feeds, made.label)
        }
    }

    @Test("patch convolution (what no direct kernel takes): rectangular windows, strides above 2, unequal axes, pads above 8")
    func patchSweep() throws {
        try sweep(4, "patch") { random in
            let kernel = (random.pick([1, 2, 3, 5, 8, 9]), random.pick([1, 2, 3, 4, 11]))
            let stride = (random.pick([1, 2, 3, 4]), random.pick([1, 2, 3]))
            let dilation = (random.pick([1, 1, 2]), random.pick([1, 1, 3]))
            var dims = [random.pick(Self.channelCounts), random.pick(Self.channelCounts), random.pick(Self.spatialSizes),
                        random.pick(Self.spatialSizes)]
            let group = random.pick([1, 1, 2, 3])
            Self.fit(&dims, shrinkable: [0, 1, 2, 3], &random) { $0[0] / group * $0[1] * $0[2] * $0[3] * kernel.0 * kernel.1 / (stride.0 * stride.1) }
            guard dims[0] % group == 0, dims[1] % group == 0 else { return nil }
            let pads = [random.pick([0, 1, 9]), random.pick([0, 2, 10]), random.pick([0, 1, 3]), random.pick([0, 9])]
            var c = ConvolutionCase(inputChannels: dims[0], outputChannels: dims[1], group: group, kernel: kernel,
                                    stride: stride, dilation: dilation, pads: pads, height: dims[2], width: dims[3])
            c.bias = Bool.random(using: &random)
            // Only what the direct kernels refuse, but for windows of unequal sides with one group and
            // equal strides and dilations: the small-map kernel takes those where its tiles over
            // output channels fill better (`runsOverChannels`), else patches (either way against
            // the reference path).
            let square = kernel.0 == kernel.1 && stride.0 == stride.1 && dilation.0 == dilation.1
            let smallMap = smallMapTilesSpanRows && group == 1 && kernel.0 <= 11 && stride.0 <= 4
            let direct = square && (kernel.0 == 1 ? pads.allSatisfy { $0 == 0 } && (stride.0 == 1 || group == 1)
                                    : pads.max()! <= 8 && (stride.0 <= 2 && kernel.0 <= 7 || smallMap))
            guard !direct else { return nil }
            return Self.convolution(c, &random)
        }
    }
}

extension KernelSweepTests {
    /// A one-node model of `op` reading the graph input `x` (and constants), writing `y`.
    static func oneNode(_ op: String, inputs: [String] = ["x"], attributes: [B.Attribute] = [], initializers: [[UInt8]] = [],
                        input shape: [Int], extraInputs: [(String, [Int])] = [], opset: Int64 = 17,
                        _ random: inout SeededGenerator, label: String) -> Made {
        let bytes = B.model(nodes: [B.node(op, inputs: inputs, outputs: ["y"], attributes: attributes)], initializers: initializers,
                            inputs: [P.value("x", shape)] + extraInputs.map { P.value($0.0, $0.1) },
                            outputs: [B.valueInfo("y", dims: nil)], opset: opset)
        var feeds = ["x": random.floats(shape.reduce(1, *))]
        for (name, dims) in extraInputs { feeds[name] = random.floats(dims.reduce(1, *)) }
        return Made(label: "\(op) \(label) of \(shape)", bytes: bytes, feeds: feeds)
    }

    @Test("transposed convolution: 2x2 stride 2, and any window, stride, dilation, pads and output padding")
    func transposedSweep() throws {
        try sweep(5, "ConvTranspose") { random in
            let doubling = Bool.random(using: &random)
            let kernel = doubling ? (2, 2) : (random.pick([1, 2, 3, 4, 5]), random.pick([1, 2, 3, 4]))
            let stride = doubling ? (2, 2) : (random.pick([1, 2, 3]), random.pick([1, 2, 4]))
            let dilation = doubling ? (1, 1) : (random.pick([1, 1, 2]), random.pick([1, 1, 3]))
            var dims = [random.pick(Self.channelCounts), random.pick(Self.channelCounts), random.pick(Self.spatialSizes),
                        random.pick(Self.spatialSizes)]
            Self.fit(&dims, shrinkable: [0, 1, 2, 3], &random) { $0.reduce(1, *) * kernel.0 * kernel.1 }
            let (cin, cout, h, w) = (dims[0], dims[1], dims[2], dims[3])
            let pads = doubling ? [0, 0, 0, 0] : [random.pick([0, 1, 2]), random.pick([0, 1]), random.pick([0, 1, 3]), random.pick([0, 2])]
            let outputPadding = doubling ? [0, 0] : [random.pick(Array(0..<max(stride.0, dilation.0))),
                                                     random.pick(Array(0..<max(stride.1, dilation.1)))]
            guard cin * kernel.0 * kernel.1 <= P.maximumTerms else { return nil }
            let outH = stride.0 * (h - 1) + outputPadding[0] + (kernel.0 - 1) * dilation.0 + 1 - pads[0] - pads[2]
            let outW = stride.1 * (w - 1) + outputPadding[1] + (kernel.1 - 1) * dilation.1 + 1 - pads[1] - pads[3]
            guard outH >= 1, outW >= 1 else { return nil }
            let bias = Bool.random(using: &random)
            var initializers = [P.tensor("w", [cin, cout, kernel.0, kernel.1], &random, scale: 2 / Float(cin).squareRoot())]
            if bias { initializers.append(P.tensor("b", [cout], &random)) }
            return Self.oneNode("ConvTranspose", inputs: ["x", "w"] + (bias ? ["b"] : []), attributes: [
                .ints("kernel_shape", [Int64(kernel.0), Int64(kernel.1)]), .ints("strides", [Int64(stride.0), Int64(stride.1)]),
                .ints("dilations", [Int64(dilation.0), Int64(dilation.1)]), .ints("pads", pads.map(Int64.init)),
                .ints("output_padding", outputPadding.map(Int64.init))], initializers: initializers,
                input: [1, cin, h, w], &random,
                label: "\(cin)→\(cout) kernel \(kernel) stride \(stride) dilation \(dilation) pads \(pads) output padding \(outputPadding) bias \(bias)")
        }
    }

    @Test("MatMul by a constant matrix (batched A too) and Gemm (B either way round, alpha, beta, a bias row)")
    func matrixSweep() throws {
        try sweep(6, "matrix") { random in
            var dims = [random.pick(Self.spatialSizes + [128, 129, 257]), random.pick(Self.channelCounts), random.pick(Self.channelCounts)]
            Self.fit(&dims, shrinkable: [0, 1, 2], &random) { $0.reduce(1, *) }
            let (m, k, n) = (dims[0], dims[1], dims[2])
            if Bool.random(using: &random) {
                let batch = random.pick([1, 1, 2, 3])
                let a = batch == 1 && Bool.random(using: &random) ? [m, k] : [batch, m, k]
                return Self.oneNode("MatMul", inputs: ["x", "b"], initializers: [P.tensor("b", [k, n], &random, scale: 2 / Float(k).squareRoot())],
                                    input: a, &random, label: "by [\(k), \(n)]")
            }
            let transB = Bool.random(using: &random), withC = Bool.random(using: &random)
            let alpha = random.pick([Float(1), 0.5, -1.25]), beta = random.pick([Float(1), 0.75])
            var initializers = [P.tensor("b", transB ? [n, k] : [k, n], &random, scale: 2 / Float(k).squareRoot())]
            let cShape = random.pick([[n], [1, n], [1], []])
            if withC { initializers.append(P.tensor("c", cShape, &random)) }
            return Self.oneNode("Gemm", inputs: ["x", "b"] + (withC ? ["c"] : []),
                                attributes: [.int("transB", transB ? 1 : 0), .float("alpha", alpha), .float("beta", beta)],
                                initializers: initializers, input: [m, k], &random,
                                label: "N \(n) transB \(transB) alpha \(alpha) beta \(beta) C \(withC ? "\(cShape)" : "none")")
        }
    }

    @Test("max and average pooling: windows 1…7 (rectangular), strides 1…3, asymmetric pads, ceil_mode, count_include_pad; global average")
    func poolSweep() throws {
        // Averages of inputs in [0, 2): a mean of values around 0 is mostly cancellation, whose
        // error relative to the (small) result says nothing about the kernel.
        let positive = { (made: Made) -> Made in
            var made = made
            made.feeds["x"] = made.feeds["x"]!.map { $0 + 1 }
            return made
        }
        try sweep(7, "pool") { random in
            if random.pick([false, false, false, true]) {
                // A global average, or an AveragePool whose window is the whole map.
                var dims = [random.pick(Self.channelCounts), random.pick(Self.spatialSizes), random.pick(Self.spatialSizes)]
                Self.fit(&dims, shrinkable: [0, 1, 2], &random) { $0.reduce(1, *) }
                let (c, h, w) = (dims[0], dims[1], dims[2])
                return positive(Bool.random(using: &random)
                    ? Self.oneNode("GlobalAveragePool", input: [1, c, h, w], &random, label: "")
                    : Self.oneNode("AveragePool", attributes: [.ints("kernel_shape", [Int64(h), Int64(w)])], input: [1, c, h, w],
                                   &random, label: "of the whole map"))
            }
            let kernel = (random.pick([1, 2, 3, 3, 5, 7]), random.pick([1, 2, 3, 3, 4, 7]))
            let stride = (random.pick([1, 1, 2, 3]), random.pick([1, 2, 2, 3]))
            var dims = [random.pick(Self.channelCounts), random.pick(Self.spatialSizes), random.pick(Self.spatialSizes)]
            Self.fit(&dims, shrinkable: [0, 1, 2], &random) { $0.reduce(1, *) * kernel.0 * kernel.1 }
            let (c, h, w) = (dims[0], dims[1], dims[2])
            let pads = [random.pick(Array(0..<kernel.0)), random.pick(Array(0..<kernel.1)),
                        random.pick(Array(0..<kernel.0)), random.pick(Array(0..<kernel.1))]
            guard h + pads[0] + pads[2] >= kernel.0, w + pads[1] + pads[3] >= kernel.1 else { return nil }
            let ceil = Bool.random(using: &random), max = Bool.random(using: &random), includePad = Bool.random(using: &random)
            var attributes: [B.Attribute] = [.ints("kernel_shape", [Int64(kernel.0), Int64(kernel.1)]),
                                             .ints("strides", [Int64(stride.0), Int64(stride.1)]),
                                             .ints("pads", pads.map(Int64.init)), .int("ceil_mode", ceil ? 1 : 0)]
            if !max { attributes.append(.int("count_include_pad", includePad ? 1 : 0)) }
            var made = Self.oneNode(max ? "MaxPool" : "AveragePool", attributes: attributes, input: [1, c, h, w], &random,
                                    label: "kernel \(kernel) stride \(stride) pads \(pads) ceil \(ceil)"
                                        + (max ? "" : " count_include_pad \(includePad)"))
            // An average counting the pads whose last window ceil_mode extends past the end pad is
            // left to the reference kernel (the fast kernel's divisor is always the full window).
            let overhangs = { (input: Int, k: Int, s: Int, begin: Int, end: Int) -> Bool in
                var out = (input + begin + end - k + (ceil ? s - 1 : 0)) / s + 1
                if ceil && (out - 1) * s >= input + begin { out -= 1 }
                return (out - 1) * s - begin + k > input + end
            }
            made.fast = max || !includePad || !(overhangs(h, kernel.0, stride.0, pads[0], pads[2])
                                                || overhangs(w, kernel.1, stride.1, pads[1], pads[3]))
            return max ? made : positive(made)
        }
    }

    @Test("ReduceMean: NCHW and NHWC spatial means (the fast kernel), any other run of axes, keepdims, and axes it leaves to the reference kernel")
    func meanSweep() throws {
        try sweep(16, "ReduceMean") { random in
            let rank = random.pick([2, 3, 4, 4, 4, 5])
            var dims = (0..<rank).map { _ in random.pick(Self.channelCounts + Self.spatialSizes) }
            Self.fit(&dims, shrinkable: Array(0..<rank), &random) { $0.reduce(1, *) }
            if rank == 4 && Bool.random(using: &random) { dims[0] = 1 }
            // A run of axes (what the fast kernel takes), or any non-empty set.
            let axes: [Int]
            if random.pick([true, true, true, false]) {
                let first = Int.random(in: 0..<rank, using: &random)
                axes = Array(first...Int.random(in: first..<rank, using: &random))
            } else {
                axes = (0..<rank).filter { _ in Bool.random(using: &random) }
                guard !axes.isEmpty else { return nil }
            }
            let keepdims = Bool.random(using: &random)
            var made = Self.oneNode("ReduceMean", attributes: [.ints("axes", axes.map(Int64.init)), .int("keepdims", keepdims ? 1 : 0)],
                                    input: dims, &random, label: "axes \(axes) keepdims \(keepdims)")
            // Means of values in [0, 2) (see poolSweep).
            made.feeds["x"] = made.feeds["x"]!.map { $0 + 1 }
            // The fast kernel takes axes that are one run once axes of size 1 are left out, and
            // means of at most 2^16 elements.
            let reduced = axes.filter { dims[$0] > 1 }
            made.fast = !reduced.isEmpty && (reduced.first!...reduced.last!).allSatisfy { dims[$0] == 1 || axes.contains($0) }
                && reduced.map { dims[$0] }.reduce(1, *) <= 1 << 16
            return made
        }
    }

    @Test("Pad (constant, edge pads and crops) of NCHW and of NHWC maps: the plane gather's runs; Slice of channels beside them")
    func padSweep() throws {
        try sweep(17, "Pad") { random in
            var dims = [1, random.pick(Self.channelCounts), random.pick(Self.spatialSizes), random.pick(Self.spatialSizes)]
            Self.fit(&dims, shrinkable: [1, 2, 3], &random) { $0.reduce(1, *) }
            let channelsLast = Bool.random(using: &random)
            if channelsLast { dims = [1, dims[2], dims[3], dims[1]] }
            // Pads (negative: crops) on the two spatial axes, none on the others.
            let spatial = channelsLast ? [1, 2] : [2, 3]
            var pads = [Int64](repeating: 0, count: 8)
            for axis in spatial {
                pads[axis] = Int64(random.pick([-1, 0, 0, 1, 1, 2, 3]))
                pads[4 + axis] = Int64(random.pick([-1, 0, 1, 1, 2]))
                guard Int64(dims[axis]) + pads[axis] + pads[4 + axis] >= 1 else { return nil }
            }
            if Bool.random(using: &random) {
                // A Slice of channels (axis 1 of NCHW, 3 of NHWC) instead.
                let axis = channelsLast ? 3 : 1
                guard dims[axis] > 1 else { return nil }
                let start = Int64(random.pick(Array(0..<dims[axis])))
                var made = Self.oneNode("Slice", inputs: ["x", "starts", "ends", "axes"],
                                        initializers: [B.int64Tensor("starts", [1], [start]),
                                                       B.int64Tensor("ends", [1], [Int64(dims[axis])]),
                                                       B.int64Tensor("axes", [1], [Int64(axis)])],
                                        input: dims, &random, label: "channels from \(start) on axis \(axis)")
                // Slice is its own operator (a strided loop), not an AxisGather: no fast step takes
                // it yet, and the sweep checks its values on the fast path's reference kernel.
                made.fast = false
                return made
            }
            let value = random.pick([Float(0), 0, 1.5])
            return Self.oneNode("Pad", inputs: ["x", "pads", "value"],
                                initializers: [B.int64Tensor("pads", [8], pads), B.floatTensor("value", [], [value])],
                                input: dims, &random, label: "pads \(pads) value \(value)")
        }
    }

    @Test("Resize: bilinear (×2 half-pixel and by tables) and nearest, every coordinate mode, scales and sizes")
    func resizeSweep() throws {
        try sweep(8, "Resize") { random in
            let linear = Bool.random(using: &random)
            var dims = [random.pick(Self.channelCounts), random.pick(Self.spatialSizes), random.pick(Self.spatialSizes)]
            Self.fit(&dims, shrinkable: [0, 1, 2], &random) { $0.reduce(1, *) * 16 }
            let (c, h, w) = (dims[0], dims[1], dims[2])
            let modes = ["half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"]
            let doubling = linear && random.pick([false, false, true])
            let transform = doubling ? "half_pixel" : random.pick(modes)
            var attributes: [B.Attribute] = [.string("mode", linear ? "linear" : "nearest"),
                                             .string("coordinate_transformation_mode", transform)]
            var label = "\(linear ? "linear" : "nearest") \(transform)"
            if !linear {
                let rounding = random.pick(["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"])
                attributes.append(.string("nearest_mode", rounding))
                label += " \(rounding)"
            }
            if doubling || Bool.random(using: &random) {
                let scales = doubling ? [1, 1, 2, 2]
                    : [Float(1), 1, random.pick([0.5, 1, 1.5, 2, 2, 3, 0.75, 2.5]), random.pick([0.5, 1, 1.25, 2, 2, 3, 0.6])]
                guard Int(Float(h) * scales[2]) >= 1, Int(Float(w) * scales[3]) >= 1 else { return nil }
                return Self.oneNode("Resize", inputs: ["x", "", "scales"], attributes: attributes,
                                    initializers: [B.floatTensor("scales", [4], scales)], input: [1, c, h, w], &random,
                                    label: label + " scales \(scales)")
            }
            let sizes = [1, c, random.pick(Self.spatialSizes), random.pick(Self.spatialSizes)]
            guard c * sizes[2] * sizes[3] <= Self.budget else { return nil }
            return Self.oneNode("Resize", inputs: ["x", "", "", "sizes"], attributes: attributes,
                                initializers: [B.int64Tensor("sizes", [4], sizes.map(Int64.init))], input: [1, c, h, w], &random,
                                label: label + " sizes \(sizes)")
        }
    }

    @Test("Softmax over the channels of [1, C, H, W] and [1, C, N]")
    func softmaxSweep() throws {
        try sweep(9, "Softmax") { random in
            var dims = [random.pick(Self.channelCounts.filter { $0 > 1 }), random.pick(Self.spatialSizes), random.pick(Self.spatialSizes)]
            Self.fit(&dims, shrinkable: [0, 1, 2], &random) { $0.reduce(1, *) * 8 }
            guard dims[0] > 1, dims[1] * dims[2] > 1 else { return nil }
            let shape = Bool.random(using: &random) ? [1, dims[0], dims[1], dims[2]] : [1, dims[0], dims[1] * dims[2]]
            var made = Self.oneNode("Softmax", attributes: [.int("axis", 1)], input: shape, &random, label: "axis 1")
            // Logits of a few units, some far apart (exponents down to e^-87 and below).
            made.feeds["x"] = made.feeds["x"]!.map { $0 * random.pick([Float(4), 4, 40]) }
            return made
        }
    }

    @Test("BatchNormalization, PRelu (per channel and one slope), Clip (any bounds) and the activations, on any shape")
    func channelAndActivationSweep() throws {
        try sweep(10, "elementwise") { random in
            var dims = [random.pick(Self.channelCounts), random.pick(Self.spatialSizes), random.pick(Self.spatialSizes)]
            Self.fit(&dims, shrinkable: [0, 1, 2], &random) { $0.reduce(1, *) * 8 }
            let (c, h, w) = (dims[0], dims[1], dims[2])
            let shape = random.pick([[1, c, h, w], [1, c, h * w], [1, c]])
            switch random.pick(["BatchNormalization", "PRelu", "Clip", "Relu", "Sigmoid", "HardSwish"]) {
            case "BatchNormalization":
                let epsilon = random.pick([Float(1e-5), 1e-3, 0.1])
                let initializers = [P.tensor("scale", [c], &random), P.tensor("bias", [c], &random), P.tensor("mean", [c], &random),
                                    B.floatTensor("var", [Int64(c)], random.floats(c).map { abs($0) + 0.05 })]
                return Self.oneNode("BatchNormalization", inputs: ["x", "scale", "bias", "mean", "var"],
                                    attributes: [.float("epsilon", epsilon)], initializers: initializers, input: shape, &random,
                                    label: "epsilon \(epsilon)")
            case "PRelu":
                let slope = random.pick([[c] + Array(repeating: 1, count: shape.count - 2), [1]])
                return Self.oneNode("PRelu", inputs: ["x", "slope"], initializers: [P.tensor("slope", slope, &random)], input: shape,
                                    &random, label: "slope \(slope)")
            case "Clip":
                let lower = random.pick([Float(0), -0.5, -1, 0.25]), upper = random.pick([Float(6), 0.5, 1, 0.25])
                guard lower <= upper else { return nil }
                var made = Self.oneNode("Clip", inputs: ["x", "lo", "hi"],
                                        initializers: [B.floatTensor("lo", [], [lower]), B.floatTensor("hi", [], [upper])],
                                        input: shape, &random, label: "[\(lower), \(upper)]")
                made.feeds["x"] = made.feeds["x"]!.map { $0 * 8 }
                return made
            case let op:
                var made = Self.oneNode(op, input: shape, &random, label: "")
                made.feeds["x"] = made.feeds["x"]!.map { $0 * 8 }
                return made
            }
        }
    }

    @Test("Add, Sub, Mul and Div with broadcasting: per channel, per row, per column, a scalar, both operands broadcast")
    func broadcastBinarySweep() throws {
        try sweep(11, "binary") { random in
            var dims = [random.pick(Self.channelCounts), random.pick(Self.spatialSizes), random.pick(Self.spatialSizes)]
            Self.fit(&dims, shrinkable: [0, 1, 2], &random) { $0.reduce(1, *) * 8 }
            let (c, h, w) = (dims[0], dims[1], dims[2])
            let patterns = [[1, c, h, w], [1, c, 1, 1], [c, 1, 1], [1, 1, h, w], [w], [1], [h, 1], [1, c, h, 1], [1, c, 1, w]]
            let a = random.pick(patterns), b = random.pick(patterns)
            let op = random.pick(["Add", "Sub", "Mul", "Div"])
            let bytes = B.model(nodes: [B.node(op, inputs: ["a", "b"], outputs: ["y"])],
                                inputs: [P.value("a", a), P.value("b", b)], outputs: [B.valueInfo("y", dims: nil)])
            var feeds = ["a": random.floats(a.reduce(1, *)), "b": random.floats(b.reduce(1, *))]
            // Divisors away from 0: |b| in [0.5, 1.5).
            if op == "Div" { feeds["b"] = feeds["b"]!.map { $0 < 0 ? $0 - 0.5 : $0 + 0.5 } }
            return Made(label: "\(op) \(a) and \(b)", bytes: bytes, feeds: feeds)
        }
    }

    @Test("Transpose: NHWC → NCHW, NCHW → NHWC, a channel shuffle's block transpose")
    func transposeSweep() throws {
        try sweep(12, "Transpose") { random in
            var dims = [random.pick(Self.channelCounts), random.pick(Self.spatialSizes), random.pick(Self.spatialSizes)]
            Self.fit(&dims, shrinkable: [0, 1, 2], &random) { $0.reduce(1, *) * 4 }
            let (c, h, w) = (dims[0], dims[1], dims[2])
            switch random.pick(["deinterleave", "interleave", "shuffle"]) {
            case "deinterleave":
                return Self.oneNode("Transpose", attributes: [.ints("perm", [0, 3, 1, 2])], input: [1, h, w, c], &random, label: "perm [0, 3, 1, 2]")
            case "interleave":
                return Self.oneNode("Transpose", attributes: [.ints("perm", [0, 2, 3, 1])], input: [1, c, h, w], &random, label: "perm [0, 2, 3, 1]")
            default:
                let groups = random.pick([2, 3, 4])
                var made = Self.oneNode("Transpose", attributes: [.ints("perm", [0, 2, 1, 3, 4])],
                                        input: [1, groups, c, h, w], &random, label: "perm [0, 2, 1, 3, 4]")
                // The block transpose copies runs of H·W ≥ 16 floats; shorter runs are the reference kernel's.
                made.fast = h * w >= 16
                return made
            }
        }
    }

    @Test("found by the sweeps: a Gemm whose C is one value ([1, 1] with one column, or a scalar) runs on the fast kernel")
    func gemmScalarBias() throws {
        var random = SeededGenerator(seed: 45)
        for (n, c) in [(1, [1, 1]), (1, [1]), (5, []), (5, [1])] {
            let made = Self.oneNode("Gemm", inputs: ["x", "b", "c"], attributes: [.float("alpha", 0.5), .float("beta", 0.75)],
                                    initializers: [P.tensor("b", [127, n], &random), P.tensor("c", c, &random)],
                                    input: [32, 127], &random, label: "N \(n) C \(c)")
            try P.check(made.bytes, feeds: made.feeds, made.label)
        }
    }
}
