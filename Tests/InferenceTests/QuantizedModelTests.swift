import Testing
import TestSupport
@testable import Inference

/// A real int8 model: the general model as onnxruntime's quantizer writes it in QDQ form
/// (`Fixtures/quantized/general_qdq`, `Tools/make_quantized_fixtures.py`), against onnxruntime's
/// own run of it (ORT_ENABLE_ALL, which fuses the QDQ groups into integer kernels as the fast path
/// rewrites them).
///
/// Its logits are quantized with a step of 4.7 (MediaPipe's logits reach ±1000), so the mask takes
/// five values, and a product summed in another order that lands on the other side of a rounding
/// boundary moves a pixel by a whole level: onnxruntime's optimised and unoptimised runs differ on
/// 223 pixels by up to 0.50. The mask is compared as a segmentation, at 0.5.
@Suite("An int8 model from onnxruntime's quantizer")
struct QuantizedModelTests {
    @Test("the QDQ general model runs every node on a fast kernel, and both paths' masks match onnxruntime's at 0.5 (IoU ≥ 0.99)",
          arguments: [ExecutionPath.fast, .reference])
    func generalQDQ(path: ExecutionPath) throws {
        let model = try InferenceModel(contentsOfFile: Fixtures.url("quantized/general_qdq/model.onnx").path)
        let session = try InferenceSession(model: model, path: path)
        if path == .fast {
            let onReference = session.nodeKernels.filter(\.runsOnReference).map(\.op)
            #expect(onReference.isEmpty, "on reference kernels: \(onReference)")
            #expect(session.nodeKernels.contains { $0.op == "QLinearConv" }, "the QDQ groups were not rewritten")
        }
        let input = try Fixtures.floats("model/general/input.npy").values
        let mask = try #require(try session.run(inputs: [model.inputs[0].name: input])[model.outputs[0].name])
        let expected = try Fixtures.floats("quantized/general_qdq/mask.npy").values
        try #require(mask.count == expected.count)
        let both = zip(mask, expected).filter { $0 > 0.5 && $1 > 0.5 }.count
        let either = zip(mask, expected).filter { $0 > 0.5 || $1 > 0.5 }.count
        let iou = Double(both) / Double(either)
        print("general QDQ, \(path): IoU \(iou) against onnxruntime at 0.5; \(zip(mask, expected).filter { $0 != $1 }.count) of \(mask.count) values differ")
        #expect(iou >= 0.99, "IoU \(iou)")
        #expect(Double(both) > 0.2 * Double(mask.count), "the person covers only \(both) pixels")
    }
}
