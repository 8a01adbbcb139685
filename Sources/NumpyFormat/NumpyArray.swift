import HalfPrecision

/// An n-dimensional array as stored in a `.npy` file: a shape, an element type and the raw
/// little-endian bytes in C (row-major) order.
///
/// ```swift
/// let array = try NumpyArray(contentsOfFile: "Fixtures/general/input.npy")
/// let values = try array.floats()   // [Float], count == array.shape.reduce(1, *)
/// ```
package struct NumpyArray: Sendable, Equatable {
    /// The dimensions, outermost first. A scalar has shape `[]` and one element.
    package var shape: [Int]
    /// The element type.
    package var dataType: NumpyDataType
    /// The elements' bytes, little-endian, C order; `count == elementCount * dataType.itemSize`.
    package var data: [UInt8]

    /// The number of elements (the product of `shape`).
    package var elementCount: Int { shape.reduce(1, *) }

    /// An array from its parts.
    ///
    /// - Throws: `NumpyError` when `data.count` is not `product(shape) * itemSize`.
    package init(shape: [Int], dataType: NumpyDataType, data: [UInt8]) throws(NumpyError) {
        guard let count = NumpyArray.checkedElementCount(shape),
              count.multipliedReportingOverflow(by: dataType.itemSize).overflow == false,
              count * dataType.itemSize == data.count
        else {
            throw NumpyError("shape \(shape) of \(dataType.rawValue) needs a different byte count than the \(data.count) given")
        }
        self.shape = shape
        self.dataType = dataType
        self.data = data
    }

    /// A float32 array.
    ///
    /// - Precondition: `values.count == shape.reduce(1, *)`.
    package init(shape: [Int], floats values: [Float]) {
        precondition(NumpyArray.checkedElementCount(shape) == values.count, "shape \(shape) does not hold \(values.count) values")
        var bytes = [UInt8]()
        bytes.reserveCapacity(values.count * 4)
        for value in values {
            let bits = value.bitPattern
            bytes.append(UInt8(truncatingIfNeeded: bits))
            bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
            bytes.append(UInt8(truncatingIfNeeded: bits >> 16))
            bytes.append(UInt8(truncatingIfNeeded: bits >> 24))
        }
        self.shape = shape
        self.dataType = .float32
        self.data = bytes
    }

    /// An integer or bool array from 64-bit values.
    ///
    /// - Throws: `NumpyError` when `dataType` is floating-point, when a value does not fit the
    ///   type (a bool takes only 0 and 1), or when `values.count` is not `product(shape)`.
    ///   uint64 values above `Int64.max` cannot be given this way; build their bytes directly.
    package init(shape: [Int], dataType: NumpyDataType, integers values: [Int64]) throws(NumpyError) {
        guard !dataType.isFloatingPoint else {
            throw NumpyError("\(dataType.rawValue) is floating-point; integers(...) builds integer and bool arrays")
        }
        guard NumpyArray.checkedElementCount(shape) == values.count else {
            throw NumpyError("shape \(shape) does not hold \(values.count) values")
        }
        let range = dataType.integerRange
        var bytes = [UInt8]()
        bytes.reserveCapacity(values.count * dataType.itemSize)
        for (index, value) in values.enumerated() {
            guard range.contains(value) else {
                throw NumpyError("value \(value) at index \(index) does not fit \(dataType.rawValue) (\(range.lowerBound)...\(range.upperBound))")
            }
            let bits = UInt64(bitPattern: value)
            for byte in 0..<dataType.itemSize { bytes.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(byte)))) }
        }
        try self.init(shape: shape, dataType: dataType, data: bytes)
    }

    /// A bool array (one byte per element, 0 or 1, as numpy stores `bool_`).
    ///
    /// - Precondition: `values.count == shape.reduce(1, *)`.
    package init(shape: [Int], booleans values: [Bool]) {
        precondition(NumpyArray.checkedElementCount(shape) == values.count, "shape \(shape) does not hold \(values.count) values")
        self.shape = shape
        self.dataType = .bool
        self.data = values.map { $0 ? 1 : 0 }
    }

    /// The elements converted to `Float` (float16 and float64 are converted, integers and bools
    /// too: false is 0, true is 1).
    ///
    /// float16 → float32 is exact; float64 and integers wider than 24 bits round to the nearest
    /// float.
    /// - Throws: never for the supported types; the signature leaves room for stricter types.
    package func floats() throws(NumpyError) -> [Float] {
        switch dataType {
        case .float32: elements(UInt32.self) { Float(bitPattern: $0) }
        case .float16: elements(UInt16.self) { Half.float($0) }
        case .float64: elements(UInt64.self) { Float(Double(bitPattern: $0)) }
        case .int8: elements(Int8.self) { Float($0) }
        case .int16: elements(Int16.self) { Float($0) }
        case .int32: elements(Int32.self) { Float($0) }
        case .int64: elements(Int64.self) { Float($0) }
        case .uint8: elements(UInt8.self) { Float($0) }
        case .uint16: elements(UInt16.self) { Float($0) }
        case .uint32: elements(UInt32.self) { Float($0) }
        case .uint64: elements(UInt64.self) { Float($0) }
        case .bool: elements(UInt8.self) { $0 == 0 ? 0 : 1 }
        }
    }

    /// The elements as 64-bit integers (bools as 0 and 1).
    ///
    /// - Throws: `NumpyError` for floating-point arrays (no silent truncation), and for a uint64
    ///   element above `Int64.max` (no silent wrap-around).
    package func integers() throws(NumpyError) -> [Int64] {
        switch dataType {
        case .float16, .float32, .float64:
            throw NumpyError("array has floating-point type \(dataType.rawValue), integers were expected")
        case .int8: return elements(Int8.self) { Int64($0) }
        case .int16: return elements(Int16.self) { Int64($0) }
        case .int32: return elements(Int32.self) { Int64($0) }
        case .int64: return elements(Int64.self) { $0 }
        case .uint8: return elements(UInt8.self) { Int64($0) }
        case .uint16: return elements(UInt16.self) { Int64($0) }
        case .uint32: return elements(UInt32.self) { Int64($0) }
        case .uint64:
            let values = elements(UInt64.self) { $0 }
            if let index = values.firstIndex(where: { $0 > UInt64(Int64.max) }) {
                throw NumpyError("uint64 element \(values[index]) at index \(index) does not fit Int64")
            }
            return values.map { Int64($0) }
        case .bool: return elements(UInt8.self) { $0 == 0 ? 0 : 1 }
        }
    }

    /// The elements of a bool array. Any non-zero byte is true (numpy itself writes only 0 and 1).
    ///
    /// - Throws: `NumpyError` when the array is not `|b1`.
    package func booleans() throws(NumpyError) -> [Bool] {
        guard dataType == .bool else {
            throw NumpyError("array has type \(dataType.rawValue), bool (|b1) was expected")
        }
        return data.map { $0 != 0 }
    }

    /// Each element read as the little-endian `Stored` (the element type's width), transformed.
    private func elements<Stored: FixedWidthInteger, Result>(_: Stored.Type, _ transform: (Stored) -> Result) -> [Result] {
        precondition(MemoryLayout<Stored>.size == dataType.itemSize)
        return data.withUnsafeBytes { raw in
            (0..<elementCount).map { i in
                transform(Stored(littleEndian: raw.loadUnaligned(fromByteOffset: i * MemoryLayout<Stored>.size, as: Stored.self)))
            }
        }
    }

    /// The product of `shape`, or nil if a dimension is negative or the product overflows.
    static func checkedElementCount(_ shape: [Int]) -> Int? {
        var count = 1
        for dimension in shape {
            guard dimension >= 0 else { return nil }
            let (product, overflow) = count.multipliedReportingOverflow(by: dimension)
            guard !overflow else { return nil }
            count = product
        }
        return count
    }
}
