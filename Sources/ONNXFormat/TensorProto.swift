/// A tensor value: dimensions, element type, and the elements either in `rawData`
/// (little-endian, C order) or in the typed field for its type.
///
/// Field numbers mirror `message TensorProto` in onnx/onnx.proto3 (dims = 1, data_type = 2,
/// float_data = 4, int32_data = 5, int64_data = 7, name = 8, raw_data = 9, double_data = 10,
/// data_location = 14, uint64_data = 11). Typed fields are read packed or unpacked. string_data,
/// segment and external_data are skipped; `dataLocation` tells a consumer when the data
/// lives in an external file.
package struct TensorProto: Sendable {
    /// `TensorProto.DataType` (onnx.proto3); unknown values are kept as they are.
    package struct DataType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        package var rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue }

        package static let undefined = DataType(rawValue: 0)
        package static let float = DataType(rawValue: 1)
        package static let uint8 = DataType(rawValue: 2)
        package static let int8 = DataType(rawValue: 3)
        package static let uint16 = DataType(rawValue: 4)
        package static let int16 = DataType(rawValue: 5)
        package static let int32 = DataType(rawValue: 6)
        package static let int64 = DataType(rawValue: 7)
        package static let string = DataType(rawValue: 8)
        package static let bool = DataType(rawValue: 9)
        package static let float16 = DataType(rawValue: 10)
        package static let double = DataType(rawValue: 11)
        package static let uint32 = DataType(rawValue: 12)
        package static let uint64 = DataType(rawValue: 13)
        package static let bfloat16 = DataType(rawValue: 16)
        package static let float8e4m3fn = DataType(rawValue: 17)
        package static let float8e4m3fnuz = DataType(rawValue: 18)
        package static let float8e5m2 = DataType(rawValue: 19)
        package static let float8e5m2fnuz = DataType(rawValue: 20)
        package static let uint4 = DataType(rawValue: 21)
        package static let int4 = DataType(rawValue: 22)
        package static let float4e2m1 = DataType(rawValue: 23)
        package static let float8e8m0 = DataType(rawValue: 24)
        package static let uint2 = DataType(rawValue: 25)
        package static let int2 = DataType(rawValue: 26)

        /// Bytes per element in `raw_data`, for the types of whole bytes this reader converts; nil
        /// otherwise (the packed 4- and 2-bit types: see `elementsPerByte`).
        package var rawElementSize: Int? {
            switch self {
            case .float, .int32, .uint32: 4
            case .int64, .double, .uint64: 8
            case .float16, .int16, .uint16, .bfloat16: 2
            case .uint8, .int8, .bool, .float8e4m3fn, .float8e4m3fnuz, .float8e5m2, .float8e5m2fnuz, .float8e8m0: 1
            default: nil
            }
        }

        /// Elements per byte of `raw_data` (and per `int32_data` entry) for the packed types:
        /// 2 for UINT4, INT4 and FLOAT4E2M1 (the first element in the low 4 bits), 4 for UINT2
        /// and INT2 (the first in the low 2 bits); nil for the others.
        package var elementsPerByte: Int? {
            switch self {
            case .uint4, .int4, .float4e2m1: 2
            case .uint2, .int2: 4
            default: nil
            }
        }

        package var description: String {
            let names = ["UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64", "STRING", "BOOL", "FLOAT16",
                         "DOUBLE", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16", "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ",
                         "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4", "INT4", "FLOAT4E2M1", "FLOAT8E8M0", "UINT2", "INT2",
                         "FLOAT6E2M3", "FLOAT6E3M2"]
            return rawValue >= 0 && Int(rawValue) < names.count ? names[Int(rawValue)] : "data type \(rawValue)"
        }
    }

    package var dims: [Int64] = []
    package var dataType = DataType.undefined
    package var name = ""
    package var rawData: [UInt8] = []
    /// Whether `raw_data` was present (an empty tensor may have an empty `raw_data`).
    package var hasRawData = false
    package var floatData: [Float] = []
    package var int32Data: [Int32] = []
    package var int64Data: [Int64] = []
    package var doubleData: [Double] = []
    /// UINT32 and UINT64 elements when not in `raw_data`.
    package var uint64Data: [UInt64] = []
    /// 0 = data in this message, 1 = external file (onnx.proto3 `DataLocation`).
    package var dataLocation: Int32 = 0

    package init() {}

    /// The protobuf wire bytes of this tensor with its data in `raw_data`: dims (field 1,
    /// packed), data_type (2), name (8, when not empty) and raw_data (9). The typed data fields
    /// are not written; `rawData` must already hold the elements (packed for the 4- and 2-bit
    /// types).
    package func serializedWithRawData() -> [UInt8] {
        var bytes: [UInt8] = []
        func varint(_ value: UInt64) {
            var rest = value
            while rest >= 0x80 {
                bytes.append(UInt8(rest & 0x7F) | 0x80)
                rest >>= 7
            }
            bytes.append(UInt8(rest))
        }
        func lengthDelimited(_ field: UInt64, _ payload: [UInt8]) {
            varint(field << 3 | 2)
            varint(UInt64(payload.count))
            bytes += payload
        }
        if !dims.isEmpty {
            var packed: [UInt8] = []
            swap(&bytes, &packed)
            for dim in dims { varint(UInt64(bitPattern: dim)) }
            swap(&bytes, &packed)
            lengthDelimited(1, packed)
        }
        varint(2 << 3)
        varint(UInt64(bitPattern: Int64(dataType.rawValue)))
        if !name.isEmpty { lengthDelimited(8, Array(name.utf8)) }
        lengthDelimited(9, rawData)
        return bytes
    }

    package init(from reader: inout ProtobufReader) throws(ProtobufDecodingError) {
        while let (number, wireType) = try reader.nextField("TensorProto") {
            switch number {
            case 1:
                try reader.appendVarints(wireType, to: &dims, "TensorProto.dims") { Int64(bitPattern: $0) }
            case 2:
                try reader.expect(wireType, .varint, "TensorProto.data_type")
                dataType = DataType(rawValue: try reader.readInt32("TensorProto.data_type"))
            case 4:
                try reader.appendFloats(wireType, to: &floatData, "TensorProto.float_data")
            case 5:
                try reader.appendVarints(wireType, to: &int32Data, "TensorProto.int32_data") { Int32(truncatingIfNeeded: $0) }
            case 7:
                try reader.appendVarints(wireType, to: &int64Data, "TensorProto.int64_data") { Int64(bitPattern: $0) }
            case 8:
                try reader.expect(wireType, .lengthDelimited, "TensorProto.name")
                name = try reader.readString("TensorProto.name")
            case 9:
                try reader.expect(wireType, .lengthDelimited, "TensorProto.raw_data")
                rawData = try reader.readBytes("TensorProto.raw_data")
                hasRawData = true
            case 10:
                try reader.appendDoubles(wireType, to: &doubleData, "TensorProto.double_data")
            case 11:
                try reader.appendVarints(wireType, to: &uint64Data, "TensorProto.uint64_data") { $0 }
            case 14:
                try reader.expect(wireType, .varint, "TensorProto.data_location")
                dataLocation = try reader.readInt32("TensorProto.data_location")
            default:
                try reader.skip(wireType, "TensorProto field \(number)")
            }
        }
    }
}
