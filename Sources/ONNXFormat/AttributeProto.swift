/// A named operator attribute holding one value of the kind `type` says.
///
/// Field numbers mirror `message AttributeProto` in onnx/onnx.proto3 (name = 1, f = 2, i = 3,
/// s = 4, t = 5, g = 6, floats = 7, ints = 8, strings = 9, type = 20). Repeated numbers are read
/// in both packed and unpacked encodings. Graph-valued (g, graphs), sparse-tensor, type-proto and
/// tensor-list values are skipped; `hasGraph` records that a graph was present so a consumer can
/// reject it by name.
package struct AttributeProto: Sendable {
    /// `AttributeProto.AttributeType` (onnx.proto3); unknown values are kept as they are.
    package struct AttributeType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        package var rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue }

        package static let undefined = AttributeType(rawValue: 0)
        package static let float = AttributeType(rawValue: 1)
        package static let int = AttributeType(rawValue: 2)
        package static let string = AttributeType(rawValue: 3)
        package static let tensor = AttributeType(rawValue: 4)
        package static let graph = AttributeType(rawValue: 5)
        package static let floats = AttributeType(rawValue: 6)
        package static let ints = AttributeType(rawValue: 7)
        package static let strings = AttributeType(rawValue: 8)
        package static let tensors = AttributeType(rawValue: 9)
        package static let graphs = AttributeType(rawValue: 10)

        package var description: String {
            let names = ["UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "GRAPH", "FLOATS", "INTS", "STRINGS", "TENSORS", "GRAPHS",
                         "SPARSE_TENSOR", "SPARSE_TENSORS", "TYPE_PROTO", "TYPE_PROTOS"]
            return rawValue >= 0 && Int(rawValue) < names.count ? names[Int(rawValue)] : "type \(rawValue)"
        }
    }

    package var name = ""
    package var type = AttributeType.undefined
    package var f: Float = 0
    package var i: Int64 = 0
    package var s: [UInt8] = []
    package var t: TensorProto?
    package var floats: [Float] = []
    package var ints: [Int64] = []
    package var strings: [[UInt8]] = []
    /// Whether a graph value (field 6 or 11) was present (and skipped).
    package var hasGraph = false

    package init() {}

    package init(from reader: inout ProtobufReader) throws(ProtobufDecodingError) {
        while let (number, wireType) = try reader.nextField("AttributeProto") {
            switch number {
            case 1:
                try reader.expect(wireType, .lengthDelimited, "AttributeProto.name")
                name = try reader.readString("AttributeProto.name")
            case 2:
                try reader.expect(wireType, .fixed32, "AttributeProto.f")
                f = try reader.readFloat("AttributeProto.f")
            case 3:
                try reader.expect(wireType, .varint, "AttributeProto.i")
                i = try reader.readInt64("AttributeProto.i")
            case 4:
                try reader.expect(wireType, .lengthDelimited, "AttributeProto.s")
                s = try reader.readBytes("AttributeProto.s")
            case 5:
                try reader.expect(wireType, .lengthDelimited, "AttributeProto.t")
                var nested = try reader.nestedReader("AttributeProto.t")
                t = try TensorProto(from: &nested)
            case 6, 11:
                hasGraph = true
                try reader.skip(wireType, "AttributeProto.g")
            case 7:
                try reader.appendFloats(wireType, to: &floats, "AttributeProto.floats")
            case 8:
                try reader.appendVarints(wireType, to: &ints, "AttributeProto.ints") { Int64(bitPattern: $0) }
            case 9:
                try reader.expect(wireType, .lengthDelimited, "AttributeProto.strings")
                strings.append(try reader.readBytes("AttributeProto.strings"))
            case 20:
                try reader.expect(wireType, .varint, "AttributeProto.type")
                type = AttributeType(rawValue: try reader.readInt32("AttributeProto.type"))
            default:
                try reader.skip(wireType, "AttributeProto field \(number)")
            }
        }
    }
}
