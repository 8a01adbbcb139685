import CMath
import ONNXFormat

/// Element-wise kernels over element types other than float32, and over float32 where the result is
/// another type: one generic operator per arity, instantiated once per element type when the node
/// is built.
///
/// A kernel's function works on `TensorScalar.Value`: Float for float32, Int64 for the integer
/// types (so one integer function serves every width; results are truncated to the output type,
/// which wraps as two's-complement arithmetic does), Bool for bool.
protocol TensorScalar: Sendable {
    associatedtype Value
    /// The element type this Swift type stores (same size and layout).
    static var elementType: ElementType { get }
    var elementValue: Value { get }
    init(elementValue: Value)
}

extension Float: TensorScalar {
    static var elementType: ElementType { .float32 }
    var elementValue: Float { self }
    init(elementValue: Float) { self = elementValue }
}

extension Double: TensorScalar {
    static var elementType: ElementType { .double }
    var elementValue: Double { self }
    init(elementValue: Double) { self = elementValue }
}

/// A float element type a reference kernel computes in its own precision (float32 in Float,
/// double in Double), with the functions those kernels need.
protocol FloatScalar: TensorScalar, BinaryFloatingPoint where Value == Self {
    static func exp(_ x: Self) -> Self
    static func log(_ x: Self) -> Self
    static func fmod(_ x: Self, _ y: Self) -> Self
}

extension Float: FloatScalar {
    static func exp(_ x: Float) -> Float { expf(x) }
    static func log(_ x: Float) -> Float { logf(x) }
    static func fmod(_ x: Float, _ y: Float) -> Float { fmodf(x, y) }
}

extension Double: FloatScalar {
    static func exp(_ x: Double) -> Double { CMath.exp(x) }
    static func log(_ x: Double) -> Double { CMath.log(x) }
    static func fmod(_ x: Double, _ y: Double) -> Double { CMath.fmod(x, y) }
}

/// An integer element, computed with as Int64. Every type in `ElementSets.integers` fits exactly;
/// uint64 is held by its bit pattern, which only bitwise and wrapping kernels may take.
protocol IntegerScalar: TensorScalar, FixedWidthInteger where Value == Int64 {}

extension IntegerScalar {
    var elementValue: Int64 { Int64(truncatingIfNeeded: self) }
    init(elementValue: Int64) { self.init(truncatingIfNeeded: elementValue) }
}

extension Int8: IntegerScalar { static var elementType: ElementType { .int8 } }
extension Int16: IntegerScalar { static var elementType: ElementType { .int16 } }
extension Int32: IntegerScalar { static var elementType: ElementType { .int32 } }
extension Int64: IntegerScalar { static var elementType: ElementType { .int64 } }
extension UInt8: IntegerScalar { static var elementType: ElementType { .uint8 } }
extension UInt16: IntegerScalar { static var elementType: ElementType { .uint16 } }
extension UInt32: IntegerScalar { static var elementType: ElementType { .uint32 } }
extension UInt64: IntegerScalar { static var elementType: ElementType { .uint64 } }

/// A bool element: one byte, 0 or 1 (any nonzero byte reads as true).
struct BoolScalar: TensorScalar {
    var byte: UInt8
    static var elementType: ElementType { .bool }
    var elementValue: Bool { byte != 0 }
    init(elementValue: Bool) { byte = elementValue ? 1 : 0 }
}

extension ElementType {
    /// The Swift type of an integer type's elements; nil for the float types, bool and the narrow
    /// types (the 4- and 2-bit integers are storage types only).
    var isIntegerScalar: Bool {
        switch self {
        case .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32, .uint64: true
        default: false
        }
    }

    /// `function` called with the Swift type of an integer type's elements; nil for the types
    /// `isIntegerScalar` excludes.
    func withIntegerScalar<F: IntegerScalarFunction>(_ function: F) throws(ModelError) -> F.Result? {
        switch self {
        case .int8: try function(Int8.self)
        case .int16: try function(Int16.self)
        case .int32: try function(Int32.self)
        case .int64: try function(Int64.self)
        case .uint8: try function(UInt8.self)
        case .uint16: try function(UInt16.self)
        case .uint32: try function(UInt32.self)
        case .uint64: try function(UInt64.self)
        default: nil
        }
    }
}

