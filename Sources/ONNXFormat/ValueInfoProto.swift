/// A named value with its declared type (graph inputs, outputs and value_info).
///
/// Field numbers mirror `message ValueInfoProto` in onnx/onnx.proto3 (name = 1, type = 2).
package struct ValueInfoProto: Sendable {
    package var name = ""
    package var type: TypeProto?

    package init() {}

    package init(from reader: inout ProtobufReader) throws(ProtobufDecodingError) {
        while let (number, wireType) = try reader.nextField("ValueInfoProto") {
            switch number {
            case 1:
                try reader.expect(wireType, .lengthDelimited, "ValueInfoProto.name")
                name = try reader.readString("ValueInfoProto.name")
            case 2:
                try reader.expect(wireType, .lengthDelimited, "ValueInfoProto.type")
                var nested = try reader.nestedReader("ValueInfoProto.type")
                type = try TypeProto(from: &nested)
            default:
                try reader.skip(wireType, "ValueInfoProto field \(number)")
            }
        }
    }
}
