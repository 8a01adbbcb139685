import Foundation
import NumpyFormat
import Testing

/// .npy tensors: a bad header, an unsupported dtype or a shape that disagrees with the
/// data is a thrown `NumpyError` with a one-line message.
@Suite("Bad .npy tensors are thrown errors")
struct NumpyInputTests {
    /// Fixtures/model/general/input.npy: float32 [1, 256, 256, 3], format 1.0.
    static let good = fixtureBytes("Fixtures/model/general/input.npy")

    /// A format 1.0 file with `header` as its dict (padded as numpy does) and `dataCount` bytes of data.
    static func npy(_ header: String, dataCount: Int) -> [UInt8] {
        var text = Array(header.utf8)
        let total = 10 + text.count + 1
        text += [UInt8](repeating: 0x20, count: (64 - total % 64) % 64) + [0x0A]
        return [0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(text.count & 0xFF), UInt8(text.count >> 8)]
            + text + [UInt8](repeating: 0, count: dataCount)
    }

    /// The good file with its header's text replaced (same length, so the data stays aligned).
    static func goodWithHeader(_ replace: String, by replacement: String) -> [UInt8] {
        let headerLength = Int(good[8]) | Int(good[9]) << 8
        var header = String(decoding: good[10..<(10 + headerLength)], as: UTF8.self)
        header = header.replacingOccurrences(of: replace, with: replacement)
        header = header.padding(toLength: headerLength - 1, withPad: " ", startingAt: 0) + "\n"
        return Array(good[0..<8]) + [UInt8(headerLength & 0xFF), UInt8(headerLength >> 8)]
            + Array(header.utf8) + Array(good[(10 + headerLength)...])
    }

    static let rows: [BadInput] = [
        BadInput(name: "empty file", bytes: { [] }, says: "not a .npy file"),
        BadInput(name: "a PNG instead of a tensor", bytes: { fixtureBytes("Fixtures/images/astronaut.png") }, says: "not a .npy file"),
        BadInput(name: "random bytes", bytes: { randomBytes(count: 512, seed: 3) }, says: "not a .npy file"),
        BadInput(name: "cut inside the magic string", bytes: { Array(good.prefix(4)) }, says: "not a .npy file"),
        BadInput(name: "cut inside the header length", bytes: { Array(good.prefix(9)) }, says: "header length"),
        BadInput(name: "cut inside the header", bytes: { Array(good.prefix(40)) }, says: "runs past the end"),
        BadInput(name: "cut inside the data", bytes: { Array(good.prefix(good.count / 2)) }, says: "bytes of data"),
        BadInput(name: "one byte of data too many", bytes: { good + [0] }, says: "bytes of data"),
        BadInput(name: "version 9.0", bytes: { var b = good; b[6] = 9; return b }, says: "version"),
        BadInput(name: "header length 65535 in a small file", bytes: {
            var b = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", dataCount: 4)
            b[8] = 0xFF; b[9] = 0xFF
            return b
        }, says: "runs past the end"),
        BadInput(name: "header is not a dict", bytes: { npy("hello", dataCount: 0) }, says: ""),
        BadInput(name: "header without a shape", bytes: { npy("{'descr': '<f4', 'fortran_order': False, }", dataCount: 4) }, says: "shape"),
        BadInput(name: "header not ASCII", bytes: { npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'é': 1}", dataCount: 4) }, says: "ascii"),
        BadInput(name: "dtype complex64 (unsupported)", bytes: { goodWithHeader("'<f4'", by: "'<c8'") }, says: "unsupported dtype"),
        BadInput(name: "dtype big-endian float32", bytes: { goodWithHeader("'<f4'", by: "'>f4'") }, says: "unsupported dtype"),
        BadInput(name: "dtype object", bytes: { goodWithHeader("'<f4'", by: "'|O'") }, says: "unsupported dtype"),
        BadInput(name: "Fortran order", bytes: { goodWithHeader("False", by: "True") }, says: "fortran_order"),
        BadInput(name: "shape disagrees with the data size", bytes: { goodWithHeader("(1, 256, 256, 3)", by: "(1, 256, 256, 4)") }, says: "bytes of data"),
        BadInput(name: "negative dimension", bytes: { npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 4), }", dataCount: 16) }, says: ""),
        BadInput(name: "shape overflows Int", bytes: { npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }", dataCount: 16) }, says: "too large"),
        BadInput(name: "element count times item size overflows", bytes: { npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,), }", dataCount: 16) }, says: ""),
        BadInput(name: "dimension with 40 digits", bytes: { npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1234567890123456789012345678901234567890,), }", dataCount: 4) }, says: ""),
    ]

    @Test("a malformed .npy is a NumpyError with a one-line message", arguments: rows)
    func malformedTensor(_ row: BadInput) {
        let bytes = row.bytes()
        #expect(throws: NumpyError.self) { _ = try NumpyArray(bytes: bytes) }
        do {
            _ = try NumpyArray(bytes: bytes)
        } catch {
            #expect(isClearMessage(error.message), "\(error.message)")
            #expect(row.says.isEmpty || error.message.lowercased().contains(row.says.lowercased()), "\(error.message)")
        }
    }

    @Test("the good file cut at every offset up to its data, and at 16 offsets into it, is a NumpyError")
    func cutEverywhere() {
        let headerEnd = 10 + (Int(Self.good[8]) | Int(Self.good[9]) << 8)
        let offsets = Array(0...headerEnd) + (1...16).map { headerEnd + $0 * (Self.good.count - headerEnd) / 17 }
        for length in offsets {
            let cut = Array(Self.good.prefix(length))
            #expect(throws: NumpyError.self, "cut at \(length)") { _ = try NumpyArray(bytes: cut) }
        }
    }

    @Test("floating-point data read as integers is a NumpyError (wrong dtype), not a silent truncation")
    func wrongDataType() throws {
        let array = try NumpyArray(bytes: Self.good)
        #expect(throws: NumpyError.self) { _ = try array.integers() }
    }

    @Test("a missing .npy file is a NumpyError naming the path")
    func missingFile() {
        let path = "/nonexistent/dir/input.npy"
        #expect {
            _ = try NumpyArray(contentsOfFile: path)
        } throws: { error in
            (error as? NumpyError)?.message.contains(path) == true
        }
    }
}
