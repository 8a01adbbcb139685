import ONNXFormat

/// An element-wise fold over one or more inputs of one type, all broadcast (numpy rules) to the
/// output: the output starts as input 0 and `combine` merges each further input into it in
/// order; `finish`, if any, then maps every output element (Mean's division).
final class Variadic<T: TensorScalar>: Operator {
    let combine: @Sendable (T.Value, T.Value) -> T.Value
    let finish: (@Sendable (T.Value) -> T.Value)?
    let dataInputs: [Int]
    let outputShapes: [[Int]]
    /// Per input, a loop whose operand 0 is the output and operand 1 the input.
    let loops: [StridedLoop]
    let count: Int
    var outputTypes: [ElementType] { [T.elementType] }
    var checksInputTypes: Bool { true }

    init(_ context: NodeContext, combine: @escaping @Sendable (T.Value, T.Value) -> T.Value,
         finish: (@Sendable (T.Value) -> T.Value)? = nil) throws(ModelError) {
        self.combine = combine
        self.finish = finish
        dataInputs = Array(context.node.inputs.indices)
        let shape = try context.broadcastShape(ofInputs: dataInputs)
        outputShapes = [shape]
        var loops: [StridedLoop] = []
        for index in dataInputs { loops.append(StridedLoop(output: shape, broadcasting: [try context.shape(ofInput: index)])) }
        self.loops = loops
        count = shape.reduce(1, *)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let y = UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: T.self)
        let first = UnsafeRawPointer(inputs[0]).assumingMemoryBound(to: T.self)
        loops[0].forEach { out, i, _ in y[out] = first[i] }
        let combine = self.combine
        for k in 1..<loops.count {
            let x = UnsafeRawPointer(inputs[k]).assumingMemoryBound(to: T.self)
            loops[k].forEach { out, i, _ in y[out] = T(elementValue: combine(y[out].elementValue, x[i].elementValue)) }
        }
        if let finish {
            for i in 0..<count { y[i] = T(elementValue: finish(y[i].elementValue)) }
        }
    }
}

extension TypedElementwise {
    /// A builder for an op over 1 to N inputs of one type: float32 always, double when `double` is
    /// given, the integer types from op version `integerSince` when `integer` is given.
    static func variadic(float: @escaping @Sendable (Float, Float) -> Float,
                         double: (@Sendable (Double, Double) -> Double)? = nil,
                         finish: (@Sendable (_ value: Float, _ inputs: Int) -> Float)? = nil,
                         integer: (@Sendable (Int64, Int64) -> Int64)? = nil,
                         unsigned64: (@Sendable (UInt64, UInt64) -> UInt64)? = nil, integerSince: Int = 0) -> OperatorBuilder {
        return { context throws(ModelError) in
            let inputs = Array(context.node.inputs.indices)
            try context.checkArity(inputs: max(1, inputs.count), max(1, inputs.count))
            try context.checkAttributes([])
            let integers = integer != nil && context.opVersion >= integerSince
            var allowed: Set<ElementType> = integers ? ElementSets.floatAndIntegers : [.float32]
            if integers && unsigned64 != nil { allowed.insert(.uint64) }
            if double != nil { allowed.insert(.double) }
            let type = try context.commonType(ofInputs: inputs, in: allowed)
            if type == .double, let double { return try Variadic<Double>(context, combine: double) }
            if type == .uint64, let unsigned64 {
                return try Variadic<UInt64>(context) { Int64(bitPattern: unsigned64(UInt64(bitPattern: $0), UInt64(bitPattern: $1))) }
            }
            guard type.isIntegerScalar, let integer else {
                let count = inputs.count
                var last: (@Sendable (Float) -> Float)? = nil
                if let finish { last = { finish($0, count) } }
                return try Variadic<Float>(context, combine: float, finish: last)
            }
            struct Make: IntegerScalarFunction {
                let context: NodeContext, integer: @Sendable (Int64, Int64) -> Int64
                func callAsFunction<I: IntegerScalar>(_: I.Type) throws(ModelError) -> any Operator { try Variadic<I>(context, combine: integer) }
            }
            return try type.withIntegerScalar(Make(context: context, integer: integer))!
        }
    }
}

/// ONNX `Min` (Min-8, -12, -13): the element-wise minimum of 1 to N broadcast inputs of one type:
/// float32 and double (NaN wins, as in onnxruntime), and from Min-12 int8–int64, uint8–uint64.
enum Min {
    static func minimum<F: FloatingPoint>(_ a: F, _ b: F) -> F { a < b || a.isNaN ? a : b }
    static let build = TypedElementwise.variadic(float: minimum, double: minimum,
                                                 integer: { Swift.min($0, $1) }, unsigned64: { Swift.min($0, $1) }, integerSince: 12)
}

/// ONNX `Max` (Max-8, -12, -13): the element-wise maximum of 1 to N broadcast inputs of one type:
/// float32 and double (NaN wins, as in onnxruntime), and from Max-12 int8–int64, uint8–uint64.
enum Max {
    static func maximum<F: FloatingPoint>(_ a: F, _ b: F) -> F { a > b || a.isNaN ? a : b }
    static let build = TypedElementwise.variadic(float: maximum, double: maximum,
                                                 integer: { Swift.max($0, $1) }, unsigned64: { Swift.max($0, $1) }, integerSince: 12)
}

/// ONNX `Sum` (Sum-8, -13), float32: the element-wise sum of 1 to N broadcast inputs, added in
/// input order.
enum Sum {
    static let build = TypedElementwise.variadic(float: { $0 + $1 })
}

/// ONNX `Mean` (Mean-8, -13), float32: the element-wise sum of 1 to N broadcast inputs, in input
/// order, divided by N.
enum Mean {
    static let build = TypedElementwise.variadic(float: { $0 + $1 }, finish: { $0 / Float($1) })
}
