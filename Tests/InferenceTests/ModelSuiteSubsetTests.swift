import Testing
import TestSupport
@testable import Inference

@Suite("onnx's model suites (a committed subset): the PyTorch exports pass; the others pass or are refused")
struct ModelSuiteSubsetTests {
    /// `Fixtures/modelsuites/` (`Tools/make_model_suite_fixtures.py`); a test's `op` is its suite.
    static let cases = NodeTestCase.load("modelsuites/manifest.json")

    @Test("the fixture set covers the three suites")
    func fixturesPresent() {
        #expect(Set(Self.cases.map(\.op)) == ["pytorch-converted", "pytorch-operator", "simple"])
    }

    @Test("each test matches onnx's expected outputs (pytorch-converted and -operator), or is refused as unsupported (simple)",
          arguments: cases, ExecutionPath.allCases)
    func matchesOrRefuses(_ testCase: NodeTestCase, path: ExecutionPath) throws {
        let outcome = try testCase.run(path: path)
        if testCase.op.hasPrefix("pytorch-") {
            #expect(outcome == .pass, "\(testCase.op) \(testCase.name) (\(path)): \(outcome)")
        } else if case let .refused(error) = outcome {
            #expect(error.kind == .unsupported, "\(testCase.name): \(error)")
        }
    }
}
