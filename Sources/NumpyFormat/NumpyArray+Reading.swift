import Foundation

// The .npy layout (numpy.lib.format, versions 1.0, 2.0 and 3.0):
//   "\x93NUMPY", major, minor, header length (UInt16 LE for 1.x, UInt32 LE for 2.x/3.x),
//   an ASCII (3.x: UTF-8) Python dict literal padded with spaces and ending in "\n", then the data.

extension NumpyArray {
    /// Reads a `.npy` file.
    ///
    /// - Throws: `NumpyError` naming the path when the file cannot be read, or describing the
    ///   first problem in its header or size.
    package init(contentsOfFile path: String) throws(NumpyError) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            var isDirectory: ObjCBool = false
            if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) { throw NumpyError("\(path): no such file") }
            if isDirectory.boolValue { throw NumpyError("\(path): it is a directory") }
            throw NumpyError("\(path): cannot be read (\(error.localizedDescription))")
        }
        do {
            try self.init(bytes: [UInt8](data))
        } catch {
            throw NumpyError("\(path): \(error.message)")
        }
    }

    /// Parses the bytes of a `.npy` file.
    ///
    /// - Throws: `NumpyError` for a bad magic string, an unknown version, a header that runs past
    ///   the end, an unparsable header dict, an unsupported dtype, Fortran order, a negative or
    ///   overflowing shape, or a data size that disagrees with the shape.
    package init(bytes: [UInt8]) throws(NumpyError) {
        let (header, dataStart) = try NumpyHeader.read(bytes)
        guard let dataType = NumpyDataType(descr: header.descr) else {
            throw NumpyError("unsupported dtype '\(header.descr)' (supported: \(NumpyDataType.allCases.map(\.rawValue).joined(separator: ", ")), little-endian)")
        }
        guard let count = NumpyArray.checkedElementCount(header.shape) else {
            throw NumpyError("shape \(header.shape) is negative or too large")
        }
        let (byteCount, overflow) = count.multipliedReportingOverflow(by: dataType.itemSize)
        guard !overflow, byteCount == bytes.count - dataStart else {
            throw NumpyError("shape \(header.shape) of \(dataType.rawValue) needs \(overflow ? "more than Int.max" : String(byteCount)) bytes of data, the file has \(bytes.count - dataStart)")
        }
        try self.init(shape: header.shape, dataType: dataType, data: Array(bytes[dataStart...]))
    }
}

/// The three keys of a `.npy` header dict, parsed from its Python literal.
struct NumpyHeader {
    var descr: String
    var isFortranOrder: Bool
    var shape: [Int]

