/// One operator set a model uses: a domain ("" or "ai.onnx" is the default domain) and its version.
///
/// Field numbers mirror `message OperatorSetIdProto` in onnx/onnx.proto3 (domain = 1, version = 2).
package struct OperatorSetIdProto: Sendable, Equatable {
    package var domain = ""
    package var version: Int64 = 0

    package init(domain: String = "", version: Int64 = 0) {
        self.domain = domain
        self.version = version
    }

    package init(from reader: inout ProtobufReader) throws(ProtobufDecodingError) {
        while let (number, wireType) = try reader.nextField("OperatorSetIdProto") {
            switch number {
            case 1:
                try reader.expect(wireType, .lengthDelimited, "OperatorSetIdProto.domain")
                domain = try reader.readString("OperatorSetIdProto.domain")
            case 2:
                try reader.expect(wireType, .varint, "OperatorSetIdProto.version")
                version = try reader.readInt64("OperatorSetIdProto.version")
            default:
                try reader.skip(wireType, "OperatorSetIdProto field \(number)")
            }
        }
    }
}
