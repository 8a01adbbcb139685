import Testing
import TestSupport
@testable import Inference

/// `x -> BitCast(to) -> y` at opset 26, `x` of ONNX element type `from` and shape `shape`.
private func bitCastModel(from: Int64, to: Int64, shape: [Int64], initializer: [UInt8]? = nil) -> [UInt8] {
    ONNXBuilder.model(
        nodes: [ONNXBuilder.node("BitCast", inputs: ["x"], outputs: ["y"], name: "node_0", attributes: [.int("to", to)])],
        initializers: initializer.map { [$0] } ?? [],
        inputs: initializer == nil ? [ONNXBuilder.valueInfo("x", dims: shape.map { .value($0) }, elementType: from)] : [],
        outputs: [ONNXBuilder.valueInfo("y", dims: nil, elementType: to)],
        opset: 26)
}

@Suite("BitCast: what the fixtures cannot show")
struct BitCastTests {
    @Test("bool to uint8 keeps the bytes (onnxruntime 1.32 has no bool BitCast)", arguments: ExecutionPath.allCases)
    func boolToUInt8(path: ExecutionPath) throws {
        let model = try InferenceModel(bytes: bitCastModel(from: 9, to: 2, shape: [2, 3]))
        let y = try #require(try InferenceSession(model: model, path: path).run(["x": Tensor(type: .bool, shape: [2, 3], bytes: [1, 0, 1, 0, 0, 1])])["y"])
        #expect(y.type == .uint8 && y.shape == [2, 3])
        #expect(y.bytes == [1, 0, 1, 0, 0, 1])
    }

    @Test("types of different widths are refused, naming node, op and `to`")
    func widthMismatch() {
        expectRefusal(bitCastModel(from: 1, to: 5, shape: [3]), op: "BitCast", attribute: "to", .invalidValue)  // float32 → int16
        expectRefusal(bitCastModel(from: 11, to: 6, shape: [3]), op: "BitCast", attribute: "to", .invalidValue)  // double → int32
        // A float16 initializer is held as float32, so reading its bytes as int16 is refused, not done on the float32 copy.
        let half = ONNXBuilder.rawTensor("x", elementType: 10, [2], [0x00, 0x3C, 0x00, 0xC0])
        expectRefusal(bitCastModel(from: 10, to: 5, shape: [2], initializer: half), op: "BitCast", attribute: "to", .invalidValue)
    }
}
