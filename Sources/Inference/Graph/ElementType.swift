import ONNXFormat

/// The element type of a tensor the engine stores: what a graph input, an output or any
/// intermediate value holds, in the arena and in `Tensor`.
///
/// Float32 is the compute type of the float operators. Integer and bool tensors (shapes, indices,
/// masks) are computed by the operators that take them; float16 and double exist as storage
/// types, made and read by `Cast`, `CastLike` and the data-movement operators, and double by the
/// operators with double kernels. A float operator runs float16 inputs on float32 copies
/// (`FloatWidening`). Initializers of type FLOAT16 or DOUBLE are widened or rounded to float32
/// when the model is read.
///
/// The narrow types (bfloat16, the float8 formats, float4e2m1, and the 4- and 2-bit integers) are
/// storage types too: `Cast`, `CastLike`, `QuantizeLinear`, `DequantizeLinear` and the
/// data-movement operators take them. In memory every element has whole bytes: bfloat16 two, the
/// others one, a float8 or float4e2m1 element its bit pattern (float4e2m1 in the low 4 bits), a
/// 4- or 2-bit integer its value as an int8 (sign-extended) or uint8. They are packed (two or
/// four elements per byte, as ONNX stores them) only in serialized tensors (`ConstantTensor`,
/// `Tensor.serializedTensorProto`).
package enum ElementType: String, Sendable, CaseIterable, CustomStringConvertible {
    case float32, float16, double, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool
    case bfloat16, float8e4m3fn, float8e4m3fnuz, float8e5m2, float8e5m2fnuz, float8e8m0, float4e2m1
    case int4, uint4, int2, uint2

    /// Bytes per element in memory (one for the 4- and 2-bit types, which are packed only when
    /// serialized).
    package var byteSize: Int {
        switch self {
        case .int8, .uint8, .bool: 1
        case .float8e4m3fn, .float8e4m3fnuz, .float8e5m2, .float8e5m2fnuz, .float8e8m0, .float4e2m1: 1
        case .int4, .uint4, .int2, .uint2: 1
        case .float16, .int16, .uint16, .bfloat16: 2
        case .float32, .int32, .uint32: 4
        case .double, .int64, .uint64: 8
        }
    }

    /// Whether the type holds integers (bool included: its elements are 0 and 1).
    package var isInteger: Bool {
        switch self {
        case .float32, .float16, .double: false
        case .bfloat16, .float8e4m3fn, .float8e4m3fnuz, .float8e5m2, .float8e5m2fnuz, .float8e8m0, .float4e2m1: false
        default: true
        }
    }

    /// Bits per element as ONNX counts them: 4 for int4, uint4 and float4e2m1, 2 for int2 and
    /// uint2, else 8 per byte.
    package var bitWidth: Int {
        switch self {
        case .int4, .uint4, .float4e2m1: 4
        case .int2, .uint2: 2
        default: 8 * byteSize
        }
    }

    /// The values of the 4- and 2-bit integer types; nil for the others.
    package var narrowIntegerRange: ClosedRange<Int64>? {
        switch self {
        case .int4: -8...7
        case .uint4: 0...15
        case .int2: -2...1
        case .uint2: 0...3
        default: nil
        }
    }

    /// bfloat16, the float8 formats, float4e2m1 and the 4- and 2-bit integers: the types added
    /// for `Cast` and quantization, which no arithmetic operator computes.
    package var isNarrow: Bool {
        switch self {
        case .bfloat16, .float8e4m3fn, .float8e4m3fnuz, .float8e5m2, .float8e5m2fnuz, .float8e8m0, .float4e2m1,
             .int4, .uint4, .int2, .uint2: true
        default: false
        }
    }

    /// Element `index` of a tensor of this type in memory, as Double (exact but for 64-bit
    /// integers beyond 2^53).
    package func double(_ raw: UnsafeRawPointer, at index: Int) -> Double {
        TensorElements.double(raw, at: index, self)
    }

    /// The float8 types, the ones `Cast`'s and `QuantizeLinear`'s `saturate` applies to.
    package var isFloat8: Bool {
        switch self {
        case .float8e4m3fn, .float8e4m3fnuz, .float8e5m2, .float8e5m2fnuz, .float8e8m0: true
        default: false
        }
    }

    /// The ONNX `TensorProto.DataType` name.
    package var description: String { onnxType.description }

    /// The type of an ONNX `TensorProto.DataType`, or nil for types the engine does not store
    /// (string, complex, float6).
    package init?(_ type: TensorProto.DataType) {
        switch type {
        case .float: self = .float32
        case .float16: self = .float16
        case .double: self = .double
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
        default: return nil
        }
    }

    /// An ONNX `to` attribute value (`Cast`, `ConstantOfShape`, ...), or nil for types not stored.
    init?(onnxCode code: Int) {
        guard let code = Int32(exactly: code) else { return nil }
        self.init(TensorProto.DataType(rawValue: code))
    }

    package var onnxType: TensorProto.DataType {
        switch self {
        case .float32: .float
        case .float16: .float16
        case .double: .double
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
        }
    }
}
