import Testing
import TestSupport
@testable import Inference

/// Strings exist only at plan time (`StringTensor`): what that asks of a model and its caller.
/// What StringNormalizer computes is checked against onnxruntime by the `Fixtures/ops` cases
/// (`Tools/op_cases/strings.py`).
@Suite("String tensors: given when the model is loaded, computed then, refused by name elsewhere")
struct StringTensorTests {
    /// `x` (strings [3]) → StringNormalizer (UPPER, stopword "b") → `y`.
    static let normalizer = ONNXBuilder.model(
        nodes: [ONNXBuilder.node("StringNormalizer", inputs: ["x"], outputs: ["y"], name: "node_0",
                                 attributes: [.string("case_change_action", "UPPER")])],
        inputs: [ONNXBuilder.valueInfo("x", dims: [.value(3)], elementType: 8)],
        outputs: [ONNXBuilder.valueInfo("y", dims: [.unknown], elementType: 8)], opset: 10)

    static func loadingError(_ bytes: [UInt8], strings: [String: StringTensor]) -> ModelError? {
        do { _ = try InferenceModel(bytes: bytes, planTimeStrings: strings); return nil } catch { return error }
    }

    @Test("the string input given at load time is fixed, and the string output is part of the model")
    func loadTimeStrings() throws {
        let model = try InferenceModel(bytes: Self.normalizer, planTimeStrings: ["x": StringTensor(shape: [3], values: ["a", "B", "c"])])
        #expect(model.fixedInputs == ["x"] && model.inputs.isEmpty)
        #expect(model.stringOutputs["y"] == StringTensor(shape: [3], values: ["A", "B", "C"]))
    }

    @Test("a string input not given at load time is refused, naming it")
    func stringInputMissing() {
        let error = loadError(Self.normalizer)
        #expect(error?.kind == .unsupported && error?.message.contains("graph input 'x' holds strings") == true, "\(String(describing: error))")
    }

    @Test("strings given to an operator of numbers are refused, naming the node, op and input")
    func stringsToNumericOp() {
        let model = ONNXBuilder.model(
            nodes: [ONNXBuilder.node("Relu", inputs: ["x"], outputs: ["y"], name: "node_0")],
            inputs: [ONNXBuilder.valueInfo("x", dims: [.value(1)], elementType: 8)],
            outputs: [ONNXBuilder.valueInfo("y", [1])], opset: 10)
        let error = Self.loadingError(model, strings: ["x": StringTensor(shape: [1], values: ["a"])])
        #expect(error?.node == "node_0" && error?.op == "Relu", "\(String(describing: error))")
        #expect(error?.message.contains("input 0 ('x') is a string tensor") == true, "\(String(describing: error))")
    }

    @Test("a locale other than en_US or C.UTF-8 is refused, naming the attribute")
    func otherLocale() {
        let model = ONNXBuilder.model(
            nodes: [ONNXBuilder.node("StringNormalizer", inputs: ["x"], outputs: ["y"], name: "node_0",
                                     attributes: [.string("locale", "tr_TR")])],
            inputs: [ONNXBuilder.valueInfo("x", dims: [.value(1)], elementType: 8)],
            outputs: [ONNXBuilder.valueInfo("y", dims: [.unknown], elementType: 8)], opset: 10)
        let error = Self.loadingError(model, strings: ["x": StringTensor(shape: [1], values: ["i"])])
        #expect(error?.op == "StringNormalizer" && error?.attribute == "locale", "\(String(describing: error))")
    }
}
