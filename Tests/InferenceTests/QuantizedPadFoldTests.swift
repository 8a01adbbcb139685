import Testing
import TestSupport
@testable import Inference

/// The fold of a constant Pad into the quantized convolution after it
/// (`FastPath/Rules/QuantizedPadRules.swift`), both forms onnxruntime's quantizer writes: a Pad of
/// the bytes with the zero point (QOperator), and DequantizeLinear → Pad with 0 → QuantizeLinear
/// with the same scale and zero point (QDQ). Seeded random graphs with the pattern (depthwise,
/// dense and grouped windows, strides, borders on any side, uint8 and int8, zero points at the
/// ends of the range, scales small and large) fold; every near miss (another fill value, a Pad
/// of the channels, a crop, a second reader, a graph output, a QuantizeLinear 1 ulp off in scale
/// or one off in zero point, edge mode) does not. Either way the fast path's output equals the
/// reference path's bit for bit on 1 and 2 threads.
@Suite("Quantized Pad fold: a Pad with the zero point folds into the QLinearConv after it; near misses stay apart, every output exact")
struct QuantizedPadFoldTests {
    typealias B = ONNXBuilder

    enum Form: CaseIterable { case bytes, dequantized }
    enum Miss: CaseIterable {
        case none, otherFill, channelPad, crop, secondReader, graphOutput, scaleOffByOneUlp, zeroOffByOne, edgeMode
    }

    struct Case: CustomStringConvertible {
        var form: Form, miss: Miss
        var channels: Int, outputChannels: Int, group: Int, kernel: Int, stride: Int, convolutionPad: Int
        var height: Int, width: Int, borders: [Int]   // top, left, bottom, right
        var signed: Bool, zero: Int32, scale: Float
        var description: String {
            "\(form) miss \(miss): \(channels)->\(outputChannels) g\(group) k\(kernel) s\(stride) p\(convolutionPad) \(height)x\(width) "
                + "borders \(borders) \(signed ? "int8" : "uint8") zero \(zero) scale \(scale)"
        }
    }

    static func byte(_ value: Int32) -> UInt8 { UInt8(truncatingIfNeeded: value) }

    static func model(_ c: Case, _ random: inout SeededGenerator) -> [UInt8] {
        let type: Int64 = c.signed ? 3 : 2
        let (top, left, bottom, right) = (Int64(c.borders[0]), Int64(c.borders[1]), Int64(c.borders[2]), Int64(c.borders[3]))
        var pads: [Int64] = [0, 0, top, left, 0, 0, bottom, right]
        if c.miss == .channelPad { pads[1] = 1 }
        if c.miss == .crop { pads[6] = -1 }
        let padChannels = c.channels + (c.miss == .channelPad ? 1 : 0)
        let p = Int64(c.convolutionPad), k = c.kernel
        let inner = padChannels / c.group * k * k
        let weights = (0..<(c.outputChannels * inner)).map { _ in UInt8(truncatingIfNeeded: Int8(Int(random.next() % 255) - 127)) }
        let bias = (0..<c.outputChannels).map { _ in Int32(Int64(random.next() % 4001) - 2000) }
        let yScale = c.scale * 0.01 * Float(inner).squareRoot() * 4
        let padMode: [B.Attribute] = c.miss == .edgeMode ? [.string("mode", "edge")] : []
        var nodes: [[UInt8]] = [B.node("QuantizeLinear", inputs: ["x", "xs", "xz"], outputs: ["xq"])]
        var initializers: [[UInt8]] = [
            B.floatTensor("xs", [], [c.scale]), B.rawTensor("xz", elementType: type, [], [byte(c.zero)]),
            B.int64Tensor("pads", [8], pads),
            B.rawTensor("w", elementType: 3, [Int64(c.outputChannels), Int64(padChannels / c.group), Int64(k), Int64(k)], weights),
            B.floatTensor("ws", [], [0.01]), B.rawTensor("wz", elementType: 3, [], [0]),
            B.floatTensor("ys", [], [yScale]), B.rawTensor("yz", elementType: 2, [], [128]),
            B.rawTensor("b", elementType: 6, [Int64(c.outputChannels)], QuantizedStepTests.int32Bytes(bias)),
        ]
        let convInput: String
        switch c.form {
        case .bytes:
            let fill = c.miss == .otherFill ? c.zero &+ 1 : c.zero
            initializers.append(B.rawTensor("fill", elementType: type, [], [byte(fill)]))
            nodes.append(B.node("Pad", inputs: ["xq", "pads", "fill"], outputs: ["pq"], attributes: padMode))
            convInput = "pq"
        case .dequantized:
            let qScale = c.miss == .scaleOffByOneUlp ? c.scale.nextUp : c.scale
            let qZero = c.miss == .zeroOffByOne ? (c.zero == 0 ? 1 : c.zero - 1) : c.zero
            let fill: Float = c.miss == .otherFill ? c.scale : 0
            initializers += [B.floatTensor("fill", [], [fill]), B.floatTensor("qs", [], [qScale]),
                             B.rawTensor("qz", elementType: type, [], [byte(qZero)])]
            nodes += [B.node("DequantizeLinear", inputs: ["xq", "xs", "xz"], outputs: ["xf"]),
                      B.node("Pad", inputs: ["xf", "pads", "fill"], outputs: ["pf"], attributes: padMode),
                      B.node("QuantizeLinear", inputs: ["pf", "qs", "qz"], outputs: ["pq"])]
            convInput = "pq"
        }
        // The QLinearConv reads the padded bytes with the zero point of their QuantizeLinear.
        let xz = c.form == .dequantized ? "qz" : "xz", xs = c.form == .dequantized ? "qs" : "xs"
        nodes.append(B.node("QLinearConv", inputs: [convInput, xs, xz, "w", "ws", "wz", "ys", "yz", "b"], outputs: ["yq"],
                            attributes: [.ints("kernel_shape", [Int64(k), Int64(k)]), .ints("strides", [Int64(c.stride), Int64(c.stride)]),
                                         .ints("pads", [p, p, p, p]), .int("group", Int64(c.group))]))
        nodes.append(B.node("DequantizeLinear", inputs: ["yq", "ys", "yz"], outputs: ["y0"]))
        var outputs = [B.valueInfo("y", dims: nil, elementType: 1)]
        switch c.miss {
        case .secondReader:
            // The padded bytes also feed a second branch, added to the output.
            let (padded, scale, zero) = c.form == .dequantized ? ("pq", "qs", "qz") : ("pq", "xs", "xz")
            nodes += [B.node("DequantizeLinear", inputs: [padded, scale, zero], outputs: ["pd"]),
                      B.node("ReduceMean", inputs: ["pd"], outputs: ["pm"], attributes: [.ints("axes", [1, 2, 3]), .int("keepdims", 1)]),
                      B.node("Add", inputs: ["y0", "pm"], outputs: ["y"])]
        case .graphOutput:
            nodes.append(B.node("Identity", inputs: ["y0"], outputs: ["y"]))
            outputs.append(B.valueInfo("pq", dims: nil, elementType: type))
        default:
            nodes.append(B.node("Identity", inputs: ["y0"], outputs: ["y"]))
        }
        return B.model(nodes: nodes, initializers: initializers, inputs: [B.valueInfo("x", [1, Int64(c.channels), Int64(c.height), Int64(c.width)])],
                       outputs: outputs, opset: 13)
    }

