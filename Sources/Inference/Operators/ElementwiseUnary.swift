/// An element-wise function of one tensor; the output has the input's shape.
///
/// `kind` names the ONNX op when a fast path may pick a vector kernel for it (`other` for the ops
/// it has none for) and `function` is the scalar definition from the spec, used by the reference
/// kernel.
final class ElementwiseUnary: Operator {
    enum Kind: Sendable, Equatable {
        case relu
        case sigmoid
        case hardSwish
        case hardSigmoid(alpha: Float, beta: Float)
        case clip(minimum: Float, maximum: Float)
        case erf
        /// Gelu with approximate "none".
        case gelu
        case other
    }

    let kind: Kind
    let function: @Sendable (Float) -> Float
    let dataInputs = [0]
    let outputShapes: [[Int]]
    let count: Int

    /// A builder for a one-input, one-output op with the given attributes.
    static func builder(inputs maximum: Int = 1, attributes: Set<String> = [],
                        _ make: @escaping @Sendable (NodeContext) throws(ModelError) -> (Kind, @Sendable (Float) -> Float)) -> OperatorBuilder {
        return { context throws(ModelError) in
            try context.checkArity(inputs: 1, maximum)
            try context.checkAttributes(attributes)
            let shape = try context.shape(ofInput: 0)
            let (kind, function) = try make(context)
            return ElementwiseUnary(kind: kind, function: function, outputShapes: [shape], count: shape.reduce(1, *))
        }
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = inputs[0], y = outputs[0]
        for i in 0..<count { y[i] = function(x[i]) }
    }

    init(kind: Kind, function: @escaping @Sendable (Float) -> Float, outputShapes: [[Int]], count: Int) {
        self.kind = kind
        self.function = function
        self.outputShapes = outputShapes
        self.count = count
    }
}
