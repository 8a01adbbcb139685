import Foundation
import Testing
import TestSupport
@testable import Inference

/// One test of `Fixtures/nodetests/` (onnx's backend node tests, copied by
/// `Tools/make_node_test_fixtures.py`), or of another fixture folder in the same layout (its
/// manifest names the folder): a model, its inputs and the expected outputs.
struct NodeTestCase: Decodable, Sendable, CustomTestStringConvertible {
    struct Value: Decodable, Sendable {
        var name: String
        var file: String
    }

    var name: String
    /// The fixture folder holding `name/`, when not `nodetests`.
    var folder: String?
    var op: String
    /// The opset of each imported domain ("ai.onnx" for the default one).
    var opset_import: [String: Int]
    var rtol: Double
    var atol: Double
    var inputs: [Value]
    var outputs: [Value]

    var testDescription: String { name }

    static let all: [NodeTestCase] = load("nodetests/manifest.json")

    /// The tests listed in a fixture manifest (empty when it is missing or unreadable).
    static func load(_ manifest: String) -> [NodeTestCase] {
        struct Manifest: Decodable { var tests: [NodeTestCase] }
        guard let data = try? Data(contentsOf: Fixtures.url(manifest)),
              let manifest = try? JSONDecoder().decode(Manifest.self, from: data) else { return [] }
        return manifest.tests
    }

    /// Whether the test's default-domain opset is one the engine reads.
    var hasReadableOpset: Bool { OperatorRegistry.supportedOpsets.contains(opset_import["ai.onnx"] ?? 0) }

    /// The tests of the ops this engine registers, at the opsets it reads.
    static let registered = all.filter { $0.hasReadableOpset && Set(InferenceModel.supportedOpTypes).contains($0.op) }

    /// Ops all of whose tests import an opset the engine does not read (Not's are opset 1).
    static let untestable = Set(all.map(\.op)).subtracting(all.filter(\.hasReadableOpset).map(\.op))

    enum Outcome: Equatable { case pass, refused(ModelError) }

    /// Runs the test as `vbg infer` does (dims bound from the inputs, inputs a node needs at plan
    /// time fixed) and compares as onnx's runner does: |actual − expected| ≤ atol + rtol·|expected|
    /// for floats (NaN equal to NaN, infinities equal to themselves), exact equality for other types.
    func run(path: ExecutionPath) throws -> Outcome {
        let directory = "\(folder ?? "nodetests")/\(name)"
        var feeds: [String: Inference.Tensor] = [:]
        for input in inputs { feeds[input.name] = try Fixtures.tensor("\(directory)/\(input.file)") }
        let model: InferenceModel
        let results: [String: Inference.Tensor]
        do {
            model = try InferenceModel(contentsOfFile: Fixtures.url("\(directory)/model.onnx").path,
                                       inputShapes: feeds.mapValues(\.shape), planTimeInputs: feeds)
            results = try InferenceSession(model: model, path: path).run(feeds.filter { !model.fixedInputs.contains($0.key) })
        } catch {
            return .refused(error)
        }
        for output in outputs {
            let expected = try Fixtures.tensor("\(directory)/\(output.file)")
            let actual = try #require(results[output.name], "\(name): no output \(output.name)")
            #expect(actual.type == expected.type && actual.shape == expected.shape,
                    "\(name) \(output.name): \(actual.type) \(actual.shape), expected \(expected.type) \(expected.shape)")
            if expected.type.isInteger {
                #expect(actual.bytes == expected.bytes, "\(name) \(output.name): elements differ")
            } else if actual.type == expected.type && actual.shape == expected.shape {
                let bad = (0..<expected.elementCount).first { index in
                    let a = actual.bytes.withUnsafeBytes { TensorElements.double($0.baseAddress!, at: index, actual.type) }
                    let e = expected.bytes.withUnsafeBytes { TensorElements.double($0.baseAddress!, at: index, expected.type) }
                    return !(a == e || (a.isNaN && e.isNaN) || abs(a - e) <= atol + rtol * abs(e))
                }
                #expect(bad == nil, "\(name) \(output.name): element \(bad ?? -1) out of tolerance")
            }
        }
        return .pass
    }
}

extension ModelError: Equatable {
    public static func == (a: ModelError, b: ModelError) -> Bool { a.description == b.description && a.kind == b.kind }
}

@Suite("onnx's own node tests (a committed subset) pass, or are refused by name, never wrong")
struct NodeTestSubsetTests {
    @Test("each test of a registered op matches onnx's expected outputs, or its refusal names the node and op",
          arguments: NodeTestCase.registered, ExecutionPath.allCases)
    func matchesOrRefusesByName(_ testCase: NodeTestCase, path: ExecutionPath) throws {
        switch try testCase.run(path: path) {
        case .pass:
            print("node test \(testCase.name) (\(path)): pass")
        case let .refused(error):
            #expect(error.kind == .unsupported, "\(testCase.name): \(error)")
            #expect(error.op != nil && error.node != nil, "\(testCase.name): \(error)")
            print("node test \(testCase.name) (\(path)): refused: \(error)")
        }
    }

    /// Exempt: ops onnx's suite has no test for (their one-node fixtures cover them), ops whose
    /// tests all import an opset the engine does not read, and ops whose tests all use a
    /// definition newer than opset 21 that changed meaning (refused by name, as the first test asserts).
    @Test("every registered op passes at least one of its node tests")
    func everyRegisteredOpPasses() throws {
        #expect(NodeTestCase.all.count >= 300)
        var passing = Set<String>(), newerDefinition = Set<String>(), olderDefinition = Set<String>()
        for testCase in NodeTestCase.registered where !passing.contains(testCase.op) {
            switch try testCase.run(path: .reference) {
            case .pass: passing.insert(testCase.op)
            case let .refused(error) where error.message.contains("changed meaning after opset"): newerDefinition.insert(testCase.op)
            case .refused: olderDefinition.insert(testCase.op)
            }
        }
        let inSuite = Set(NodeTestCase.all.map(\.op))
        let onlyNewer = newerDefinition.subtracting(olderDefinition)
        let missing = Set(InferenceModel.supportedOpTypes).intersection(inSuite).subtracting(passing)
            .subtracting(NodeTestCase.untestable).subtracting(onlyNewer)
        #expect(missing.isEmpty, "registered ops with no passing node test in Fixtures/nodetests: \(missing.sorted())")
        print("node-test coverage: \(passing.count) registered ops pass; only post-21 definitions in the suite: \(onlyNewer.sorted()); "
              + "not in the suite: \(Set(InferenceModel.supportedOpTypes).subtracting(inSuite).sorted())")
    }
}
