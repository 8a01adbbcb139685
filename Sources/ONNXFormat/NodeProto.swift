/// One operator application: named inputs and outputs (an empty input name is an omitted
/// optional input), the operator's type and domain, and its attributes.
///
/// Field numbers mirror `message NodeProto` in onnx/onnx.proto3 (input = 1, output = 2,
/// name = 3, op_type = 4, attribute = 5, domain = 7). doc_string, overload, metadata_props and
/// device_configurations are skipped.
package struct NodeProto: Sendable {
    package var inputs: [String] = []
    package var outputs: [String] = []
    package var name = ""
    package var opType = ""
    package var domain = ""
    package var attributes: [AttributeProto] = []

    package init() {}

    package init(from reader: inout ProtobufReader) throws(ProtobufDecodingError) {
        while let (number, wireType) = try reader.nextField("NodeProto") {
            switch number {
            case 1:
                try reader.expect(wireType, .lengthDelimited, "NodeProto.input")
                inputs.append(try reader.readString("NodeProto.input"))
            case 2:
                try reader.expect(wireType, .lengthDelimited, "NodeProto.output")
                outputs.append(try reader.readString("NodeProto.output"))
            case 3:
                try reader.expect(wireType, .lengthDelimited, "NodeProto.name")
                name = try reader.readString("NodeProto.name")
            case 4:
                try reader.expect(wireType, .lengthDelimited, "NodeProto.op_type")
                opType = try reader.readString("NodeProto.op_type")
            case 5:
                try reader.expect(wireType, .lengthDelimited, "NodeProto.attribute")
                var nested = try reader.nestedReader("NodeProto.attribute")
                attributes.append(try AttributeProto(from: &nested))
            case 7:
                try reader.expect(wireType, .lengthDelimited, "NodeProto.domain")
                domain = try reader.readString("NodeProto.domain")
            default:
                try reader.skip(wireType, "NodeProto field \(number)")
            }
        }
    }
}
