import CMath

/// `com.microsoft` `QLinearSigmoid` and `QLinearLeakyRelu` (onnxruntime's contrib ops): a float
/// function of a quantized int8 or uint8 tensor, requantized:
/// y = saturate(round_half_even(f(x_scale · (x − x_zero)) / y_scale) + y_zero), f the logistic
/// function 1 / (1 + e^−v) or v ≥ 0 ? v : alpha · v (`alpha`, default 0.01). onnxruntime computes
/// the 256 results once (a table); so does this kernel per run. Inputs: X, X_scale, X_zero_point,
/// Y_scale, Y_zero_point; the zero points may be omitted (0); scales and zero points are scalars.
final class QLinearLookup: Operator {
    enum Function: Sendable { case sigmoid, leakyRelu(Float) }
    let function: Function
    let dataInputs: [Int]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    var checksInputTypes: Bool { true }
    let x: QuantizedScalar, y: QuantizedScalar
    let count: Int

    static let buildSigmoid: OperatorBuilder = { context throws(ModelError) in
        try context.checkAttributes([])
        return try make(context, .sigmoid)
    }

    static let buildLeakyRelu: OperatorBuilder = { context throws(ModelError) in
        try context.checkAttributes(["alpha"])
        return try make(context, .leakyRelu(try context.float("alpha", default: 0.01)))
    }

    private static func make(_ context: NodeContext, _ function: Function) throws(ModelError) -> QLinearLookup {
        let (type, x, y, dataInputs) = try QuantizedScalar.readOneInput(context, roles: ("X", "Y"))
        let shape = try context.shape(ofInput: 0)
        return QLinearLookup(function: function, dataInputs: dataInputs, outputShapes: [shape], outputTypes: [type],
                             x: x, y: y, count: shape.reduce(1, *))
    }

    @inline(__always)
    private func apply(_ value: Float) -> Float {
        switch function {
        case .sigmoid: 1 / (1 + Float(exp(Double(-value))))
        case let .leakyRelu(alpha): value >= 0 ? value : alpha * value
        }
    }

    /// The output byte of each input byte (indexed by its bit pattern), this kernel's arithmetic:
    /// the fast path's table (`quantizedLookupStep`).
    func results(_ inputs: [UnsafePointer<Float>]) -> [UInt8] {
        let type = outputTypes[0], range = Quantization.range(type)
        let scaleX = x.scale.value(inputs, 0), zeroX = x.zero.value(inputs, 0)
        let scaleY = y.scale.value(inputs, 0), zeroY = y.zero.value(inputs, 0)
        return (0..<256).map { byte in
            let q = type == .int8 ? Int32(Int8(truncatingIfNeeded: byte)) : Int32(byte)
            let value = apply(scaleX * Float(q - zeroX))
            return UInt8(truncatingIfNeeded: Quantization.quantize(value, scale: scaleY, zeroPoint: zeroY, range))
        }
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let type = outputTypes[0], range = Quantization.range(type)
        let source = UnsafeRawPointer(inputs[0]), target = UnsafeMutableRawPointer(outputs[0])
        let scaleX = x.scale.value(inputs, 0), zeroX = x.zero.value(inputs, 0)
        let scaleY = y.scale.value(inputs, 0), zeroY = y.zero.value(inputs, 0)
        for i in 0..<count {
            let value = apply(scaleX * Float(Quantization.load(source, i, type) - zeroX))
            Quantization.store(Quantization.quantize(value, scale: scaleY, zeroPoint: zeroY, range), target, i, type)
        }
    }

    init(function: Function, dataInputs: [Int], outputShapes: [[Int]], outputTypes: [ElementType], x: QuantizedScalar,
         y: QuantizedScalar, count: Int) {
        self.function = function
        self.dataInputs = dataInputs
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.x = x
        self.y = y
        self.count = count
    }
}
