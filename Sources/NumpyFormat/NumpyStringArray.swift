import Foundation

/// An array of strings as numpy stores it in a `.npy` file: dtype `<U<n>`, each element `n`
/// UTF-32 (little-endian) code units, shorter strings padded with zeros.
package struct NumpyStringArray: Sendable, Equatable {
    /// The dimensions, outermost first.
    package var shape: [Int]
    /// The elements in C order; `count == shape.reduce(1, *)`.
    package var values: [String]

    /// - Throws: `NumpyError` when `values.count` is not the product of `shape`.
    package init(shape: [Int], values: [String]) throws(NumpyError) {
        guard NumpyArray.checkedElementCount(shape) == values.count else {
            throw NumpyError("shape \(shape) does not hold \(values.count) strings")
        }
        self.shape = shape
        self.values = values
    }

    /// Whether `.npy` bytes hold strings (a `<U` or `|U` dtype; `=U` too); false for any other
    /// dtype or bytes that are not a `.npy` file.
    package static func holdsStrings(_ bytes: [UInt8]) -> Bool {
        guard let (header, _) = try? NumpyHeader.read(bytes) else { return false }
        return width(of: header.descr) != nil
    }

    /// Parses the bytes of a `.npy` file of dtype `<U<n>`.
    ///
    /// - Throws: `NumpyError` as `NumpyArray(bytes:)` does, for another dtype, or for a code unit
    ///   that is not a Unicode scalar.
    package init(bytes: [UInt8]) throws(NumpyError) {
        let (header, dataStart) = try NumpyHeader.read(bytes)
        guard let width = Self.width(of: header.descr) else {
            throw NumpyError("dtype '\(header.descr)' is not a string dtype (<U<n>, little-endian)")
        }
        guard let count = NumpyArray.checkedElementCount(header.shape),
              count.multipliedReportingOverflow(by: 4 * width).overflow == false,
              count * 4 * width == bytes.count - dataStart else {
            throw NumpyError("shape \(header.shape) of \(header.descr) needs a different byte count than the file's \(bytes.count - dataStart)")
        }
        var values: [String] = []
        values.reserveCapacity(count)
        for index in 0..<count {
            var scalars = String.UnicodeScalarView()
            for unit in 0..<width {
                let offset = dataStart + (index * width + unit) * 4
                let code = UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
                if code == 0 { break }
                guard let scalar = Unicode.Scalar(code) else {
                    throw NumpyError("element \(index) holds \(code), which is not a Unicode scalar")
                }
                scalars.append(scalar)
            }
            values.append(String(scalars))
        }
        try self.init(shape: header.shape, values: values)
    }

    /// Reads a `.npy` file of strings.
    ///
    /// - Throws: `NumpyError` naming the path when it cannot be read or parsed.
    package init(contentsOfFile path: String) throws(NumpyError) {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch { throw NumpyError("\(path): cannot be read") }
        do { try self.init(bytes: [UInt8](data)) } catch { throw NumpyError("\(path): \(error.message)") }
    }

    /// The array as `.npy` bytes, dtype `<U<n>` with `n` the longest element's length (at least 1, as numpy writes it).
    package func serialized() -> [UInt8] {
        let width = max(1, values.map(\.unicodeScalars.count).max() ?? 0)
        var data: [UInt8] = []
        data.reserveCapacity(values.count * width * 4)
        for value in values {
            var written = 0
            for scalar in value.unicodeScalars {
                let code = scalar.value
                data += [UInt8(code & 0xff), UInt8((code >> 8) & 0xff), UInt8((code >> 16) & 0xff), UInt8(code >> 24)]
                written += 1
            }
            data += [UInt8](repeating: 0, count: (width - written) * 4)
        }
        return NumpyHeader.file(descr: "<U\(width)", shape: shape, data: data)
    }

    /// Writes the array to `path` (replacing any file there).
    package func write(toFile path: String) throws(NumpyError) {
        do { try Data(serialized()).write(to: URL(fileURLWithPath: path)) } catch {
            throw NumpyError("\(path): cannot be written (\(error.localizedDescription))")
        }
    }

    /// The element width of a string dtype (`<U7` is 7), or nil for another dtype.
    private static func width(of descr: String) -> Int? {
        guard descr.count >= 3, ["<", "|", "="].contains(descr.first!), descr.dropFirst().first == "U",
              let width = Int(descr.dropFirst(2)), width >= 0 else { return nil }
        return width
    }
}
