import Testing
import TestSupport
@testable import Inference

@Suite("onnx's model suites (a committed subset): every test passes")
struct ModelSuiteSubsetTests {
    /// `Fixtures/modelsuites/` (`Tools/make_model_suite_fixtures.py`); a test's `op` is its suite.
    static let cases = NodeTestCase.load("modelsuites/manifest.json")

    @Test("the fixture set covers the three suites")
    func fixturesPresent() {
        #expect(Set(Self.cases.map(\.op)) == ["pytorch-converted", "pytorch-operator", "simple"])
    }

    @Test("each test matches onnx's expected outputs", arguments: cases, ExecutionPath.allCases)
    func matches(_ testCase: NodeTestCase, path: ExecutionPath) throws {
        let outcome = try testCase.run(path: path)
        #expect(outcome == .pass, "\(testCase.op) \(testCase.name) (\(path)): \(outcome)")
    }
}
