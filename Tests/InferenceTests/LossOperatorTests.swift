import Foundation
import Testing
import TestSupport
@testable import Inference

/// `x` [3, 4] (ONNX element type `elementType`) and int64 `t` [3] → `op` → `outputs`.
private func lossModel(_ op: String, outputs: [String] = ["y"], attributes: [ONNXBuilder.Attribute] = [],
                       elementType: Int64 = 1) -> [UInt8] {
    ONNXBuilder.model(
        nodes: [ONNXBuilder.node(op, inputs: ["x", "t"], outputs: outputs, name: "node_0", attributes: attributes)],
        inputs: [ONNXBuilder.valueInfo("x", dims: [.value(3), .value(4)], elementType: elementType),
                 ONNXBuilder.valueInfo("t", dims: [.value(3)], elementType: 7)],
        outputs: outputs.map { ONNXBuilder.valueInfo($0, dims: nil, elementType: elementType) },
        opset: 13)
}

/// The fixtures (`Tools/op_cases/loss.py`) check the losses against onnxruntime; these check
/// what it leaves undefined and what the engine refuses.
@Suite("NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: undefined targets, float16 scores, refusals by name")
struct LossOperatorTests {
    @Test("a target outside [0, C) that is not ignore_index gives NaN at its position, the others their loss",
          arguments: ["NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"])
    func targetOutsideTheClasses(op: String) throws {
        let model = try InferenceModel(bytes: lossModel(op, attributes: [.string("reduction", "none"), .int("ignore_index", -1)]))
        let x = Tensor(shape: [3, 4], floats: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map { -Float($0) / 8 })
        let t = Tensor(type: .int64, shape: [3], doubles: [4, -1, 2])
        let y = try #require(try InferenceSession(model: model, path: .reference).run(["x": x, "t": t])["y"]?.floats)
        #expect(y.count == 3 && y[0].isNaN && y[1] == 0 && y[2].isFinite && y[2] > 0, "\(y)")
    }

    /// Scores spread over [-3, 3], away from ties, so the float32 losses are well inside float16's range.
    @Test("float16 scores run on float32 copies: the float32 graph's losses rounded once to float16",
          arguments: ["NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"], ["none", "mean"])
    func float16Scores(op: String, reduction: String) throws {
        let attributes: [ONNXBuilder.Attribute] = [.string("reduction", reduction)]
        let x = Tensor(type: .float16, shape: [3, 4], doubles: (0..<12).map { 3 * sin(Double($0) * 0.9 + 0.2) })
        let t = Tensor(type: .int64, shape: [3], doubles: [2, 0, 3])
        try expectRoundedOnce(half: lossModel(op, attributes: attributes, elementType: 10), single: lossModel(op, attributes: attributes),
                              inputs: ["x": x, "t": t], outputs: ["y"])
    }

    @Test("int32 scores (outside the definition's float types), an unknown reduction and a third output are refused naming the node and op",
          arguments: ["NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"])
    func refusals(op: String) {
        let integer = loadError(lossModel(op, elementType: 6))
        #expect(integer?.node == "node_0" && integer?.op == op && integer?.message.contains("'x'") == true
                && integer?.message.contains("INT32") == true, "\(String(describing: integer))")
        let reduction = loadError(lossModel(op, attributes: [.string("reduction", "max")]))
        #expect(reduction?.node == "node_0" && reduction?.attribute == "reduction", "\(String(describing: reduction))")
        let outputs = loadError(lossModel(op, outputs: ["y", "p", "q"]))
        #expect(outputs?.node == "node_0" && outputs?.op == op, "\(String(describing: outputs))")
    }
}
