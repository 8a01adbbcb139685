/// The element types this reader and writer understand, named by their little-endian numpy
/// `descr` strings.
///
/// These are the numpy types that have an ONNX tensor counterpart (every ONNX element type but
/// strings, complex numbers, bfloat16 and the 4- and 8-bit float formats, which numpy has no
/// `descr` for). Only little-endian (or byte-sized) layouts are accepted; big-endian files are
/// rejected with an error rather than silently byte-swapped.
package enum NumpyDataType: String, Sendable, CaseIterable {
    case float16 = "<f2", float32 = "<f4", float64 = "<f8"
    case int8 = "|i1", int16 = "<i2", int32 = "<i4", int64 = "<i8"
    case uint8 = "|u1", uint16 = "<u2", uint32 = "<u4", uint64 = "<u8"
    /// numpy's `bool_`: one byte per element, 0 for false and (as numpy writes it) 1 for true.
    case bool = "|b1"

    /// Bytes per element.
    package var itemSize: Int {
        switch self {
        case .int8, .uint8, .bool: 1
        case .float16, .int16, .uint16: 2
        case .float32, .int32, .uint32: 4
        case .float64, .int64, .uint64: 8
        }
    }

    /// True for float16, float32 and float64.
    package var isFloatingPoint: Bool {
        switch self {
        case .float16, .float32, .float64: true
        default: false
        }
    }

    /// Reads a `descr` string. A one-byte type has no byte order, so `<`, `|` and no prefix are
    /// synonyms for it (`<u1`, `u1`, `|u1`; `<i1`, `i1`, `|i1`; `<b1`, `b1`, `|b1`); wider types
    /// need the explicit little-endian `<`.
    init?(descr: String) {
        switch descr {
        case "<u1", "u1", "|u1": self = .uint8
        case "<i1", "i1", "|i1": self = .int8
        case "<b1", "b1", "|b1": self = .bool
        default: self.init(rawValue: descr)
        }
    }
}

extension NumpyDataType {
    /// The values an integer or bool element can hold, as Int64 (uint64 is cut at `Int64.max`).
    /// Floating-point types answer the whole Int64 range; `init(shape:dataType:integers:)`
    /// rejects them before asking.
    var integerRange: ClosedRange<Int64> {
        switch self {
        case .int8: Int64(Int8.min)...Int64(Int8.max)
        case .int16: Int64(Int16.min)...Int64(Int16.max)
        case .int32: Int64(Int32.min)...Int64(Int32.max)
        case .int64, .float16, .float32, .float64: Int64.min...Int64.max
        case .uint8: 0...Int64(UInt8.max)
        case .uint16: 0...Int64(UInt16.max)
        case .uint32: 0...Int64(UInt32.max)
        case .uint64: 0...Int64.max
        case .bool: 0...1
        }
    }
}
