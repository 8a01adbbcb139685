import Inference

/// The element type of a tensor: what a model's inputs, outputs and intermediate values hold.
///
/// Float operators compute in `float32`; `float16` and `float64` values are stored as such and
/// converted by `Cast` and the data-movement operators. The integer types and `bool` are computed
/// by the operators that take them (shapes, indices, masks). `string` values (UTF-8) exist only
/// while a model is planned: a string input is fixed into the plan, and the operators on strings
/// run then.
public enum ElementType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case float32, float16, float64
    case int8, int16, int32, int64
    case uint8, uint16, uint32, uint64
    case bool
    case string

    /// Bytes per element; 0 for `string`, whose elements are Swift strings, not bytes.
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
        case .string: preconditionFailure("string elements are not stored as bytes")
        }
    }
}
