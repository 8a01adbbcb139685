/// ONNX `MatMul` (versions 1–13): numpy `matmul`. A 1-D first operand is a row vector and a 1-D
/// second operand a column vector (the added dimension is removed from the output); the batch
/// dimensions (all but the last two, rank ≤ 6) broadcast as numpy does. Float32 and double sum
/// each output in Double; int32, uint32, int64 and uint64 multiply and add wrapping as the type
/// does.
final class MatMul: Operator {
    let type: ElementType
    let dataInputs = [0, 1]
    let outputShapes: [[Int]]
    var outputTypes: [ElementType] { [type] }
    var checksInputTypes: Bool { true }
    let rows: Int, inner: Int, columns: Int
    /// Over the broadcast batch: the first element of each output, A and B matrix.
    let batches: StridedLoop
    let batchCount: Int

    var multiplyAccumulates: Int { batchCount * rows * inner * columns }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 2)
        try context.checkAttributes([])
        let type = try context.requireType(ofInput: 0, in: [.float32, .double, .int32, .uint32, .int64, .uint64])
        guard try context.type(ofInput: 1) == type else {
            throw context.error(.invalidGraph, "the operands have element types \(type) and \(try context.type(ofInput: 1))")
        }
        let shape = try MatrixProductShape(context, a: 0, b: 1)
        return MatMul(type: type, outputShapes: [shape.outputShape], rows: shape.rows, inner: shape.inner,
                      columns: shape.columns, batches: shape.batches, batchCount: shape.batchCount)
    }

    /// y[b, i, j] = Σ_k a[b, i, k] · b[b, k, j] for every batch position b.
    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let (m, k, n) = (rows, inner, columns)
        if type == .float32 {
            runFloat(inputs[0], inputs[1], outputs[0])
            return
        }
        if type == .double {
            runFloat(UnsafeRawPointer(inputs[0]).assumingMemoryBound(to: Double.self),
                     UnsafeRawPointer(inputs[1]).assumingMemoryBound(to: Double.self),
                     UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: Double.self))
            return
        }
        let a = UnsafeRawPointer(inputs[0]), b = UnsafeRawPointer(inputs[1]), y = UnsafeMutableRawPointer(outputs[0])
        let type = self.type
        batches.forEach { yBase, aBase, bBase in
            for i in 0..<m {
                for j in 0..<n {
                    var sum: Int64 = 0
                    for p in 0..<k {
                        sum &+= TensorElements.integer(a, at: aBase + i * k + p, type) &* TensorElements.integer(b, at: bBase + p * n + j, type)
                    }
                    TensorElements.setInteger(sum, y, at: yBase + i * n + j, type)
                }
            }
        }
    }

    private func runFloat<F: FloatScalar>(_ a: UnsafePointer<F>, _ b: UnsafePointer<F>, _ y: UnsafeMutablePointer<F>) {
        let (m, k, n) = (rows, inner, columns)
        batches.forEach { yBase, aBase, bBase in
            for i in 0..<m {
                for j in 0..<n {
                    var sum = 0.0
                    for p in 0..<k { sum += Double(a[aBase + i * k + p]) * Double(b[bBase + p * n + j]) }
                    y[yBase + i * n + j] = F(sum)
                }
            }
        }
    }

    init(type: ElementType, outputShapes: [[Int]], rows: Int, inner: Int, columns: Int, batches: StridedLoop,
         batchCount: Int) {
        self.type = type
        self.outputShapes = outputShapes
        self.rows = rows
        self.inner = inner
        self.columns = columns
        self.batches = batches
        self.batchCount = batchCount
    }
}
