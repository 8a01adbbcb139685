import Foundation
import Testing
@testable import NumpyFormat

/// The bytes `numpy.save` writes for a small C-order array (format 1.0): the header dict as numpy
/// prints it, padded with spaces to a multiple of 64 bytes including the 10-byte prefix and the
/// final newline, then the data.
private func numpySaved(descr: String, shape: String, data: [UInt8]) -> [UInt8] {
    var header = "{'descr': '\(descr)', 'fortran_order': False, 'shape': \(shape), }"
    header += String(repeating: " ", count: (64 - (10 + header.utf8.count + 1) % 64) % 64) + "\n"
    let length = header.utf8.count
    return [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, UInt8(length & 0xff), UInt8(length >> 8)] + Array(header.utf8) + data
}

private func bytes(hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<($0 + 2)], as: UTF8.self), radix: 16)! }
}

/// The message of the `NumpyError` `body` throws, or nil when it succeeds.
private func thrownMessage(_ body: () throws -> Void) -> String? {
    do { try body(); return nil } catch { return (error as? NumpyError)?.message ?? "unexpected \(error)" }
}

/// One array as numpy 2.4 saves it (`np.save(f, np.array(values, dtype))`): the data bytes and
/// the file length are copied from numpy's output. (Its field list has the shape of
/// OperatorFixtureTests' case record, which `duplicates` pairs with it: two fixture records.)
struct SavedArray: Sendable, CustomTestStringConvertible {
    var dataType: NumpyDataType
    var shape: [Int]
    var shapeText: String
    var dataHex: String
    var fileLength: Int
    var integers: [Int64]
    var floats: [Float]

    var testDescription: String { dataType.rawValue }
}

@Suite("npy integer and bool types")
struct NumpyDataTypeTests {
    static let saved: [SavedArray] = [
        SavedArray(dataType: .int8, shape: [4], shapeText: "(4,)", dataHex: "80ff007f", fileLength: 132,
                   integers: [-128, -1, 0, 127], floats: [-128, -1, 0, 127]),
        SavedArray(dataType: .int16, shape: [4], shapeText: "(4,)", dataHex: "0080feff2c01ff7f", fileLength: 136,
                   integers: [-32768, -2, 300, 32767], floats: [-32768, -2, 300, 32767]),
        SavedArray(dataType: .uint16, shape: [3], shapeText: "(3,)", dataHex: "00000100ffff", fileLength: 134,
                   integers: [0, 1, 65535], floats: [0, 1, 65535]),
        SavedArray(dataType: .uint32, shape: [3], shapeText: "(3,)", dataHex: "0000000000286beeffffffff", fileLength: 140,
                   integers: [0, 4_000_000_000, 4_294_967_295], floats: [0, 4e9, 4_294_967_296]),
        SavedArray(dataType: .uint64, shape: [2], shapeText: "(2,)", dataHex: "0000000000000000ffffffffffffff7f", fileLength: 144,
                   integers: [0, Int64.max], floats: [0, 0x1p63]),
        SavedArray(dataType: .bool, shape: [1, 3], shapeText: "(1, 3)", dataHex: "010001", fileLength: 131,
                   integers: [1, 0, 1], floats: [1, 0, 1]),
    ]

    @Test("each type numpy saves is read with its values, and written back byte for byte", arguments: saved)
    func numpyFiles(array: SavedArray) throws {
        let file = numpySaved(descr: array.dataType.rawValue, shape: array.shapeText, data: bytes(hex: array.dataHex))
        #expect(file.count == array.fileLength)
        let read = try NumpyArray(bytes: file)
        #expect(read.dataType == array.dataType)
        #expect(read.shape == array.shape)
        #expect(try read.integers() == array.integers)
        #expect(try read.floats() == array.floats)
        #expect(read.serialized() == file)
    }

