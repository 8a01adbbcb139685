/// An n-dimensional array as stored in a `.npy` file: a shape, an element type and the raw
/// little-endian bytes in C (row-major) order.
///
/// ```swift
/// let array = try NumpyArray(contentsOfFile: "Fixtures/general/input.npy")
/// let values = try array.floats()   // [Float], count == array.shape.reduce(1, *)
/// ```
public struct NumpyArray: Sendable, Equatable {
    /// The dimensions, outermost first. A scalar has shape `[]` and one element.
    public var shape: [Int]
    /// The element type.
    public var dataType: NumpyDataType
    /// The elements' bytes, little-endian, C order; `count == elementCount * dataType.itemSize`.
    public var data: [UInt8]

    /// The number of elements (the product of `shape`).
    public var elementCount: Int { shape.reduce(1, *) }

    /// An array from its parts.
    ///
    /// - Throws: `NumpyError` when `data.count` is not `product(shape) * itemSize`.
    public init(shape: [Int], dataType: NumpyDataType, data: [UInt8]) throws(NumpyError) {
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
    public init(shape: [Int], floats values: [Float]) {
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

    /// The elements converted to `Float` (float16 and float64 are converted, integers too).
    ///
    /// float16 → float32 is exact; float64 and 64-bit integers round to the nearest float.
    /// - Throws: never for the supported types; the signature leaves room for stricter types.
    public func floats() throws(NumpyError) -> [Float] {
        let count = elementCount
        var result = [Float](repeating: 0, count: count)
        data.withUnsafeBytes { raw in
            switch dataType {
            case .float32:
                for i in 0..<count { result[i] = Float(bitPattern: raw.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self).littleEndian) }
            case .float16:
                for i in 0..<count { result[i] = NumpyArray.floatFromHalf(raw.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self).littleEndian) }
            case .float64:
                for i in 0..<count { result[i] = Float(Double(bitPattern: raw.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self).littleEndian)) }
            case .uint8:
                for i in 0..<count { result[i] = Float(raw[i]) }
            case .int32:
                for i in 0..<count { result[i] = Float(Int32(bitPattern: raw.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self).littleEndian)) }
            case .int64:
                for i in 0..<count { result[i] = Float(Int64(bitPattern: raw.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self).littleEndian)) }
            }
        }
        return result
    }

    /// The elements as 64-bit integers.
    ///
    /// - Throws: `NumpyError` for floating-point arrays (no silent truncation).
    public func integers() throws(NumpyError) -> [Int64] {
        let count = elementCount
        var result = [Int64](repeating: 0, count: count)
        switch dataType {
        case .float16, .float32, .float64:
            throw NumpyError("array has floating-point type \(dataType.rawValue), integers were expected")
        case .uint8:
            for i in 0..<count { result[i] = Int64(data[i]) }
        case .int32, .int64:
            data.withUnsafeBytes { raw in
                for i in 0..<count {
                    result[i] = dataType == .int32
                        ? Int64(Int32(bitPattern: raw.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self).littleEndian))
                        : Int64(bitPattern: raw.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self).littleEndian)
                }
            }
        }
        return result
    }

    /// IEEE 754 binary16 → binary32, exact (subnormals, infinities and NaN included).
    static func floatFromHalf(_ half: UInt16) -> Float {
        let sign = UInt32(half & 0x8000) << 16
        let exponent = Int(half >> 10) & 0x1f
        let mantissa = UInt32(half & 0x3ff)
        if exponent == 0 {
            // Zero or subnormal: mantissa · 2^-24.
            let magnitude = Float(mantissa) * 0x1p-24
            return sign == 0 ? magnitude : -magnitude
        }
        if exponent == 31 {
            return Float(bitPattern: sign | 0x7f80_0000 | (mantissa << 13))
        }
        return Float(bitPattern: sign | UInt32(exponent - 15 + 127) << 23 | (mantissa << 13))
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
