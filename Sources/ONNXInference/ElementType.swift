import Inference

/// The element type of a tensor: what a model's inputs, outputs and intermediate values hold.
///
/// Float operators compute in `float32`; `float16` and `float64` values are stored as such and
/// converted by `Cast` and the data-movement operators. The integer types and `bool` are computed
/// by the operators that take them (shapes, indices, masks). `string` values (UTF-8) exist only
/// while a model is planned: a string input is fixed into the plan, and the operators on strings
/// run then.
///
/// The narrow types are storage types that `Cast`, `CastLike`, `QuantizeLinear`,
/// `DequantizeLinear` and the data-movement operators take and make: `bfloat16`, the float8
/// formats, `float4e2m1` and the 4- and 2-bit integers. Each element has whole bytes in a
/// ``Tensor``: `bfloat16` its 16-bit pattern, a float8 its 8-bit pattern, `float4e2m1` its 4-bit
/// pattern in the low bits of a byte, `int4` and `int2` their value as an `Int8`, `uint4` and
/// `uint2` as a `UInt8`. Only a serialized `TensorProto` packs the 4- and 2-bit types (two or four
/// to a byte, as ONNX does).
public enum ElementType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case float32, float16, float64
    case int8, int16, int32, int64
    case uint8, uint16, uint32, uint64
    case bool
    case string
    case bfloat16
    case float8e4m3fn, float8e4m3fnuz, float8e5m2, float8e5m2fnuz, float8e8m0
    case float4e2m1
    case int4, uint4, int2, uint2

    /// Bytes per element in a ``Tensor`` (1 for the 4- and 2-bit types, which a tensor holds one
    /// per byte); 0 for `string`, whose elements are Swift strings, not bytes.
    public var byteCount: Int { self == .string ? 0 : engineType.byteSize }

    /// `float32`, `float16` or `float64`.
    package var isFloatingPoint: Bool { self == .float32 || self == .float16 || self == .float64 }

    /// The ONNX name (`FLOAT`, `INT64`, `STRING`, …), as onnx's error messages and tools print it.
    public var description: String { self == .string ? "STRING" : engineType.description }

    init(_ type: Inference.ElementType) {
        switch type {
        case .float32: self = .float32
        case .float16: self = .float16
        case .double: self = .float64
        case .int8: self = .int8
        case .int16: self = .int16
        case .int32: self = .int32
        case .int64: self = .int64
        case .uint8: self = .uint8
        case .uint16: self = .uint16
        case .uint32: self = .uint32
        case .uint64: self = .uint64
        case .bool: self = .bool
        case .bfloat16: self = .bfloat16
        case .float8e4m3fn: self = .float8e4m3fn
        case .float8e4m3fnuz: self = .float8e4m3fnuz
        case .float8e5m2: self = .float8e5m2
        case .float8e5m2fnuz: self = .float8e5m2fnuz
        case .float8e8m0: self = .float8e8m0
        case .float4e2m1: self = .float4e2m1
        case .int4: self = .int4
        case .uint4: self = .uint4
        case .int2: self = .int2
        case .uint2: self = .uint2
        }
    }

    /// The engine's type of the elements it stores as bytes.
    ///
    /// - Precondition: not `string` (the engine holds strings as `StringTensor`s).
    var engineType: Inference.ElementType {
        switch self {
        case .float32: .float32
        case .float16: .float16
        case .float64: .double
        case .int8: .int8
        case .int16: .int16
        case .int32: .int32
        case .int64: .int64
        case .uint8: .uint8
        case .uint16: .uint16
        case .uint32: .uint32
        case .uint64: .uint64
        case .bool: .bool
        case .bfloat16: .bfloat16
        case .float8e4m3fn: .float8e4m3fn
        case .float8e4m3fnuz: .float8e4m3fnuz
        case .float8e5m2: .float8e5m2
        case .float8e5m2fnuz: .float8e5m2fnuz
        case .float8e8m0: .float8e8m0
        case .float4e2m1: .float4e2m1
        case .int4: .int4
        case .uint4: .uint4
        case .int2: .int2
        case .uint2: .uint2
        case .string: preconditionFailure("string elements are not stored as bytes")
        }
    }
}
