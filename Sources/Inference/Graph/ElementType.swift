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
package enum ElementType: String, Sendable, CaseIterable, CustomStringConvertible {
    case float32, float16, double, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool

    /// Bytes per element.
    package var byteSize: Int {
        switch self {
        case .int8, .uint8, .bool: 1
        case .float16, .int16, .uint16: 2
        case .float32, .int32, .uint32: 4
        case .double, .int64, .uint64: 8
        }
    }

    /// Whether the type holds integers (bool included: its elements are 0 and 1).
    package var isInteger: Bool {
        switch self {
        case .float32, .float16, .double: false
        default: true
        }
    }

    /// The ONNX `TensorProto.DataType` name.
    package var description: String { onnxType.description }

    /// The type of an ONNX `TensorProto.DataType`, or nil for types the engine does not store
    /// (string, complex, bfloat16, the 8- and 4-bit float and integer types).
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
        }
    }
}