    static func draw(_ form: Form, _ miss: Miss, _ random: inout SeededGenerator) -> Case {
        let shapes: [(depthwise: Bool, channels: Int)] = [(true, 16), (true, 3), (true, 33), (false, 8), (false, 5), (false, 12)]
        let shape = random.pick(shapes)
        let grouped = !shape.depthwise && shape.channels % 4 == 0 && random.next() % 3 == 0
        let group = shape.depthwise ? shape.channels : grouped ? 4 : 1
        let outputChannels = shape.depthwise ? shape.channels : grouped ? 8 : random.pick([4, 7, 16])
        let kernel = random.pick([3, 3, 5, 1]), stride = random.pick([1, 2])
        let signed = random.next() % 3 == 0
        let zero: Int32 = signed ? random.pick([-128, 0, 9, 127]) : random.pick([0, 1, 128, 255])
        var borders = (0..<4).map { _ in random.pick([0, 0, 1, 2, 3]) }
        if borders.allSatisfy({ $0 == 0 }) { borders[2] = 1 }
        // At least the kernel after the Pad (a crop takes one row off the bottom instead of its border).
        let height = max(random.pick([1, 4, 7, 13, 24]), kernel + 1), width = max(random.pick([1, 3, 8, 9, 17, 33]), kernel)
        return Case(form: form, miss: miss, channels: shape.channels, outputChannels: outputChannels,
                    // A Pad of the channels gives one more: one group.
                    group: miss == .channelPad ? 1 : group, kernel: kernel,
                    stride: stride, convolutionPad: kernel == 1 ? 0 : random.pick([0, 1]), height: height,
                    width: width, borders: borders, signed: signed, zero: zero,
                    scale: random.pick([0.0173, 0.02, 3.1e-5, 47.5]))
    }

    @Test("seeded graphs of both forms: the pattern folds (one layer, the Pad's output never written), each near miss does not, every output equal to the reference path's")
    func folds() throws {
        var random = SeededGenerator(seed: 2503)
        var folded = 0, apart = 0
        for form in Form.allCases {
            for miss in Miss.allCases {
                if form == .bytes && (miss == .scaleOffByOneUlp || miss == .zeroOffByOne) { continue }
                for _ in 0..<(miss == .none ? 12 : 3) {
                    let c = Self.draw(form, miss, &random)
                    let bytes = Self.model(c, &random)
                    let model = try InferenceModel(bytes: bytes)
                    let x = random.floats(c.channels * c.height * c.width, scale: c.scale * 160)
                    let feeds = ["x": Tensor(shape: [1, c.channels, c.height, c.width], floats: x)]
                    let expected = try #require(try InferenceSession(model: model, path: .reference).run(feeds)["y"]?.floats)
                    #expect(Set(expected).count > 1 || expected.count == 1, "\(c): the reference output is constant")
                    for threads in [1, 2] {
                        let fast = try InferenceSession(model: model, path: .fast, threads: threads)
                        let actual = try #require(try fast.run(feeds)["y"]?.floats)
                        let differing = zip(expected, actual).filter { $0 != $1 }.count
                        #expect(differing == 0, "\(c), \(threads) thread(s): \(differing) of \(expected.count) outputs differ")
                        let fused = fast.fusionSpans.contains { span in
                            let ops = span.map { fast.graph.nodes[$0].opType }
                            return ops.contains("Pad") && ops.contains("QLinearConv")
                        }
                        #expect(fused == (miss == .none), "\(c): the Pad \(fused ? "folded" : "did not fold")")
                        if threads == 1 { if fused { folded += 1 } else { apart += 1 } }
                    }
                }
            }
        }
        #expect(folded == 24)
        print("QuantizedPadFoldTests: \(folded) graphs folded, \(apart) near misses apart")
    }
}
