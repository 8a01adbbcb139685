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

    /// Summed as onnxruntime's CPU kernel sums (MLAS's `MlasPoolGlobalKernel`), so the means are
    /// its bits: four float32 sums, sum j over the elements 4k + j of the plane's runs of four,
    /// added as (sum0 + sum2) + (sum1 + sum3), then the last planeSize mod 4 elements in order,
    /// then divided by planeSize. (A float64 sum, rounded once, differed from it on about half
    /// the means of a 28x28 map; a DynamicQuantizeLinear reading them moved quanta.)
    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = inputs[0], y = outputs[0]
        let runs = planeSize / 4 * 4
        for p in 0..<planes {
            let plane = x + p * planeSize
            var sums = SIMD4<Float>()
            for i in 0..<runs { sums[i % 4] += plane[i] }
            var sum = (sums[0] + sums[2]) + (sums[1] + sums[3])
            for i in runs..<planeSize { sum += plane[i] }
            y[p] = sum / Float(planeSize)
        }
    }

    init(outputShapes: [[Int]], planes: Int, planeSize: Int) {
        self.outputShapes = outputShapes
        self.planes = planes
        self.planeSize = planeSize
    }
}