/// A function generic over the integer element types, which `ElementType.withIntegerScalar`
/// calls with the type's Swift scalar: the type is chosen by a switch, since Embedded Swift has no
/// metatype existentials (`any IntegerScalar.Type`) to hand it over in.
protocol IntegerScalarFunction {
    associatedtype Result
    func callAsFunction<T: IntegerScalar>(_: T.Type) throws(ModelError) -> Result
}

/// Builds a `TypedUnary<T, T>` computing `integer` (in Int64) for the integer type T.
struct IntegerUnaryBuilder: IntegerScalarFunction {
    let context: NodeContext
    let integer: @Sendable (Int64) -> Int64
    func callAsFunction<T: IntegerScalar>(_: T.Type) throws(ModelError) -> any Operator { try TypedUnary<T, T>(context, integer) }
}

/// Builds a `TypedBinary<T, T, T>` computing `integer` (in Int64) for the integer type T.
struct IntegerBinaryBuilder: IntegerScalarFunction {
    let context: NodeContext
    let integer: @Sendable (Int64, Int64) -> Int64
    func callAsFunction<T: IntegerScalar>(_: T.Type) throws(ModelError) -> any Operator { try TypedBinary<T, T, T>(context, integer) }
}

/// The element-type sets the typed builders accept.
enum ElementSets {
    /// The integer types whose values Int64 holds exactly (uint64 is left to the bitwise ops).
    static let integers: Set<ElementType> = [.int8, .int16, .int32, .int64, .uint8, .uint16, .uint32]
    static let signedIntegers: Set<ElementType> = [.int8, .int16, .int32, .int64]
    static let unsignedIntegers: Set<ElementType> = [.uint8, .uint16, .uint32, .uint64]
    /// Every integer type, for kernels that are exact on uint64's bit pattern too (wrapping
    /// addition, subtraction and multiplication; equality).
    static let allIntegers = integers.union([.uint64])
    static let floatAndIntegers = integers.union([.float32])
}

/// `Y = f(X)` element by element, `X` and `Y` of any stored types.
final class TypedUnary<X: TensorScalar, Y: TensorScalar>: Operator {
    let function: @Sendable (X.Value) -> Y.Value
    let dataInputs = [0]
    let outputShapes: [[Int]]
    let count: Int
    var outputTypes: [ElementType] { [Y.elementType] }
    var checksInputTypes: Bool { true }

    /// The operator for input 0 of `context` (whose type the caller checked).
    init(_ context: NodeContext, _ function: @escaping @Sendable (X.Value) -> Y.Value) throws(ModelError) {
        self.function = function
        let shape = try context.shape(ofInput: 0)
        outputShapes = [shape]
        count = shape.reduce(1, *)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = UnsafeRawPointer(inputs[0]).assumingMemoryBound(to: X.self)
        let y = UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: Y.self)
        for i in 0..<count { y[i] = Y(elementValue: function(x[i].elementValue)) }
    }
}

/// `Y = f(A, B)` with numpy broadcasting (up to rank 6), each operand of its own stored type.
final class TypedBinary<A: TensorScalar, B: TensorScalar, Y: TensorScalar>: Operator {
    let function: @Sendable (A.Value, B.Value) -> Y.Value
    let dataInputs = [0, 1]
    let outputShapes: [[Int]]
    let loop: StridedLoop
    var outputTypes: [ElementType] { [Y.elementType] }
    var checksInputTypes: Bool { true }

    /// The operator for inputs 0 and 1 of `context` (whose types the caller checked).
    init(_ context: NodeContext, _ function: @escaping @Sendable (A.Value, B.Value) -> Y.Value) throws(ModelError) {
        self.function = function
        let shape = try context.broadcastShape(ofInputs: [0, 1])
        outputShapes = [shape]
        loop = StridedLoop(output: shape, broadcasting: [try context.shape(ofInput: 0), try context.shape(ofInput: 1)])
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let a = UnsafeRawPointer(inputs[0]).assumingMemoryBound(to: A.self)
        let b = UnsafeRawPointer(inputs[1]).assumingMemoryBound(to: B.self)
        let y = UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: Y.self)
        let function = self.function
        loop.forEach { out, i, j in y[out] = Y(elementValue: function(a[i].elementValue, b[j].elementValue)) }
    }
}

