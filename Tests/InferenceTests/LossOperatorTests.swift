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
        outputs: outputs.map { ONNXBuilder.valueInfo($0, dims: nil) },
        opset: 13)
}

/// The fixtures (`Tools/op_cases/loss.py`) check the losses against onnxruntime; these check
/// what it leaves undefined and what the engine refuses.
@Suite("NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: undefined targets, refusals by name")
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

    @Test("float16 scores, an unknown reduction and a third output are refused naming the node and op",
          arguments: ["NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"])
    func refusals(op: String) {
        let half = loadError(lossModel(op, elementType: 10))
        #expect(half?.node == "node_0" && half?.op == op && half?.message.contains("FLOAT16") == true, "\(String(describing: half))")
        let reduction = loadError(lossModel(op, attributes: [.string("reduction", "max")]))
        #expect(reduction?.node == "node_0" && reduction?.attribute == "reduction", "\(String(describing: reduction))")
        let outputs = loadError(lossModel(op, outputs: ["y", "p", "q"]))
        #expect(outputs?.node == "node_0" && outputs?.op == op, "\(String(describing: outputs))")
    }
}
