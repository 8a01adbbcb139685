import Foundation
import ONNXInference
import Testing
import TestSupport

/// Real exporters' models through the library's public calls, against onnxruntime's outputs:
/// what a project using the engine as an oracle relies on.
@Suite struct ModelOracleTests {
    static let models = ConvertedModel.all.map(\.name)

    @Test func theManifestListsModels() { #expect(Self.models.count >= 10) }

    /// Every output within 1e-4 of onnxruntime's, relative to the output's largest magnitude,
    /// on both paths (the library's bar; the engine's own parity tests hold the tighter
    /// per-model figures).
    @Test(arguments: models, InferenceSession.ExecutionPath.allCases)
    func convertedModelMatchesOnnxruntime(name: String, path: InferenceSession.ExecutionPath) throws {
        let model = try #require(ConvertedModel.named(name))
        let session = try InferenceSession(modelPath: Fixtures.url(model.path("model.onnx")).path, options: .init(path: path))
        var feeds: [String: Tensor] = [:]
        for input in model.inputs {
            let (values, shape) = try Fixtures.floats(model.path(input.file))
            feeds[input.name] = Tensor(shape: shape, scalars: values)
        }
        let outputs = try session.run(inputs: feeds)
        for output in model.outputs {
            let (values, shape) = try Fixtures.floats(model.path(output.file))
            let expected = Tensor(shape: shape, scalars: values)
            let scale = Double(values.map(abs).max() ?? 0)
            let actual = try #require(outputs[output.name], "no output '\(output.name)'")
            let report = TensorComparison(actual: actual, expected: expected, rtol: 0, atol: 1e-4 * max(scale, 1e-30))
            #expect(report.isClose, "\(name) \(output.name) on the \(path) path: \(report)")
        }
    }
}

/// onnx's test-data layout: `model.onnx` beside `test_data_set_N/{input,output}_K.pb`.
@Suite struct ModelTestDirectoryTests {
    static let tests = ["test_abs", "test_add_bcast", "test_cast_FLOAT_to_DOUBLE", "test_cast_FLOAT_to_FLOAT16",
                        "test_gather_0", "test_conv_with_strides_and_asymmetric_padding", "test_argmax_default_axis_example"]

    @Test(arguments: tests, InferenceSession.ExecutionPath.allCases)
    func onnxsOwnTestDataPasses(test: String, path: InferenceSession.ExecutionPath) throws {
        let directory = try ModelTestDirectory(path: Fixtures.url("onnxtestdata/\(test)").path)
        let session = try InferenceSession(modelPath: directory.modelPath, options: .init(path: path))
        let results = try directory.run(on: session)
        #expect(results.count == 1)
        for result in results {
            for output in result.outputs { #expect(output.comparison.isClose, "\(test) \(output.name): \(output.comparison)") }
        }
    }

    @Test func storedElementTypesAreKept() throws {
        let double = try ModelTestDirectory(path: Fixtures.url("onnxtestdata/test_cast_FLOAT_to_DOUBLE").path)
        #expect(double.dataSets[0].expectedOutputs[0].tensor.elementType == .float64)
        let half = try ModelTestDirectory(path: Fixtures.url("onnxtestdata/test_cast_FLOAT_to_FLOAT16").path)
        #expect(half.dataSets[0].expectedOutputs[0].tensor.elementType == .float16)
        let gather = try ModelTestDirectory(path: Fixtures.url("onnxtestdata/test_gather_0").path)
        #expect(gather.dataSets[0].inputs.values.map(\.elementType).sorted { $0.rawValue < $1.rawValue } == [.float32, .int64])
    }

    @Test func anOutputThatIsOffFailsAndIsNamed() throws {
        let source = Fixtures.url("onnxtestdata/test_add_bcast")
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("vbg-test-data-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: copy) }
        try FileManager.default.copyItem(at: source, to: copy)
        let outputFile = copy.appendingPathComponent("test_data_set_0/output_0.pb")
        var expected = try Tensor(serializedTensorProto: [UInt8](Data(contentsOf: outputFile)))
        try expected.withUnsafeMutableBufferPointer(of: Float.self) { $0[7] += 0.01 }
        let directory = try ModelTestDirectory(path: copy.path)
        let data = directory.dataSets[0]
        let session = try InferenceSession(modelPath: directory.modelPath)
        let computed = try session.run(inputs: data.inputs)
        let report = TensorComparison(actual: computed[data.expectedOutputs[0].name]!, expected: expected, rtol: 1e-3, atol: 1e-7)
        #expect(!report.isClose)
        #expect(report.mismatchCount == 1)
    }

    @Test func aDirectoryWithoutAModelSaysSo() {
        let error = #expect(throws: InferenceError.self) { try ModelTestDirectory(path: "/nonexistent") }
        #expect(error?.kind == .fileNotFound)
    }
}
