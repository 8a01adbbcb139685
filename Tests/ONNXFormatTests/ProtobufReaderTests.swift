import Testing
@testable import ONNXFormat

/// The decoding error `body` throws, or nil when it succeeds.
private func decodeError(_ body: () throws -> Void) -> ProtobufDecodingError? {
    do { try body(); return nil } catch { return error as? ProtobufDecodingError }
}

@Suite("protobuf wire reader")
struct ProtobufReaderTests {
    @Test("varints decode at their edge values", arguments: [
        ([0x00], 0), ([0x01], 1), ([0x7f], 127), ([0x80, 0x01], 128), ([0xac, 0x02], 300),
        ([0xff, 0xff, 0xff, 0xff, 0x0f], 0xffff_ffff),
        ([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], UInt64.max),
    ] as [([UInt8], UInt64)])
    func varints(bytes: [UInt8], value: UInt64) throws {
        var reader = ProtobufReader(bytes)
        #expect(try reader.readVarint("test") == value)
        #expect(reader.isAtEnd)
    }

    @Test("a varint that never ends is rejected after 10 bytes")
    func endlessVarint() {
        var reader = ProtobufReader(Array(repeating: 0xff, count: 1000))
        let error = decodeError { _ = try reader.readVarint("test") }
        #expect(error?.reason == .varintTooLong)
        #expect(error?.offset == 0)
    }

    @Test("a varint cut short is truncated")
    func truncatedVarint() {
        var reader = ProtobufReader([0x80, 0x80])
        #expect(decodeError { _ = try reader.readVarint("x") }?.reason == .truncated)
    }

    @Test("negative int64 and int32 use 10-byte two's complement")
    func negatives() throws {
        let minusOne: [UInt8] = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]
        var reader = ProtobufReader(minusOne + minusOne)
        #expect(try reader.readInt64("a") == -1)
        #expect(try reader.readInt32("b") == -1)
    }

    @Test("a length past the end of the message is rejected with its offset")
    func lengthPastEnd() {
        var reader = ProtobufReader([0x0a, 0x05, 0x01, 0x02])
        _ = try? reader.nextField("M")
        let error = decodeError { _ = try reader.readBytes("M.bytes") }
        #expect(error?.reason == .lengthPastEnd(length: 5, remaining: 2))
        #expect(error?.offset == 1)
        #expect(error?.description.contains("M.bytes") == true)
    }

    @Test("group wire types and invalid wire types are rejected", arguments: [
        ([0x0b] as [UInt8], ProtobufDecodingError.Reason.groupWireType),
        ([0x0c], .groupWireType),
        ([0x0e], .invalidWireType(6)),
        ([0x0f], .invalidWireType(7)),
        ([0x00], .invalidFieldNumber(0)),
    ])
    func badKeys(bytes: [UInt8], reason: ProtobufDecodingError.Reason) {
        var reader = ProtobufReader(bytes)
        #expect(decodeError { _ = try reader.nextField("M") }?.reason == reason)
    }

    @Test("fixed32 and fixed64 are little-endian and bounds-checked")
    func fixed() throws {
        var reader = ProtobufReader([0x00, 0x00, 0x80, 0x3f, 1, 0, 0, 0, 0, 0, 0xf0, 0x3f])
        #expect(try reader.readFloat("f") == 1)
        #expect(try reader.readDouble("d") == 1.0000000000000002)
        var short = ProtobufReader([0, 0, 0])
        #expect(decodeError { _ = try short.readFixed32("f") }?.reason == .truncated)
    }
}
