/// `com.microsoft` `QLinearAdd` and `QLinearMul` (onnxruntime's contrib ops): a numpy-broadcast
/// sum or product of two quantized tensors of one type (int8 or uint8), requantized, exactly as
/// onnxruntime's kernels compute them (float32 throughout):
/// - Add: c = saturate(round_half_even((a_scale · (a − a_zero) + b_scale · (b − b_zero)) / c_scale) + c_zero);
/// - Mul: c = saturate(round_half_even(float32((a − a_zero) · (b − b_zero)) · (a_scale · b_scale / c_scale)) + c_zero).
/// Inputs: A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point; the zero
/// points may be omitted (0); scales and zero points are scalars.
struct QLinearBinary: Operator {
    enum Kind: Sendable { case add, mul }
    let kind: Kind
    let dataInputs: [Int]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    static var checksInputTypes: Bool { true }
    let a: QuantizedScalar, b: QuantizedScalar, c: QuantizedScalar
    /// Buffer positions of A and B.
    let aBuffer: Int, bBuffer: Int
    let loop: StridedLoop

    static let buildAdd: OperatorBuilder = { context throws(ModelError) in try make(context, .add) }
    static let buildMul: OperatorBuilder = { context throws(ModelError) in try make(context, .mul) }

    private static func make(_ context: NodeContext, _ kind: Kind) throws(ModelError) -> QLinearBinary {
        try MicrosoftOperators.checkInputs(context, count: 7...8, required: [0, 1, 3, 4, 6])
        try context.checkAttributes([])
        let type = try context.requireType(ofInput: 0, in: [.int8, .uint8])
        guard try context.type(ofInput: 3) == type else {
            throw context.error(.invalidGraph, "A has type \(type) but B \(try context.type(ofInput: 3)); they must agree")
        }
        var dataInputs = [0]
        let (a, aInputs) = try QuantizedScalar.read(context, scaleInput: 1, type: type, buffer: dataInputs.count, role: "A")
        dataInputs += aInputs
        let bBuffer = dataInputs.count
        dataInputs.append(3)
        let (b, bInputs) = try QuantizedScalar.read(context, scaleInput: 4, type: type, buffer: dataInputs.count, role: "B")
        dataInputs += bInputs
        let (c, cInputs) = try QuantizedScalar.read(context, scaleInput: 6, type: type, buffer: dataInputs.count, role: "C")
        dataInputs += cInputs
        let shapeA = try context.shape(ofInput: 0), shapeB = try context.shape(ofInput: 3)
        guard let shape = Shapes.broadcast(shapeA, shapeB) else {
            throw context.error(.invalidShape, "shapes \(shapeA) and \(shapeB) cannot be broadcast")
        }
        guard shape.count <= StridedLoop.maximumRank else {
            throw context.error(.unsupported, "rank \(shape.count) is above the supported \(StridedLoop.maximumRank)")
        }
        let loop = StridedLoop(shape: shape, strides: [Shapes.strides(shape), Shapes.broadcastStrides(shapeA, to: shape),
                                                       Shapes.broadcastStrides(shapeB, to: shape)])
        return QLinearBinary(kind: kind, dataInputs: dataInputs, outputShapes: [shape], outputTypes: [type],
                             a: a, b: b, c: c, aBuffer: 0, bBuffer: bBuffer, loop: loop)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let type = outputTypes[0], range = Quantization.range(type)
        let x = UnsafeRawPointer(inputs[aBuffer]), w = UnsafeRawPointer(inputs[bBuffer]), y = UnsafeMutableRawPointer(outputs[0])
        let scaleA = a.scale.value(inputs, 0), scaleB = b.scale.value(inputs, 0), scaleC = c.scale.value(inputs, 0)
        let zeroA = a.zero.value(inputs, 0), zeroB = b.zero.value(inputs, 0), zeroC = c.zero.value(inputs, 0)
        switch kind {
        case .add:
            loop.forEach { out, i, j in
                let valueA = scaleA * Float(Quantization.load(x, i, type) - zeroA)
                let valueB = scaleB * Float(Quantization.load(w, j, type) - zeroB)
                Quantization.store(Quantization.quantize(valueA + valueB, scale: scaleC, zeroPoint: zeroC, range), y, out, type)
            }
        case .mul:
            let multiplier = scaleA * scaleB / scaleC
            loop.forEach { out, i, j in
                let product = (Quantization.load(x, i, type) - zeroA) * (Quantization.load(w, j, type) - zeroB)
                Quantization.store(Quantization.requantize(product, multiplier: multiplier, zeroPoint: zeroC, range), y, out, type)
            }
        }
    }
}
