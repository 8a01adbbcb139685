/// `com.microsoft` `QLinearAdd` and `QLinearMul` (onnxruntime's contrib ops): a numpy-broadcast
/// sum or product of two quantized tensors of one type (int8 or uint8), requantized, exactly as
/// onnxruntime's kernels compute them (float32 throughout):
/// - Add, as MLAS's `MlasQLinearAdd` (AVX2) computes it: with the ratios r_a = a_scale / c_scale and
///   r_b = b_scale / c_scale and the constant k = c_zero − fma(r_a, a_zero, r_b · b_zero),
///   c = saturate(round_half_even(fma(a, r_a, fma(b, r_b, k)))) on the raw 8-bit values, the roles
///   of a and b swapped where A is one value per run of B's innermost axis (onnxruntime's
///   broadcast passes the varying operand first). The plain formula
///   round((a_scale · (a − a_zero) + b_scale · (b − b_zero)) / c_scale) + c_zero differs from it
///   by one on ~7 elements in a million (2 of 2,640 of a RegNet block's sum);
/// - Mul: c = saturate(round_half_even(float32((a − a_zero) · (b − b_zero)) · (a_scale · b_scale / c_scale)) + c_zero).
/// Inputs: A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point; the zero
/// points may be omitted (0); scales and zero points are scalars.
final class QLinearBinary: Operator {
    enum Kind: Sendable { case add, mul }
    let kind: Kind
    let dataInputs: [Int]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    var checksInputTypes: Bool { true }
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
            let swapped = Self.addsBFirst(loop)
            let (ratioA, ratioB) = (scaleA / scaleC, scaleB / scaleC)
            let (ratioF, zeroF, ratioS, zeroS) = swapped ? (ratioB, zeroB, ratioA, zeroA) : (ratioA, zeroA, ratioB, zeroB)
            let constant = Self.addConstant(ratioFirst: ratioF, zeroFirst: zeroF, ratioSecond: ratioS, zeroSecond: zeroS, zeroC: zeroC)
            loop.forEach { out, i, j in
                let valueA = Float(Quantization.load(x, i, type)), valueB = Float(Quantization.load(w, j, type))
                let (first, second) = swapped ? (valueB, valueA) : (valueA, valueB)
                let sum = constant.addingProduct(second, ratioS).addingProduct(first, ratioF)
                Quantization.store(Quantization.saturate(sum, zeroPoint: 0, range), y, out, type)
            }
        case .mul:
            let multiplier = scaleA * scaleB / scaleC
            loop.forEach { out, i, j in
                let product = (Quantization.load(x, i, type) - zeroA) * (Quantization.load(w, j, type) - zeroB)
                Quantization.store(Quantization.requantize(product, multiplier: multiplier, zeroPoint: zeroC, range), y, out, type)
            }
        }
    }

    /// Whether onnxruntime's QLinearAdd passes B as its kernel's first operand: A is one value per
    /// run of the innermost axis longer than 1 (its stride there 0) while B varies along it.
    static func addsBFirst(_ loop: StridedLoop) -> Bool {
        guard let axis = loop.extents.indices.last(where: { loop.extents[$0] > 1 }) else { return false }
        return loop.strides[1][axis] == 0 && loop.strides[2][axis] != 0
    }

    /// MLAS's constant part of a QLinearAdd: c_zero − fma(r_first, zero_first, r_second · zero_second)
    /// (the contraction onnxruntime's compiler makes of c_zero − (r_a·a_zero + r_b·b_zero)).
    static func addConstant(ratioFirst: Float, zeroFirst: Int32, ratioSecond: Float, zeroSecond: Int32, zeroC: Int32) -> Float {
        Float(zeroC) - (ratioSecond * Float(zeroSecond)).addingProduct(ratioFirst, Float(zeroFirst))
    }

    init(kind: Kind, dataInputs: [Int], outputShapes: [[Int]], outputTypes: [ElementType], a: QuantizedScalar,
         b: QuantizedScalar, c: QuantizedScalar, aBuffer: Int, bBuffer: Int, loop: StridedLoop) {
        self.kind = kind
        self.dataInputs = dataInputs
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.a = a
        self.b = b
        self.c = c
        self.aBuffer = aBuffer
        self.bBuffer = bBuffer
        self.loop = loop
    }
}
