/// A Swift type whose values a ``Tensor`` stores, bit for bit, as the elements of one
/// ``ElementType``.
///
/// `Bool` is stored as one byte, 0 or 1, as ONNX stores it.
public protocol TensorScalar: Sendable {
    /// The element type whose elements have this type's memory layout.
    static var elementType: ElementType { get }
}

extension Float: TensorScalar { public static var elementType: ElementType { .float32 } }
extension Double: TensorScalar { public static var elementType: ElementType { .float64 } }
extension Int8: TensorScalar { public static var elementType: ElementType { .int8 } }
extension Int16: TensorScalar { public static var elementType: ElementType { .int16 } }
extension Int32: TensorScalar { public static var elementType: ElementType { .int32 } }
extension Int64: TensorScalar { public static var elementType: ElementType { .int64 } }
extension UInt8: TensorScalar { public static var elementType: ElementType { .uint8 } }
extension UInt16: TensorScalar { public static var elementType: ElementType { .uint16 } }
extension UInt32: TensorScalar { public static var elementType: ElementType { .uint32 } }
extension UInt64: TensorScalar { public static var elementType: ElementType { .uint64 } }
extension Bool: TensorScalar { public static var elementType: ElementType { .bool } }

// Float16 does not exist on macOS for x86-64; there a float16 tensor is read through its bytes
// (or as `UInt16` bit patterns with `withUnsafeBytes`).
#if !((os(macOS) || targetEnvironment(macCatalyst)) && arch(x86_64))
@available(macOS 11.0, iOS 14.0, tvOS 14.0, watchOS 7.0, *)
extension Float16: TensorScalar { public static var elementType: ElementType { .float16 } }
#endif
