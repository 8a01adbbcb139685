import Testing
import NumpyFormat
import TestSupport

@Suite("npy files of strings (numpy's <U dtype)")
struct NumpyStringArrayTests {
    @Test("a file numpy wrote reads back as its strings: Fixtures/ops/string_normalizer_stopwords_upper")
    func numpyWritten() throws {
        let input = try NumpyStringArray(contentsOfFile: Fixtures.url("ops/string_normalizer_stopwords_upper/input_0.npy").path)
        #expect(input.shape == [5] && input.values == ["monday", "Tuesday", "wednesday", "MONDAY", "friday"])
        let output = try NumpyStringArray(contentsOfFile: Fixtures.url("ops/string_normalizer_stopwords_upper/output_0.npy").path)
        #expect(output.values == ["TUESDAY", "WEDNESDAY", "FRIDAY"])
    }

    @Test("strings of any length and script round-trip through the bytes written, empty ones included")
    func roundTrip() throws {
        let array = try NumpyStringArray(shape: [2, 2], values: ["", "a", "größer", "日本語 🙂"])
        let read = try NumpyStringArray(bytes: array.serialized())
        #expect(read == array)
        #expect(NumpyStringArray.holdsStrings(array.serialized()))
        let empty = try NumpyStringArray(shape: [1], values: [""])
        #expect(try NumpyStringArray(bytes: empty.serialized()) == empty)
    }

    @Test("a file of numbers is not strings, and is refused as such")
    func numbersAreNotStrings() throws {
        let floats = try NumpyArray(shape: [2], dataType: .float32, data: [0, 0, 128, 63, 0, 0, 0, 64]).serialized()
        #expect(!NumpyStringArray.holdsStrings(floats))
        #expect(throws: NumpyError.self) { try NumpyStringArray(bytes: floats) }
        #expect(throws: NumpyError.self) { try NumpyStringArray(shape: [3], values: ["a"]) }
    }
}