extension StridedLoop {
    /// A loop over `shape` in C order whose operand 0 is the output and whose operands 1 and 2 are
    /// tensors of `operands` shapes broadcast to it.
    init(output shape: [Int], broadcasting operands: [[Int]]) {
        self.init(shape: shape, strides: [Shapes.strides(shape)] + operands.map { Shapes.broadcastStrides($0, to: shape) })
    }
}

extension NodeContext {
    /// The numpy broadcast of the shapes of inputs `indices`, within the rank the loops support.
    func broadcastShape(ofInputs indices: [Int]) throws(ModelError) -> [Int] {
        var shapes: [[Int]] = []
        for index in indices { shapes.append(try shape(ofInput: index)) }
        var shape: [Int] = []
        for next in shapes {
            guard let joined = Shapes.broadcast(shape, next) else {
                throw error(.invalidShape, "shapes \(shapes) cannot be broadcast")
            }
            shape = joined
        }
        guard shape.count <= StridedLoop.maximumRank else {
            throw error(.unsupported, "rank \(shape.count) is above the supported \(StridedLoop.maximumRank)")
        }
        return shape
    }

    /// The type shared by inputs `indices`, which must be one of `allowed`.
    func commonType(ofInputs indices: [Int], in allowed: Set<ElementType>) throws(ModelError) -> ElementType {
        let type = try requireType(ofInput: indices[0], in: allowed)
        for index in indices.dropFirst() {
            let other = try self.type(ofInput: index)
            guard other == type else {
                throw error(.invalidValue, "input \(index) ('\(node.inputs[index])') has element type \(other), input \(indices[0]) has \(type); they must match")
            }
        }
        return type
    }
}

/// Builders for the element-wise ops that take several element types.
enum TypedElementwise {
    /// A one-input, attribute-free op on float32 (an `ElementwiseUnary`, `float`) or on
    /// `integerTypes` (`integer`, computing in Int64).
    static func unary(integerTypes: Set<ElementType>, float: @escaping @Sendable (Float) -> Float,
                      integer: @escaping @Sendable (Int64) -> Int64) -> OperatorBuilder {
        let floatBuilder = ElementwiseUnary.builder { _ in (.other, float) }
        return { context throws(ModelError) in
            try context.checkArity(inputs: 1, 1)
            let type = try context.requireType(ofInput: 0, in: integerTypes.union([.float32]))
            guard type.isIntegerScalar else { return try floatBuilder(context) }
            try context.checkAttributes([])
            return try type.withIntegerScalar(IntegerUnaryBuilder(context: context, integer: integer))!
        }
    }

    /// A two-input op whose inputs share one type, broadcast, with an output of that type:
    /// `float` for float32 (nil: float32 not accepted), `double` for double when given, `integer`
    /// (computing in Int64) for `integerTypes`, and `unsigned64` (computing in UInt64) for uint64
    /// when given.
    static func binary(_ context: NodeContext, integerTypes: Set<ElementType>,
                       float: (@Sendable (Float, Float) -> Float)?,
                       double: (@Sendable (Double, Double) -> Double)? = nil,
                       integer: @escaping @Sendable (Int64, Int64) -> Int64,
                       unsigned64: (@Sendable (UInt64, UInt64) -> UInt64)? = nil) throws(ModelError) -> any Operator {
        try context.checkArity(inputs: 2, 2)
        var allowed = float == nil ? integerTypes : integerTypes.union([.float32])
        if unsigned64 != nil { allowed.insert(.uint64) }
        if double != nil { allowed.insert(.double) }
        let type = try context.commonType(ofInputs: [0, 1], in: allowed)
        if type == .uint64, let unsigned64 {
            return try TypedBinary<UInt64, UInt64, UInt64>(context) { Int64(bitPattern: unsigned64(UInt64(bitPattern: $0), UInt64(bitPattern: $1))) }
        }
        if type == .double, let double { return try TypedBinary<Double, Double, Double>(context, double) }
        guard type.isIntegerScalar else { return try TypedBinary<Float, Float, Float>(context, float!) }
        return try type.withIntegerScalar(IntegerBinaryBuilder(context: context, integer: integer))!
    }
}
