import Testing
import TestSupport
@testable import Inference

/// The fixtures (`Tools/op_cases/spatial.py`) check MaxUnpool into its inferred shape against
/// onnxruntime; this checks a larger `output_shape`, where onnxruntime and onnx disagree, as
/// onnx's own node test `test_maxunpool_export_with_output_shape` defines it.
@Suite("MaxUnpool with output_shape: the unpooled tensor in the output's top-left corner")
struct MaxUnpoolTests {
    @Test("indices count in the inferred 4x4 layout; the 5x5 output's last row and column stay zero")
    func outputShape() throws {
        let model = ONNXBuilder.model(
            nodes: [ONNXBuilder.node("MaxUnpool", inputs: ["x", "i", "shape"], outputs: ["y"], name: "unpool",
                                     attributes: [.ints("kernel_shape", [2, 2]), .ints("strides", [2, 2])])],
            initializers: [ONNXBuilder.int64Tensor("shape", [4], [1, 1, 5, 5])],
            inputs: [ONNXBuilder.valueInfo("x", dims: [.value(1), .value(1), .value(2), .value(2)]),
                     ONNXBuilder.valueInfo("i", dims: [.value(1), .value(1), .value(2), .value(2)], elementType: 7)],
            outputs: [ONNXBuilder.valueInfo("y", dims: nil)], opset: 11)
        let session = try InferenceSession(model: InferenceModel(bytes: model), path: .reference)
        let y = try #require(try session.run(["x": Tensor(shape: [1, 1, 2, 2], floats: [5, 6, 7, 8]),
                                              "i": Tensor(type: .int64, shape: [1, 1, 2, 2], doubles: [5, 7, 13, 15])])["y"])
        #expect(y.shape == [1, 1, 5, 5])
        #expect(y.floats == [0, 0, 0, 0, 0,
                             0, 5, 0, 6, 0,
                             0, 0, 0, 0, 0,
                             0, 7, 0, 8, 0,
                             0, 0, 0, 0, 0])
    }

    @Test("an output_shape smaller than the unpooled shape is refused naming the node and input")
    func smallerOutputShape() {
        let model = ONNXBuilder.model(
            nodes: [ONNXBuilder.node("MaxUnpool", inputs: ["x", "i", "shape"], outputs: ["y"], name: "unpool",
                                     attributes: [.ints("kernel_shape", [2, 2]), .ints("strides", [2, 2])])],
            initializers: [ONNXBuilder.int64Tensor("shape", [4], [1, 1, 3, 3])],
            inputs: [ONNXBuilder.valueInfo("x", dims: [.value(1), .value(1), .value(2), .value(2)]),
                     ONNXBuilder.valueInfo("i", dims: [.value(1), .value(1), .value(2), .value(2)], elementType: 7)],
            outputs: [ONNXBuilder.valueInfo("y", dims: nil)], opset: 11)
        let error = loadError(model)
        #expect(error?.node == "unpool" && error?.op == "MaxUnpool" && error?.message.contains("output_shape") == true,
                "\(String(describing: error))")
    }
}
