/// A computation graph: nodes in any order, constant tensors, and the declared inputs,
/// outputs and intermediate value types.
///
/// Field numbers mirror `message GraphProto` in onnx/onnx.proto3 (node = 1, name = 2,
/// initializer = 5, input = 11, output = 12, value_info = 13). sparse_initializer (15),
/// doc_string, quantization_annotation and metadata_props are skipped.
package struct GraphProto: Sendable {
    package var name = ""
    package var nodes: [NodeProto] = []
    package var initializers: [TensorProto] = []
    package var inputs: [ValueInfoProto] = []
    package var outputs: [ValueInfoProto] = []
    package var valueInfo: [ValueInfoProto] = []
    /// How many sparse initializers were skipped (the reader does not support them).
    package var sparseInitializerCount = 0

    package init() {}

    package init(from reader: inout ProtobufReader) throws(ProtobufDecodingError) {
        while let (number, wireType) = try reader.nextField("GraphProto") {
            switch number {
            case 1:
                try reader.expect(wireType, .lengthDelimited, "GraphProto.node")
                var nested = try reader.nestedReader("GraphProto.node")
                nodes.append(try NodeProto(from: &nested))
            case 2:
                try reader.expect(wireType, .lengthDelimited, "GraphProto.name")
                name = try reader.readString("GraphProto.name")
            case 5:
                try reader.expect(wireType, .lengthDelimited, "GraphProto.initializer")
                var nested = try reader.nestedReader("GraphProto.initializer")
                initializers.append(try TensorProto(from: &nested))
            case 11, 12, 13:
                let field = number == 11 ? "input" : number == 12 ? "output" : "value_info"
                try reader.expect(wireType, .lengthDelimited, "GraphProto.\(field)")
                var nested = try reader.nestedReader("GraphProto.\(field)")
                let value = try ValueInfoProto(from: &nested)
                if number == 11 { inputs.append(value) } else if number == 12 { outputs.append(value) } else { valueInfo.append(value) }
            case 15:
                sparseInitializerCount += 1
                try reader.skip(wireType, "GraphProto.sparse_initializer")
            default:
                try reader.skip(wireType, "GraphProto field \(number)")
            }
        }
    }
}
