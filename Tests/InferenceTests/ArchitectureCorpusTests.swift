import Foundation
import Testing
import TestSupport
@testable import Inference

/// `Fixtures/corpus/` (`Tools/make_architecture_corpus.py`): torchvision's classification and
/// segmentation families through torch.onnx.export and Keras applications through tf2onnx, with
/// random weights at 64–128 px inputs. The large initializers are regenerated from the script's
/// seeded stream (checked by checksum), so each model is the one onnxruntime ran.
///
/// The bar: every output within max(1e-4, 10 × onnxruntime's own spread between its optimised and
/// unoptimised runs) of onnxruntime, relative to max|expected|, on both paths. The quick subset
/// (the index's `quick` models, a few seconds each in a debug build) runs in `swift test`; every
/// model runs when the environment has `VBG_LONG_TESTS=1` (CI, in a release build). The streams'
/// seeds are the fixtures' own (in each manifest): other seeds would need new expected outputs.
@Suite("Architecture corpus: real architectures on both paths like onnxruntime")
struct ArchitectureCorpusTests {
    static let names = ArchitectureCorpus.index.filter { TestRun.isLong || $0.quick }.map(\.name)

    @Test("the index lists the corpus, each model with its files and a quick subset")
    func index() throws {
        #expect(ArchitectureCorpus.index.count >= 20, "Fixtures/corpus/index.json: \(ArchitectureCorpus.index.count) models")
        #expect(ArchitectureCorpus.index.contains { $0.quick })
        for listed in ArchitectureCorpus.index {
            let model = try ArchitectureCorpus.model(named: listed.name)
            #expect(model.nodes == listed.nodes, "\(listed.name)")
            for file in ["model.onnx"] + model.outputs.map(\.file) {
                #expect(FileManager.default.fileExists(atPath: Fixtures.url(model.path(file)).path), "\(listed.name): \(file)")
            }
        }
    }

    /// Values of `fill(7, 4, 0.5, 0.25)` and `checksum` of them as the script computes them.
    @Test("the fill stream and its checksum are the script's")
    func fillStream() {
        let values = CorpusFill.values(stream: 7, count: 4, mean: 0.5, halfWidth: 0.25)
        #expect(values == [0.44491488, 0.25839412, 0.7003803, 0.54146516])
        #expect(CorpusFill.checksum(values) == "8e05f8effca3b140")
    }

    @Test("every output within max(1e-4, 10 × onnxruntime's spread) of onnxruntime", arguments: names, ExecutionPath.allCases)
    func matchesOnnxRuntime(_ name: String, path: ExecutionPath) throws {
        let model = try ArchitectureCorpus.model(named: name)
        var feeds: [String: Inference.Tensor] = [:]
        for input in model.inputs { feeds[input.name] = Inference.Tensor(shape: input.shape, floats: try model.values(of: input)) }
        let loaded = try InferenceModel(bytes: try model.regeneratedModel())
        #expect(loaded.inputs.map(\.name) == model.inputs.map(\.name))
        let session = try InferenceSession(model: loaded, path: path)
        let outputs = try session.run(feeds)
        for output in model.outputs {
            let expected = try Fixtures.floats(model.path(output.file))
            let actual = try #require(outputs[output.name], "\(name): no output \(output.name)")
            #expect(actual.shape == expected.shape, "\(name) \(output.name) shape")
            guard actual.shape == expected.shape else { continue }
            let tolerance = Float(max(1e-4, 10 * output.ortSpread))
            let difference = Difference(try #require(actual.floats), expected.values)
            #expect(difference.relative <= tolerance, "\(name) \(output.name) (\(path)): \(difference), tolerance \(tolerance)")
            print("corpus \(name) \(output.name) (\(path)): relative \(difference.relative), tolerance \(tolerance)")
        }
    }
}
