import Foundation
import Testing
import NumpyFormat
import TestSupport
@testable import Inference

/// One entry of `Fixtures/model/<model>/intermediates/index.json` (written by Tools/make_fixtures.py).
struct IntermediateEntry: Decodable, Sendable {
    var name: String
    var op: String
    var shape: [Int]
    var file: String
}

/// The two built-in models with the fixtures onnxruntime produced for them.
enum ParityModel: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case general, landscape

    var weights: String { self == .general ? "selfie_segmentation.onnx" : "selfie_segmentation_landscape.onnx" }
    var testDescription: String { rawValue }

    /// A session that keeps every intermediate (inspection mode), on the reference path.
    func session() throws -> InferenceSession {
        let model = try InferenceModel(contentsOfFile: Fixtures.weights(weights).path)
        return try InferenceSession(model: model, path: .reference, keepsIntermediates: true)
    }

    func intermediates() throws -> [IntermediateEntry] {
        let data = try Data(contentsOf: Fixtures.url("model/\(rawValue)/intermediates/index.json"))
        return try JSONDecoder().decode([IntermediateEntry].self, from: data)
    }
}

@Suite("Both built-in models match onnxruntime (reference path)")
struct ModelParityTests {
    @Test("astronaut: every fixture intermediate within relative 1e-4, mask within 1e-4, logits within 1e-5·max + 1e-3",
          arguments: ParityModel.allCases)
    func astronaut(model: ParityModel) throws {
        let session = try model.session()
        let input = try Fixtures.floats("model/\(model.rawValue)/input.npy")
        let inputName = session.model.inputs[0].name
        let outputs = try session.run(inputs: [inputName: input.values])

        let mask = try Fixtures.floats("model/\(model.rawValue)/mask.npy")
        let maskDifference = Difference(try #require(outputs[session.model.outputs[0].name]), mask.values)
        #expect(maskDifference.maxAbsolute <= 1e-4, "mask: \(maskDifference)")

        for entry in try model.intermediates() {
            let expected = try Fixtures.floats("model/\(model.rawValue)/intermediates/\(entry.file)")
            let actual = try #require(session.value(named: entry.name), "no value named \(entry.name)")
            let difference = Difference(actual, expected.values)
            if entry.op == "ConvTranspose" {  // the logits
                #expect(difference.maxAbsolute <= 1e-5 * difference.referenceScale + 1e-3, "logits \(entry.name): \(difference)")
            }
            #expect(difference.relative <= 1e-4, "\(entry.name) (\(entry.op)): \(difference)")
            print("parity \(model.rawValue) \(entry.name) (\(entry.op)): \(difference)")
        }
        print("parity \(model.rawValue) mask: \(maskDifference)")
    }

    @Test("random inputs: logits within 1e-5·max|logit| + 1e-3", arguments: ParityModel.allCases)
    func randomInputs(model: ParityModel) throws {
        let session = try model.session()
        let logitsName = try #require(model.intermediates().first { $0.op == "ConvTranspose" }?.name)
        for k in 0..<3 {
            let levels = try NumpyArray(contentsOfFile: Fixtures.url("model/\(model.rawValue)/random_\(k)_input.npy").path)
            let input = try levels.floats().map { $0 / 255 }
            _ = try session.run(inputs: [session.model.inputs[0].name: input])
            let expected = try Fixtures.floats("model/\(model.rawValue)/random_\(k)_logits.npy")
            let difference = Difference(try #require(session.value(named: logitsName)), expected.values)
            #expect(difference.maxAbsolute <= 1e-5 * difference.referenceScale + 1e-3, "random \(k): \(difference)")
            print("parity \(model.rawValue) random \(k) logits: \(difference)")
        }
    }

    @Test("the fast path through the no-allocation entry point gives the fixture mask", arguments: ParityModel.allCases)
    func fastPathAgrees(model: ParityModel) throws {
        let inference = try InferenceModel(contentsOfFile: Fixtures.weights(model.weights).path)
        let fast = try InferenceSession(model: inference, path: .fast)
        let input = try Fixtures.floats("model/\(model.rawValue)/input.npy").values
        var output = [Float](repeating: .nan, count: inference.outputs[0].elementCount)
        try input.withUnsafeBufferPointer { source in
            try output.withUnsafeMutableBufferPointer { try fast.run(input: source, output: $0) }
        }
        let difference = Difference(output, try Fixtures.floats("model/\(model.rawValue)/mask.npy").values)
        #expect(difference.maxAbsolute <= 1e-4, "fast path mask: \(difference)")
    }

    @Test("inspection reports the model's known figures")
    func modelFigures() throws {
        let model = try InferenceModel(contentsOfFile: Fixtures.weights(ParityModel.general.weights).path)
        #expect(model.inputs == [TensorDescription(name: "input_1", shape: [1, 256, 256, 3])])
        #expect(model.outputs == [TensorDescription(name: "activation_10", shape: [1, 256, 256, 1])])
        #expect(model.parameterCount == 106_401)
        #expect(model.opCounts["Conv"] == 54 && model.opCounts.values.reduce(0, +) == 138)
        #expect(abs(Double(model.multiplyAccumulates) / 1e6 - 59.22) < 0.01)
        // Buffer reuse keeps the arena far below the sum of all activations (28.6 MiB).
        #expect(model.peakActivationBytes < 8 << 20)
        print("general: peak activation \(model.peakActivationBytes) bytes, MACs \(model.macsByOp)")
    }
}
