/// A binary element-wise op with numpy broadcasting (up to rank 6).
///
/// The output has the broadcast shape; each operand is read through strides that are 0 along
/// its broadcast dimensions.
final class ElementwiseBinary: Operator {
    enum Kind: Sendable, Equatable { case add, sub, mul, div, prelu }

    let kind: Kind
    let function: @Sendable (Float, Float) -> Float
    let dataInputs = [0, 1]
    let outputShapes: [[Int]]
    let loop: StridedLoop

    /// A builder for `kind`; `unidirectional` requires the output shape to equal input 0's (PRelu).
    static func builder(_ kind: Kind, unidirectional: Bool = false,
                        _ function: @escaping @Sendable (Float, Float) -> Float) -> OperatorBuilder {
        return { context throws(ModelError) in
            try context.checkArity(inputs: 2, 2)
            try context.checkAttributes([])
            let a = try context.shape(ofInput: 0), b = try context.shape(ofInput: 1)
            guard let shape = Shapes.broadcast(a, b), !unidirectional || shape == a else {
                throw context.error(.invalidShape, "shapes \(a) and \(b) cannot be broadcast\(unidirectional ? " to the first" : "")")
            }
            guard shape.count <= StridedLoop.maximumRank else {
                throw context.error(.unsupported, "rank \(shape.count) is above the supported \(StridedLoop.maximumRank)")
            }
            let loop = StridedLoop(shape: shape, strides: [Shapes.strides(shape), Shapes.broadcastStrides(a, to: shape),
                                                           Shapes.broadcastStrides(b, to: shape)])
            return ElementwiseBinary(kind: kind, function: function, outputShapes: [shape], loop: loop)
        }
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let a = inputs[0], b = inputs[1], y = outputs[0]
        let function = self.function
        loop.forEach { out, i, j in y[out] = function(a[i], b[j]) }
    }

    /// A builder for Add, Sub, Mul or Div: float32 inputs through `builder(kind, float)` (the
    /// fast path's view of them), double inputs through `double` (computed in double), integer
    /// inputs of one type in `integerTypes` through `integer`, computing in Int64 and truncating to
    /// the type, and uint64 through `unsigned64` when given.
    static func arithmetic(_ kind: Kind, integerTypes: Set<ElementType> = ElementSets.integers,
                           float: @escaping @Sendable (Float, Float) -> Float,
                           double: @escaping @Sendable (Double, Double) -> Double,
                           integer: @escaping @Sendable (Int64, Int64) -> Int64,
                           unsigned64: (@Sendable (UInt64, UInt64) -> UInt64)? = nil) -> OperatorBuilder {
        let floatBuilder = builder(kind, float)
        let types = unsigned64 == nil ? integerTypes : integerTypes.union([.uint64])
        return { context throws(ModelError) in
            try context.checkArity(inputs: 2, 2)
            guard try context.commonType(ofInputs: [0, 1], in: types.union([.float32, .double])) != .float32 else {
                return try floatBuilder(context)
            }
            try context.checkAttributes([])
            return try TypedElementwise.binary(context, integerTypes: integerTypes, float: nil, double: double, integer: integer,
                                               unsigned64: unsigned64)
        }
    }

    init(kind: Kind, function: @escaping @Sendable (Float, Float) -> Float, outputShapes: [[Int]], loop: StridedLoop) {
        self.kind = kind
        self.function = function
        self.outputShapes = outputShapes
        self.loop = loop
    }
}
