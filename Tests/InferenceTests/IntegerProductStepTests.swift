import Foundation
import AllocationCounter
import Testing
import TestSupport
@testable import Inference

/// The dynamic form's fast steps (`FastPath/IntegerProductSteps.swift`): ConvInteger and
/// MatMulInteger on the integer kernel with the activations' zero point read at run time, the
/// Cast → Mul → Add → activation chain `quantize_dynamic` writes after them absorbed into their
/// store (`Rules/IntegerProductRules.swift`), and DynamicQuantizeLinear, against the reference
/// kernels: int32 and uint8 outputs byte for byte, float outputs value for value (the epilogue is
/// the graph's float32 operations in its order), on 1 and 2 threads. Chains that almost match
/// (a scale along another axis, a Sub, a second reader, a Cast to float64, a residual Add) must
/// still equal the reference, fused or not.
///
/// Fixed cases hold the tile sizes ± 1, channels into the thousands, primes, 1x1 maps and the
/// zero points 0, 128 and 255 (DynamicQuantizeLinear's on inputs of one sign, and constant ones
/// through QuantizeLinear, int8 included); seeded random cases follow (many more with
/// `VBG_LONG_TESTS=1`; `VBG_TEST_SEED=N` replays).
@Suite("Dynamic-form fast steps: ConvInteger, MatMulInteger and DynamicQuantizeLinear equal the reference kernels")
struct IntegerProductStepTests {
    typealias B = ONNXBuilder

    static let seed = TestRun.seed("IntegerProductStepTests", default: 2525)
    static let randomCases = TestRun.isLong ? 80 : 6
    static let budget = TestRun.isLong ? 40_000_000 : 1_000_000

