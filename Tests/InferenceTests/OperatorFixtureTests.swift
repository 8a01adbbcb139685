import Foundation
import Testing
import NumpyFormat
import TestSupport
@testable import Inference

/// One case of `Fixtures/ops/cases.json` (Tools/make_op_fixtures.py): a one-node ONNX model in
/// `Fixtures/ops/<name>/model.onnx`, its inputs and onnxruntime's outputs as .npy.
struct OperatorCase: Decodable, Sendable, CustomTestStringConvertible {
    struct Tensor: Decodable, Sendable {
        var file: String
        var name: String
        var shape: [Int]
    }

    var name: String
    var op: String
    var what: String
    var inputs: [Tensor]
    var outputs: [Tensor]

    var testDescription: String { "\(name) (\(op): \(what))" }

    static let all: [OperatorCase] = {
        struct Index: Decodable { var cases: [OperatorCase] }
        guard let data = try? Data(contentsOf: Fixtures.url("ops/cases.json")),
              let index = try? JSONDecoder().decode(Index.self, from: data)
        else { return [] }
        return index.cases
    }()
}

@Suite("One-node op fixtures match onnxruntime")
struct OperatorFixtureTests {
    @Test("the fixture index is present and covers every supported op")
    func coverage() {
        #expect(OperatorCase.all.count >= 100)
        let covered = Set(OperatorCase.all.map(\.op))
        #expect(covered == Set(InferenceModel.supportedOpTypes).subtracting(["Constant"]),
                "ops without a fixture: \(Set(InferenceModel.supportedOpTypes).subtracting(covered).subtracting(["Constant"]))")
    }

    /// Both paths: the fast path runs a node with its SIMD kernel where it recognises one (the
    /// convolutions with every stride, pad and `auto_pad` variant of the fixtures, so the kernels'
    /// pad arithmetic is checked against ONNX's window geometry and onnxruntime) and with the
    /// reference kernel elsewhere.
    @Test("each path within relative 1e-5 of onnxruntime", arguments: OperatorCase.all, ExecutionPath.allCases)
    func matchesOnnxRuntime(_ testCase: OperatorCase, path: ExecutionPath) throws {
        let directory = "ops/\(testCase.name)"
        let model = try InferenceModel(contentsOfFile: Fixtures.url("\(directory)/model.onnx").path)
        let session = try InferenceSession(model: model, path: path)
        var inputs: [String: [Float]] = [:]
        for input in testCase.inputs {
            inputs[input.name] = try Fixtures.floats("\(directory)/\(input.file)").values
        }
        let outputs = try session.run(inputs: inputs)
        for output in testCase.outputs {
            let expected = try Fixtures.floats("\(directory)/\(output.file)")
            let description = try #require(model.outputs.first { $0.name == output.name })
            #expect(description.shape == expected.shape, "\(output.name) shape")
            let actual = try #require(outputs[output.name])
            let difference = Difference(actual, expected.values)
            #expect(difference.relative <= 1e-5, "\(testCase.name) \(output.name) (\(path)): \(difference)")
            print("op fixture \(testCase.name) \(output.name) (\(path)): relative \(difference.relative)")
        }
    }
}
