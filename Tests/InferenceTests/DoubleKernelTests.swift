import Testing
import TestSupport
@testable import Inference

/// A one-node model whose inputs and outputs have the given ONNX element types (1 FLOAT, 7 INT64,
/// 11 DOUBLE, 13 UINT64) and static input shapes.
private func typedModel(_ op: String, inputs: [(String, Int64, [Int64])], outputs: [(String, Int64)],
                        attributes: [ONNXBuilder.Attribute] = [], initializers: [[UInt8]] = [], nodeInputs: [String]? = nil,
                        opset: Int64) -> [UInt8] {
    ONNXBuilder.model(
        nodes: [ONNXBuilder.node(op, inputs: nodeInputs ?? inputs.map(\.0), outputs: outputs.map(\.0), name: "node_0",
                                 attributes: attributes)],
        initializers: initializers,
        inputs: inputs.map { ONNXBuilder.valueInfo($0.0, dims: $0.2.map { .value($0) }, elementType: $0.1) },
        outputs: outputs.map { ONNXBuilder.valueInfo($0.0, dims: nil, elementType: $0.1) },
        opset: opset)
}

private func uint64s(_ values: [UInt64]) -> [UInt8] { values.withUnsafeBytes { Array($0) } }
private func int64s(_ values: [Int64]) -> [UInt8] { values.withUnsafeBytes { Array($0) } }

/// The double kernels and uint64 cases that Fixtures/ops cannot hold: onnxruntime 1.32 has no double
/// Hardmax, no uint64 TopK and no uint64 Pow exponent, and the fixtures' 1e-5 tolerance cannot tell
/// a double kernel from a float32 one.
@Suite("Double kernels and uint64 operands beyond onnxruntime's fixtures")
struct DoubleKernelTests {
    @Test("Exp and Softmax on double keep differences float32 cannot hold", arguments: ExecutionPath.allCases)
    func doublePrecision(path: ExecutionPath) throws {
        let x: [Double] = [0, 1e-12, -3e-12]
        let exp = try InferenceSession(model: try InferenceModel(bytes: typedModel("Exp", inputs: [("x", 11, [3])], outputs: [("y", 11)], opset: 13)),
                                       path: path).run(["x": Tensor(type: .double, shape: [3], doubles: x)])
        let e = try #require(exp["y"])
        #expect(e.type == .double)
        #expect(e.doubles.map { $0 - 1 }.enumerated().allSatisfy { abs($1 - x[$0]) <= 1e-15 }, "\(e.doubles)")

        let softmax = try InferenceSession(model: try InferenceModel(bytes: typedModel("Softmax", inputs: [("x", 11, [3])], outputs: [("y", 11)],
                                                                                       opset: 13)),
                                           path: path).run(["x": Tensor(type: .double, shape: [3], doubles: x)])
        let s = try #require(softmax["y"]).doubles
        // d softmax_i / d x_i = 1/3 · 2/3 at equal inputs: each output moves from 1/3 by (x_i − mean x) / 3.
        let mean = x.reduce(0, +) / 3
        for i in 0..<3 { #expect(abs(s[i] - (1.0 / 3 + (x[i] - mean) / 3)) <= 1e-15, "\(i): \(s)") }
        #expect(s[1] > s[0] && s[0] > s[2])
    }

    @Test("Hardmax on double writes 1 at the first maximum along the axis", arguments: ExecutionPath.allCases)
    func hardmax(path: ExecutionPath) throws {
        let model = try InferenceModel(bytes: typedModel("Hardmax", inputs: [("x", 11, [2, 4])], outputs: [("y", 11)],
                                                         attributes: [.int("axis", 1)], opset: 13))
        // Row 0: the maximum twice (the first wins); row 1: values one double ulp apart at 1.
        let x: [Double] = [3, -1, 3, 2, 1, 1.0.nextUp, 1, 1.0.nextDown]
        let y = try #require(try InferenceSession(model: model, path: path).run(["x": Tensor(type: .double, shape: [2, 4], doubles: x)])["y"])
        #expect(y.type == .double)
        #expect(y.doubles == [1, 0, 0, 0, 0, 1, 0, 0])
    }

    @Test("TopK on uint64 orders values above 2^63 as unsigned, ties by index", arguments: [true, false])
    func topKUInt64(largest: Bool) throws {
        let model = try InferenceModel(bytes: typedModel("TopK", inputs: [("x", 13, [2, 5])], outputs: [("v", 13), ("i", 7)],
                                                         attributes: [.int("largest", largest ? 1 : 0)],
                                                         initializers: [ONNXBuilder.rawTensor("k", elementType: 7, [1], int64s([3]))],
                                                         nodeInputs: ["x", "k"], opset: 11))
        let x: [UInt64] = [.max, 5, 1 << 63, 7, 5, 0, (1 << 63) + 3, 1, 1 << 40, 9]
        for path in ExecutionPath.allCases {
            let outputs = try InferenceSession(model: model, path: path).run(["x": Tensor(type: .uint64, shape: [2, 5], bytes: uint64s(x))])
            let values = try #require(outputs["v"]), indices = try #require(outputs["i"])
            #expect(values.type == .uint64 && values.shape == [2, 3])
            if largest {
                #expect(values.bytes == uint64s([.max, 1 << 63, 7, (1 << 63) + 3, 1 << 40, 9]), "\(path)")
                #expect(indices.bytes == int64s([0, 2, 3, 1, 3, 4]), "\(path)")
            } else {
                #expect(values.bytes == uint64s([5, 5, 7, 0, 1, 9]), "\(path)")
                #expect(indices.bytes == int64s([1, 4, 3, 0, 2, 4]), "\(path)")
            }
        }
    }

    @Test("Pow with a uint64 exponent reads it as unsigned (2^63 is not −2^63)", arguments: ExecutionPath.allCases)
    func powUInt64Exponent(path: ExecutionPath) throws {
        let model = try InferenceModel(bytes: typedModel("Pow", inputs: [("a", 1, [2, 4]), ("b", 13, [4])], outputs: [("y", 1)], opset: 15))
        let outputs = try InferenceSession(model: model, path: path).run([
            "a": Tensor(shape: [2, 4], floats: [2, -3, 1.5, 0.5, -2, 10, 7, 1]),
            "b": Tensor(type: .uint64, shape: [4], bytes: uint64s([3, 2, 0, 1 << 63])),
        ])
        #expect(try #require(outputs["y"]).floats == [8, 9, 1, 0, -8, 100, 1, 1])
    }
}
