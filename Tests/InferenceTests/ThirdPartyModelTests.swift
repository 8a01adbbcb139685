import Foundation
import Testing
import TestSupport
@testable import Inference

/// `Fixtures/thirdparty/`: a PyTorch 1.6 export (SINet, opset 12: BatchNormalization unfused,
/// initializers listed as inputs, Gemm, a channel shuffle through Reshape / Transpose) and a
/// tf2onnx 1.5 conversion (DeepLabV3, opset 8: Upsample, Clip with attributes, dilated
/// convolutions), with onnxruntime's outputs on the astronaut (`Tools/make_third_party_fixtures.py`).
#if DEBUG
private let isDebugBuild = true
#else
private let isDebugBuild = false
#endif

/// Full-size models on the scalar reference kernels take seconds in a release build and hours in a
/// debug one, so the suite runs in release (`.ci/run` does).
@Suite("Models other people exported run end to end like onnxruntime",
       .enabled(if: !isDebugBuild, "the reference path needs a release build: swift test -c release -Xswiftc -enable-testing --filter ThirdPartyModelTests"))
struct ThirdPartyModelTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var channels: String
        var mean: [Float]
        var std: [Float]
        var testDescription: String { name }
    }

    static let cases = [
        Case(name: "sinet", channels: "BGR", mean: [102.890434, 111.25247, 126.91212], std: [62.93292, 62.82138, 66.355705]),
        Case(name: "deeplab", channels: "RGB", mean: [127.5, 127.5, 127.5], std: [127.5, 127.5, 127.5]),
    ]

    /// The model input from the uint8 image, in the float32 operations the fixture script uses.
    private func input(_ testCase: Case) throws -> Inference.Tensor {
        let image = try Fixtures.tensor("thirdparty/\(testCase.name)/image.npy")
        let (height, width) = (image.shape[0], image.shape[1])
        var values = [Float](repeating: 0, count: 3 * height * width)
        for c in 0..<3 {
            let source = testCase.channels == "BGR" ? 2 - c : c
            for p in 0..<height * width {
                values[c * height * width + p] = (Float(image.bytes[3 * p + source]) - testCase.mean[c]) / testCase.std[c]
            }
        }
        return Inference.Tensor(shape: [1, 3, height, width], floats: values)
    }

    @Test("every output within relative 1e-4 of onnxruntime", arguments: cases, ExecutionPath.allCases)
    func matchesOnnxRuntime(_ testCase: Case, path: ExecutionPath) throws {
        let model = try InferenceModel(contentsOfFile: Fixtures.url("thirdparty/\(testCase.name)/model.onnx").path)
        #expect(model.inputs.count == 1 && model.outputs.count == 1)
        let session = try InferenceSession(model: model, path: path)
        let outputs = try session.run([model.inputs[0].name: try input(testCase)])
        let expected = try Fixtures.floats("thirdparty/\(testCase.name)/output.npy")
        let actual = try #require(outputs[model.outputs[0].name])
        #expect(actual.shape == expected.shape)
        let difference = Difference(try #require(actual.floats), expected.values)
        #expect(difference.relative <= 1e-4, "\(testCase.name) (\(path)): \(difference)")
        print("third-party \(testCase.name) (\(path)): relative \(difference.relative)")
    }
}
