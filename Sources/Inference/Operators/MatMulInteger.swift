/// ONNX `MatMulInteger` (10): numpy `matmul` of int8 or uint8 operands after subtracting their
/// zero points, into int32: y[i, j] = Σ_p (a[i, p] − a_zero_point[i]) · (b[p, j] − b_zero_point[j]).
/// a_zero_point is a scalar or one per row of A, b_zero_point a scalar or one per column of B;
/// each has its operand's type. The sums wrap in int32.
final class MatMulInteger: Operator {
    let dataInputs: [Int]
    let outputShapes: [[Int]]
    var outputTypes: [ElementType] { [.int32] }
    var checksInputTypes: Bool { true }
    let product: MatrixProductShape
    let aType: ElementType, bType: ElementType
    let aZero: ZeroPoint, bZero: ZeroPoint

    var multiplyAccumulates: Int { product.multiplyAccumulates }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 4)
        try context.checkAttributes([])
        let aType = try context.requireType(ofInput: 0, in: [.int8, .uint8])
        let bType = try context.requireType(ofInput: 1, in: [.int8, .uint8])
        let product = try MatrixProductShape(context, a: 0, b: 1)
        var dataInputs = [0, 1]
        let aZero = try ZeroPoint.read(context, input: 2, buffer: dataInputs.count, operandType: aType,
                                                       perIndexCount: product.rows, role: "a_zero_point")
        if context.hasInput(2) { dataInputs.append(2) }
        let bZero = try ZeroPoint.read(context, input: 3, buffer: dataInputs.count, operandType: bType,
                                                       perIndexCount: product.columns, role: "b_zero_point")
        if context.hasInput(3) { dataInputs.append(3) }
        return MatMulInteger(dataInputs: dataInputs, outputShapes: [product.outputShape], product: product,
                             aType: aType, bType: bType, aZero: aZero, bZero: bZero)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let y = UnsafeMutableRawPointer(outputs[0])
        product.forEachSum(inputs, a: 0, aType: aType, aZero: aZero, b: 1, bType: bType, bZero: bZero) { index, _, sum in
            y.storeBytes(of: sum, toByteOffset: 4 * index, as: Int32.self)
        }
    }

    init(dataInputs: [Int], outputShapes: [[Int]], product: MatrixProductShape, aType: ElementType, bType: ElementType,
         aZero: ZeroPoint, bZero: ZeroPoint) {
        self.dataInputs = dataInputs
        self.outputShapes = outputShapes
        self.product = product
        self.aType = aType
        self.bType = bType
        self.aZero = aZero
        self.bZero = bZero
    }
}
