import Foundation
import Testing
@testable import NumpyFormat

/// Builds `.npy` bytes by hand so each test controls every header byte.
private func npy(version: UInt8 = 1, header: String, data: [UInt8] = [], lengthOverride: Int? = nil) -> [UInt8] {
    var bytes: [UInt8] = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]
    let length = lengthOverride ?? header.utf8.count
    bytes += [UInt8(length & 0xff), UInt8((length >> 8) & 0xff)]
    if version >= 2 { bytes += [UInt8((length >> 16) & 0xff), UInt8((length >> 24) & 0xff)] }
    return bytes + Array(header.utf8) + data
}

private func littleEndian(_ values: [Float]) -> [UInt8] {
    values.flatMap { value in withUnsafeBytes(of: value.bitPattern.littleEndian) { Array($0) } }
}

/// The message of the `NumpyError` `body` throws, or nil when it succeeds.
private func error(_ body: () throws -> Void) -> String? {
    do { try body(); return nil } catch { return (error as? NumpyError)?.message ?? "unexpected \(error)" }
}

@Suite("npy reading and writing")
struct NumpyFormatTests {
    @Test("float32 round-trips through serialized() and init(bytes:)")
    func roundTrip() throws {
        let array = NumpyArray(shape: [2, 3], floats: [1, -2, 3.5, 0, .greatestFiniteMagnitude, -0.25])
        let bytes = array.serialized()
        #expect(bytes.count % 64 == 0 || (bytes.count - 24) % 64 == 0)
        let read = try NumpyArray(bytes: bytes)
        #expect(read == array)
        #expect(try read.floats() == [1, -2, 3.5, 0, .greatestFiniteMagnitude, -0.25])
    }

    @Test("the header is padded so data starts on a 64-byte boundary, as numpy writes it")
    func alignment() {
        for count in [0, 1, 7, 100] {
            let bytes = NumpyArray(shape: [count], floats: Array(repeating: 1, count: count)).serialized()
            #expect((bytes.count - 4 * count) % 64 == 0)
        }
    }

    @Test("scalar and 1-d shapes use Python tuple syntax")
    func tuples() throws {
        let scalar = try NumpyArray(bytes: npy(header: "{'descr': '<f4', 'fortran_order': False, 'shape': (), }\n", data: littleEndian([7])))
        #expect(scalar.shape == [])
        #expect(try scalar.floats() == [7])
        let vector = try NumpyArray(bytes: npy(header: "{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<f4\"}", data: littleEndian([1, 2])))
        #expect(vector.shape == [2])
    }

    @Test("float16, float64, uint8, int32 and int64 convert to Float")
    func conversions() throws {
        let half = try NumpyArray(bytes: npy(header: "{'descr': '<f2', 'fortran_order': False, 'shape': (5,), }",
                                             data: [0x00, 0x3c, 0x00, 0xc0, 0x01, 0x00, 0x00, 0x7c, 0xff, 0x7b]))
        let halves = try half.floats()
        #expect(halves[0] == 1 && halves[1] == -2 && halves[2] == 0x1p-24 && halves[3] == .infinity && halves[4] == 65504)
        let double = try NumpyArray(bytes: npy(header: "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }",
                                               data: withUnsafeBytes(of: (0.5 as Double).bitPattern.littleEndian) { Array($0) }))
        #expect(try double.floats() == [0.5])
        let bytes = try NumpyArray(bytes: npy(header: "{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }", data: [0, 255]))
        #expect(try bytes.floats() == [0, 255])
        let int32 = try NumpyArray(bytes: npy(header: "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", data: [0xff, 0xff, 0xff, 0xff]))
        #expect(try int32.floats() == [-1])
        #expect(try int32.integers() == [-1])
        let int64 = try NumpyArray(bytes: npy(header: "{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }", data: [3, 0, 0, 0, 0, 0, 0, 0]))
        #expect(try int64.integers() == [3])
        #expect(error { _ = try double.integers() } != nil)
    }

    @Test("version 2.0 headers (4-byte length) are read")
    func version2() throws {
        let array = try NumpyArray(bytes: npy(version: 2, header: "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }", data: littleEndian([4])))
        #expect(array.shape == [1, 1])
    }

    @Test("every malformed header is an error with a clear message", arguments: [
        ("bad magic", [UInt8]("NUMPY\u{1}\u{0}xxxx".utf8), "magic"),
        ("too short", [0x93, 0x4e], "magic"),
        ("version 9", npy(version: 9, header: "{}"), "version"),
        ("length past end", npy(header: "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", lengthOverride: 4000), "past the end"),
        ("unparsable dict", npy(header: "{'descr' '<f4'}"), "malformed"),
        ("missing key", npy(header: "{'descr': '<f4', 'shape': (1,)}"), "lacks"),
        ("unknown key", npy(header: "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}"), "unknown key"),
        ("unknown dtype", npy(header: "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", data: Array(repeating: 0, count: 8)), "unsupported dtype"),
        ("big-endian", npy(header: "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", data: Array(repeating: 0, count: 4)), "unsupported dtype"),
        ("fortran order", npy(header: "{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", data: Array(repeating: 0, count: 4)), "fortran_order"),
        ("short data", npy(header: "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", data: Array(repeating: 0, count: 12)), "needs 16 bytes"),
        ("long data", npy(header: "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", data: Array(repeating: 0, count: 5)), "needs 4 bytes"),
        ("absurd shape", npy(header: "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4611686018427387904), }"), "too large"),
        ("overflowing bytes", npy(header: "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,), }"), "more than Int.max"),
        ("negative dimension", npy(header: "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }"), "negative"),
        ("huge dimension text", npy(header: "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }"), "malformed"),
        ("trailing text", npy(header: "{'descr': '<f4', 'fortran_order': False, 'shape': (), } x", data: Array(repeating: 0, count: 4)), "after"),
    ] as [(String, [UInt8], String)])
    func malformed(name: String, bytes: [UInt8], expected: String) {
        let message = error { _ = try NumpyArray(bytes: bytes) }
        #expect(message?.contains(expected) == true, "\(name): \(message ?? "no error")")
    }

    @Test("a truncated file is an error at every cut, never a crash")
    func truncation() {
        let bytes = NumpyArray(shape: [3, 2], floats: [1, 2, 3, 4, 5, 6]).serialized()
        for cut in 0..<bytes.count {
            #expect(error { _ = try NumpyArray(bytes: Array(bytes[..<cut])) } != nil, "cut at \(cut)")
        }
    }

    @Test("a missing file is an error naming the path")
    func missingFile() {
        let message = error { _ = try NumpyArray(contentsOfFile: "/nonexistent/x.npy") }
        #expect(message?.contains("/nonexistent/x.npy") == true)
    }

    @Test("write(toFile:) then init(contentsOfFile:) gives the same array")
    func fileRoundTrip() throws {
        let path = NSTemporaryDirectory() + "numpy-format-test-\(getpid()).npy"
        defer { unlink(path) }
        let array = NumpyArray(shape: [1, 2, 2], floats: [0.5, 1.5, -1, 2])
        try array.write(toFile: path)
        #expect(try NumpyArray(contentsOfFile: path) == array)
    }
}
