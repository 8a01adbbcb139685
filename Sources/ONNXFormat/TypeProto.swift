/// A value's type. Only dense tensors are decoded (`tensorType`); sequence, map, optional,
/// sparse and opaque types are skipped and reported by `isTensor == false`.
///
/// Field numbers mirror `message TypeProto` in onnx/onnx.proto3 (tensor_type = 1; inside
/// `TypeProto.Tensor`: elem_type = 1, shape = 2).
package struct TypeProto: Sendable {
    /// The element type and (optional) shape of a dense tensor.
    package struct Tensor: Sendable {
        package var elementType = TensorProto.DataType.undefined
        package var shape: TensorShapeProto?

        package init() {}

        package init(from reader: inout ProtobufReader) throws(ProtobufDecodingError) {
            while let (number, wireType) = try reader.nextField("TypeProto.Tensor") {
                switch number {
                case 1:
                    try reader.expect(wireType, .varint, "TypeProto.Tensor.elem_type")
                    elementType = TensorProto.DataType(rawValue: try reader.readInt32("TypeProto.Tensor.elem_type"))
                case 2:
                    try reader.expect(wireType, .lengthDelimited, "TypeProto.Tensor.shape")
                    var nested = try reader.nestedReader("TypeProto.Tensor.shape")
                    shape = try TensorShapeProto(from: &nested)
                default:
                    try reader.skip(wireType, "TypeProto.Tensor field \(number)")
                }
            }
        }
    }

    package var tensorType: Tensor?

    /// Whether the type is a dense tensor.
    package var isTensor: Bool { tensorType != nil }

    package init() {}

    package init(from reader: inout ProtobufReader) throws(ProtobufDecodingError) {
        while let (number, wireType) = try reader.nextField("TypeProto") {
            switch number {
            case 1:
                try reader.expect(wireType, .lengthDelimited, "TypeProto.tensor_type")
                var nested = try reader.nestedReader("TypeProto.tensor_type")
                tensorType = try Tensor(from: &nested)
            default:
                try reader.skip(wireType, "TypeProto field \(number)")
            }
        }
    }
}
