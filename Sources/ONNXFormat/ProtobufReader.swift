/// A cursor over protobuf wire-format bytes, bounded to one message.
///
/// Every read checks its bounds and throws a `ProtobufDecodingError` carrying the absolute byte
/// offset and the `context` it was given; nothing traps on malformed input, and no allocation is
/// larger than the input itself (lengths are checked against the remaining bytes first).
/// Nested messages are read by `nestedReader(context:)`, which bounds a new reader to the
/// submessage and moves this one past it.
package struct ProtobufReader {
    /// The whole input, shared by nested readers.
    let bytes: [UInt8]
    /// The next byte to read (absolute).
    package private(set) var offset: Int
    /// One past the last byte of this message (absolute).
    let end: Int

    /// A reader over a whole buffer.
    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.offset = 0
        self.end = bytes.count
    }

    private init(bytes: [UInt8], offset: Int, end: Int) {
        self.bytes = bytes
        self.offset = offset
        self.end = end
    }

    /// Whether every byte of this message was read.
    package var isAtEnd: Bool { offset >= end }

    private func error(_ reason: ProtobufDecodingError.Reason, _ context: String, at position: Int? = nil) -> ProtobufDecodingError {
        ProtobufDecodingError(offset: position ?? offset, context: context, reason: reason)
    }

    // MARK: - Scalars

    /// Reads a base-128 varint of at most 10 bytes.
    package mutating func readVarint(_ context: String) throws(ProtobufDecodingError) -> UInt64 {
        let start = offset
        var result: UInt64 = 0
        var shift: UInt64 = 0
        for _ in 0..<10 {
            guard offset < end else { throw error(.truncated, context, at: start) }
            let byte = bytes[offset]
            offset += 1
            result |= UInt64(byte & 0x7f) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
        throw error(.varintTooLong, context, at: start)
    }

    /// Reads an `int64` field (a varint, two's complement).
    package mutating func readInt64(_ context: String) throws(ProtobufDecodingError) -> Int64 {
        Int64(bitPattern: try readVarint(context))
    }

    /// Reads an `int32` or enum field (a varint, sign-extended to 64 bits on the wire).
    package mutating func readInt32(_ context: String) throws(ProtobufDecodingError) -> Int32 {
        Int32(truncatingIfNeeded: try readVarint(context))
    }

    /// Reads 4 little-endian bytes.
    package mutating func readFixed32(_ context: String) throws(ProtobufDecodingError) -> UInt32 {
        try readLittleEndian(context)
    }

    /// Reads 8 little-endian bytes.
    package mutating func readFixed64(_ context: String) throws(ProtobufDecodingError) -> UInt64 {
        try readLittleEndian(context)
    }

    /// Reads `T`'s size in little-endian bytes.
    private mutating func readLittleEndian<T: FixedWidthInteger & UnsignedInteger>(_ context: String) throws(ProtobufDecodingError) -> T {
        let size = MemoryLayout<T>.size
        guard end - offset >= size else { throw error(.truncated, context) }
        var value: T = 0
        for index in 0..<size { value |= T(bytes[offset + index]) << (8 * index) }
        offset += size
        return value
    }

    /// Reads a `float` field (fixed32).
    package mutating func readFloat(_ context: String) throws(ProtobufDecodingError) -> Float {
        Float(bitPattern: try readFixed32(context))
    }

    /// Reads a `double` field (fixed64).
    package mutating func readDouble(_ context: String) throws(ProtobufDecodingError) -> Double {
        Double(bitPattern: try readFixed64(context))
    }

    // MARK: - Length-delimited

    /// Reads a length prefix and returns the absolute range it covers, moving past it.
    package mutating func readLengthDelimitedRange(_ context: String) throws(ProtobufDecodingError) -> Range<Int> {
        let start = offset
        let length = try readVarint(context)
        let remaining = end - offset
        guard length <= UInt64(remaining) else {
            throw error(.lengthPastEnd(length: length, remaining: remaining), context, at: start)
        }
        let range = offset..<(offset + Int(length))
        offset = range.upperBound
        return range
    }

    /// Reads a `bytes` field.
    package mutating func readBytes(_ context: String) throws(ProtobufDecodingError) -> [UInt8] {
        Array(bytes[try readLengthDelimitedRange(context)])
    }

    /// Reads a `string` field (invalid UTF-8 is replaced by U+FFFD, as names are only compared).
    package mutating func readString(_ context: String) throws(ProtobufDecodingError) -> String {
        String(decoding: bytes[try readLengthDelimitedRange(context)], as: UTF8.self)
    }

    /// A reader bounded to the embedded message that follows; this reader moves past it.
    package mutating func nestedReader(_ context: String) throws(ProtobufDecodingError) -> ProtobufReader {
        let range = try readLengthDelimitedRange(context)
        return ProtobufReader(bytes: bytes, offset: range.lowerBound, end: range.upperBound)
    }

    // MARK: - Fields

    /// Reads the next field's key, or returns nil at the end of the message.
    ///
    /// - Throws: for field number 0 or above 2^29 − 1, wire types 6 and 7, and group wire types.
    package mutating func nextField(_ message: String) throws(ProtobufDecodingError) -> (number: Int, wireType: WireType)? {
        guard offset < end else { return nil }
        let start = offset
        let key = try readVarint("\(message) field key")
        let number = key >> 3
        guard number >= 1, number <= (1 << 29) - 1 else {
            throw error(.invalidFieldNumber(number), "\(message) field key", at: start)
        }
        guard let wireType = WireType(rawValue: Int(key & 7)) else {
            throw error(.invalidWireType(Int(key & 7)), "\(message) field \(number)", at: start)
        }
        guard wireType != .startGroup, wireType != .endGroup else {
            throw error(.groupWireType, "\(message) field \(number)", at: start)
        }
        return (Int(number), wireType)
    }

    /// Skips a field's value of the given wire type (for fields this reader does not know).
    package mutating func skip(_ wireType: WireType, _ context: String) throws(ProtobufDecodingError) {
        switch wireType {
        case .varint: _ = try readVarint(context)
        case .fixed64: _ = try readFixed64(context)
        case .fixed32: _ = try readFixed32(context)
        case .lengthDelimited: _ = try readLengthDelimitedRange(context)
        case .startGroup, .endGroup: throw error(.groupWireType, context)
        }
    }

    /// Checks that a known field arrived with the wire type its declaration implies.
    package func expect(_ wireType: WireType, _ expected: WireType, _ context: String) throws(ProtobufDecodingError) {
        guard wireType == expected else { throw error(.unexpectedWireType(wireType), context) }
    }

    // MARK: - Repeated scalars (packed or not)

    /// Appends one element (unpacked encoding) or a packed run of varints to `values`.
    package mutating func appendVarints<T>(_ wireType: WireType, to values: inout [T], _ context: String,
                                          _ convert: (UInt64) -> T) throws(ProtobufDecodingError) {
        switch wireType {
        case .varint:
            values.append(convert(try readVarint(context)))
        case .lengthDelimited:
            var packed = try nestedReader(context)
            while !packed.isAtEnd { values.append(convert(try packed.readVarint(context))) }
        default:
            throw error(.unexpectedWireType(wireType), context)
        }
    }

    /// Appends one `float` (fixed32) or a packed run of them.
    package mutating func appendFloats(_ wireType: WireType, to values: inout [Float], _ context: String) throws(ProtobufDecodingError) {
        try appendFixed(wireType, .fixed32, to: &values, context) { reader throws(ProtobufDecodingError) in try reader.readFloat(context) }
    }

    /// Appends one `double` (fixed64) or a packed run of them.
    package mutating func appendDoubles(_ wireType: WireType, to values: inout [Double], _ context: String) throws(ProtobufDecodingError) {
        try appendFixed(wireType, .fixed64, to: &values, context) { reader throws(ProtobufDecodingError) in try reader.readDouble(context) }
    }

    /// One fixed-width value of wire type `scalar`, or a packed run of them (a length that is not a
    /// whole number of elements is an error at the run's start).
    private mutating func appendFixed<T>(_ wireType: WireType, _ scalar: WireType, to values: inout [T], _ context: String,
                                         read: (inout ProtobufReader) throws(ProtobufDecodingError) -> T) throws(ProtobufDecodingError) {
        switch wireType {
        case scalar:
            values.append(try read(&self))
        case .lengthDelimited:
            let start = offset
            var packed = try nestedReader(context)
            let length = packed.end - packed.offset, size = MemoryLayout<T>.size
            guard length % size == 0 else { throw error(.misalignedPackedField(length: length, elementSize: size), context, at: start) }
            values.reserveCapacity(values.count + length / size)
            while !packed.isAtEnd { values.append(try read(&packed)) }
        default:
            throw error(.unexpectedWireType(wireType), context)
        }
    }
}