    /// The header of a `.npy` file's bytes (C order) and where its data starts.
    ///
    /// - Throws: `NumpyError` for a bad magic string, an unknown version, a header that runs past
    ///   the end, an unparsable header dict or Fortran order.
    static func read(_ bytes: [UInt8]) throws(NumpyError) -> (header: NumpyHeader, dataStart: Int) {
        let magic: [UInt8] = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]  // \x93NUMPY
        guard bytes.count >= 8, Array(bytes[0..<6]) == magic else {
            throw NumpyError("not a .npy file (the magic string \\x93NUMPY is missing)")
        }
        let major = bytes[6], minor = bytes[7]
        let headerStart: Int
        let headerLength: Int
        switch major {
        case 1:
            guard bytes.count >= 10 else { throw NumpyError("file ends inside the header length") }
            headerLength = Int(bytes[8]) | Int(bytes[9]) << 8
            headerStart = 10
        case 2, 3:
            guard bytes.count >= 12 else { throw NumpyError("file ends inside the header length") }
            headerLength = Int(bytes[8]) | Int(bytes[9]) << 8 | Int(bytes[10]) << 16 | Int(bytes[11]) << 24
            headerStart = 12
        default:
            throw NumpyError("unsupported .npy version \(major).\(minor) (1.0, 2.0 and 3.0 are read)")
        }
        guard headerLength <= bytes.count - headerStart else {
            throw NumpyError("header length \(headerLength) runs past the end of the file (\(bytes.count) bytes)")
        }
        guard let text = String(bytes: bytes[headerStart..<(headerStart + headerLength)], encoding: major == 3 ? .utf8 : .ascii) else {
            throw NumpyError("header is not \(major == 3 ? "UTF-8" : "ASCII") text")
        }
        let header = try NumpyHeader(parsing: text)
        guard !header.isFortranOrder else {
            throw NumpyError("fortran_order True is not supported (write the array with np.ascontiguousarray)")
        }
        return (header, headerStart + headerLength)
    }

    /// Parses `{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3), }` (any key order,
    /// single or double quotes, optional trailing commas and whitespace).
    init(parsing text: String) throws(NumpyError) {
        var scanner = LiteralScanner(Array(text.utf8))
        var descr: String?, fortran: Bool?, shape: [Int]?
        try scanner.expect(UInt8(ascii: "{"))
        while true {
            scanner.skipSpaces()
            if scanner.consume(UInt8(ascii: "}")) { break }
            let key = try scanner.string()
            try scanner.expect(UInt8(ascii: ":"))
            switch key {
            case "descr": descr = try scanner.string()
            case "fortran_order": fortran = try scanner.boolean()
            case "shape": shape = try scanner.tuple()
            default: throw NumpyError("header has an unknown key '\(key)'")
            }
            scanner.skipSpaces()
            if scanner.consume(UInt8(ascii: ",")) { continue }
            try scanner.expect(UInt8(ascii: "}"))
            break
        }
        scanner.skipSpaces()
        guard scanner.isAtEnd else { throw NumpyError("header has text after its closing brace") }
        guard let descr, let fortran, let shape else {
            throw NumpyError("header lacks one of 'descr', 'fortran_order', 'shape'")
        }
        self.descr = descr
        self.isFortranOrder = fortran
        self.shape = shape
    }
}

/// A cursor over the header's bytes that reads the few Python literals a header uses.
private struct LiteralScanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index == bytes.count }

    mutating func skipSpaces() {
        while index < bytes.count, [0x20, 0x0a, 0x0d, 0x09].contains(bytes[index]) { index += 1 }
    }

    mutating func consume(_ byte: UInt8) -> Bool {
        skipSpaces()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func expect(_ byte: UInt8) throws(NumpyError) {
        guard consume(byte) else {
            throw NumpyError("header dict is malformed: expected '\(Character(UnicodeScalar(byte)))' at character \(index)")
        }
    }

    mutating func string() throws(NumpyError) -> String {
        skipSpaces()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "'") || bytes[index] == UInt8(ascii: "\"") else {
            throw NumpyError("header dict is malformed: expected a quoted string at character \(index)")
        }
        let quote = bytes[index]
        let start = index + 1
        guard let end = bytes[start...].firstIndex(of: quote) else {
            throw NumpyError("header dict is malformed: unterminated string at character \(index)")
        }
        index = end + 1
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    mutating func boolean() throws(NumpyError) -> Bool {
        skipSpaces()
        for (word, value) in [("True", true), ("False", false)] {
            let utf8 = Array(word.utf8)
            if bytes.count - index >= utf8.count, Array(bytes[index..<(index + utf8.count)]) == utf8 {
                index += utf8.count
                return value
            }
        }
        throw NumpyError("header dict is malformed: expected True or False at character \(index)")
    }

    mutating func tuple() throws(NumpyError) -> [Int] {
        try expect(UInt8(ascii: "("))
        var values: [Int] = []
        while true {
            if consume(UInt8(ascii: ")")) { return values }
            skipSpaces()
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            // Python 2 era writers append L to long integers.
            let digits = String(decoding: bytes[start..<index], as: UTF8.self)
            if index < bytes.count, bytes[index] == UInt8(ascii: "L") { index += 1 }
            guard let value = Int(digits) else {
                throw NumpyError("header dict is malformed: expected a dimension at character \(start)")
            }
            guard value >= 0 else { throw NumpyError("shape has a negative dimension \(value)") }
            values.append(value)
            guard values.count <= 64 else { throw NumpyError("shape has more than 64 dimensions") }
            if consume(UInt8(ascii: ",")) { continue }
            try expect(UInt8(ascii: ")"))
            return values
        }
    }
}
