/// A tensor's declared shape: each dimension is a number, a symbolic name, or unknown.
///
/// Field numbers mirror `message TensorShapeProto` in onnx/onnx.proto3 (dim = 1; inside
/// `Dimension`: dim_value = 1, dim_param = 2, denotation = 3 skipped).
package struct TensorShapeProto: Sendable {
    /// One dimension of a declared shape.
    package enum Dimension: Sendable, Equatable {
        case value(Int64)
        case parameter(String)
        case unknown

        init(from reader: inout ProtobufReader) throws(ProtobufDecodingError) {
            self = .unknown
            while let (number, wireType) = try reader.nextField("TensorShapeProto.Dimension") {
                switch number {
                case 1:
                    try reader.expect(wireType, .varint, "TensorShapeProto.Dimension.dim_value")
                    self = .value(try reader.readInt64("TensorShapeProto.Dimension.dim_value"))
                case 2:
                    try reader.expect(wireType, .lengthDelimited, "TensorShapeProto.Dimension.dim_param")
                    self = .parameter(try reader.readString("TensorShapeProto.Dimension.dim_param"))
                default:
                    try reader.skip(wireType, "TensorShapeProto.Dimension field \(number)")
                }
            }
        }
    }

    package var dims: [Dimension] = []

    package init(dims: [Dimension] = []) { self.dims = dims }

    package init(from reader: inout ProtobufReader) throws(ProtobufDecodingError) {
        while let (number, wireType) = try reader.nextField("TensorShapeProto") {
            switch number {
            case 1:
                try reader.expect(wireType, .lengthDelimited, "TensorShapeProto.dim")
                var nested = try reader.nestedReader("TensorShapeProto.dim")
                dims.append(try Dimension(from: &nested))
            default:
                try reader.skip(wireType, "TensorShapeProto field \(number)")
            }
        }
    }
}
