import Testing
import TestSupport
@testable import Inference

/// Sequences and optionals exist only at plan time (`PlanTimeSequence`): what that asks of a model,
/// and how a model that does not fit is refused. What the operators compute is checked against
/// onnxruntime by the `Fixtures/ops` cases (`Tools/op_cases/containers.py`).
@Suite("Sequence and optional operators: positions known at plan time, errors naming node and op")
struct ContainerOperatorTests {
    /// `x [2, 3]` and `x + 1` in a sequence, then `SequenceAt(position)`; the position is `at`
    /// (an initializer holding `position`) or the graph input `pos` when `position` is nil.
    static func sequenceAt(_ position: Int64?, output: String = "y") -> [UInt8] {
        ONNXBuilder.model(
            nodes: [ONNXBuilder.node("Add", inputs: ["x", "one"], outputs: ["x1"], name: "node_0"),
                    ONNXBuilder.node("SequenceConstruct", inputs: ["x", "x1"], outputs: ["s"], name: "node_1"),
                    ONNXBuilder.node("SequenceAt", inputs: ["s", position == nil ? "pos" : "at"], outputs: ["y"], name: "node_2")],
            initializers: [ONNXBuilder.floatTensor("one", [], [1])] + (position.map { [ONNXBuilder.int64Tensor("at", [], [$0])] } ?? []),
            inputs: [ONNXBuilder.valueInfo("x", [2, 3])] + (position == nil ? [ONNXBuilder.valueInfo("pos", dims: [], elementType: 7)] : []),
            outputs: [ONNXBuilder.valueInfo(output, [2, 3])], opset: 12)
    }

    @Test("a position fed as a graph input is fixed into the plan from the value offered for it")
    func positionFromGraphInput() throws {
        let position = Tensor(type: .int64, shape: [], bytes: TensorElements.bytes(of: [-1], as: .int64))
        let model = try InferenceModel(bytes: Self.sequenceAt(nil), planTimeInputs: ["pos": position])
        #expect(model.fixedInputs == ["pos"])
        let x = Tensor(shape: [2, 3], floats: [0, 1, 2, 3, 4, 5])
        for path in ExecutionPath.allCases {
            let outputs = try InferenceSession(model: model, path: path).run(["x": x])
            #expect(outputs["y"] == Tensor(shape: [2, 3], floats: [1, 2, 3, 4, 5, 6]), "\(path)")
        }
    }

    @Test("a position known only at run time is refused, naming the node, the op and the input")
    func positionAtRunTime() {
        let error = loadError(Self.sequenceAt(nil))
        #expect(error?.node == "node_2" && error?.op == "SequenceAt", "\(String(describing: error))")
        #expect(error?.message.contains("'position') must be a constant") == true, "\(String(describing: error))")
    }

    @Test("a position outside the sequence is refused as an invalid value")
    func positionOutOfRange() {
        #expect(loadError(Self.sequenceAt(1)) == nil)
        #expect(loadError(Self.sequenceAt(-2)) == nil)
        for position: Int64 in [2, -3] {
            let error = loadError(Self.sequenceAt(position))
            #expect(error?.kind == .invalidValue && error?.node == "node_2" && error?.op == "SequenceAt", "\(String(describing: error))")
        }
    }

    @Test("a sequence given to an operator that takes tensors is refused, naming the input")
    func sequenceWhereTensorExpected() {
        let model = ONNXBuilder.model(
            nodes: [ONNXBuilder.node("SequenceConstruct", inputs: ["x"], outputs: ["s"], name: "node_0"),
                    ONNXBuilder.node("Relu", inputs: ["s"], outputs: ["y"], name: "node_1")],
            inputs: [ONNXBuilder.valueInfo("x", [2])], outputs: [ONNXBuilder.valueInfo("y", [2])], opset: 12)
        let error = loadError(model)
        #expect(error?.kind == .unsupported && error?.node == "node_1" && error?.op == "Relu", "\(String(describing: error))")
        #expect(error?.message.contains("input 0 ('s') is a sequence value") == true, "\(String(describing: error))")
    }

    @Test("a sequence as a graph output is refused by name")
    func sequenceGraphOutput() {
        let model = ONNXBuilder.model(
            nodes: [ONNXBuilder.node("SequenceConstruct", inputs: ["x"], outputs: ["s"], name: "node_0")],
            inputs: [ONNXBuilder.valueInfo("x", [2])], outputs: [ONNXBuilder.valueInfo("s", [2])], opset: 12)
        let error = loadError(model)
        #expect(error?.kind == .unsupported && error?.message.contains("graph output 's' is a sequence") == true, "\(String(describing: error))")
    }

    @Test("tensors of different element types do not make one sequence")
    func mixedElementTypes() {
        let model = ONNXBuilder.model(
            nodes: [ONNXBuilder.node("SequenceConstruct", inputs: ["x", "i"], outputs: ["s"], name: "node_0"),
                    ONNXBuilder.node("ConcatFromSequence", inputs: ["s"], outputs: ["y"], name: "node_1", attributes: [.int("axis", 0)])],
            initializers: [ONNXBuilder.int64Tensor("i", [2], [1, 2])],
            inputs: [ONNXBuilder.valueInfo("x", [2])], outputs: [ONNXBuilder.valueInfo("y", [4])], opset: 12)
        let error = loadError(model)
        #expect(error?.kind == .invalidValue && error?.node == "node_0" && error?.op == "SequenceConstruct", "\(String(describing: error))")
    }

    @Test("ConcatFromSequence needs its axis, and an empty sequence has nothing to concatenate")
    func concatFromSequenceRefusals() {
        func model(_ nodes: [[UInt8]]) -> [UInt8] {
            ONNXBuilder.model(nodes: nodes, inputs: [ONNXBuilder.valueInfo("x", [2])], outputs: [ONNXBuilder.valueInfo("y", [2])], opset: 12)
        }
        let noAxis = loadError(model([ONNXBuilder.node("SequenceConstruct", inputs: ["x"], outputs: ["s"], name: "node_0"),
                                      ONNXBuilder.node("ConcatFromSequence", inputs: ["s"], outputs: ["y"], name: "node_1")]))
        #expect(noAxis?.op == "ConcatFromSequence" && noAxis?.attribute == "axis", "\(String(describing: noAxis))")
        let empty = loadError(model([ONNXBuilder.node("SequenceEmpty", inputs: [], outputs: ["s"], name: "node_0"),
                                     ONNXBuilder.node("ConcatFromSequence", inputs: ["s"], outputs: ["y"], name: "node_1",
                                                      attributes: [.int("axis", 0)])]))
        #expect(empty?.kind == .invalidValue && empty?.node == "node_1", "\(String(describing: empty))")
    }
}
