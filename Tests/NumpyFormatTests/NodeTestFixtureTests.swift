import Foundation
import Testing
import NumpyFormat
import TestSupport

/// The `.npy` files of `Fixtures/nodetests/` were written by numpy (`np.save`) from onnx's node
/// test suite, in every dtype the suite uses: real files of every type the reader claims.
@Suite("npy files numpy wrote for onnx's node tests")
struct NodeTestFixtureTests {
    struct Value: Decodable { var name: String; var file: String; var dtype: String; var shape: [Int] }
    struct Test: Decodable { var name: String; var inputs: [Value]; var outputs: [Value] }
    struct Manifest: Decodable { var tests: [Test] }

    static func manifest() throws -> Manifest {
        try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: Fixtures.url("nodetests/manifest.json")))
    }

    /// numpy's dtype names (as the manifest records them) for our types.
    static let numpyNames: [String: NumpyDataType] = [
        "float16": .float16, "float32": .float32, "float64": .float64,
        "int8": .int8, "int16": .int16, "int32": .int32, "int64": .int64,
        "uint8": .uint8, "uint16": .uint16, "uint32": .uint32, "uint64": .uint64, "bool": .bool,
    ]

    @Test("every file reads with the manifest's dtype and shape, and converts as its type allows")
    func everyFile() throws {
        var seen = Set<NumpyDataType>()
        for test in try Self.manifest().tests {
            for value in test.inputs + test.outputs {
                let array = try NumpyArray(contentsOfFile: Fixtures.url("nodetests/\(test.name)/\(value.file)").path)
                #expect(Self.numpyNames[value.dtype] == array.dataType, "\(test.name)/\(value.file)")
                #expect(array.shape == value.shape, "\(test.name)/\(value.file)")
                #expect(try array.floats().count == array.elementCount)
                if !array.dataType.isFloatingPoint { #expect(try array.integers().count == array.elementCount) }
                seen.insert(array.dataType)
            }
        }
        // The chosen tests use ten of the twelve types (none has a uint32 or uint64 tensor); a
        // regenerated subset should keep them.
        #expect(seen.isSuperset(of: [.float16, .float32, .float64, .int8, .int16, .int32, .int64, .uint8, .uint16, .bool]))
    }

    @Test("values numpy wrote read back as numpy prints them")
    func values() throws {
        func array(_ path: String) throws -> NumpyArray { try NumpyArray(contentsOfFile: Fixtures.url("nodetests/" + path).path) }
        #expect(try array("test_range_int32_type_negative_delta/output_0_output.npy").integers() == [10, 7])
        #expect(try array("test_where_long_example/output_0_z.npy").integers() == [1, 8, 3, 4])
        #expect(try array("test_where_long_example/input_0_condition.npy").booleans() == [true, false, true, true])
        #expect(try array("test_shape_example/output_0_y.npy").integers() == [2, 3])
        let half = try array("test_cast_FLOAT_to_FLOAT16/output_0_output.npy")
        #expect(half.shape == [3, 4])
        #expect(try Array(half.floats().prefix(4)) == [0.47900390625, 0.480224609375, 0.499755859375, 0.8193359375])
    }
}
