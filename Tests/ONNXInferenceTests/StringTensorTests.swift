import ONNXInference
import Testing
import TestSupport

/// Tensors of strings: made and read as Swift strings, fed to and returned by a session (the
/// operators on strings run when the model is planned for them).
@Suite struct StringTensorTests {
    /// `x` (strings [3]) → StringNormalizer (UPPER) → `y` (strings).
    static let normalizer = ONNXBuilder.model(
        nodes: [ONNXBuilder.node("StringNormalizer", inputs: ["x"], outputs: ["y"], name: "upper",
                                 attributes: [.string("case_change_action", "UPPER")])],
        inputs: [ONNXBuilder.valueInfo("x", dims: [.value(3)], elementType: 8)],
        outputs: [ONNXBuilder.valueInfo("y", dims: [.unknown], elementType: 8)], opset: 10)

    @Test func aStringTensorHoldsItsStringsAndNoBytes() throws {
        let words = Tensor(shape: [2, 1], strings: ["grüß", ""])
        #expect(words.elementType == .string && words.shape == [2, 1] && words.count == 2)
        #expect(try words.strings() == ["grüß", ""])
        #expect(words.withUnsafeBytes(\.count) == 0)
        #expect(words.description == "STRING [2, 1]")
        #expect(ElementType.string.byteCount == 0)
        #expect(Tensor(zeros: .string, shape: [2]) == Tensor(shape: [2], strings: ["", ""]))
        #expect(words != Tensor(shape: [2, 1], strings: ["gruss", ""]))
    }

    @Test func stringsAndNumbersAreNotReadAsEachOther() {
        let words = Tensor(shape: [1], strings: ["a"])
        #expect(throws: TensorError.elementTypeMismatch(expected: .string, actual: .float32)) { try words.scalars(as: Float.self) }
        #expect(throws: TensorError.elementTypeMismatch(expected: .float32, actual: .string)) {
            try Tensor(shape: [1], scalars: [Float(1)]).strings()
        }
    }

    @Test func stringsCompareEqualOrNot() {
        let expected = Tensor(shape: [3], strings: ["A", "B", "C"])
        #expect(TensorComparison(actual: expected, expected: expected).isClose)
        let report = TensorComparison(actual: Tensor(shape: [3], strings: ["A", "b", "C"]), expected: expected)
        #expect(!report.isClose && report.mismatchCount == 1 && report.count == 3, "\(report)")
    }

    @Test(arguments: InferenceSession.ExecutionPath.allCases)
    func aSessionTakesAndReturnsStrings(path: InferenceSession.ExecutionPath) throws {
        let session = try InferenceSession(modelData: Self.normalizer, options: .init(path: path))
        #expect(session.inputs == [TensorInfo(name: "x", elementType: .string, shape: [3])])
        #expect(session.outputs.map(\.elementType) == [.string])
        for (words, upper) in [(["a", "B", "c"], ["A", "B", "C"]), (["dé", "x", "Yz"], ["DÉ", "X", "YZ"])] {
            let out = try session.run(inputs: ["x": Tensor(shape: [3], strings: words)])
            #expect(try out["y"]?.strings() == upper)
        }
    }

    @Test func numbersForAStringInputAreRefusedNamingIt() throws {
        let session = try InferenceSession(modelData: Self.normalizer)
        #expect {
            try session.run(inputs: ["x": Tensor(shape: [3], scalars: [Float](repeating: 0, count: 3))])
        } throws: { error in
            "\(error)".contains("'x'") && "\(error)".contains("STRING")
        }
    }
}
