import Testing
import TestSupport
@testable import Inference

@Suite("Opsets 1–6: the old definitions compute what their opset-7 forms do, or are refused by name")
struct LegacyOpsetTests {
    /// `Fixtures/legacyopsets/` (`Tools/make_legacy_opset_fixtures.py`): old-opset one-node models,
    /// with onnxruntime's outputs for each one's newer equivalent.
    static let cases = NodeTestCase.load("legacyopsets/manifest.json")

    @Test("the fixture set is there")
    func fixturesPresent() { #expect(Self.cases.count >= 25) }

    @Test("each old-opset node matches its newer equivalent's outputs", arguments: cases, ExecutionPath.allCases)
    func matchesNewerEquivalent(_ testCase: NodeTestCase, path: ExecutionPath) throws {
        let outcome = try testCase.run(path: path)
        #expect(outcome == .pass, "\(testCase.name) (\(path)): \(outcome)")
    }

    @Test("training mode (is_test = 0, the default before opset 7) is refused, naming is_test")
    func trainingMode() {
        let bn = ONNXBuilder.model(
            nodes: [ONNXBuilder.node("BatchNormalization", inputs: ["x", "s", "s", "s", "s"], outputs: ["y"], name: "node_0")],
            initializers: [ONNXBuilder.floatTensor("s", [2], [1, 1])],
            inputs: [ONNXBuilder.valueInfo("x", [1, 2, 4, 4])], outputs: [ONNXBuilder.valueInfo("y", [1, 2, 4, 4])], opset: 6)
        expectRefusal(bn, op: "BatchNormalization", attribute: "is_test")
        expectRefusal(oneNodeModel("Dropout", opset: 6), op: "Dropout", attribute: "is_test")
        #expect(loadError(oneNodeModel("Dropout", attributes: [.float("ratio", 0)], opset: 6)) == nil)
    }

    @Test("old broadcasting that does not fit is refused, naming broadcast or axis")
    func broadcastMismatch() {
        func add(_ b: [Int64], _ attributes: [ONNXBuilder.Attribute]) -> [UInt8] {
            ONNXBuilder.model(
                nodes: [ONNXBuilder.node("Add", inputs: ["x", "b"], outputs: ["y"], name: "node_0", attributes: attributes)],
                initializers: [ONNXBuilder.floatTensor("b", b, Array(repeating: 1, count: Int(b.reduce(1, *))))],
                inputs: [ONNXBuilder.valueInfo("x", [2, 3, 4])], outputs: [ONNXBuilder.valueInfo("y", [2, 3, 4])], opset: 6)
        }
        expectRefusal(add([4], []), op: "Add", attribute: "broadcast", .invalidShape)  // broadcast = 0 needs equal shapes
        expectRefusal(add([3], [.int("broadcast", 1)]), op: "Add", attribute: "broadcast", .invalidShape)  // suffix: 3 ≠ 4
        expectRefusal(add([4], [.int("broadcast", 1), .int("axis", 1)]), op: "Add", attribute: "axis", .invalidShape)
        #expect(loadError(add([3], [.int("broadcast", 1), .int("axis", 1)])) == nil)
    }

    @Test("Split-1 without axis, Cast-1 to an unknown type name and LpPool-1 with a fractional p are refused by name")
    func otherRefusals() {
        let split = ONNXBuilder.model(
            nodes: [ONNXBuilder.node("Split", inputs: ["x"], outputs: ["a", "b"], name: "node_0")],
            inputs: [ONNXBuilder.valueInfo("x", [2, 4])], outputs: [ONNXBuilder.valueInfo("a", [2, 2]), ONNXBuilder.valueInfo("b", [2, 2])],
            opset: 1)
        expectRefusal(split, op: "Split", attribute: "axis")
        expectRefusal(oneNodeModel("Cast", attributes: [.string("to", "QUATERNION")], opset: 1), op: "Cast", attribute: "to")
        expectRefusal(oneNodeModel("GlobalLpPool", attributes: [.float("p", 1.5)], outputShape: [1, 2, 1, 1], opset: 1),
                      op: "GlobalLpPool", attribute: "p")
    }

    @Test("an op that did not exist before opset 7 is refused at opset 6, naming it and its first opset")
    func opAfterItsOpset() {
        let error = loadError(oneNodeModel("Sin", opset: 6))
        #expect(error?.kind == .unsupported && error?.op == "Sin")
        #expect(error?.message.contains("introduced in opset 7") == true)
    }
}