    @Test("init(shape:dataType:integers:) stores little-endian bytes that read back")
    func integerInitialiser() throws {
        let int16 = try NumpyArray(shape: [2, 2], dataType: .int16, integers: [-32768, -2, 300, 32767])
        #expect(int16.data == bytes(hex: "0080feff2c01ff7f"))
        let uint32 = try NumpyArray(shape: [1], dataType: .uint32, integers: [4_000_000_000])
        #expect(uint32.data == bytes(hex: "00286bee"))
        for dataType in NumpyDataType.allCases where !dataType.isFloatingPoint {
            let array = try NumpyArray(shape: [3], dataType: dataType, integers: [0, 1, 0])
            #expect(try NumpyArray(bytes: array.serialized()).integers() == [0, 1, 0], "\(dataType)")
        }
    }

    @Test("a value outside the type's range is an error, never a wrap-around", arguments: [
        (NumpyDataType.int8, Int64(128)), (.int8, -129), (.int16, 32768), (.int32, Int64(Int32.min) - 1),
        (.uint8, 256), (.uint8, -1), (.uint16, 65536), (.uint32, 4_294_967_296), (.uint64, -1), (.bool, 2), (.bool, -1),
    ] as [(NumpyDataType, Int64)])
    func outOfRange(dataType: NumpyDataType, value: Int64) {
        let message = thrownMessage { _ = try NumpyArray(shape: [2], dataType: dataType, integers: [0, value]) }
        #expect(message?.contains("value \(value) at index 1 does not fit \(dataType.rawValue)") == true, "\(message ?? "no error")")
    }

    @Test("integers(...) refuses floating-point types and a count that disagrees with the shape")
    func integerInitialiserErrors() {
        #expect(thrownMessage { _ = try NumpyArray(shape: [1], dataType: .float32, integers: [1]) }?.contains("floating-point") == true)
        #expect(thrownMessage { _ = try NumpyArray(shape: [2, 2], dataType: .int32, integers: [1, 2, 3]) }?.contains("does not hold 3") == true)
    }

    @Test("a uint64 above Int64.max converts to Float but is refused as an Int64")
    func largeUnsigned() throws {
        let file = numpySaved(descr: "<u8", shape: "(1,)", data: [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])
        let array = try NumpyArray(bytes: file)
        #expect(try array.floats() == [0x1p64])
        #expect(thrownMessage { _ = try array.integers() }?.contains("18446744073709551615 at index 0 does not fit Int64") == true)
    }

    @Test("booleans() reads a |b1 array (any non-zero byte is true) and refuses other types")
    func booleans() throws {
        let array = NumpyArray(shape: [2, 2], booleans: [true, false, false, true])
        #expect(array.data == [1, 0, 0, 1])
        #expect(try NumpyArray(bytes: array.serialized()).booleans() == [true, false, false, true])
        let odd = try NumpyArray(shape: [3], dataType: .bool, data: [0, 2, 255])
        #expect(try odd.booleans() == [false, true, true])
        #expect(try odd.integers() == [0, 1, 1])
        let uint8 = try NumpyArray(shape: [1], dataType: .uint8, integers: [1])
        #expect(thrownMessage { _ = try uint8.booleans() }?.contains("bool (|b1) was expected") == true)
    }

    @Test("one-byte descrs read with any byte-order mark; wider ones only little-endian", arguments: [
        ("<i1", NumpyDataType.int8), ("i1", .int8), ("|i1", .int8), ("<b1", .bool), ("b1", .bool), ("|b1", .bool),
        ("<u1", .uint8), ("u1", .uint8), ("<i2", .int16), ("<u2", .uint16), ("<u4", .uint32), ("<u8", .uint64),
        (">i2", nil), (">u4", nil), (">u8", nil), ("|i2", nil), ("?", nil), ("<c16", nil),
    ] as [(String, NumpyDataType?)])
    func descrs(descr: String, expected: NumpyDataType?) {
        #expect(NumpyDataType(descr: descr) == expected)
    }

    @Test("an unsupported dtype's message lists every supported one")
    func unsupportedMessage() {
        let file = numpySaved(descr: ">i2", shape: "(1,)", data: [0, 1])
        let message = thrownMessage { _ = try NumpyArray(bytes: file) } ?? ""
        #expect(message.contains("unsupported dtype '>i2'"))
        for dataType in NumpyDataType.allCases { #expect(message.contains(dataType.rawValue), "\(dataType)") }
    }
}
