/// Why a protobuf message could not be decoded: what went wrong, at which byte offset of the
/// whole input, and which field was being read (`"TensorProto.dims"`, `"GraphProto.node"`).
package struct ProtobufDecodingError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The ways a byte string can fail to be a valid message.
    package enum Reason: Sendable, Equatable {
        /// The input ends inside a field.
        case truncated
        /// A varint has more than 10 bytes (more than 64 bits).
        case varintTooLong
        /// A length prefix points past the end of the enclosing message.
        case lengthPastEnd(length: UInt64, remaining: Int)
        /// Wire types 3 and 4 (groups) are deprecated and never used by ONNX.
        case groupWireType
        /// Wire types 6 and 7 do not exist.
        case invalidWireType(Int)
        /// Field number 0, or one above 2^29 − 1.
        case invalidFieldNumber(UInt64)
        /// A known field arrived with the wrong wire type.
        case unexpectedWireType(WireType)
        /// A packed fixed-width field's length is not a multiple of the element size.
        case misalignedPackedField(length: Int, elementSize: Int)
    }

    /// Byte offset from the start of the input where the problem was found.
    package var offset: Int
    /// The message and field being read.
    package var context: String
    /// What was wrong.
    package var reason: Reason

    package init(offset: Int, context: String, reason: Reason) {
        self.offset = offset
        self.context = context
        self.reason = reason
    }

    package var description: String {
        let what: String
        switch reason {
        case .truncated: what = "the data ends inside the field"
        case .varintTooLong: what = "a varint is longer than 10 bytes"
        case let .lengthPastEnd(length, remaining): what = "length \(length) runs past the end of its message (\(remaining) bytes left)"
        case .groupWireType: what = "group wire types are not supported"
        case let .invalidWireType(type): what = "invalid wire type \(type)"
        case let .invalidFieldNumber(number): what = "invalid field number \(number)"
        case let .unexpectedWireType(type): what = "unexpected wire type \(type)"
        case let .misalignedPackedField(length, size): what = "packed field of \(length) bytes is not a multiple of \(size)"
        }
        return "malformed protobuf at byte \(offset) while reading \(context): \(what)"
    }
}