    /// Runs `model` on both paths and compares every output: bytes for integer types, values for
    /// float32. `fastOps` must not run on their reference kernels on the fast path.
    static func check(_ model: [UInt8], feeds: [String: Tensor], fastOps: [String], _ label: String) throws {
        let loaded = try InferenceModel(bytes: model)
        let expected = try InferenceSession(model: loaded, path: .reference).run(feeds)
        for threads in [1, 2] {
            let session = try InferenceSession(model: loaded, path: .fast, threads: threads)
            let onReference = Set(session.nodeKernels.filter(\.runsOnReference).map(\.op))
            for op in fastOps { #expect(!onReference.contains(op), "\(label): \(op) on the reference kernel") }
            // Patches and shifted rows live in the pool's shared scratch: nothing left there may show.
            session.pool?.shared.update(repeating: .nan)
            let actual = try session.run(feeds)
            for (name, want) in expected {
                let got = try #require(actual[name])
                #expect(got.type == want.type && got.shape == want.shape, "\(label): output \(name)")
                if want.type == .float32 {
                    let a = try #require(want.floats), b = try #require(got.floats)
                    let differing = zip(a, b).filter { $0 != $1 && !($0.isNaN && $1.isNaN) }.count
                    #expect(differing == 0, "\(label), \(threads) thread(s): \(differing) of \(a.count) of \(name) differ")
                    if a.count >= 16 { #expect(Set(a).count > 2, "\(label): \(name) is nearly constant") }
                } else {
                    let differing = zip(want.bytes, got.bytes).filter { $0 != $1 }.count
                    #expect(differing == 0, "\(label), \(threads) thread(s): \(differing) bytes of \(name) differ")
                }
            }
        }
    }

    static func floatTensor(_ shape: [Int], _ values: [Float]) -> Tensor { Tensor(shape: shape, floats: values) }

    /// How the product's 8-bit input is made.
    enum Source: CustomStringConvertible {
        /// DynamicQuantizeLinear of floats in `low..<high` (its zero point 255 for high ≤ 0, 0 for
        /// low ≥ 0).
        case dynamic(low: Float, high: Float)
        /// QuantizeLinear with a constant zero point of ONNX type 2 (uint8) or 3 (int8).
        case fixed(type: Int64, zero: UInt8)
        var description: String {
            switch self {
            case .dynamic(let low, let high): "dynamic \(low)..<\(high)"
            case .fixed(let type, let zero): "fixed type \(type) zero \(zero)"
            }
        }
    }

    /// What follows the product.
    enum Chain: CaseIterable {
        /// The int32 sums as the output.
        case sums
        /// Cast, Mul by the scale.
        case scale
        /// Cast, Mul, Add of a bias per channel, Relu (onnxruntime's form, with an activation).
        case biasRelu
        /// Cast, Mul, Add of a scalar bias, Clip(0, 6).
        case scalarBiasClip
        /// Near misses: a scale along another axis, a Sub instead of the Add, the Mul's output
        /// read twice (also a graph output), a Cast to float64, the Cast read twice, a residual
        /// Add of a full tensor, the scale x_scale · w_scale also a graph output, a scale made by
        /// an Add (x_scale + w_scale) instead of a Mul.
        case otherAxisScale, sub, twoReaders, castToDouble, castReadTwice, residual, scaleAlsoOutput, scaleSum
    }

    /// The nodes, initializers and outputs from the int32 value "yi" of `shape` (channel axis
    /// `axis`, `channels`), with the scale the value "sc" (per channel when `perChannel`, shaped
    /// `scaleShape`).
    static func chain(_ chain: Chain, shape: [Int], axis: Int, channels: Int, weightScale: String, _ random: inout SeededGenerator)
        -> (nodes: [[UInt8]], initializers: [[UInt8]], outputs: [[UInt8]], feeds: [String: Tensor]) {
        let perChannelShape = shape.indices.map { $0 == axis ? Int64(channels) : 1 }
        let bias = B.floatTensor("b", perChannelShape, random.floats(channels, scale: 0.5))
        let out = [B.valueInfo("y", dims: nil, elementType: 1)]
        let cast = B.node("Cast", inputs: ["yi"], outputs: ["yc"], attributes: [.int("to", 1)])
        let mul = B.node("Mul", inputs: ["yc", "sc"], outputs: ["ym"])
        let zero = B.floatTensor("zero", [], [0]), six = B.floatTensor("six", [], [6])
        switch chain {
        case .sums:
            return ([], [], [B.valueInfo("yi", dims: nil, elementType: 6)], [:])
        case .scale:
            return ([cast, B.node("Mul", inputs: ["sc", "yc"], outputs: ["y"])], [], out, [:])
        case .biasRelu:
            return ([cast, mul, B.node("Add", inputs: ["ym", "b"], outputs: ["ya"]), B.node("Relu", inputs: ["ya"], outputs: ["y"])],
                    [bias], out, [:])
        case .scalarBiasClip:
            return ([cast, mul, B.node("Add", inputs: ["bsc", "ym"], outputs: ["ya"]),
                     B.node("Clip", inputs: ["ya", "zero", "six"], outputs: ["y"])],
                    [B.floatTensor("bsc", [], [0.25]), zero, six], out, [:])
        case .otherAxisScale:
            // One value per element of another axis: a map's width (broadcast from a [W] scale,
            // as a [C] one would be), a matrix product's rows.
            let other = axis == 1 ? shape.count - 1 : 1, count = shape[other]
            let dims = axis == 1 ? [Int64(count)] : shape.indices.map { $0 == other ? Int64(count) : 1 }
            return ([cast, B.node("Mul", inputs: ["yc", "sl"], outputs: ["ym"]), B.node("Add", inputs: ["ym", "b"], outputs: ["y"])],
                    [B.floatTensor("sl", dims, (0..<count).map { 0.001 * Float($0 + 1) }), bias], out, [:])
        case .sub:
            return ([cast, mul, B.node("Sub", inputs: ["ym", "b"], outputs: ["y"])], [bias], out, [:])
        case .twoReaders:
            return ([cast, mul, B.node("Add", inputs: ["ym", "b"], outputs: ["y"])], [bias],
                    out + [B.valueInfo("ym", dims: nil, elementType: 1)], [:])
        case .castToDouble:
            return ([B.node("Cast", inputs: ["yi"], outputs: ["yd"], attributes: [.int("to", 11)]),
                     B.node("Cast", inputs: ["yd"], outputs: ["y"], attributes: [.int("to", 1)])], [], out, [:])
        case .castReadTwice:
            return ([cast, mul, B.node("Add", inputs: ["ym", "yc"], outputs: ["y"])], [], out, [:])
        case .scaleAlsoOutput:
            return ([cast, mul, B.node("Add", inputs: ["ym", "b"], outputs: ["y"])], [bias],
                    out + [B.valueInfo("sc", dims: nil, elementType: 1)], [:])
        case .scaleSum:
            return ([cast, B.node("Add", inputs: ["xs", weightScale], outputs: ["sa"]), B.node("Mul", inputs: ["yc", "sa"], outputs: ["ym"]),
                     B.node("Add", inputs: ["ym", "b"], outputs: ["y"])], [bias], out, [:])
        case .residual:
            let count = shape.reduce(1, *)
            return ([cast, mul, B.node("Add", inputs: ["ym", "r"], outputs: ["y"])], [], out,
                    ["r": floatTensor(shape, random.floats(count, scale: 3))])
        }
    }

    /// The quantizing nodes for input "x" into "xq", "xz", and the scale "sc" = x_scale · `weightScale`.
    static func source(_ source: Source, weightScale: String) -> (nodes: [[UInt8]], initializers: [[UInt8]]) {
        switch source {
        case .dynamic:
            return ([B.node("DynamicQuantizeLinear", inputs: ["x"], outputs: ["xq", "xs", "xz"]),
                     B.node("Mul", inputs: ["xs", weightScale], outputs: ["sc"])], [])
        case .fixed(let type, let zero):
            return ([B.node("QuantizeLinear", inputs: ["x", "xs", "xz"], outputs: ["xq"]),
                     B.node("Mul", inputs: ["xs", weightScale], outputs: ["sc"])],
                    [B.floatTensor("xs", [], [0.02]), B.rawTensor("xz", elementType: type, [], [zero])])
        }
    }

    static func inputs(_ source: Source, _ count: Int, _ random: inout SeededGenerator) -> [Float] {
        switch source {
        case .dynamic(let low, let high): return (0..<count).map { _ in Float.random(in: low..<high, using: &random) }
        case .fixed(let type, let zero):
            // The quantized range, and a tenth past each end (saturation).
            let z = type == 3 ? Float(Int8(bitPattern: zero)) : Float(zero), (low, high): (Float, Float) = type == 3 ? (-128, 127) : (0, 255)
            let a = (low - z) * 0.02, b = (high - z) * 0.02, margin = 0.1 * (b - a)
            return (0..<count).map { _ in Float.random(in: (a - margin)..<(b + margin), using: &random) }
        }
    }

    /// Weights of ONNX type `type`, zero points per channel (or one) of that type: int8 weights
    /// zero-centred with zero point 0 (as `quantize_dynamic` writes them), or uint8 values spread
    /// ±150 around zero points in 100...156 (shifted values outside int8: the kernel's 16-bit
    /// pairs; centred, so that sums of either sign survive a Relu).
    static func weights(_ count: Int, type: Int64, zeros: Int, _ random: inout SeededGenerator) -> (values: [UInt8], zeros: [UInt8]) {
        let zeroPoints = (0..<zeros).map { _ in type == 3 ? UInt8(0) : UInt8(100 + random.next() % 57) }
        let values = (0..<count).map { i in
            type == 3 ? UInt8(truncatingIfNeeded: random.next())
                : UInt8(min(255, max(0, Int(zeroPoints[i * zeros / count]) + Int(random.next() % 301) - 150)))
        }
        return (values, zeroPoints)
    }

    /// Weight scales that make the float outputs of order 1 (sums of `inner` products of
    /// zero-centred values, about 128 · √inner weight steps), so that a Relu or Clip(0, 6) after
    /// them leaves values of both kinds.
    static func weightScales(_ count: Int, inner: Int, _ random: inout SeededGenerator) -> [Float] {
        (0..<count).map { _ in (0.5 + Float(random.next() % 100) / 100) / (128 * Float(inner).squareRoot()) }
    }

    struct ConvCase: CustomStringConvertible {
        var cin: Int, cout: Int
        var group = 1, kernel = (1, 1), stride = 1, dilation = 1, pads: [Int64] = [0, 0, 0, 0]
        var height: Int, width: Int
        var batch = 1
        var source: Source = .dynamic(low: -2, high: 3)
        var wType: Int64 = 3, perChannel = false
        var chain: Chain = .biasRelu
        var description: String {
            "\(batch)x\(cin)->\(cout) g\(group) k\(kernel) s\(stride) d\(dilation) p\(pads) \(height)x\(width) \(source) w\(wType) perChannel \(perChannel) \(chain)"
        }
    }

    static func checkConvolution(_ c: ConvCase, _ random: inout SeededGenerator) throws {
        let (kh, kw) = c.kernel
        let w = weights(c.cout * c.cin / c.group * kh * kw, type: c.wType, zeros: c.perChannel ? c.cout : 1, &random)
        let outH = (c.height + Int(c.pads[0] + c.pads[2]) - c.dilation * (kh - 1) - 1) / c.stride + 1
        let outW = (c.width + Int(c.pads[1] + c.pads[3]) - c.dilation * (kw - 1) - 1) / c.stride + 1
        let shape = [c.batch, c.cout, outH, outW]
        let input = source(c.source, weightScale: "ws")
        let tail = chain(c.chain, shape: shape, axis: 1, channels: c.cout, weightScale: "ws", &random)
        let wScales = Self.weightScales(c.perChannel ? c.cout : 1, inner: c.cin / c.group * kh * kw, &random)
        let attributes: [B.Attribute] = [
            .ints("kernel_shape", [Int64(kh), Int64(kw)]), .ints("strides", [Int64(c.stride), Int64(c.stride)]),
            .ints("dilations", [Int64(c.dilation), Int64(c.dilation)]), .ints("pads", c.pads), .int("group", Int64(c.group)),
        ]
        let model = B.model(
            nodes: input.nodes + [B.node("ConvInteger", inputs: ["xq", "w", "xz", "wz"], outputs: ["yi"], name: "conv",
                                         attributes: attributes)] + tail.nodes,
            initializers: input.initializers + tail.initializers + [
                B.rawTensor("w", elementType: c.wType, [Int64(c.cout), Int64(c.cin / c.group), Int64(kh), Int64(kw)], w.values),
                B.rawTensor("wz", elementType: c.wType, c.perChannel ? [Int64(c.cout)] : [], w.zeros),
                B.floatTensor("ws", c.perChannel ? [Int64(c.cout), 1, 1] : [], wScales),
            ],
            inputs: [B.valueInfo("x", [Int64(c.batch), Int64(c.cin), Int64(c.height), Int64(c.width)])]
                + tail.feeds.keys.map { B.valueInfo($0, shape.map(Int64.init)) },
            outputs: tail.outputs, opset: 13)
        var feeds = tail.feeds
        feeds["x"] = floatTensor([c.batch, c.cin, c.height, c.width], inputs(c.source, c.batch * c.cin * c.height * c.width, &random))
        let fused = [.scale, .biasRelu, .scalarBiasClip, .sub, .twoReaders, .residual].contains(c.chain)
        try check(model, feeds: feeds, fastOps: ["ConvInteger", "DynamicQuantizeLinear"] + (fused ? ["Cast"] : []), "ConvInteger \(c)")
    }

    @Test("ConvInteger: 1x1, 3x3, depthwise, grouped, strided, dilated, padded, small maps, 1x1 maps, channels into the thousands; zero points 0/128/255 from DynamicQuantizeLinear and fixed (uint8, int8); int8 and uint8 weights, per channel; every chain and near miss")
    func convolutions() throws {
        var random = SeededGenerator(seed: Self.seed)
        let positive = Source.dynamic(low: 0, high: 4), negative = Source.dynamic(low: -4, high: 0), mixed = Source.dynamic(low: -3, high: 2)
        var cases: [ConvCase] = [
            // 1x1 around the 6-row × 64-column tile, channels into the thousands, 1x1 maps.
            ConvCase(cin: 3, cout: 5, height: 8, width: 8, source: positive),
            ConvCase(cin: 17, cout: 65, height: 9, width: 7, source: negative, perChannel: true, chain: .scale),
            ConvCase(cin: 1031, cout: 9, height: 1, width: 1, source: mixed, chain: .sums),
            ConvCase(cin: 2048, cout: 7, height: 2, width: 3, source: positive, wType: 2, perChannel: true),
            ConvCase(cin: 64, cout: 1021, height: 1, width: 1, source: .fixed(type: 2, zero: 255), chain: .scalarBiasClip),
            ConvCase(cin: 64, cout: 4, height: 8, width: 16, source: .fixed(type: 3, zero: 0), chain: .biasRelu),
            ConvCase(cin: 32, cout: 7, height: 17, width: 19, source: .fixed(type: 3, zero: UInt8(bitPattern: -128)), perChannel: true),
            // 3x3 padded and strided, the 7x7 stem, batches.
            ConvCase(cin: 3, cout: 16, kernel: (3, 3), stride: 2, pads: [1, 1, 1, 1], height: 33, width: 31, source: mixed, perChannel: true),
            ConvCase(cin: 3, cout: 64, kernel: (7, 7), stride: 2, pads: [3, 3, 3, 3], height: 40, width: 41, source: mixed),
            ConvCase(cin: 16, cout: 33, kernel: (3, 3), pads: [1, 1, 1, 1], height: 12, width: 65, batch: 2,
                     source: .fixed(type: 2, zero: 128), chain: .sums),
            ConvCase(cin: 12, cout: 20, kernel: (3, 3), pads: [1, 1, 1, 1], height: 19, width: 35, source: positive, wType: 2),
            ConvCase(cin: 8, cout: 16, kernel: (3, 3), stride: 2, pads: [0, 1, 2, 1], height: 21, width: 37, source: negative),
            // Grouped with asymmetric padding and dilation.
            ConvCase(cin: 12, cout: 6, group: 3, kernel: (3, 2), dilation: 2, pads: [0, 1, 2, 0], height: 10, width: 12,
                     source: .fixed(type: 2, zero: 200), perChannel: true),
            ConvCase(cin: 16, cout: 24, group: 2, kernel: (3, 3), dilation: 2, pads: [2, 2, 2, 2], height: 16, width: 33, source: mixed),
            // Small maps (pixels as rows, channels as columns).
            ConvCase(cin: 64, cout: 128, kernel: (3, 3), pads: [1, 1, 1, 1], height: 3, width: 3, source: positive, perChannel: true),
            ConvCase(cin: 33, cout: 70, kernel: (3, 3), stride: 2, pads: [1, 0, 1, 2], height: 9, width: 10,
                     source: .fixed(type: 3, zero: 5), chain: .sums),
            ConvCase(cin: 32, cout: 130, group: 2, height: 4, width: 4, source: negative, wType: 2, perChannel: true),
            ConvCase(cin: 512, cout: 513, kernel: (3, 3), pads: [1, 1, 1, 1], height: 7, width: 7, source: mixed),
            // 64 to 127 pixels with pixels as rows (128 channels on 10x10), the sums and a chain.
            ConvCase(cin: 64, cout: 128, kernel: (3, 3), pads: [1, 1, 1, 1], height: 10, width: 10, source: mixed, chain: .sums),
            ConvCase(cin: 24, cout: 64, kernel: (3, 3), stride: 2, pads: [1, 1, 1, 1], height: 21, width: 18, source: positive,
                     perChannel: true),
            // Depthwise: rows of 16 pixels and tails, strides 1 and 2, 1x1 maps, maps up to 8 wide.
            ConvCase(cin: 5, cout: 5, group: 5, kernel: (3, 3), pads: [1, 1, 1, 1], height: 9, width: 37, source: mixed, perChannel: true),
            ConvCase(cin: 7, cout: 7, group: 7, kernel: (3, 3), stride: 2, pads: [0, 0, 1, 1], height: 20, width: 65, source: positive),
            ConvCase(cin: 4, cout: 4, group: 4, kernel: (5, 5), stride: 3, pads: [2, 1, 2, 3], height: 17, width: 50,
                     source: .fixed(type: 2, zero: 255), wType: 2, perChannel: true),
            ConvCase(cin: 3, cout: 3, group: 3, kernel: (3, 3), pads: [1, 1, 1, 1], height: 1, width: 1, source: negative),
            ConvCase(cin: 37, cout: 37, group: 37, kernel: (3, 3), pads: [1, 1, 1, 1], height: 6, width: 6, source: mixed, perChannel: true),
            ConvCase(cin: 32, cout: 32, group: 32, kernel: (3, 3), stride: 2, pads: [0, 0, 1, 1], height: 7, width: 7,
                     source: .fixed(type: 3, zero: 5), chain: .sums),
            // Depthwise on the byte kernel's packed rows (maps up to 8 wide: 4 or 8 lanes a row),
            // the sums written row by row, strides 1 and 2, channels into the thousands.
            ConvCase(cin: 19, cout: 19, group: 19, kernel: (3, 3), pads: [1, 1, 1, 1], height: 3, width: 3, source: mixed, chain: .sums),
            ConvCase(cin: 21, cout: 21, group: 21, kernel: (3, 3), pads: [1, 1, 1, 1], height: 5, width: 7, source: positive,
                     perChannel: true, chain: .sums),
            ConvCase(cin: 1030, cout: 1030, group: 1030, kernel: (3, 3), stride: 2, pads: [0, 0, 1, 1], height: 6, width: 6,
                     source: .fixed(type: 3, zero: 7), chain: .scale),
            ConvCase(cin: 6, cout: 6, group: 6, kernel: (5, 5), stride: 2, pads: [2, 2, 2, 2], height: 9, width: 4,
                     source: negative, chain: .sums),
        ]
        // Every chain, the near misses included, on a large map, a small map and a depthwise one.
        for chain in Chain.allCases {
            cases.append(ConvCase(cin: 16, cout: 16, kernel: (3, 3), pads: [1, 1, 1, 1], height: 16, width: 16, source: mixed, chain: chain))
            cases.append(ConvCase(cin: 24, cout: 65, height: 3, width: 3, source: positive, perChannel: true, chain: chain))
            cases.append(ConvCase(cin: 9, cout: 9, group: 9, kernel: (3, 3), pads: [1, 1, 1, 1], height: 9, width: 9, source: negative,
                                  chain: chain))
        }
        for c in cases { try Self.checkConvolution(c, &random) }
    }

    @Test("a Sigmoid whose values a DynamicQuantizeLinear quantizes (directly, or through the Mul of a squeeze-excite gate) runs its fast kernel, which is the reference's (onnxruntime's) logistic bit for bit from −10 on: bytes, scale and zero point equal the reference path's")
    func sigmoidBeforeDynamicQuantization() throws {
        var random = SeededGenerator(seed: Self.seed &+ 7)
        let (c, h, w) = (48, 13, 17)
        let gate = random.floats(65_536, scale: 12)
        // The fast sigmoid on these values alone runs on its fast kernel and equals the reference
        // from −10 on (both are MLAS's logistic); below, both are 1 / (1 + e^−x) to a few ulp (the
        // fast exp, libm's), under 4.6e-5, which the quantizations below round to the zero point.
        let plain = B.model(nodes: [B.node("Sigmoid", inputs: ["g"], outputs: ["y"])], initializers: [],
                            inputs: [B.valueInfo("g", [65_536])], outputs: [B.valueInfo("y", dims: nil, elementType: 1)], opset: 13)
        let plainModel = try InferenceModel(bytes: plain)
        let fast = try InferenceSession(model: plainModel, path: .fast)
        #expect(!fast.nodeKernels.contains { $0.op == "Sigmoid" && $0.runsOnReference }, "a plain Sigmoid on the reference kernel")
        let feeds = ["g": Self.floatTensor([65_536], gate)]
        let want = try #require(try InferenceSession(model: plainModel, path: .reference).run(feeds)["y"]?.floats)
        let got = try #require(try fast.run(feeds)["y"]?.floats)
        let upper = gate.indices.filter { gate[$0] >= -10 }, tail = gate.indices.filter { gate[$0] < -10 }
        #expect(!tail.isEmpty && upper.allSatisfy { want[$0].bitPattern == got[$0].bitPattern }, "the fast sigmoid differs from the reference from −10 on")
        func ulpsFromExact(_ y: Float, _ x: Float) -> Double {
            let exact = 1 / (1 + exp(-Double(x)))
            return abs(Double(y) - exact) / Double(Float(exact).ulp)
        }
        #expect(tail.allSatisfy { ulpsFromExact(want[$0], gate[$0]) <= 3 && ulpsFromExact(got[$0], gate[$0]) <= 3 && want[$0] < 4.6e-5 },
                "the sigmoid below −10 is not 1 / (1 + e^−x) to 3 ulp on both paths")
        print("sigmoid below −10: \(tail.filter { want[$0] != got[$0] }.count) of \(tail.count) values differ between the paths")

        // Sigmoid → DynamicQuantizeLinear.
        let direct = B.model(
            nodes: [B.node("Sigmoid", inputs: ["g"], outputs: ["s"]),
                    B.node("DynamicQuantizeLinear", inputs: ["s"], outputs: ["q", "qs", "qz"])],
            initializers: [], inputs: [B.valueInfo("g", [65_536])],
            outputs: [B.valueInfo("q", dims: nil, elementType: 2), B.valueInfo("qs", dims: nil, elementType: 1),
                      B.valueInfo("qz", dims: nil, elementType: 2)], opset: 13)
        try Self.check(direct, feeds: feeds, fastOps: ["Sigmoid", "DynamicQuantizeLinear"], "Sigmoid → DynamicQuantizeLinear")
        // A squeeze-excite gate: x · sigmoid(g) per channel → DynamicQuantizeLinear (RegNet-Y's dynamic form).
        let gated = B.model(
            nodes: [B.node("Sigmoid", inputs: ["g"], outputs: ["s"]), B.node("Mul", inputs: ["x", "s"], outputs: ["m"]),
                    B.node("DynamicQuantizeLinear", inputs: ["m"], outputs: ["q", "qs", "qz"])],
            initializers: [], inputs: [B.valueInfo("x", [1, Int64(c), Int64(h), Int64(w)]), B.valueInfo("g", [1, Int64(c), 1, 1])],
            outputs: [B.valueInfo("q", dims: nil, elementType: 2), B.valueInfo("qs", dims: nil, elementType: 1),
                      B.valueInfo("qz", dims: nil, elementType: 2)], opset: 13)
        for start in stride(from: 0, to: 65_536 - c, by: 4_093) {
            let x = random.floats(c * h * w, scale: 3)
            try Self.check(gated, feeds: ["x": Self.floatTensor([1, c, h, w], x), "g": Self.floatTensor([1, c, 1, 1], Array(gate[start..<(start + c)]))],
                           fastOps: ["Sigmoid", "DynamicQuantizeLinear", "Mul"], "x · Sigmoid(g) → DynamicQuantizeLinear, gates from \(start)")
        }
    }

    @Test("ConvInteger, seeded random shapes, sources and chains within the multiply-add budget")
    func randomConvolutions() throws {
        var random = SeededGenerator(seed: Self.seed &+ 1)
        let channels = [1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1021, 1024]
        let sizes = [1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65]
        let sources: [Source] = [.dynamic(low: -3, high: 2), .dynamic(low: 0, high: 4), .dynamic(low: -4, high: 0),
                                 .fixed(type: 2, zero: 0), .fixed(type: 2, zero: 128), .fixed(type: 2, zero: 255), .fixed(type: 3, zero: 7)]
        for _ in 0..<Self.randomCases {
            var c = ConvCase(cin: random.pick(channels), cout: random.pick(channels), height: random.pick(sizes), width: random.pick(sizes),
                             source: random.pick(sources), wType: random.pick([3, 3, 2]), perChannel: random.next() % 2 == 0,
                             chain: random.pick(Chain.allCases))
            let k = random.pick([1, 3, 3, 5])
            c.kernel = (k, k)
            c.stride = random.pick([1, 1, 2])
            c.pads = k == 1 ? [0, 0, 0, 0] : [Int64(k / 2), Int64(k / 2), Int64(k / 2), Int64(k / 2)]
            if random.next() % 4 == 0 { c.group = c.cin; c.cout = c.cin }
            while c.cin / c.group * c.cout * k * k * c.height * c.width > Self.budget {
                if c.height >= c.width { c.height = (c.height + 1) / 2 } else { c.width = (c.width + 1) / 2 }
                if c.height == 1 && c.width == 1 { c.cout = max(1, c.cout / 2); if c.group > 1 { c.cin = c.cout; c.group = c.cout } }
            }
            try Self.checkConvolution(c, &random)
        }
    }

    struct MatrixCase: CustomStringConvertible {
        var batch = 1
        var m: Int, k: Int, n: Int
        var source: Source = .dynamic(low: -2, high: 3)
        var bType: Int64 = 3, perColumn = false
        var chain: Chain = .biasRelu
        var description: String { "\(batch)x\(m)x\(k) · \(k)x\(n) \(source) b\(bType) perColumn \(perColumn) \(chain)" }
    }

    static func checkMatrix(_ c: MatrixCase, _ random: inout SeededGenerator) throws {
        let b = weights(c.k * c.n, type: c.bType, zeros: c.perColumn ? c.n : 1, &random)
        let shape = [c.batch, c.m, c.n]
        let input = source(c.source, weightScale: "bs")
        let tail = chain(c.chain, shape: shape, axis: 2, channels: c.n, weightScale: "bs", &random)
        let bScales = Self.weightScales(c.perColumn ? c.n : 1, inner: c.k, &random)
        let model = B.model(
            nodes: input.nodes + [B.node("MatMulInteger", inputs: ["xq", "bw", "xz", "bz"], outputs: ["yi"], name: "mm")] + tail.nodes,
            initializers: input.initializers + tail.initializers + [
                B.rawTensor("bw", elementType: c.bType, [Int64(c.k), Int64(c.n)], b.values),
                B.rawTensor("bz", elementType: c.bType, c.perColumn ? [Int64(c.n)] : [], b.zeros),
                B.floatTensor("bs", c.perColumn ? [Int64(c.n)] : [], bScales),
            ],
            inputs: [B.valueInfo("x", [Int64(c.batch), Int64(c.m), Int64(c.k)])] + tail.feeds.keys.map { B.valueInfo($0, shape.map(Int64.init)) },
            outputs: tail.outputs, opset: 13)
        var feeds = tail.feeds
        feeds["x"] = floatTensor([c.batch, c.m, c.k], inputs(c.source, c.batch * c.m * c.k, &random))
        let fused = [.scale, .biasRelu, .scalarBiasClip, .sub, .twoReaders, .residual].contains(c.chain)
        try check(model, feeds: feeds, fastOps: ["MatMulInteger", "DynamicQuantizeLinear"] + (fused ? ["Cast"] : []), "MatMulInteger \(c)")
    }

    @Test("MatMulInteger: rows, inner and columns around the tile and into the thousands, batched A, per-column and per-tensor B (int8, uint8 off zero), zero points 0/128/255; every chain and near miss")
    func matrixProducts() throws {
        var random = SeededGenerator(seed: Self.seed &+ 2)
        var cases: [MatrixCase] = [
            MatrixCase(m: 1, k: 1, n: 1, chain: .sums),
            MatrixCase(m: 1, k: 512, n: 1000, perColumn: true),
            MatrixCase(m: 5, k: 17, n: 63, source: .dynamic(low: 0, high: 2), chain: .scale),
            MatrixCase(batch: 2, m: 3, k: 64, n: 65, source: .dynamic(low: -2, high: 0), bType: 2, perColumn: true),
            MatrixCase(m: 4, k: 2053, n: 10, source: .fixed(type: 2, zero: 255), chain: .sums),
            MatrixCase(batch: 3, m: 7, k: 33, n: 129, source: .fixed(type: 3, zero: UInt8(bitPattern: -128)), bType: 2),
            MatrixCase(m: 6, k: 64, n: 127, source: .fixed(type: 2, zero: 128), chain: .scalarBiasClip),
            MatrixCase(m: 13, k: 1024, n: 1025, perColumn: true),
        ]
        for chain in Chain.allCases {
            cases.append(MatrixCase(m: 3, k: 40, n: 70, chain: chain))
            cases.append(MatrixCase(m: 1, k: 96, n: 96, source: .dynamic(low: 0, high: 1), perColumn: true, chain: chain))
        }
        for _ in 0..<Self.randomCases {
            var c = MatrixCase(batch: random.pick([1, 1, 2]), m: random.pick([1, 2, 5, 6, 7, 13, 64]), k: random.pick([1, 3, 4, 5, 63, 64, 65, 1021]),
                               n: random.pick([1, 15, 16, 17, 63, 64, 65, 1000]),
                               source: random.pick([.dynamic(low: -3, high: 2), .dynamic(low: 0, high: 1), .fixed(type: 2, zero: 255)]),
                               bType: random.pick([3, 2]), perColumn: random.next() % 2 == 0, chain: random.pick(Chain.allCases))
            while c.batch * c.m * c.k * c.n > Self.budget { c.k = (c.k + 1) / 2 }
            cases.append(c)
        }
        for c in cases { try Self.checkMatrix(c, &random) }
    }

    @Test("DynamicQuantizeLinear: sizes around the 16- and 32-element blocks; inputs of one sign (zero point 0 and 255), all zero (scale 1), NaN, ties; bytes, scale and zero point equal to the reference kernel")
    func dynamicQuantize() throws {
        var random = SeededGenerator(seed: Self.seed &+ 3)
        for count in [1, 15, 16, 17, 31, 32, 33, 47, 1000, 4099] {
            for kind in 0..<6 {
                var x: [Float]
                switch kind {
                case 0: x = random.floats(count, scale: 3)
                case 1: x = (0..<count).map { _ in Float.random(in: 0..<5, using: &random) }
                case 2: x = (0..<count).map { _ in Float.random(in: -5..<0, using: &random) }
                case 3: x = [Float](repeating: 0, count: count)
                case 4:
                    // Values at the ties of a scale of 1/255 · 2.55 = 0.01 (range −1.275 ... 1.275).
                    x = (0..<count).map { Float($0 % 255 - 127) * 0.01 + 0.005 }
                default:
                    x = random.floats(count, scale: 2)
                    for k in stride(from: 0, to: count, by: 7) { x[k] = .nan }
                }
                let model = B.model(
                    nodes: [B.node("DynamicQuantizeLinear", inputs: ["x"], outputs: ["q", "s", "z"])],
                    inputs: [B.valueInfo("x", [Int64(count)])],
                    outputs: [B.valueInfo("q", dims: nil, elementType: 2), B.valueInfo("s", dims: nil, elementType: 1),
                              B.valueInfo("z", dims: nil, elementType: 2)], opset: 13)
                try Self.check(model, feeds: ["x": Self.floatTensor([count], x)], fastOps: ["DynamicQuantizeLinear"],
                               "DynamicQuantizeLinear \(count) kind \(kind)")
            }
        }
    }

    @Test("GlobalAveragePool before DynamicQuantizeLinear (a squeeze-excite's input in the dynamic form): the means equal the reference kernel's, so the bytes do; dense and 1x1 maps, planes around the vector sizes")
    func averageBeforeQuantize() throws {
        var random = SeededGenerator(seed: Self.seed &+ 4)
        for (c, h, w) in [(1, 1, 1), (3, 7, 7), (17, 5, 3), (64, 56, 56), (40, 17, 33), (120, 14, 14), (7, 1, 9)] {
            let model = B.model(
                nodes: [B.node("GlobalAveragePool", inputs: ["x"], outputs: ["m"]),
                        B.node("DynamicQuantizeLinear", inputs: ["m"], outputs: ["q", "s", "z"])],
                inputs: [B.valueInfo("x", [1, Int64(c), Int64(h), Int64(w)])],
                outputs: [B.valueInfo("m", dims: nil, elementType: 1), B.valueInfo("q", dims: nil, elementType: 2),
                          B.valueInfo("s", dims: nil, elementType: 1), B.valueInfo("z", dims: nil, elementType: 2)], opset: 13)
            // Post-activation values: many exact zeros, the rest over a few orders of magnitude.
            let x = (0..<(c * h * w)).map { _ in max(0, Float.random(in: -1..<3, using: &random)) * Float.random(in: 0.01..<1, using: &random) }
            try Self.check(model, feeds: ["x": Self.floatTensor([1, c, h, w], x)], fastOps: ["GlobalAveragePool", "DynamicQuantizeLinear"],
                           "GlobalAveragePool \(c)x\(h)x\(w)")
        }
    }

    /// The dynamic form as `quantize_dynamic` writes it (a convolution, a pool, a classifier)
    /// runs its fused steps allocating nothing after the warm-up: packed weights, scratch in the
    /// pool, the zero point and scale read in place.
    @Test("20 runs of a dynamic-form graph (ConvInteger and MatMulInteger chains) allocate nothing on the calling thread",
          .disabled(if: vbg_built_with_sanitizer() != 0, "a sanitizer's allocator replaces the counted malloc"),
          arguments: [1, 2])
    func noAllocation(threads: Int) throws {
        try #require(vbg_allocation_counting_is_active() == 1, "the allocation counter is not interposed on this platform")
        var random = SeededGenerator(seed: Self.seed &+ 5)
        let w = Self.weights(16 * 8 * 9, type: 3, zeros: 1, &random), b = Self.weights(16 * 10, type: 3, zeros: 1, &random)
        let bytes = B.model(
            nodes: [B.node("DynamicQuantizeLinear", inputs: ["x"], outputs: ["xq", "xs", "xz"]),
                    B.node("Mul", inputs: ["xs", "ws"], outputs: ["sc"]),
                    B.node("ConvInteger", inputs: ["xq", "w", "xz", "wz"], outputs: ["yi"],
                           attributes: [.ints("kernel_shape", [3, 3]), .ints("pads", [1, 1, 1, 1])]),
                    B.node("Cast", inputs: ["yi"], outputs: ["yc"], attributes: [.int("to", 1)]),
                    B.node("Mul", inputs: ["yc", "sc"], outputs: ["ym"]), B.node("Add", inputs: ["ym", "cb"], outputs: ["ya"]),
                    B.node("Relu", inputs: ["ya"], outputs: ["yr"]), B.node("GlobalAveragePool", inputs: ["yr"], outputs: ["p"]),
                    B.node("Flatten", inputs: ["p"], outputs: ["f"]),
                    B.node("DynamicQuantizeLinear", inputs: ["f"], outputs: ["fq", "fs", "fz"]),
                    B.node("Mul", inputs: ["fs", "bs"], outputs: ["fsc"]),
                    B.node("MatMulInteger", inputs: ["fq", "bw", "fz", "bz"], outputs: ["mi"]),
                    B.node("Cast", inputs: ["mi"], outputs: ["mc"], attributes: [.int("to", 1)]),
                    B.node("Mul", inputs: ["mc", "fsc"], outputs: ["mm"]), B.node("Add", inputs: ["mm", "mb"], outputs: ["y"])],
            initializers: [B.rawTensor("w", elementType: 3, [16, 8, 3, 3], w.values), B.rawTensor("wz", elementType: 3, [], w.zeros),
                           B.floatTensor("ws", [], [0.002]), B.floatTensor("cb", [1, 16, 1, 1], random.floats(16)),
                           B.rawTensor("bw", elementType: 3, [16, 10], b.values), B.rawTensor("bz", elementType: 3, [], b.zeros),
                           B.floatTensor("bs", [], [0.003]), B.floatTensor("mb", [10], random.floats(10))],
            inputs: [B.valueInfo("x", [1, 8, 9, 9])], outputs: [B.valueInfo("y", dims: nil, elementType: 1)], opset: 13)
        let session = try InferenceSession(model: try InferenceModel(bytes: bytes), path: .fast, threads: threads)
        let onReference = session.nodeKernels.filter(\.runsOnReference).map(\.op)
        #expect(onReference.isEmpty, "on reference kernels: \(onReference)")
        let input = random.floats(8 * 9 * 9, scale: 2)
        var output = [Float](repeating: 0, count: 10)
        var count = 0
        try input.withUnsafeBufferPointer { source in
            try output.withUnsafeMutableBufferPointer { destination in
                try session.run(input: source, output: destination)  // warm-up
                let before = vbg_thread_allocation_count()
                for _ in 0..<20 { try session.run(input: source, output: destination) }
                count = Int(vbg_thread_allocation_count() - before)
            }
        }
        #expect(count == 0, "\(count) allocations in 20 runs on \(threads) thread(s)")
        #expect(Set(output).count > 1, "the classifier's outputs are constant")
    }
}
