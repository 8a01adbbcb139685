import Foundation
import Testing
import TestSupport
@testable import Inference

/// `Fixtures/converted/`: small models with random weights written the way exporters write them
/// (tf2onnx from Keras: NHWC with Transposes around every Conv, BatchNormalization unfused, ReLU6
/// as Clip, SAME pads; PyTorch-style graphs: initializers listed as inputs, channel shuffles,
/// ConvTranspose U-Nets, a dynamic batch, several outputs; Upsample at opsets 7, 8 and 9), with
/// onnxruntime's outputs (`Tools/make_converter_models.py`, `Fixtures/README.md`). They are small
/// enough for the reference kernels of a debug build.
///
/// The fast path runs the nodes it has kernels for and the reference kernel for the rest, per
/// node; both must agree with onnxruntime.
@Suite("Converter-made models run on both paths like onnxruntime")
struct ConvertedModelTests {
    static let names = ConvertedModel.all.map(\.name)

    @Test("the manifest lists every converted model, each with its files")
    func manifest() throws {
        #expect(ConvertedModel.all.count >= 13, "Fixtures/converted/manifest.json: \(ConvertedModel.all.count) models")
        for model in ConvertedModel.all {
            for file in ["model.onnx"] + model.inputs.map(\.file) + model.outputs.map(\.file) + (model.description.map { [$0] } ?? []) {
                #expect(FileManager.default.fileExists(atPath: Fixtures.url(model.path(file)).path), "\(model.name): \(file)")
            }
            #expect(model.outputs.contains { $0.name == model.mask }, "\(model.name): mask \(model.mask)")
        }
    }

    /// The model loaded as `vbg infer` loads it: every input's dims bound from its `.npy` file.
    static func load(_ model: ConvertedModel) throws -> (InferenceModel, [String: Inference.Tensor]) {
        var feeds: [String: Inference.Tensor] = [:]
        for input in model.inputs { feeds[input.name] = try Fixtures.tensor(model.path(input.file)) }
        let loaded = try InferenceModel(contentsOfFile: Fixtures.url(model.path("model.onnx")).path,
                                        inputShapes: feeds.mapValues(\.shape))
        return (loaded, feeds)
    }

    @Test("every output within relative 1e-4 of onnxruntime", arguments: names, ExecutionPath.allCases)
    func matchesOnnxRuntime(_ name: String, path: ExecutionPath) throws {
        let model = try #require(ConvertedModel.named(name))
        let (loaded, feeds) = try Self.load(model)
        // Initializers listed as graph inputs are constants, not inputs the caller feeds.
        #expect(loaded.inputs.map(\.name) == model.inputs.map(\.name))
        #expect(loaded.outputs.map(\.name) == model.outputs.map(\.name))
        let session = try InferenceSession(model: loaded, path: path)
        let outputs = try session.run(feeds)
        for output in model.outputs {
            let expected = try Fixtures.floats(model.path(output.file))
            let actual = try #require(outputs[output.name], "\(name): no output \(output.name)")
            #expect(actual.shape == expected.shape, "\(name) \(output.name) shape")
            guard actual.shape == expected.shape else { continue }
            let difference = Difference(try #require(actual.floats), expected.values)
            #expect(difference.relative <= 1e-4, "\(name) \(output.name) (\(path)): \(difference)")
            print("converted \(name) \(output.name) (\(path)): relative \(difference.relative)")
        }
    }
}
