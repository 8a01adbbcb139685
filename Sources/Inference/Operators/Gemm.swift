/// ONNX `Gemm` (versions 7–13): Y = alpha · A′ · B′ + beta · C, where A′ is A `[M, K]` (or its
/// transpose when `transA` = 1) and B′ is B `[K, N]` (or its transpose when `transB` = 1); C
/// broadcasts unidirectionally to `[M, N]` and is optional from version 11 (required before).
/// Float32; each output is computed in Double.
final class Gemm: Operator {
    let dataInputs: [Int]
    let outputShapes: [[Int]]
    let rows: Int, inner: Int, columns: Int
    let alpha: Double, beta: Double
    /// Strides of A′ and B′ along (row, column) in A's and B's storage.
    let aStrides: (Int, Int), bStrides: (Int, Int)
    /// Strides of C along (row, column) of the output (0 along broadcast dimensions), or nil without C.
    let cStrides: (Int, Int)?

    var multiplyAccumulates: Int { rows * inner * columns }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: context.opVersion >= 11 ? 2 : 3, 3)
        try context.checkAttributes(["alpha", "beta", "transA", "transB"])
        let a = try context.shape(ofInput: 0), b = try context.shape(ofInput: 1)
        guard a.count == 2, b.count == 2 else { throw context.error(.invalidShape, "A and B must be matrices, got \(a) and \(b)") }
        let transA = try context.int("transA", default: 0, in: 0...1) == 1
        let transB = try context.int("transB", default: 0, in: 0...1) == 1
        let (m, k) = transA ? (a[1], a[0]) : (a[0], a[1])
        let (kB, n) = transB ? (b[1], b[0]) : (b[0], b[1])
        guard k == kB else { throw context.error(.invalidShape, "A′ is [\(m), \(k)] and B′ is [\(kB), \(n)]: inner dimensions differ") }
        var cStrides: (Int, Int)?
        if context.hasInput(2) {
            let c = try context.shape(ofInput: 2)
            guard c.count <= 2, Shapes.broadcast(c, [m, n]) == [m, n] else {
                throw context.error(.invalidShape, "C of shape \(c) does not broadcast to [\(m), \(n)]")
            }
            let strides = Shapes.broadcastStrides(c, to: [m, n])
            cStrides = (strides[0], strides[1])
        }
        return Gemm(dataInputs: cStrides == nil ? [0, 1] : [0, 1, 2], outputShapes: [[m, n]], rows: m, inner: k, columns: n,
                    alpha: Double(try context.float("alpha", default: 1)), beta: Double(try context.float("beta", default: 1)),
                    aStrides: transA ? (1, m) : (k, 1), bStrides: transB ? (1, k) : (n, 1), cStrides: cStrides)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let a = inputs[0], b = inputs[1], y = outputs[0]
        let (k, n) = (inner, columns)
        let (aRow, aColumn) = aStrides, (bRow, bColumn) = bStrides
        let c: UnsafePointer<Float>? = cStrides == nil ? nil : inputs[2]
        let (cRow, cColumn) = cStrides ?? (0, 0)
        for i in 0..<rows {
            for j in 0..<n {
                var sum = 0.0
                for p in 0..<k { sum += Double(a[i * aRow + p * aColumn]) * Double(b[p * bRow + j * bColumn]) }
                let bias = c.map { beta * Double($0[i * cRow + j * cColumn]) } ?? 0
                y[i * n + j] = Float(alpha * sum + bias)
            }
        }
    }

    init(dataInputs: [Int], outputShapes: [[Int]], rows: Int, inner: Int, columns: Int, alpha: Double, beta: Double,
         aStrides: (Int, Int), bStrides: (Int, Int), cStrides: (Int, Int)?) {
        self.dataInputs = dataInputs
        self.outputShapes = outputShapes
        self.rows = rows
        self.inner = inner
        self.columns = columns
        self.alpha = alpha
        self.beta = beta
        self.aStrides = aStrides
        self.bStrides = bStrides
        self.cStrides = cStrides
    }
}
