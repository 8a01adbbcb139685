/// ONNX `GlobalAveragePool` (GlobalAveragePool-1): the mean over all spatial dimensions;
/// `[N, C, d1, d2, ...]` → `[N, C, 1, 1, ...]`.
final class GlobalAveragePool: Operator {
    let dataInputs = [0]
    let outputShapes: [[Int]]
    let planes: Int
    let planeSize: Int

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes([])
        let x = try context.shape(ofInput: 0)
        guard x.count >= 3 else { throw context.error(.invalidShape, "input must have rank 3 or more, got \(x)") }
        let planeSize = x[2...].reduce(1, *)
        guard planeSize > 0 else { throw context.error(.invalidShape, "input \(x) has an empty spatial extent") }
        return GlobalAveragePool(outputShapes: [[x[0], x[1]] + Array(repeating: 1, count: x.count - 2)],
                                 planes: x[0] * x[1], planeSize: planeSize)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = inputs[0], y = outputs[0]
        for p in 0..<planes {
            let plane = x + p * planeSize
            var sum: Double = 0
            for i in 0..<planeSize { sum += Double(plane[i]) }
            y[p] = Float(sum / Double(planeSize))
        }
    }

    init(outputShapes: [[Int]], planes: Int, planeSize: Int) {
        self.outputShapes = outputShapes
        self.planes = planes
        self.planeSize = planeSize
    }
}
