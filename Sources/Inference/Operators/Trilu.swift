/// ONNX `Trilu` (version 14): the upper (`upper` = 1, the default) or lower triangle of each of
/// the last two dims' matrices of x, the rest zeros. The optional constant input `k` (a scalar or
/// one-element int64 tensor, default 0) moves the diagonal: upper keeps column − row ≥ k, lower
/// keeps column − row ≤ k. Any element type.
final class Trilu: Operator {
    let dataInputs = [0]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    let upper: Bool, k: Int
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 2)
        try context.checkAttributes(["upper"])
        let x = try context.shape(ofInput: 0)
        guard x.count >= 2 else { throw context.error(.invalidShape, "input must have rank 2 or more, not \(x.count)") }
        var k = 0
        if context.hasInput(1) {
            guard let values = try context.constantIntegers(1, "k"), values.count == 1 else {
                throw context.error(.invalidShape, "input 1 ('k') must hold one integer")
            }
            k = Int(clamping: values[0])
        }
        return Trilu(outputShapes: [x], outputTypes: [try context.type(ofInput: 0)],
                     upper: try context.int("upper", default: 1, in: 0...1) == 1, k: k)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = UnsafeRawPointer(inputs[0]), y = UnsafeMutableRawPointer(outputs[0])
        let shape = outputShapes[0], rows = shape[shape.count - 2], columns = shape[shape.count - 1]
        let size = outputTypes[0].byteSize, matrices = shape.dropLast(2).reduce(1, *)
        for m in 0..<matrices {
            for row in 0..<rows {
                let offset = ((m * rows + row) * columns) * size
                for column in 0..<columns {
                    let keep = upper ? column - row >= k : column - row <= k
                    let at = offset + column * size
                    if keep {
                        (y + at).copyMemory(from: x + at, byteCount: size)
                    } else {
                        (y + at).initializeMemory(as: UInt8.self, repeating: 0, count: size)
                    }
                }
            }
        }
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], upper: Bool, k: Int) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.upper = upper
        self.k = k
    }
}
