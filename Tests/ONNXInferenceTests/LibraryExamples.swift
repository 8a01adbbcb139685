import ONNXInference
import Testing
import TestSupport

/// The examples of Docs/Library.md, as written there but with the repository's fixtures for the
/// model files, so that CI compiles and runs them.
@Suite struct LibraryExamples {
    static let model = Fixtures.url("converted/torch_unet/model.onnx").path

    @Test func runAModel() throws {
        let session = try InferenceSession(modelPath: Self.model)
        for input in session.inputs { print(input) }
        let name = session.inputs[0].name, shape = session.inputs[0].shape.map { $0 ?? 1 }
        let pixels = [Float](repeating: 0.5, count: shape.reduce(1, *))
        let out = try session.run(inputs: [name: Tensor(shape: shape, scalars: pixels)])
        let output = session.outputs[0].name
        let y: [Float] = try out[output]!.scalars(as: Float.self)
        #expect(y.count == out[output]!.shape.reduce(1, *))
        #expect(y.allSatisfy { $0.isFinite })
    }

    @Test func useItAsAnOracleInATest() throws {
        // "my convolution" is the fast path here: the oracle checks it like any implementation.
        let oracle = try InferenceSession(modelPath: Self.model, options: .init(path: .reference))
        let mine = try InferenceSession(modelPath: Self.model)
        let input = oracle.inputs[0], output = oracle.outputs[0].name
        let shape = input.shape.map { $0 ?? 1 }
        let x = Tensor(shape: shape, scalars: (0..<shape.reduce(1, *)).map { Float($0 % 97) / 48 - 1 })
        let expected = try oracle.run(inputs: [input.name: x])[output]!
        let report = TensorComparison(actual: try mine.run(inputs: [input.name: x])[output]!, expected: expected,
                                      rtol: 1e-4, atol: 1e-6)
        #expect(report.isClose, "\(report)")
    }

    @Test func observeEveryIntermediateValue() throws {
        let session = try InferenceSession(modelPath: Self.model, options: .init(path: .reference))
        let input = session.inputs[0]
        let shape = input.shape.map { $0 ?? 1 }
        let feeds = [input.name: Tensor(shape: shape, scalars: [Float](repeating: 0.25, count: shape.reduce(1, *)))]
        var observed: [String] = []
        let outputs = try session.run(inputs: feeds) { value in
            observed.append("\(value.node) \(value.op) \(value.name) \(value.tensor.shape)")
        }
        #expect(observed.count > 10)
        #expect(observed.last?.contains(session.outputs[0].name) == true)
        #expect(outputs.count == session.outputs.count)
    }
}
