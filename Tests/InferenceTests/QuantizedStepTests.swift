import Testing
import TestSupport
@testable import Inference
import Kernels

/// The fast path's QLinearConv and QLinearMatMul steps (`FastPath/QuantizedSteps.swift`) against
/// the reference kernels, as QuantizeLinear → the node → DequantizeLinear graphs: the integer
/// results must be equal (so the dequantized floats are), on 1 and 2 threads, and the node must
/// run on its fast step.
@Suite("Quantized fast steps: QLinearConv and QLinearMatMul equal the reference kernels")
struct QuantizedStepTests {
    typealias B = ONNXBuilder

    static func int32Bytes(_ values: [Int32]) -> [UInt8] {
        values.flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    }

    /// Quantized bytes of ONNX type `type` (2 uint8, 3 int8), uniform over the type.
    static func bytes(_ count: Int, _ random: inout SeededGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    /// Runs `bytes` on both paths and compares every output element exactly; `op` must not run
    /// on its reference kernel on the fast path.
    static func check(_ bytes: [UInt8], feeds: [String: [Float]], op: String, _ label: String) throws {
        let model = try InferenceModel(bytes: bytes)
        let expected = try InferenceSession(model: model, path: .reference).run(inputs: feeds)
        for threads in [1, 2] {
            let session = try InferenceSession(model: model, path: .fast, threads: threads)
            let onReference = session.nodeKernels.filter(\.runsOnReference).map(\.op)
            #expect(!onReference.contains(op), "\(label): \(op) on the reference kernel")
            // The integer steps' patches and products live in the pool's shared scratch: whatever
            // an earlier step left there must not show.
            session.pool?.shared.update(repeating: .nan)
            let actual = try session.run(inputs: feeds)
            let want = try #require(expected["y"]), got = try #require(actual["y"])
            let differing = zip(want, got).filter { $0 != $1 }.count
            #expect(differing == 0, "\(label), \(threads) thread(s): \(differing) of \(want.count) outputs differ")
            if want.count >= 16 { #expect(Set(want).count > 2, "\(label): the reference output is nearly constant") }
        }
    }

    struct ConvCase {
        var cin: Int, cout: Int, group: Int, kernel: (Int, Int), stride: Int, dilation: Int, pads: [Int64]
        var height: Int, width: Int
        var xType: Int64, wType: Int64, yType: Int64
        var xZero: UInt8, yZero: UInt8
        var perChannel: Bool, bias: Bool
        /// The output scale over the one that spreads a zero-mean product over the type.
        var yScaleFactor: Float = 1
    }

    static func convModel(_ c: ConvCase, _ random: inout SeededGenerator) -> (bytes: [UInt8], x: [Float]) {
        let (kh, kw) = c.kernel
        let w = bytes(c.cout * c.cin / c.group * kh * kw, &random)
        let fanIn = Float(c.cin / c.group * kh * kw)
        // Scales chosen so that the outputs spread over the type and some saturate.
        let xScale: Float = 0.02, yScale: Float = 0.02 * 0.01 * fanIn.squareRoot() * 6 * c.yScaleFactor
        let wScales: [Float] = c.perChannel ? (0..<c.cout).map { _ in 0.01 * (0.5 + Float(random.next() % 100) / 100) } : [0.01]
        let wZeros: [UInt8] = (0..<(c.perChannel ? c.cout : 1)).map { _ in c.wType == 3 ? 0 : UInt8(random.next() % 256) }
        var initializers = [
            B.floatTensor("xs", [], [xScale]), B.rawTensor("xz", elementType: c.xType, [], [c.xZero]),
            B.rawTensor("w", elementType: c.wType, [Int64(c.cout), Int64(c.cin / c.group), Int64(kh), Int64(kw)], w),
            B.floatTensor("ws", c.perChannel ? [Int64(c.cout)] : [], wScales),
            B.rawTensor("wz", elementType: c.wType, c.perChannel ? [Int64(c.cout)] : [], wZeros),
            B.floatTensor("ys", [], [yScale]), B.rawTensor("yz", elementType: c.yType, [], [c.yZero]),
        ]
        var convInputs = ["xq", "xs", "xz", "w", "ws", "wz", "ys", "yz"]
        if c.bias {
            let b = (0..<c.cout).map { _ in Int32(Int64(random.next() % 20001) - 10000) }
            initializers.append(B.rawTensor("b", elementType: 6, [Int64(c.cout)], int32Bytes(b)))
            convInputs.append("b")
        }
        let attributes: [B.Attribute] = [
            .ints("kernel_shape", [Int64(kh), Int64(kw)]), .ints("strides", [Int64(c.stride), Int64(c.stride)]),
            .ints("dilations", [Int64(c.dilation), Int64(c.dilation)]), .ints("pads", c.pads), .int("group", Int64(c.group)),
        ]
        let model = B.model(
            nodes: [B.node("QuantizeLinear", inputs: ["x", "xs", "xz"], outputs: ["xq"]),
                    B.node("QLinearConv", inputs: convInputs, outputs: ["yq"], name: "conv", attributes: attributes),
                    B.node("DequantizeLinear", inputs: ["yq", "ys", "yz"], outputs: ["y"])],
            initializers: initializers,
            inputs: [B.valueInfo("x", [1, Int64(c.cin), Int64(c.height), Int64(c.width)])],
            outputs: [B.valueInfo("y", dims: nil, elementType: 1)], opset: 13)
        // Inputs over the whole quantized range and past it (saturating QuantizeLinear).
        let x = random.floats(c.cin * c.height * c.width, scale: 3)
        return (model, x)
    }

    @Test("QLinearConv: 1x1, 3x3, depthwise, grouped, strided, dilated, padded, small maps; uint8 and int8; zero points 0/128/255; per-channel and per-tensor scales")
    func convolutions() throws {
        var random = SeededGenerator(seed: 2501)
        let u8: Int64 = 2, i8: Int64 = 3
        var cases: [ConvCase] = [
            // 1x1 around the 4-row × 64-column tile, and channels into the thousands.
            ConvCase(cin: 3, cout: 5, group: 1, kernel: (1, 1), stride: 1, dilation: 1, pads: [0, 0, 0, 0], height: 8, width: 8,
                     xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: false, bias: true),
            ConvCase(cin: 17, cout: 65, group: 1, kernel: (1, 1), stride: 1, dilation: 1, pads: [0, 0, 0, 0], height: 9, width: 7,
                     xType: u8, wType: i8, yType: u8, xZero: 0, yZero: 255, perChannel: true, bias: false),
            ConvCase(cin: 1031, cout: 9, group: 1, kernel: (1, 1), stride: 1, dilation: 1, pads: [0, 0, 0, 0], height: 1, width: 1,
                     xType: u8, wType: i8, yType: u8, xZero: 255, yZero: 0, perChannel: true, bias: true),
            ConvCase(cin: 64, cout: 4, group: 1, kernel: (1, 1), stride: 1, dilation: 1, pads: [0, 0, 0, 0], height: 8, width: 16,
                     xType: i8, wType: i8, yType: i8, xZero: 0, yZero: 0, perChannel: false, bias: true),
            // 3x3 padded and strided, the first layer's shape.
            ConvCase(cin: 3, cout: 16, group: 1, kernel: (3, 3), stride: 2, dilation: 1, pads: [1, 1, 1, 1], height: 33, width: 31,
                     xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true),
            // Depthwise, and grouped with asymmetric padding and dilation.
            ConvCase(cin: 13, cout: 13, group: 13, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 11, width: 13,
                     xType: u8, wType: u8, yType: u8, xZero: 3, yZero: 128, perChannel: false, bias: false),
            ConvCase(cin: 8, cout: 8, group: 8, kernel: (5, 5), stride: 2, dilation: 1, pads: [2, 2, 2, 2], height: 15, width: 9,
                     xType: i8, wType: i8, yType: i8, xZero: UInt8(bitPattern: -128), yZero: 127, perChannel: true, bias: true),
            ConvCase(cin: 12, cout: 6, group: 3, kernel: (3, 2), stride: 1, dilation: 2, pads: [0, 1, 2, 0], height: 10, width: 12,
                     xType: u8, wType: i8, yType: i8, xZero: 200, yZero: UInt8(bitPattern: -128), perChannel: true, bias: true),
            // Small maps, where the product runs with pixels as rows and channels as columns.
            ConvCase(cin: 64, cout: 128, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 3, width: 3,
                     xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true),
            ConvCase(cin: 33, cout: 70, group: 1, kernel: (3, 3), stride: 2, dilation: 1, pads: [1, 0, 1, 2], height: 9, width: 10,
                     xType: i8, wType: i8, yType: u8, xZero: 5, yZero: 0, perChannel: false, bias: true),
            ConvCase(cin: 32, cout: 130, group: 2, kernel: (1, 1), stride: 1, dilation: 1, pads: [0, 0, 0, 0], height: 4, width: 4,
                     xType: u8, wType: u8, yType: i8, xZero: 255, yZero: 0, perChannel: true, bias: false),
            ConvCase(cin: 17, cout: 64, group: 1, kernel: (2, 2), stride: 1, dilation: 2, pads: [1, 1, 1, 1], height: 2, width: 7,
                     xType: u8, wType: i8, yType: u8, xZero: 0, yZero: 255, perChannel: true, bias: true),
            // Maps of 13 to 25 pixels: three or more tiles of rows.
            ConvCase(cin: 24, cout: 70, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 4, width: 4,
                     xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true),
            ConvCase(cin: 9, cout: 129, group: 1, kernel: (1, 1), stride: 1, dilation: 1, pads: [0, 0, 0, 0], height: 13, width: 1,
                     xType: i8, wType: i8, yType: u8, xZero: 3, yZero: 0, perChannel: false, bias: true),
            ConvCase(cin: 16, cout: 33, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 4, width: 6,
                     xType: u8, wType: u8, yType: i8, xZero: 255, yZero: 0, perChannel: true, bias: false),
            ConvCase(cin: 8, cout: 40, group: 2, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 5, width: 5,
                     xType: u8, wType: i8, yType: u8, xZero: 0, yZero: 128, perChannel: true, bias: true),
            // Maps of 64 to 127 pixels, with pixels as rows where that pads fewer products (100
            // pixels and 128 channels) and not where it pads more (130 channels on 100, 64 pixels).
            ConvCase(cin: 64, cout: 128, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 10, width: 10,
                     xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true),
            ConvCase(cin: 36, cout: 64, group: 1, kernel: (3, 3), stride: 2, dilation: 1, pads: [1, 1, 1, 1], height: 20, width: 19,
                     xType: i8, wType: i8, yType: u8, xZero: 5, yZero: 0, perChannel: false, bias: true),
            ConvCase(cin: 20, cout: 130, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 10, width: 10,
                     xType: u8, wType: i8, yType: i8, xZero: 255, yZero: 0, perChannel: true, bias: false),
            ConvCase(cin: 16, cout: 64, group: 1, kernel: (1, 1), stride: 1, dilation: 1, pads: [0, 0, 0, 0], height: 1, width: 127,
                     xType: u8, wType: i8, yType: u8, xZero: 0, yZero: 128, perChannel: true, bias: true),
            ConvCase(cin: 24, cout: 70, group: 2, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 9, width: 9,
                     xType: u8, wType: u8, yType: u8, xZero: 128, yZero: 3, perChannel: true, bias: true),
            ConvCase(cin: 17, cout: 64, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 8, width: 8,
                     xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: false, bias: true),
            ConvCase(cin: 8, cout: 256, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 13, width: 5,
                     xType: i8, wType: i8, yType: i8, xZero: UInt8(bitPattern: -128), yZero: 0, perChannel: true, bias: true),
            // Windows of several taps on maps up to 256 pixels run transposed where that pads no
            // more (16x16 with 192 channels, 8x8 with 128); 1x1 on 8x8 and 3x3 on 17x16 do not.
            ConvCase(cin: 64, cout: 192, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 16, width: 16,
                     xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true),
            ConvCase(cin: 96, cout: 128, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 8, width: 8,
                     xType: i8, wType: i8, yType: u8, xZero: 5, yZero: 0, perChannel: false, bias: true),
            ConvCase(cin: 16, cout: 64, group: 1, kernel: (1, 1), stride: 1, dilation: 1, pads: [0, 0, 0, 0], height: 8, width: 8,
                     xType: u8, wType: i8, yType: u8, xZero: 0, yZero: 128, perChannel: true, bias: true),
            ConvCase(cin: 8, cout: 64, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 17, width: 16,
                     xType: u8, wType: i8, yType: i8, xZero: 255, yZero: 0, perChannel: true, bias: false),
            ConvCase(cin: 32, cout: 64, group: 1, kernel: (3, 3), stride: 2, dilation: 1, pads: [1, 1, 1, 1], height: 32, width: 32,
                     xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true),
            // Bytes in the channel-minor order (channels a multiple of 4): rows of 16 pixels and
            // their tails, stride 1 and 2, padding on every side, int8 and uint8 input.
            ConvCase(cin: 12, cout: 20, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 19, width: 35,
                     xType: i8, wType: i8, yType: u8, xZero: 7, yZero: 128, perChannel: true, bias: true),
            ConvCase(cin: 8, cout: 16, group: 1, kernel: (3, 3), stride: 2, dilation: 1, pads: [0, 1, 2, 1], height: 21, width: 37,
                     xType: u8, wType: i8, yType: u8, xZero: 255, yZero: 3, perChannel: false, bias: true),
            ConvCase(cin: 32, cout: 7, group: 1, kernel: (1, 1), stride: 1, dilation: 1, pads: [0, 0, 0, 0], height: 17, width: 19,
                     xType: i8, wType: i8, yType: i8, xZero: UInt8(bitPattern: -128), yZero: 0, perChannel: true, bias: false),
            ConvCase(cin: 16, cout: 24, group: 2, kernel: (3, 3), stride: 1, dilation: 2, pads: [2, 2, 2, 2], height: 16, width: 33,
                     xType: u8, wType: i8, yType: u8, xZero: 0, yZero: 128, perChannel: true, bias: true),
            // Three channels (a stem) padded to four in the channel-minor order, on a large and a small map.
            ConvCase(cin: 3, cout: 70, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 4, width: 4,
                     xType: i8, wType: i8, yType: u8, xZero: 3, yZero: 128, perChannel: true, bias: true),
            ConvCase(cin: 3, cout: 8, group: 1, kernel: (7, 7), stride: 2, dilation: 1, pads: [3, 3, 3, 3], height: 40, width: 41,
                     xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: false, bias: true),
            // Depthwise (its own kernel): rows of 16 pixels and their tails, strides 1, 2 and 3,
            // dilation, asymmetric padding, 1x1 maps, int8 and uint8, uint8 weights off zero.
            ConvCase(cin: 5, cout: 5, group: 5, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 9, width: 37,
                     xType: i8, wType: i8, yType: u8, xZero: 9, yZero: 128, perChannel: true, bias: true),
            ConvCase(cin: 7, cout: 7, group: 7, kernel: (3, 3), stride: 2, dilation: 1, pads: [0, 0, 1, 1], height: 20, width: 65,
                     xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 0, perChannel: false, bias: true),
            ConvCase(cin: 4, cout: 4, group: 4, kernel: (5, 5), stride: 3, dilation: 1, pads: [2, 1, 2, 3], height: 17, width: 50,
                     xType: u8, wType: u8, yType: i8, xZero: 255, yZero: 0, perChannel: true, bias: false),
            ConvCase(cin: 6, cout: 6, group: 6, kernel: (3, 3), stride: 1, dilation: 2, pads: [2, 2, 2, 2], height: 16, width: 16,
                     xType: u8, wType: i8, yType: u8, xZero: 0, yZero: 255, perChannel: true, bias: true),
            ConvCase(cin: 3, cout: 3, group: 3, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 1, width: 1,
                     xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true),
            // Depthwise on maps up to 8 wide: 16 channels per vector, the last block partial.
            ConvCase(cin: 37, cout: 37, group: 37, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 6, width: 6,
                     xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true),
            ConvCase(cin: 32, cout: 32, group: 32, kernel: (3, 3), stride: 2, dilation: 1, pads: [0, 0, 1, 1], height: 7, width: 7,
                     xType: i8, wType: i8, yType: i8, xZero: 5, yZero: 0, perChannel: false, bias: true),
            ConvCase(cin: 20, cout: 20, group: 20, kernel: (5, 5), stride: 1, dilation: 2, pads: [4, 4, 4, 3], height: 3, width: 4,
                     xType: u8, wType: u8, yType: u8, xZero: 0, yZero: 200, perChannel: true, bias: false),
            // Depthwise windows of 256 and 289 taps, with uint8 weights off zero (16-bit pairs).
            ConvCase(cin: 3, cout: 3, group: 3, kernel: (16, 16), stride: 1, dilation: 1, pads: [8, 8, 7, 7], height: 18, width: 33,
                     xType: u8, wType: u8, yType: u8, xZero: 255, yZero: 128, perChannel: true, bias: true, yScaleFactor: 40),
            ConvCase(cin: 3, cout: 3, group: 3, kernel: (17, 17), stride: 1, dilation: 1, pads: [8, 8, 8, 8], height: 18, width: 33,
                     xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true, yScaleFactor: 8),
        ]
        // A few drawn cases on top.
        for _ in 0..<4 {
            let cin = random.pick([1, 2, 5, 16, 31, 33]), cout = random.pick([1, 4, 5, 7, 64, 65])
            let k = random.pick([1, 3])
            cases.append(ConvCase(cin: cin, cout: cout, group: 1, kernel: (k, k), stride: random.pick([1, 2]), dilation: 1,
                                  pads: k == 3 ? [1, 1, 1, 1] : [0, 0, 0, 0], height: random.pick([1, 5, 8, 17]),
                                  width: random.pick([1, 7, 16, 63, 65]), xType: u8, wType: i8, yType: u8,
                                  xZero: random.pick([0, 128, 255]), yZero: random.pick([0, 128, 255]),
                                  perChannel: random.next() % 2 == 0, bias: random.next() % 2 == 0))
        }
        // Stride 2 on channel-minor rows under 16 wide and of 16 and one (every column, or the
        // last, masked).
        cases += [
            ConvCase(cin: 16, cout: 20, group: 1, kernel: (3, 3), stride: 2, dilation: 1, pads: [1, 1, 1, 1], height: 24, width: 24,
                     xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true),
            ConvCase(cin: 8, cout: 9, group: 1, kernel: (3, 3), stride: 2, dilation: 1, pads: [0, 0, 1, 1], height: 40, width: 9,
                     xType: i8, wType: i8, yType: i8, xZero: 3, yZero: 0, perChannel: false, bias: true),
            ConvCase(cin: 4, cout: 6, group: 1, kernel: (3, 3), stride: 2, dilation: 1, pads: [1, 1, 1, 1], height: 8, width: 34,
                     xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 3, perChannel: true, bias: true),
        ]
        for c in cases {
            let (model, x) = Self.convModel(c, &random)
            try Self.check(model, feeds: ["x": x], op: "QLinearConv",
                           "\(c.cin)->\(c.cout) g\(c.group) k\(c.kernel) s\(c.stride) d\(c.dilation) \(c.height)x\(c.width) types \(c.xType)/\(c.wType)/\(c.yType) zeros \(c.xZero)/\(c.yZero) perChannel \(c.perChannel) bias \(c.bias)")
        }
    }

    @Test("QLinearConv at stride 1 on shifted planes (channel-minor bytes, no patch matrix), where the group lanes do not take the layer (maps over 4096 pixels, over 512 outputs, groups of more than 16 outputs): maps 9 to 520 wide with rows past each output row, kernels 1x3 to 5x5, dilation, asymmetric and no padding, groups, 3 channels padded to 4, channels into the thousands; uint8 and int8")
    func shiftedPlaneConvolutions() throws {
        var random = SeededGenerator(seed: 2512)
        let u8: Int64 = 2, i8: Int64 = 3
        let cases: [ConvCase] = [
            ConvCase(cin: 64, cout: 128, group: 2, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 20, width: 20,
                     xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true),
            ConvCase(cin: 16, cout: 260, group: 2, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 20, width: 20,
                     xType: i8, wType: i8, yType: u8, xZero: 5, yZero: 0, perChannel: false, bias: true),
            ConvCase(cin: 8, cout: 16, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 66, width: 64,
                     xType: u8, wType: i8, yType: i8, xZero: 255, yZero: 0, perChannel: true, bias: false),
            ConvCase(cin: 12, cout: 20, group: 1, kernel: (3, 3), stride: 1, dilation: 2, pads: [2, 2, 2, 2], height: 65, width: 70,
                     xType: i8, wType: i8, yType: u8, xZero: UInt8(bitPattern: -128), yZero: 128, perChannel: true, bias: true),
            ConvCase(cin: 4, cout: 520, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 30, width: 30,
                     xType: u8, wType: i8, yType: u8, xZero: 0, yZero: 255, perChannel: true, bias: true),
            ConvCase(cin: 4, cout: 9, group: 1, kernel: (5, 5), stride: 1, dilation: 1, pads: [2, 2, 2, 2], height: 64, width: 66,
                     xType: i8, wType: i8, yType: u8, xZero: 3, yZero: 128, perChannel: false, bias: true),
            ConvCase(cin: 16, cout: 6, group: 2, kernel: (3, 2), stride: 1, dilation: 1, pads: [0, 1, 2, 0], height: 12, width: 24,
                     xType: u8, wType: i8, yType: u8, xZero: 200, yZero: 3, perChannel: false, bias: true),
            ConvCase(cin: 4, cout: 1, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [0, 0, 0, 0], height: 67, width: 67,
                     xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: false, bias: false),
            ConvCase(cin: 40, cout: 66, group: 2, kernel: (2, 2), stride: 1, dilation: 1, pads: [0, 0, 1, 1], height: 9, width: 40,
                     xType: i8, wType: i8, yType: i8, xZero: 0, yZero: 0, perChannel: true, bias: true),
            ConvCase(cin: 8, cout: 12, group: 1, kernel: (1, 3), stride: 1, dilation: 1, pads: [0, 1, 0, 1], height: 8, width: 520,
                     xType: u8, wType: i8, yType: u8, xZero: 7, yZero: 128, perChannel: true, bias: true),
            ConvCase(cin: 3, cout: 16, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 32, width: 31,
                     xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true),
            ConvCase(cin: 2064, cout: 40, group: 2, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 3, width: 9,
                     xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true),
            ConvCase(cin: 32, cout: 64, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 11, width: 7,
                     xType: u8, wType: u8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true),
        ]
        for c in cases {
            let (model, x) = Self.convModel(c, &random)
            let label = "\(c.cin)->\(c.cout) g\(c.group) k\(c.kernel) d\(c.dilation) pads \(c.pads) \(c.height)x\(c.width) types \(c.xType)/\(c.wType)/\(c.yType) zeros \(c.xZero)/\(c.yZero)"
            try Self.check(model, feeds: ["x": x], op: "QLinearConv", label)
            #expect(!Self.runsOnGroupLanes(c), "\(label): on the group lanes, not the shifted planes")
        }
    }

    /// Whether the loader puts `c`'s weights on the group lanes (int8 weights; uint8 ones are
    /// 16-bit pairs, never there).
    static func runsOnGroupLanes(_ c: ConvCase) -> Bool {
        guard c.wType == 3 else { return false }
        let (kh, kw) = c.kernel
        let outH = (c.height + Int(c.pads[0] + c.pads[2]) - c.dilation * (kh - 1) - 1) / c.stride + 1
        let outW = (c.width + Int(c.pads[1] + c.pads[3]) - c.dilation * (kw - 1) - 1) / c.stride + 1
        let weights = QuantizedConvolutionWeights(
            values: [Int16](repeating: 1, count: c.cout * c.cin / c.group * kh * kw), bias: nil,
            multipliers: [Float](repeating: 1, count: c.cout), groups: c.group, inputChannels: c.cin, outputChannels: c.cout,
            kernelHeight: kh, kernelWidth: kw, pixels: outH * outW, inputSigned: c.xType == 3, inputZero: 0)
        return weights.runsOnGroupLanes
    }

    @Test("QLinearConv on small maps with a group's outputs as vector lanes: RegNet's 16 channels per group on 3x3 and 5x5 maps, 1 to 16 outputs per group, maps 1x1 to 20x20 and the near misses past 100 and 400 pixels, 17 outputs, 6 channels per group, 16-bit weights; one group of up to 512 outputs (one to four blocks of 16 per tile, partial blocks, threads on tiles of blocks) on maps up to 4096 pixels and the near misses at 513 outputs, 4160 pixels and 1x1 windows; strides, dilation, asymmetric pads, non-square kernels, groups and channels into the thousands; uint8 and int8")
    func groupLaneConvolutions() throws {
        var random = SeededGenerator(seed: 2533)
        let u8: Int64 = 2, i8: Int64 = 3
        // (case, whether it runs on the lanes)
        let cases: [(ConvCase, Bool)] = [
            (ConvCase(cin: 400, cout: 400, group: 25, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 3, width: 3,
                      xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true), true),
            (ConvCase(cin: 400, cout: 400, group: 25, kernel: (3, 3), stride: 2, dilation: 1, pads: [1, 1, 1, 1], height: 5, width: 5,
                      xType: u8, wType: i8, yType: u8, xZero: 0, yZero: 255, perChannel: true, bias: true), true),
            (ConvCase(cin: 160, cout: 160, group: 10, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 5, width: 5,
                      xType: i8, wType: i8, yType: i8, xZero: 5, yZero: 0, perChannel: false, bias: true), true),
            (ConvCase(cin: 1600, cout: 1600, group: 100, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 2, width: 2,
                      xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: false), true),
            (ConvCase(cin: 32, cout: 32, group: 2, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 20, width: 20,
                      xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true), true),
            (ConvCase(cin: 32, cout: 32, group: 2, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 21, width: 19,
                      xType: i8, wType: i8, yType: u8, xZero: UInt8(bitPattern: -128), yZero: 3, perChannel: true, bias: true), true),
            (ConvCase(cin: 32, cout: 32, group: 2, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 20, width: 21,
                      xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true), false),
            (ConvCase(cin: 48, cout: 48, group: 6, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 10, width: 10,
                      xType: u8, wType: i8, yType: u8, xZero: 200, yZero: 128, perChannel: true, bias: true), true),
            (ConvCase(cin: 48, cout: 48, group: 6, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 11, width: 10,
                      xType: u8, wType: i8, yType: u8, xZero: 200, yZero: 128, perChannel: true, bias: true), false),
            (ConvCase(cin: 32, cout: 34, group: 2, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 3, width: 3,
                      xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true), false),
            (ConvCase(cin: 16, cout: 4, group: 4, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 4, width: 4,
                      xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: false, bias: true), true),
            (ConvCase(cin: 36, cout: 27, group: 3, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 7, width: 7,
                      xType: i8, wType: i8, yType: u8, xZero: 0, yZero: 0, perChannel: true, bias: false), true),
            (ConvCase(cin: 12, cout: 12, group: 2, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 5, width: 5,
                      xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true), false),
            (ConvCase(cin: 24, cout: 30, group: 3, kernel: (5, 3), stride: 2, dilation: 2, pads: [0, 1, 2, 0], height: 9, width: 11,
                      xType: u8, wType: i8, yType: i8, xZero: 7, yZero: UInt8(bitPattern: -128), perChannel: true, bias: true), true),
            (ConvCase(cin: 64, cout: 64, group: 4, kernel: (1, 1), stride: 1, dilation: 1, pads: [0, 0, 0, 0], height: 1, width: 1,
                      xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true), true),
            (ConvCase(cin: 32, cout: 48, group: 8, kernel: (1, 1), stride: 3, dilation: 1, pads: [0, 0, 0, 0], height: 6, width: 6,
                      xType: i8, wType: i8, yType: u8, xZero: 3, yZero: 100, perChannel: false, bias: true), true),
            (ConvCase(cin: 64, cout: 64, group: 4, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 3, width: 3,
                      xType: u8, wType: u8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true), false),
            // One group: two blocks of 16 outputs per tile (DenseNet's 128 -> 32 on 16x16 and 8x8
            // maps), one block, a partial second; maps up to 64x64 (ResNets' 3x3 on 28x28, stride
            // 2 from 56x56); 1x1 windows and 4160 pixels stay apart.
            (ConvCase(cin: 128, cout: 32, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 16, width: 16,
                      xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true), true),
            (ConvCase(cin: 128, cout: 32, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 17, width: 16,
                      xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true), true),
            (ConvCase(cin: 32, cout: 64, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 28, width: 28,
                      xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true), true),
            (ConvCase(cin: 16, cout: 67, group: 1, kernel: (3, 3), stride: 2, dilation: 1, pads: [1, 1, 1, 1], height: 57, width: 56,
                      xType: i8, wType: i8, yType: u8, xZero: 3, yZero: 128, perChannel: true, bias: true), true),
            (ConvCase(cin: 4, cout: 16, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 64, width: 64,
                      xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true), true),
            (ConvCase(cin: 4, cout: 16, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 65, width: 64,
                      xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true), false),
            (ConvCase(cin: 16, cout: 33, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 8, width: 8,
                      xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true), true),
            (ConvCase(cin: 16, cout: 17, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 5, width: 5,
                      xType: i8, wType: i8, yType: i8, xZero: UInt8(bitPattern: -128), yZero: 127, perChannel: false, bias: true), true),
            (ConvCase(cin: 16, cout: 16, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 1, width: 1,
                      xType: u8, wType: i8, yType: u8, xZero: 255, yZero: 0, perChannel: true, bias: false), true),
            (ConvCase(cin: 64, cout: 32, group: 1, kernel: (1, 1), stride: 1, dilation: 1, pads: [0, 0, 0, 0], height: 8, width: 8,
                      xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true), false),
            (ConvCase(cin: 1028, cout: 20, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 4, width: 4,
                      xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true), true),
            (ConvCase(cin: 12, cout: 31, group: 1, kernel: (2, 5), stride: 2, dilation: 2, pads: [1, 0, 0, 3], height: 15, width: 13,
                      xType: i8, wType: i8, yType: u8, xZero: 9, yZero: 100, perChannel: true, bias: true), true),
            // Three and four blocks per tile, four and one, and threads on tiles of blocks: the
            // ResNets' 3x3 layers (64 outputs on 16x16, 512 on 2x2), 48, 80 and 511 outputs, and
            // the near miss at 513.
            (ConvCase(cin: 64, cout: 64, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 16, width: 16,
                      xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true), true),
            (ConvCase(cin: 512, cout: 512, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 2, width: 2,
                      xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true), true),
            (ConvCase(cin: 256, cout: 512, group: 1, kernel: (3, 3), stride: 2, dilation: 1, pads: [1, 1, 1, 1], height: 4, width: 4,
                      xType: i8, wType: i8, yType: i8, xZero: 0, yZero: 0, perChannel: false, bias: true), true),
            (ConvCase(cin: 20, cout: 48, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 7, width: 9,
                      xType: u8, wType: i8, yType: u8, xZero: 3, yZero: 250, perChannel: true, bias: true), true),
            (ConvCase(cin: 8, cout: 80, group: 1, kernel: (3, 1), stride: 1, dilation: 1, pads: [1, 0, 1, 0], height: 5, width: 13,
                      xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: false), true),
            (ConvCase(cin: 36, cout: 511, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 3, width: 5,
                      xType: i8, wType: i8, yType: u8, xZero: UInt8(bitPattern: -100), yZero: 128, perChannel: true, bias: true), true),
            (ConvCase(cin: 36, cout: 513, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 3, width: 5,
                      xType: u8, wType: i8, yType: u8, xZero: 128, yZero: 128, perChannel: true, bias: true), false),
        ]
        for (c, lanes) in cases {
            let (model, x) = Self.convModel(c, &random)
            let label = "\(c.cin)->\(c.cout) g\(c.group) k\(c.kernel) s\(c.stride) d\(c.dilation) pads \(c.pads) \(c.height)x\(c.width) types \(c.xType)/\(c.wType)/\(c.yType) zeros \(c.xZero)/\(c.yZero)"
            try Self.check(model, feeds: ["x": x], op: "QLinearConv", label)
            // The layout the loader picks for these weights' shape (uint8 weights: 16-bit pairs).
            if c.wType == i8 {
                let onLanes = Self.runsOnGroupLanes(c)
                #expect(onLanes == lanes, "\(label): on the lanes \(onLanes), expected \(lanes)")
            } else {
                #expect(!lanes, "\(label): 16-bit weights never run on the lanes")
            }
        }
    }

    @Test("QLinearConv depthwise on bytes: outputs 1 to 48 wide (the 16-lane vector, rows packed 4 and 8 to a vector) and 65 to 191 (input rows of 64 bytes and more), strides 1 to 4, dilations 1 to 5 (past the byte kernel's window too), kernels 1x1 to 7x7 and non-square, asymmetric pads, channels into the thousands; uint8 and int8, zero points 0/128/255")
    func byteDepthwise() throws {
        var random = SeededGenerator(seed: 2502)
        let u8: Int64 = 2, i8: Int64 = 3
        func make(_ channels: Int, _ kernel: (Int, Int), stride: Int = 1, dilation: Int = 1, pads: [Int64], _ height: Int, _ width: Int,
                  _ random: inout SeededGenerator) -> ConvCase {
            let xType = random.pick([u8, u8, i8]), yType = random.pick([u8, i8])
            return ConvCase(cin: channels, cout: channels, group: channels, kernel: kernel, stride: stride, dilation: dilation, pads: pads,
                            height: height, width: width, xType: xType, wType: i8, yType: yType,
                            xZero: xType == i8 ? random.pick([0, 5, UInt8(bitPattern: -128)]) : random.pick([0, 128, 255]),
                            yZero: random.pick([0, 128, 255]), perChannel: random.next() % 2 == 0, bias: random.next() % 2 == 0)
        }
        var cases: [ConvCase] = []
        // 3x3, stride 1: widths around the packed rows (4, 8) and the vector (16), heights 1 to 13.
        for (width, height) in [(1, 1), (2, 3), (3, 3), (4, 2), (5, 7), (6, 6), (7, 5), (8, 8), (9, 3), (12, 4), (15, 2), (16, 3),
                                (17, 5), (31, 2), (32, 3), (33, 4), (48, 13)] {
            cases.append(make(random.pick([1, 3, 16, 17]), (3, 3), pads: [1, 1, 1, 1], height, width, &random))
        }
        // Stride 2, with Keras' explicit bottom-right padding and with symmetric padding.
        for (width, height) in [(2, 2), (6, 6), (7, 7), (8, 5), (9, 9), (13, 13), (16, 4), (17, 3), (33, 5), (49, 6)] {
            cases.append(make(random.pick([2, 5, 16]), (3, 3), stride: 2, pads: random.pick([[0, 0, 1, 1], [1, 1, 1, 1]]), height, width,
                              &random))
        }
        // Strides 3 and 4, dilations 2 to 4 (within the 16-byte chunk: stride + dilation ≤ 5), and
        // the near misses past it (stride 3 dilation 3, dilation 5), which run the int32 kernel.
        for (stride, dilation) in [(3, 1), (3, 2), (4, 1), (1, 2), (1, 3), (1, 4), (2, 2), (2, 3), (3, 3), (1, 5)] {
            for (width, height) in [(7, 6), (21, 9), (50, 4)] {
                let pad = Int64(dilation)
                cases.append(make(3, (3, 3), stride: stride, dilation: dilation, pads: [pad, pad, pad, pad], height, width, &random))
            }
        }
        // Kernels of one tap, two quads of taps per row (5 and 7 wide), non-square.
        cases.append(make(9, (1, 1), pads: [0, 0, 0, 0], 5, 19, &random))
        cases.append(make(5, (5, 5), pads: [2, 2, 2, 2], 9, 20, &random))
        cases.append(make(4, (5, 5), stride: 2, pads: [2, 1, 2, 3], 11, 6, &random))
        cases.append(make(3, (7, 7), pads: [3, 3, 3, 3], 8, 35, &random))
        cases.append(make(6, (2, 5), pads: [0, 2, 1, 2], 7, 8, &random))
        cases.append(make(6, (5, 2), stride: 2, pads: [2, 0, 2, 1], 9, 17, &random))
        cases.append(make(7, (1, 7), pads: [0, 3, 0, 3], 3, 4, &random))
        // 16 channels to a vector on bytes (outputs up to 8 wide): channel counts around the
        // vector, a kernel row of three quads (1x9) and of two (5x5), strides 1 to 3, dilated rows.
        for (channels, width, height) in [(15, 3, 3), (31, 4, 4), (33, 5, 5), (48, 8, 8), (47, 7, 2), (16, 1, 6), (17, 8, 1)] {
            cases.append(make(channels, (3, 3), pads: [1, 1, 1, 1], height, width, &random))
            cases.append(make(channels, (3, 3), stride: 2, pads: random.pick([[0, 0, 1, 1], [1, 1, 1, 1]]), 2 * height, 2 * width,
                              &random))
        }
        cases.append(make(19, (1, 9), pads: [0, 4, 0, 4], 5, 8, &random))
        cases.append(make(21, (5, 5), stride: 3, pads: [2, 2, 2, 2], 13, 11, &random))
        cases.append(make(18, (3, 3), dilation: 2, pads: [2, 2, 2, 2], 6, 6, &random))
        // Channels into the thousands on the small maps of a network's last stages, and a wide map.
        cases.append(make(1031, (3, 3), pads: [1, 1, 1, 1], 3, 3, &random))
        cases.append(make(577, (3, 3), pads: [1, 1, 1, 1], 6, 6, &random))
        cases.append(make(960, (3, 3), stride: 2, pads: [0, 0, 1, 1], 6, 6, &random))
        cases.append(make(2, (3, 3), stride: 2, pads: [0, 0, 1, 1], 96, 96, &random))
        // Outputs past 64 wide (the byte plane, not 16 channels to a vector): input rows of 64
        // bytes and more, their tails masked, int8 (each byte's top bit flipped) and uint8.
        for (xType, xZero) in [(i8, UInt8(bitPattern: -128)), (i8, 5), (u8, 128)] {
            for (channels, kernel, stride, dilation, pads, height, width) in [
                (3, (3, 3), 1, 1, [Int64](repeating: 1, count: 4), 5, 130), (17, (3, 3), 1, 1, [1, 1, 1, 1], 3, 65),
                (2, (3, 3), 2, 1, [1, 1, 1, 1], 6, 200), (4, (5, 5), 1, 2, [4, 4, 4, 4], 4, 70), (5, (3, 3), 1, 1, [1, 1, 1, 1], 2, 191),
            ] {
                cases.append(ConvCase(cin: channels, cout: channels, group: channels, kernel: kernel, stride: stride, dilation: dilation,
                                      pads: pads, height: height, width: width, xType: xType, wType: i8, yType: u8, xZero: xZero,
                                      yZero: 128, perChannel: true, bias: true))
            }
        }
        for c in cases {
            let (model, x) = Self.convModel(c, &random)
            try Self.check(model, feeds: ["x": x], op: "QLinearConv",
                           "\(c.cin) channels k\(c.kernel) s\(c.stride) d\(c.dilation) pads \(c.pads) \(c.height)x\(c.width) types \(c.xType)/\(c.yType) zeros \(c.xZero)/\(c.yZero) perChannel \(c.perChannel) bias \(c.bias)")
        }
    }

    @Test("QLinearMatMul: rows, inner and columns around the tile, batched A, per-column and per-tensor b, uint8 and int8")
    func matrixProducts() throws {
        var random = SeededGenerator(seed: 2502)
        for (batch, m, k, n, perColumn, aType, bType) in [(1, 1, 1, 1, false, Int64(2), Int64(3)), (1, 5, 17, 63, true, 2, 3),
                                                           (2, 3, 64, 65, true, 3, 3), (1, 4, 1000, 10, false, 2, 2),
                                                           (3, 7, 33, 129, true, 2, 3), (1, 1, 512, 1000, true, 3, 2),
                                                           // 13 to 25 rows: three or more tiles of rows.
                                                           (1, 13, 64, 33, true, 2, 3), (2, 7, 100, 70, false, 3, 2),
                                                           (4, 6, 48, 96, true, 2, 3), (1, 25, 20, 40, false, 2, 3)] {
            let b = Self.bytes(k * n, &random)
            let bScales: [Float] = (0..<(perColumn ? n : 1)).map { _ in 0.01 * (0.5 + Float(random.next() % 100) / 100) }
            let bZeros: [UInt8] = (0..<(perColumn ? n : 1)).map { _ in bType == 3 ? 0 : UInt8(random.next() % 256) }
            let yScale: Float = 0.02 * 0.01 * Float(k).squareRoot() * 6
            let model = B.model(
                nodes: [B.node("QuantizeLinear", inputs: ["x", "as", "az"], outputs: ["aq"]),
                        B.node("QLinearMatMul", inputs: ["aq", "as", "az", "b", "bs", "bz", "ys", "yz"], outputs: ["yq"], name: "mm"),
                        B.node("DequantizeLinear", inputs: ["yq", "ys", "yz"], outputs: ["y"])],
                initializers: [
                    B.floatTensor("as", [], [0.02]), B.rawTensor("az", elementType: aType, [], [aType == 2 ? 128 : 0]),
                    B.rawTensor("b", elementType: bType, [Int64(k), Int64(n)], b),
                    B.floatTensor("bs", perColumn ? [Int64(n)] : [], bScales),
                    B.rawTensor("bz", elementType: bType, perColumn ? [Int64(n)] : [], bZeros),
                    B.floatTensor("ys", [], [yScale]), B.rawTensor("yz", elementType: 2, [], [100]),
                ],
                inputs: [B.valueInfo("x", [Int64(batch), Int64(m), Int64(k)])],
                outputs: [B.valueInfo("y", dims: nil, elementType: 1)], opset: 13)
            try Self.check(model, feeds: ["x": random.floats(batch * m * k, scale: 3)], op: "QLinearMatMul",
                           "\(batch)x\(m)x\(k) · \(k)x\(n) perColumn \(perColumn) types \(aType)/\(bType)")
        }
    }

    @Test("HardSigmoid on its own (the quantized HardSwish's) runs its fast step, bit for bit the reference kernel: counts around 16, NaN, infinities, −0, the clamps' edges, alphas 0.2 and 1/6")
    func hardSigmoidStep() throws {
        var random = SeededGenerator(seed: 2528)
        for count in [1, 15, 16, 17, 100, 1031] {
            for (alpha, beta): (Float, Float) in [(0.2, 0.5), (1.0 / 6, 0.5), (-0.7, 0.25)] {
                let model = try InferenceModel(bytes: B.model(
                    nodes: [B.node("HardSigmoid", inputs: ["x"], outputs: ["y"], attributes: [.float("alpha", alpha), .float("beta", beta)])],
                    inputs: [B.valueInfo("x", [Int64(count)])], outputs: [B.valueInfo("y", dims: nil, elementType: 1)], opset: 13))
                var x = random.floats(count, scale: 8)
                let specials: [Float] = [.nan, .infinity, -.infinity, -0.0, 0, -3, 3, (1 - beta) / alpha, -beta / alpha, 1e30]
                for (k, value) in specials.enumerated() where k < count { x[(k * 5) % count] = value }
                let want = try #require(try InferenceSession(model: model, path: .reference).run(inputs: ["x": x])["y"])
                let session = try InferenceSession(model: model, path: .fast)
                #expect(session.nodeKernels.allSatisfy { !$0.runsOnReference }, "count \(count): \(session.nodeKernels.map(\.op))")
                let got = try #require(try session.run(inputs: ["x": x])["y"])
                let differing = zip(want, got).filter { $0.bitPattern != $1.bitPattern }.count
                #expect(differing == 0, "count \(count) alpha \(alpha) beta \(beta): \(differing) differ")
            }
        }
    }

    @Test("QuantizeLinear and DequantizeLinear per tensor: every element equal to the reference kernels around the 16-lane vector (halves, NaN, infinities, saturation), uint8 and int8")
    func quantizeDequantize() throws {
        var random = SeededGenerator(seed: 2503)
        for count in [1, 15, 16, 17, 33, 1000, 4099] {
            for (type, zero) in [(Int64(2), UInt8(0)), (2, 128), (2, 255), (3, UInt8(bitPattern: -128)), (3, 0), (3, 127)] {
                let scale: Float = [0.02, 0.5, 1, 0.1][count % 4]
                let model = B.model(
                    nodes: [B.node("QuantizeLinear", inputs: ["x", "s", "z"], outputs: ["q"]),
                            B.node("DequantizeLinear", inputs: ["q", "s", "z"], outputs: ["y"])],
                    initializers: [B.floatTensor("s", [], [scale]), B.rawTensor("z", elementType: type, [], [zero])],
                    inputs: [B.valueInfo("x", [Int64(count)])],
                    outputs: [B.valueInfo("y", dims: nil, elementType: 1)], opset: 13)
                var x = random.floats(count, scale: 300 * scale)
                // Ties at the scale's multiples, and the values with no rounding to do.
                let specials: [Float] = [.nan, .infinity, -.infinity, 0.5 * scale, 1.5 * scale, -2.5 * scale, 0, -0.0, 1e30, -1e30]
                for (k, value) in specials.enumerated() where k < count { x[(k * 7) % count] = value }
                try Self.check(model, feeds: ["x": x], op: "QuantizeLinear", "quantize \(count) type \(type) zero \(zero)")
                try Self.check(model, feeds: ["x": x], op: "DequantizeLinear", "dequantize \(count) type \(type) zero \(zero)")
            }
        }
    }

    @Test("QLinearAdd and QLinearMul: one shape, one value per plane (either operand; planes under 32, under and over the 384 of the table lookup, tails past 64), a scalar, one row repeated (either operand); sizes around the 16-lane vector; uint8 and int8")
    func quantizedBinary() throws {
        let vectorShapes: [([Int64], [Int64])] = [
            ([1, 3, 5, 7], [1, 3, 5, 7]), ([1, 2, 4, 4], [1, 2, 4, 4]), ([1, 5, 17, 3], [1, 5, 1, 1]), ([1, 4, 1, 1], [1, 4, 6, 11]),
            ([2, 33], [1]), ([1, 16, 9, 9], [16, 1, 1]), ([1, 1000], [1, 1000]),
        ]
        // Planes of 383 (vectors) and 384 or more (a table per plane): whole 64-byte steps and tails.
        let tableShapes: [([Int64], [Int64])] = [
            ([1, 3, 1, 383], [1, 3, 1, 1]), ([1, 5, 16, 24], [1, 5, 1, 1]), ([1, 3, 24, 24], [3, 1, 1]), ([1, 3, 1, 1], [1, 3, 31, 17]),
            ([1, 130, 8, 64], [130, 1, 1]), ([2, 7, 20, 21], [2, 7, 1, 1]),
        ]
        // Planes under 32 values (runs of whole planes spread by a byte permute), and past them:
        // primes, the run's last plane cut by the plane count, b either operand.
        let smallPlaneShapes: [([Int64], [Int64])] = [
            ([1, 960, 3, 3], [960, 1, 1]), ([1, 576, 6, 6], [1, 576, 1, 1]), ([1, 13, 1, 1], [1, 13, 3, 3]), ([1, 67, 1, 5], [67, 1, 1]),
            ([1, 9, 1, 17], [1, 9, 1, 1]), ([1, 7, 7, 9], [1, 7, 1, 1]), ([2, 5, 1, 3], [2, 5, 1, 1]), ([1, 1001, 1, 2], [1001, 1, 1]),
            ([1, 3, 1, 1], [1, 3, 1, 31]), ([1, 100, 2, 2], [100, 1, 1]), ([1, 5, 1, 63], [5, 1, 1]),
        ]
        // One row repeated along the other operand (a channels-last layer scale), either operand,
        // rows around the 16-lane vector.
        let rowShapes: [([Int64], [Int64])] = [
            ([1, 4, 4, 96], [96]), ([96], [1, 4, 4, 96]), ([2, 3, 5, 17], [5, 17]), ([1, 6, 6, 40], [1, 1, 1, 40]), ([1, 3, 2, 33], [33]),
        ]
        for (shapes, seed) in [(vectorShapes, UInt64(2504)), (tableShapes, 2513), (smallPlaneShapes, 2527), (rowShapes, 2531)] {
            var random = SeededGenerator(seed: seed)
            for op in ["QLinearAdd", "QLinearMul"] {
                for (shapeA, shapeB) in shapes {
                    for type in [Int64(2), 3] {
                        let drawn: [UInt8] = type == 2 ? [random.pick([0, 128, 255]), random.pick([3, 128]), random.pick([0, 100, 255])]
                            : [UInt8(bitPattern: random.pick([-128, 0, 5])), UInt8(bitPattern: random.pick([0, 127])), 0]
                        // The table's planes: zero points inside the values' range, so that every byte value occurs.
                        let zeros: [UInt8] = shapes.count != tableShapes.count ? drawn : type == 2 ? [128, 3, 128] : [0, 5, 0]
                        let scales: [Float] = [0.02, 0.035, op == "QLinearAdd" ? 0.05 : 0.02 * 0.035 * 40]
                        let model = B.model(
                            nodes: [B.node("QuantizeLinear", inputs: ["x1", "s1", "z1"], outputs: ["q1"]),
                                    B.node("QuantizeLinear", inputs: ["x2", "s2", "z2"], outputs: ["q2"]),
                                    B.node(op, inputs: ["q1", "s1", "z1", "q2", "s2", "z2", "s3", "z3"], outputs: ["yq"], name: "binary",
                                           domain: "com.microsoft"),
                                    B.node("DequantizeLinear", inputs: ["yq", "s3", "z3"], outputs: ["y"])],
                            initializers: [B.floatTensor("s1", [], [scales[0]]), B.rawTensor("z1", elementType: type, [], [zeros[0]]),
                                           B.floatTensor("s2", [], [scales[1]]), B.rawTensor("z2", elementType: type, [], [zeros[1]]),
                                           B.floatTensor("s3", [], [scales[2]]), B.rawTensor("z3", elementType: type, [], [zeros[2]])],
                            inputs: [B.valueInfo("x1", shapeA), B.valueInfo("x2", shapeB)],
                            outputs: [B.valueInfo("y", dims: nil, elementType: 1)], opset: 13)
                        let x1 = random.floats(Int(shapeA.reduce(1, *)), scale: 4), x2 = random.floats(Int(shapeB.reduce(1, *)), scale: 4)
                        try Self.check(model, feeds: ["x1": x1, "x2": x2], op: op, "\(op) \(shapeA) \(shapeB) type \(type) zeros \(zeros)")
                    }
                }
            }
        }
    }

    @Test("QLinearSigmoid and QLinearLeakyRelu (a 256-byte table) and QLinearGlobalAveragePool (plane sums by vectors): sizes around 16 and 64, planes into the thousands; uint8 and int8; equal to the reference kernels")
    func byteTablesAndMeans() throws {
        var random = SeededGenerator(seed: 2514)
        for shape: [Int64] in [[1, 3, 5, 7], [1, 1, 1, 64], [1, 2, 1, 65], [2, 5, 9, 9], [1, 16, 24, 24], [1, 1031, 1, 1], [1, 7, 1, 127]] {
            for type in [Int64(2), 3] {
                let x = random.floats(Int(shape.reduce(1, *)), scale: 4)
                // Zero points where the values lie: the input's and the means' in the middle, sigmoid's at the bottom.
                let low: UInt8 = type == 2 ? 0 : UInt8(bitPattern: -128), middle: UInt8 = type == 2 ? random.pick([120, 128, 140]) : random.pick([0, 5])
                let zeros = [middle]
                for (op, attributes, yScale, yZero): (String, [B.Attribute], Float, UInt8) in [
                    ("QLinearSigmoid", [], 1 / 250, low), ("QLinearLeakyRelu", [.float("alpha", 0.2)], 0.03, middle),
                    ("QLinearGlobalAveragePool", [.int("channels_last", 0)], 0.01, middle),
                ] {
                    let model = B.model(
                        nodes: [B.node("QuantizeLinear", inputs: ["x", "xs", "xz"], outputs: ["q"]),
                                B.node(op, inputs: ["q", "xs", "xz", "ys", "yz"], outputs: ["yq"], name: "op", attributes: attributes,
                                       domain: "com.microsoft"),
                                B.node("DequantizeLinear", inputs: ["yq", "ys", "yz"], outputs: ["y"])],
                        initializers: [B.floatTensor("xs", [], [0.03]), B.rawTensor("xz", elementType: type, [], [zeros[0]]),
                                       B.floatTensor("ys", [], [yScale]), B.rawTensor("yz", elementType: type, [], [yZero])],
                        inputs: [B.valueInfo("x", shape)],
                        outputs: [B.valueInfo("y", dims: nil, elementType: 1)], opset: 13)
                    try Self.check(model, feeds: ["x": x], op: op, "\(op) \(shape) type \(type) zeros \(zeros[0])/\(yZero)")
                }
            }
        }
    }

    @Test("QLinearAveragePool of channel-major 1-D and 2-D windows (a table of dequantized bytes, the reference's float sums in its order): densenet's 2x2 stride 2, 3x3 stride 1 and 2, non-square, padding with and without count_include_pad, ceil mode, one-column maps; uint8 and int8; equal to the reference kernel")
    func byteAveragePool() throws {
        var random = SeededGenerator(seed: 2515)
        struct Case { var shape: [Int64]; var kernel: [Int64]; var strides: [Int64]; var pads: [Int64]; var includePad = 0; var ceil = 0 }
        let cases = [
            Case(shape: [1, 8, 16, 16], kernel: [2, 2], strides: [2, 2], pads: [0, 0, 0, 0]),
            Case(shape: [2, 3, 9, 7], kernel: [3, 3], strides: [1, 1], pads: [1, 1, 1, 1]),
            Case(shape: [2, 3, 9, 7], kernel: [3, 3], strides: [1, 1], pads: [1, 1, 1, 1], includePad: 1),
            Case(shape: [1, 5, 11, 13], kernel: [3, 2], strides: [2, 3], pads: [1, 0, 2, 1], ceil: 1),
            Case(shape: [1, 4, 10, 1], kernel: [3, 1], strides: [2, 1], pads: [1, 0, 1, 0], includePad: 1),
            Case(shape: [1, 6, 20], kernel: [4], strides: [3], pads: [2, 1]),
        ]
        for c in cases {
            for type in [Int64(2), 3] {
                let x = random.floats(Int(c.shape.reduce(1, *)), scale: 4)
                let zero: UInt8 = type == 2 ? random.pick([120, 128, 140]) : random.pick([0, 5]), yZero: UInt8 = type == 2 ? 131 : 3
                let model = B.model(
                    nodes: [B.node("QuantizeLinear", inputs: ["x", "xs", "xz"], outputs: ["q"]),
                            B.node("QLinearAveragePool", inputs: ["q", "xs", "xz", "ys", "yz"], outputs: ["yq"], name: "op",
                                   attributes: [.ints("kernel_shape", c.kernel), .ints("strides", c.strides), .ints("pads", c.pads),
                                                .int("count_include_pad", Int64(c.includePad)), .int("ceil_mode", Int64(c.ceil))],
                                   domain: "com.microsoft"),
                            B.node("DequantizeLinear", inputs: ["yq", "ys", "yz"], outputs: ["y"])],
                    initializers: [B.floatTensor("xs", [], [0.03]), B.rawTensor("xz", elementType: type, [], [zero]),
                                   B.floatTensor("ys", [], [0.017]), B.rawTensor("yz", elementType: type, [], [yZero])],
                    inputs: [B.valueInfo("x", c.shape)],
                    outputs: [B.valueInfo("y", dims: nil, elementType: 1)], opset: 13)
                try Self.check(model, feeds: ["x": x], op: "QLinearAveragePool",
                               "QLinearAveragePool \(c.shape) kernel \(c.kernel) strides \(c.strides) pads \(c.pads) include \(c.includePad) ceil \(c.ceil) type \(type)")
            }
        }
    }

    @Test("Transpose of uint8 and int8 maps moving the leading axes behind the others (NCHW → NHWC and back, [1, C, N] → [1, N, C]) runs the byte matrix transpose, equal to the reference kernel; other permutations stay on the reference")
    func byteMatrixTranspose() throws {
        var random = SeededGenerator(seed: 2533)
        let cases: [([Int64], [Int64], Bool)] = [
            ([1, 96, 16, 16], [0, 2, 3, 1], true), ([1, 16, 16, 96], [0, 3, 1, 2], true), ([1, 5, 7, 3], [0, 2, 3, 1], true),
            ([1, 33, 17], [0, 2, 1], true), ([1, 3, 1, 40], [0, 2, 3, 1], true), ([2, 3, 4, 5], [0, 2, 3, 1], false),
            ([1, 4, 6, 5], [0, 1, 3, 2], false),
        ]
        for (shape, perm, fast) in cases {
            for type in [Int64(2), 3] {
                let label = "Transpose \(shape) perm \(perm) type \(type)"
                let model = try InferenceModel(bytes: B.model(
                    nodes: [B.node("Transpose", inputs: ["x"], outputs: ["y"], name: "t", attributes: [.ints("perm", perm)])],
                    inputs: [B.valueInfo("x", dims: shape.map { .value($0) }, elementType: type)],
                    outputs: [B.valueInfo("y", dims: nil, elementType: type)], opset: 13))
                let count = Int(shape.reduce(1, *))
                let x = Inference.Tensor(type: type == 2 ? .uint8 : .int8, shape: shape.map(Int.init),
                                         doubles: (0..<count).map { _ in Double(Int(random.next() % 256) - (type == 2 ? 0 : 128)) })
                let want = try #require(try InferenceSession(model: model, path: .reference).run(["x": x])["y"])
                for threads in [1, 2] {
                    let session = try InferenceSession(model: model, path: .fast, threads: threads)
                    let onReference = session.nodeKernels.filter(\.runsOnReference).map(\.op)
                    #expect(onReference.contains("Transpose") == !fast, "\(label): on the reference kernel: \(onReference)")
                    let got = try #require(try session.run(["x": x])["y"])
                    #expect(got == want, "\(label), \(threads) thread(s)")
                }
            }
        }
    }

    @Test("Resize linear of uint8 and int8 maps (16 outputs at a time where their sources lie within 16 columns, else one at a time): ×2 half-pixel, asymmetric, align-corners, PyTorch half-pixel, odd sizes, downsizing, one-column inputs, rows around the 16-column block; equal to the reference kernel")
    func byteResize() throws {
        var random = SeededGenerator(seed: 2516)
        let sizes: [(String, [Int64], [Int64])] = [
            ("half_pixel", [1, 3, 6, 7], [1, 3, 12, 14]), ("half_pixel", [1, 2, 5, 40], [1, 2, 10, 80]),
            ("asymmetric", [1, 4, 8, 24], [1, 4, 16, 48]), ("align_corners", [1, 2, 9, 9], [1, 2, 17, 31]),
            ("pytorch_half_pixel", [1, 3, 7, 19], [1, 3, 11, 35]), ("half_pixel", [1, 2, 20, 40], [1, 2, 10, 13]),
            ("half_pixel", [1, 5, 1, 1], [1, 5, 4, 33]), ("half_pixel", [2, 3, 4, 8], [2, 3, 8, 16]),
            ("half_pixel", [1, 1, 3, 9], [1, 1, 6, 17]), ("asymmetric", [1, 2, 16, 60], [1, 2, 32, 15]),
        ]
        for (transform, shape, size) in sizes {
            for type in [Int64(2), 3] {
                let zero: UInt8 = type == 2 ? 128 : 0
                let model = B.model(
                    nodes: [B.node("QuantizeLinear", inputs: ["x", "xs", "xz"], outputs: ["q"]),
                            B.node("Resize", inputs: ["q", "", "", "sizes"], outputs: ["r"], name: "resize",
                                   attributes: [.string("mode", "linear"), .string("coordinate_transformation_mode", transform)]),
                            B.node("DequantizeLinear", inputs: ["r", "xs", "xz"], outputs: ["y"])],
                    initializers: [B.floatTensor("xs", [], [0.03]), B.rawTensor("xz", elementType: type, [], [zero]),
                                   B.int64Tensor("sizes", [4], size)],
                    inputs: [B.valueInfo("x", shape)], outputs: [B.valueInfo("y", dims: nil, elementType: 1)], opset: 13)
                try Self.check(model, feeds: ["x": random.floats(Int(shape.reduce(1, *)), scale: 4)], op: "Resize",
                               "Resize \(transform) \(shape) → \(size) type \(type)")
            }
        }
    }

    @Test("Pad of 8-bit and float maps (constant with any value, edge; negative pads crop) equals the reference kernel, uint8, int8 and float32")
    func bytePad() throws {
        var random = SeededGenerator(seed: 2505)
        let cases: [([Int64], String, UInt8)] = [
            ([0, 0, 1, 2, 0, 0, 2, 1], "constant", 128), ([0, 0, 0, 1, 0, 0, 1, 0], "constant", 9),
            ([0, 0, -1, 3, 0, 0, 2, -2], "constant", 0), ([0, 0, 2, 2, 0, 0, 2, 2], "edge", 0),
        ]
        for (pads, mode, value) in cases {
            for type in [Int64(2), 3] {
                let model = B.model(
                    nodes: [B.node("QuantizeLinear", inputs: ["x", "s", "z"], outputs: ["q"]),
                            B.node("Pad", inputs: ["q", "pads", "v"], outputs: ["p"], attributes: [.string("mode", mode)]),
                            B.node("DequantizeLinear", inputs: ["p", "s", "z"], outputs: ["y"])],
                    initializers: [B.floatTensor("s", [], [0.05]), B.rawTensor("z", elementType: type, [], [type == 2 ? 100 : 0]),
                                   B.int64Tensor("pads", [8], pads), B.rawTensor("v", elementType: type, [], [value])],
                    inputs: [B.valueInfo("x", [1, 3, 5, 19])],
                    outputs: [B.valueInfo("y", dims: nil, elementType: 1)], opset: 13)
                try Self.check(model, feeds: ["x": random.floats(3 * 5 * 19, scale: 8)], op: "Pad", "Pad \(pads) \(mode) \(value) type \(type)")
            }
            // The same on float32 (a Pad between DequantizeLinear and QuantizeLinear).
            let model = B.model(
                nodes: [B.node("Pad", inputs: ["x", "pads", "v"], outputs: ["y"], attributes: [.string("mode", mode)])],
                initializers: [B.int64Tensor("pads", [8], pads), B.floatTensor("v", [], [Float(value) / 7])],
                inputs: [B.valueInfo("x", [1, 3, 5, 19])], outputs: [B.valueInfo("y", dims: nil, elementType: 1)], opset: 13)
            try Self.check(model, feeds: ["x": random.floats(3 * 5 * 19, scale: 8)], op: "Pad", "Pad \(pads) \(mode) \(value) float")
        }
    }

    @Test("QGemm: float and quantized outputs, transB, per-column and scalar b, bias per column, rows and columns around the tile, uint8 and int8")
    func quantizedGemm() throws {
        var random = SeededGenerator(seed: 2506)
        for (m, k, n, transB, perColumn, bias, quantizedOutput, aType, bType) in [
            (1, 1024, 1000, true, false, true, false, Int64(2), Int64(3)), (3, 17, 65, false, true, false, true, 2, 3),
            (2, 64, 7, true, true, true, true, 3, 3), (5, 33, 129, false, false, true, false, 2, 2),
            (1, 9, 1, true, false, false, true, 3, 2),
        ] {
            let b = Self.bytes(k * n, &random)
            let bScales: [Float] = (0..<(perColumn ? n : 1)).map { _ in 0.01 * (0.5 + Float(random.next() % 100) / 100) }
            let bZeros: [UInt8] = (0..<(perColumn ? n : 1)).map { _ in bType == 3 ? 0 : UInt8(random.next() % 256) }
            var initializers = [
                B.floatTensor("as", [], [0.02]), B.rawTensor("az", elementType: aType, [], [aType == 2 ? 128 : 0]),
                B.rawTensor("b", elementType: bType, transB ? [Int64(n), Int64(k)] : [Int64(k), Int64(n)], b),
                B.floatTensor("bs", perColumn ? [Int64(n)] : [], bScales),
                B.rawTensor("bz", elementType: bType, perColumn ? [Int64(n)] : [], bZeros),
            ]
            var gemmInputs = ["aq", "as", "az", "b", "bs", "bz", bias ? "c" : ""]
            if bias {
                initializers.append(B.rawTensor("c", elementType: 6, [Int64(n)],
                                                Self.int32Bytes((0..<n).map { _ in Int32(Int64(random.next() % 20001) - 10000) })))
            }
            let yScale: Float = 0.02 * 0.01 * Float(k).squareRoot() * 6
            var nodes = [B.node("QuantizeLinear", inputs: ["x", "as", "az"], outputs: ["aq"])]
            if quantizedOutput {
                initializers += [B.floatTensor("ys", [], [yScale]), B.rawTensor("yz", elementType: 2, [], [100])]
                gemmInputs += ["ys", "yz"]
                nodes.append(B.node("QGemm", inputs: gemmInputs, outputs: ["yq"], name: "gemm",
                                    attributes: [.int("transB", transB ? 1 : 0), .float("alpha", 0.75)], domain: "com.microsoft"))
                nodes.append(B.node("DequantizeLinear", inputs: ["yq", "ys", "yz"], outputs: ["y"]))
            } else {
                nodes.append(B.node("QGemm", inputs: gemmInputs, outputs: ["y"], name: "gemm",
                                    attributes: [.int("transB", transB ? 1 : 0), .float("alpha", 0.75)], domain: "com.microsoft"))
            }
            let model = B.model(nodes: nodes, initializers: initializers, inputs: [B.valueInfo("x", [Int64(m), Int64(k)])],
                                outputs: [B.valueInfo("y", dims: nil, elementType: 1)], opset: 13)
            try Self.check(model, feeds: ["x": random.floats(m * k, scale: 3)], op: "QGemm",
                           "QGemm \(m)x\(k)x\(n) transB \(transB) perColumn \(perColumn) bias \(bias) quantized \(quantizedOutput) types \(aType)/\(bType)")
        }
    }

    @Test("QGemm's A as the product's rows: uint8 rows of a multiple of 4 read in place, other depths and int8 copied 64 bytes at a time with a masked tail; depths 1 to 1537 (primes, 64 ± 1, ConvNeXt's 96 to 1536), 1 to 17 rows, columns around the tile")
    func quantizedGemmRowOperand() throws {
        var random = SeededGenerator(seed: 2531)
        // (rows, inner, columns): inner a multiple of 4 (in place for uint8) or not (copied), the
        // copy's 64-byte steps ± 1 and its tail alone (inner < 64).
        let shapes = [(1, 1, 5), (3, 3, 17), (2, 4, 64), (5, 8, 65), (7, 60, 63), (4, 63, 96), (6, 64, 64), (1, 65, 129),
                      (13, 96, 384), (16, 127, 33), (4, 128, 191), (17, 129, 96), (8, 384, 96), (2, 383, 70),
                      (16, 1536, 64), (3, 1537, 40), (4, 1021, 128)]
        for (m, k, n) in shapes {
            for aType: Int64 in [2, 3] {
                let b = Self.bytes(k * n, &random)
                let bScales: [Float] = (0..<n).map { _ in 0.01 * (0.5 + Float(random.next() % 100) / 100) }
                let c = Self.int32Bytes((0..<n).map { _ in Int32(Int64(random.next() % 20001) - 10000) })
                let yScale: Float = 0.02 * 0.01 * Float(k).squareRoot() * 6
                let model = B.model(
                    nodes: [B.node("QuantizeLinear", inputs: ["x", "as", "az"], outputs: ["aq"]),
                            B.node("QGemm", inputs: ["aq", "as", "az", "b", "bs", "bz", "c", "ys", "yz"], outputs: ["yq"], name: "gemm",
                                   domain: "com.microsoft"),
                            B.node("DequantizeLinear", inputs: ["yq", "ys", "yz"], outputs: ["y"])],
                    initializers: [
                        B.floatTensor("as", [], [0.02]), B.rawTensor("az", elementType: aType, [], [aType == 2 ? 131 : 5]),
                        B.rawTensor("b", elementType: 3, [Int64(k), Int64(n)], b),
                        B.floatTensor("bs", [Int64(n)], bScales), B.rawTensor("bz", elementType: 3, [Int64(n)], [UInt8](repeating: 0, count: n)),
                        B.rawTensor("c", elementType: 6, [Int64(n)], c),
                        B.floatTensor("ys", [], [yScale]), B.rawTensor("yz", elementType: 2, [], [100]),
                    ],
                    inputs: [B.valueInfo("x", [Int64(m), Int64(k)])],
                    outputs: [B.valueInfo("y", dims: nil, elementType: 1)], opset: 13)
                try Self.check(model, feeds: ["x": random.floats(m * k, scale: 3)], op: "QGemm", "QGemm \(m)x\(k)x\(n) a type \(aType)")
            }
        }
    }

    @Test("MaxPool of uint8 and int8 maps: kernels 1 to 5, strides 1 to 3, padding, dilation, ceil mode, rows around the 16- and 64-value vectors, masked tails; equal to the reference kernel")
    func byteMaxPool() throws {
        var random = SeededGenerator(seed: 2507)
        let cases: [(kernel: Int64, stride: Int64, pads: [Int64], dilation: Int64, ceil: Int64, h: Int64, w: Int64)] = [
            (3, 2, [1, 1, 1, 1], 1, 0, 40, 40), (2, 2, [0, 0, 0, 0], 1, 0, 9, 17), (3, 1, [1, 0, 2, 1], 1, 0, 7, 33),
            (5, 2, [2, 2, 2, 2], 1, 1, 13, 10), (3, 2, [0, 0, 0, 0], 2, 1, 15, 16), (3, 3, [1, 1, 1, 1], 1, 1, 1, 5),
            // Rows around the 16- and 64-value vectors, dilation at stride 1, one tap, stride 3.
            (3, 1, [1, 1, 1, 1], 1, 0, 5, 64), (3, 1, [2, 2, 2, 2], 2, 0, 6, 65), (2, 1, [0, 0, 0, 0], 1, 0, 4, 129),
            (3, 2, [1, 1, 1, 1], 1, 0, 3, 131), (1, 1, [0, 0, 0, 0], 1, 0, 2, 70), (4, 3, [0, 2, 0, 1], 1, 1, 9, 100),
            (3, 1, [1, 1, 1, 1], 1, 0, 2, 15), (3, 1, [1, 1, 1, 1], 1, 0, 2, 17),
            // Stride 2's last outputs by a masked store: 1, 15 and 14 past the 16-output vectors (dilation 2).
            (3, 2, [1, 1, 1, 1], 1, 0, 4, 33), (2, 2, [0, 0, 0, 0], 1, 0, 3, 62), (3, 2, [1, 1, 1, 1], 2, 0, 5, 61),
            // Rows of 16 to 64 in registers (windows of up to 3 taps): ceil mode's last window,
            // strides 1 to 3, dilation, a pad on one side, the 64-value edge; 4 taps and 65 do not.
            (3, 2, [0, 0, 0, 0], 1, 1, 16, 16), (3, 2, [0, 0, 0, 0], 1, 1, 33, 32), (3, 3, [1, 1, 1, 1], 1, 0, 6, 64),
            (2, 1, [0, 0, 1, 1], 2, 0, 5, 63), (1, 2, [0, 0, 0, 0], 1, 0, 4, 64), (3, 1, [0, 2, 0, 2], 1, 0, 3, 48),
            (2, 2, [1, 1, 1, 1], 1, 1, 7, 45), (3, 2, [1, 1, 1, 1], 3, 0, 9, 50), (4, 2, [1, 1, 2, 2], 1, 0, 8, 40),
            (3, 1, [1, 1, 1, 1], 1, 0, 3, 65),
        ]
        for c in cases {
            for type in [Int64(2), 3] {
                let model = B.model(
                    nodes: [B.node("QuantizeLinear", inputs: ["x", "s", "z"], outputs: ["q"]),
                            B.node("MaxPool", inputs: ["q"], outputs: ["p"],
                                   attributes: [.ints("kernel_shape", [c.kernel, c.kernel]), .ints("strides", [c.stride, c.stride]),
                                                .ints("pads", c.pads), .ints("dilations", [c.dilation, c.dilation]), .int("ceil_mode", c.ceil)]),
                            B.node("DequantizeLinear", inputs: ["p", "s", "z"], outputs: ["y"])],
                    initializers: [B.floatTensor("s", [], [0.05]), B.rawTensor("z", elementType: type, [], [type == 2 ? 100 : 0])],
                    inputs: [B.valueInfo("x", [1, 3, c.h, c.w])],
                    outputs: [B.valueInfo("y", dims: nil, elementType: 1)], opset: 13)
                try Self.check(model, feeds: ["x": random.floats(Int(3 * c.h * c.w), scale: 8)], op: "MaxPool",
                               "MaxPool \(c) type \(type)")
            }
        }
    }

    @Test("MaxPool of narrow uint8 and int8 planes (gathered bytes): planes 1x1 to 15x15, several planes per group and blocks within a plane, kernels 1 to 5, strides 1 to 3, padding, dilation, ceil mode, prime plane counts; equal to the reference kernel")
    func narrowByteMaxPool() throws {
        var random = SeededGenerator(seed: 2511)
        let cases: [(kernel: Int64, stride: Int64, pads: [Int64], dilation: Int64, ceil: Int64, h: Int64, w: Int64, c: Int64)] = [
            (3, 1, [1, 1, 1, 1], 1, 0, 8, 8, 5), (3, 2, [0, 0, 0, 0], 1, 1, 8, 8, 7), (3, 1, [1, 1, 1, 1], 1, 0, 4, 4, 17),
            (2, 2, [0, 0, 0, 0], 1, 0, 4, 4, 13), (3, 1, [1, 1, 1, 1], 1, 0, 2, 2, 37), (3, 1, [1, 1, 1, 1], 1, 0, 1, 1, 67),
            (3, 1, [1, 1, 1, 1], 1, 0, 7, 7, 11), (3, 2, [0, 0, 0, 0], 1, 1, 7, 7, 3), (3, 1, [1, 1, 1, 1], 1, 0, 14, 14, 3),
            (3, 2, [0, 0, 0, 0], 1, 1, 14, 14, 5), (5, 1, [2, 2, 2, 2], 1, 0, 15, 15, 2), (3, 3, [1, 1, 1, 1], 1, 1, 13, 11, 3),
            (3, 1, [2, 2, 2, 2], 2, 0, 9, 6, 4), (1, 1, [0, 0, 0, 0], 1, 0, 3, 5, 9), (4, 3, [0, 2, 0, 1], 1, 1, 9, 10, 3),
            (2, 1, [0, 0, 0, 0], 1, 0, 6, 2, 23), (3, 1, [1, 0, 2, 1], 1, 0, 5, 15, 3), (3, 2, [1, 1, 1, 1], 1, 0, 3, 3, 1031),
        ]
        for c in cases {
            let rows = PoolTaps(input: Int(c.h), output: Self.pooled(c.h, c.kernel, c.stride, c.pads[0], c.pads[2], c.dilation, c.ceil),
                                kernel: Int(c.kernel), stride: Int(c.stride), dilation: Int(c.dilation), padBegin: Int(c.pads[0]))
            let columns = PoolTaps(input: Int(c.w), output: Self.pooled(c.w, c.kernel, c.stride, c.pads[1], c.pads[3], c.dilation, c.ceil),
                                   kernel: Int(c.kernel), stride: Int(c.stride), dilation: Int(c.dilation), padBegin: Int(c.pads[1]))
            // At stride 3 a plane's outputs lie too far apart for blocks of 16 (the row kernel takes them).
            if byteGatherIsFast, c.stride < 3, let rows, let columns {
                #expect(SmallPlanePool(inputHeight: Int(c.h), inputWidth: Int(c.w), rows: rows, columns: columns) != nil,
                        "\(c): no gathered-byte plan")
            }
            for type in [Int64(2), 3] {
                let model = B.model(
                    nodes: [B.node("QuantizeLinear", inputs: ["x", "s", "z"], outputs: ["q"]),
                            B.node("MaxPool", inputs: ["q"], outputs: ["p"],
                                   attributes: [.ints("kernel_shape", [c.kernel, c.kernel]), .ints("strides", [c.stride, c.stride]),
                                                .ints("pads", c.pads), .ints("dilations", [c.dilation, c.dilation]), .int("ceil_mode", c.ceil)]),
                            B.node("DequantizeLinear", inputs: ["p", "s", "z"], outputs: ["y"])],
                    initializers: [B.floatTensor("s", [], [0.05]), B.rawTensor("z", elementType: type, [], [type == 2 ? 100 : 0])],
                    inputs: [B.valueInfo("x", [1, c.c, c.h, c.w])],
                    outputs: [B.valueInfo("y", dims: nil, elementType: 1)], opset: 13)
                try Self.check(model, feeds: ["x": random.floats(Int(c.c * c.h * c.w), scale: 8)], op: "MaxPool",
                               "narrow MaxPool \(c) type \(type)")
            }
        }
    }

    /// A pooled axis's output size (onnx's MaxPool, floor or ceil mode).
    static func pooled(_ input: Int64, _ kernel: Int64, _ stride: Int64, _ padBegin: Int64, _ padEnd: Int64, _ dilation: Int64,
                       _ ceil: Int64) -> Int {
        let span = input + padBegin + padEnd - dilation * (kernel - 1) - 1
        var output = (ceil != 0 ? (span + stride - 1) / stride : span / stride) + 1
        // Ceil mode drops a last window that starts in the end padding.
        if ceil != 0 && (output - 1) * stride >= input + padBegin { output -= 1 }
        return Int(output)
    }
}
