/// ONNX `QLinearMatMul` (10, 21): numpy `matmul` of quantized int8 or uint8 operands, requantized:
/// y = saturate(round_half_even(float32(Σ_p (a − a_zero) · (b − b_zero)) · m) + y_zero_point),
/// m = a_scale[i] · b_scale[j] / y_scale in float32, as onnxruntime computes it. a's scale and
/// zero point are scalars or one per row, b's scalars or one per column, y's scalars; the scales
/// float32 or float16 (21); y has y_zero_point's type. The sums wrap in int32.
final class QLinearMatMul: Operator {
    let dataInputs = [0, 1, 2, 3, 4, 5, 6, 7]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    var checksInputTypes: Bool { true }
    let product: MatrixProductShape
    let aType: ElementType, bType: ElementType
    let aScale: ScaleParameter, bScale: ScaleParameter, yScale: ScaleParameter
    let aZero: ZeroPoint, bZero: ZeroPoint, yZero: ZeroPoint

    var multiplyAccumulates: Int { product.multiplyAccumulates }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 8, 8)
        try context.checkAttributes([])
        let aType = try context.requireType(ofInput: 0, in: [.int8, .uint8])
        let bType = try context.requireType(ofInput: 3, in: [.int8, .uint8])
        let yType = try context.requireType(ofInput: 7, in: [.int8, .uint8])
        let product = try MatrixProductShape(context, a: 0, b: 3)
        let (m, n) = (product.rows, product.columns)
        func zero(_ input: Int, _ type: ElementType, _ count: Int, _ role: String) throws(ModelError) -> ZeroPoint {
            try ZeroPoint.read(context, input: input, buffer: input, operandType: type, perIndexCount: count, role: role)
        }
        return QLinearMatMul(outputShapes: [product.outputShape], outputTypes: [yType], product: product, aType: aType, bType: bType,
                             aScale: try ScaleParameter.read(context, input: 1, buffer: 1, perIndexCount: m, role: "a_scale"),
                             bScale: try ScaleParameter.read(context, input: 4, buffer: 4, perIndexCount: n, role: "b_scale"),
                             yScale: try ScaleParameter.read(context, input: 6, buffer: 6, perIndexCount: nil, role: "y_scale"),
                             aZero: try zero(2, aType, m, "a_zero_point"), bZero: try zero(5, bType, n, "b_zero_point"),
                             yZero: try zero(7, yType, 1, "y_zero_point"))
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let y = UnsafeMutableRawPointer(outputs[0]), type = outputTypes[0], range = Quantization.range(type)
        let outputScale = yScale.value(inputs, 0), outputZero = yZero.value(inputs, 0), n = product.columns
        product.forEachSum(inputs, a: 0, aType: aType, aZero: aZero, b: 3, bType: bType, bZero: bZero) { index, column, sum in
            let row = (index / n) % product.rows
            let multiplier = aScale.value(inputs, row) * bScale.value(inputs, column) / outputScale
            Quantization.store(Quantization.requantize(sum, multiplier: multiplier, zeroPoint: outputZero, range), y, index, type)
        }
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], product: MatrixProductShape, aType: ElementType,
         bType: ElementType, aScale: ScaleParameter, bScale: ScaleParameter, yScale: ScaleParameter, aZero: ZeroPoint,
         bZero: ZeroPoint, yZero: ZeroPoint) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.product = product
        self.aType = aType
        self.bType = bType
        self.aScale = aScale
        self.bScale = bScale
        self.yScale = yScale
        self.aZero = aZero
        self.bZero = bZero
        self.yZero = yZero
    }
}
