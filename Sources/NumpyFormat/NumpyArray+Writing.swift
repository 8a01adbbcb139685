import Foundation

extension NumpyArray {
    /// The array as `.npy` bytes: format 1.0 when the header fits in 65,535 bytes, else 2.0.
    /// The data starts at a multiple of 64 bytes, as numpy writes it.
    package func serialized() -> [UInt8] { NumpyHeader.file(descr: dataType.rawValue, shape: shape, data: data) }

    /// Writes the array to `path` (replacing any file there).
    ///
    /// - Throws: `NumpyError` naming the path when the file cannot be written.
    package func write(toFile path: String) throws(NumpyError) {
        do {
            try Data(serialized()).write(to: URL(fileURLWithPath: path))
        } catch {
            throw NumpyError("\(path): cannot be written (\(error.localizedDescription))")
        }
    }
}

extension NumpyHeader {
    /// A `.npy` file of `data` under a header of `descr` and `shape`: format 1.0 when the header
    /// fits in 65,535 bytes, else 2.0; the data starts at a multiple of 64 bytes, as numpy writes it.
    static func file(descr: String, shape: [Int], data: [UInt8]) -> [UInt8] {
        let shapeText = shape.isEmpty ? "()" : shape.count == 1 ? "(\(shape[0]),)" : "(" + shape.map(String.init).joined(separator: ", ") + ")"
        var header = "{'descr': '\(descr)', 'fortran_order': False, 'shape': \(shapeText), }"
        let isVersion2 = header.utf8.count + 10 + 64 > 65_535
        let prefixLength = isVersion2 ? 12 : 10
        let total = prefixLength + header.utf8.count + 1
        header += String(repeating: " ", count: (64 - total % 64) % 64) + "\n"
        var bytes: [UInt8] = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, isVersion2 ? 2 : 1, 0]
        let length = header.utf8.count
        bytes += [UInt8(length & 0xff), UInt8((length >> 8) & 0xff)]
        if isVersion2 { bytes += [UInt8((length >> 16) & 0xff), UInt8((length >> 24) & 0xff)] }
        bytes += Array(header.utf8)
        bytes += data
        return bytes
    }
}
