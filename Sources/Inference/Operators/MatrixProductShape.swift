/// The shapes of a numpy `matmul` (MatMul and the integer products): a 1-D first operand is a row
/// vector and a 1-D second operand a column vector (the added dimension is removed from the
/// output); the batch dimensions broadcast, rank ≤ `StridedLoop.maximumRank`.
struct MatrixProductShape: Sendable {
    let rows: Int, inner: Int, columns: Int
    /// Over the broadcast batch: the first element of each output, A and B matrix.
    let batches: StridedLoop
    let batchCount: Int
    let outputShape: [Int]

    var multiplyAccumulates: Int { batchCount * rows * inner * columns }

    init(_ context: NodeContext, a: Int, b: Int) throws(ModelError) {
        let a = try context.shape(ofInput: a), b = try context.shape(ofInput: b)
        guard !a.isEmpty, !b.isEmpty else { throw context.error(.invalidShape, "the operands must have rank ≥ 1, got \(a) and \(b)") }
        let matrixA = a.count == 1 ? [1] + a : a, matrixB = b.count == 1 ? b + [1] : b
        let (m, k) = (matrixA[matrixA.count - 2], matrixA[matrixA.count - 1])
        let (kB, n) = (matrixB[matrixB.count - 2], matrixB[matrixB.count - 1])
        let batchA = Array(matrixA.dropLast(2)), batchB = Array(matrixB.dropLast(2))
        guard k == kB, let batch = Shapes.broadcast(batchA, batchB) else {
            throw context.error(.invalidShape, "shapes \(a) and \(b) cannot be multiplied")
        }
        guard batch.count <= StridedLoop.maximumRank else {
            throw context.error(.unsupported, "\(batch.count) batch dimensions are above the supported \(StridedLoop.maximumRank)")
        }
        rows = m
        inner = k
        columns = n
        outputShape = batch + (a.count == 1 ? [] : [m]) + (b.count == 1 ? [] : [n])
        batches = StridedLoop(shape: batch, strides: [Shapes.strides(batch).map { $0 * m * n },
                                                      Shapes.broadcastStrides(batchA, to: batch).map { $0 * m * k },
                                                      Shapes.broadcastStrides(batchB, to: batch).map { $0 * k * n }])
        batchCount = batch.reduce(1, *)
    }
}
