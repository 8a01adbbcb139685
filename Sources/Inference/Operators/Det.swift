/// ONNX `Det` (11): the determinant of each square matrix of `X` [..., M, M] (float32, double or
/// float16), by Gaussian elimination with partial pivoting in double; the output has X's leading
/// dims (a scalar for one matrix). A singular matrix gives 0 (or the rounding residue).
final class Det: Operator {
    var checksInputTypes: Bool { true }

    let dataInputs = [0]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    let size: Int, count: Int

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes([])
        let type = try context.requireType(ofInput: 0, in: [.float32, .double, .float16])
        let x = try context.shape(ofInput: 0)
        guard x.count >= 2, x[x.count - 1] == x[x.count - 2] else {
            throw context.error(.invalidShape, "input 0 ('X') has shape \(x); it must be [..., M, M]")
        }
        let size = x[x.count - 1]
        guard size <= 4096 else { throw context.error(.unsupported, "matrices of \(size)x\(size) are above the supported 4096x4096") }
        let leading = Array(x.dropLast(2))
        return Det(outputShapes: [leading], outputTypes: [type], size: size, count: leading.reduce(1, *))
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = UnsafeRawPointer(inputs[0]), y = UnsafeMutableRawPointer(outputs[0]), type = outputTypes[0]
        let m = size
        // One matrix at a time in double, in temporary storage (on the stack when it is small).
        withUnsafeTemporaryAllocation(of: Double.self, capacity: max(1, m * m)) { buffer in
            let a = buffer.baseAddress!
            eliminate(a, x, y, type)
        }
    }

    private func eliminate(_ a: UnsafeMutablePointer<Double>, _ x: UnsafeRawPointer, _ y: UnsafeMutableRawPointer, _ type: ElementType) {
        let m = size
        for matrix in 0..<count {
            for i in 0..<(m * m) { a[i] = TensorElements.double(x, at: matrix * m * m + i, type) }
            var determinant = 1.0
            for column in 0..<m {
                var pivot = column
                for row in (column + 1)..<m where abs(a[row * m + column]) > abs(a[pivot * m + column]) { pivot = row }
                if a[pivot * m + column] == 0 { determinant = 0; break }
                if pivot != column {
                    for k in 0..<m { swap(&a[pivot * m + k], &a[column * m + k]) }
                    determinant = -determinant
                }
                let p = a[column * m + column]
                determinant *= p
                for row in (column + 1)..<m {
                    let factor = a[row * m + column] / p
                    for k in column..<m { a[row * m + k] -= factor * a[column * m + k] }
                }
            }
            TensorElements.setDouble(determinant, y, at: matrix, type)
        }
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], size: Int, count: Int) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.size = size
        self.count = count
    }
}
