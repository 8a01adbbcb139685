/// The top-level ONNX message: a graph plus the operator sets it was written against.
///
/// Field numbers mirror `message ModelProto` in onnx/onnx.proto3 (onnx 1.23: ir_version = 1,
/// producer_name = 2, producer_version = 3, graph = 7, opset_import = 8, metadata_props = 14;
/// inside `StringStringEntryProto`: key = 1, value = 2). Other fields (domain, model_version,
/// doc_string, training_info, functions, ...) are skipped.
package struct ModelProto: Sendable {
    package var irVersion: Int64 = 0
    package var opsetImports: [OperatorSetIdProto] = []
    package var producerName = ""
    package var producerVersion = ""
    package var graph: GraphProto?
    /// `metadata_props` as key-value pairs, in file order.
    package var metadata: [(key: String, value: String)] = []

    package init() {}

    /// Decodes a serialized model.
    ///
    /// - Throws: `ProtobufDecodingError` with the byte offset and field where decoding failed.
    package init(serializedBytes bytes: [UInt8]) throws(ProtobufDecodingError) {
        var reader = ProtobufReader(bytes)
        try self.init(from: &reader)
    }

    /// Decodes the fields up to the end of `reader`'s message.
    package init(from reader: inout ProtobufReader) throws(ProtobufDecodingError) {
        while let (number, wireType) = try reader.nextField("ModelProto") {
            switch number {
            case 1:
                try reader.expect(wireType, .varint, "ModelProto.ir_version")
                irVersion = try reader.readInt64("ModelProto.ir_version")
            case 2:
                try reader.expect(wireType, .lengthDelimited, "ModelProto.producer_name")
                producerName = try reader.readString("ModelProto.producer_name")
            case 3:
                try reader.expect(wireType, .lengthDelimited, "ModelProto.producer_version")
                producerVersion = try reader.readString("ModelProto.producer_version")
            case 7:
                try reader.expect(wireType, .lengthDelimited, "ModelProto.graph")
                var nested = try reader.nestedReader("ModelProto.graph")
                graph = try GraphProto(from: &nested)
            case 8:
                try reader.expect(wireType, .lengthDelimited, "ModelProto.opset_import")
                var nested = try reader.nestedReader("ModelProto.opset_import")
                opsetImports.append(try OperatorSetIdProto(from: &nested))
            case 14:
                try reader.expect(wireType, .lengthDelimited, "ModelProto.metadata_props")
                var nested = try reader.nestedReader("ModelProto.metadata_props")
                var entry = (key: "", value: "")
                while let (field, type) = try nested.nextField("StringStringEntryProto") {
                    switch field {
                    case 1:
                        try nested.expect(type, .lengthDelimited, "StringStringEntryProto.key")
                        entry.key = try nested.readString("StringStringEntryProto.key")
                    case 2:
                        try nested.expect(type, .lengthDelimited, "StringStringEntryProto.value")
                        entry.value = try nested.readString("StringStringEntryProto.value")
                    default:
                        try nested.skip(type, "StringStringEntryProto field \(field)")
                    }
                }
                metadata.append(entry)
            default:
                try reader.skip(wireType, "ModelProto field \(number)")
            }
        }
    }
}
