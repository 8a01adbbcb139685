/// ONNX `LpNormalization` (versions 1 and 22, float32, rank ≤ 6): x divided by its L1 (`p` = 1)
/// or L2 (`p` = 2, the default) norm along `axis` (default −1); a zero norm gives 0. The norm is
/// summed in Double.
final class LpNormalization: Operator {
    let dataInputs = [0]
    let outputShapes: [[Int]]
    let geometry: ReductionGeometry
    let squares: Bool

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes(["axis", "p"])
        let x = try context.shape(ofInput: 0)
        guard x.count <= StridedLoop.maximumRank else { throw context.error(.unsupported, "rank \(x.count) is above 6") }
        let axis = try context.axis(try context.int("axis", default: -1), rank: x.count, attribute: "axis")
        let p = try context.int("p", default: 2, in: 1...2)
        return LpNormalization(outputShapes: [x], geometry: ReductionGeometry(input: x, axes: [axis]), squares: p == 2)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = inputs[0], y = outputs[0]
        let geometry = self.geometry, squares = self.squares
        geometry.outer.forEach { _, base, _ in
            let sum = geometry.fold(0.0, from: base) { sum, i in
                let v = Double(x[i])
                return sum + (squares ? v * v : abs(v))
            }
            let norm = squares ? sum.squareRoot() : sum
            geometry.inner.forEach { r, _, _ in y[base + r] = norm == 0 ? 0 : Float(Double(x[base + r]) / norm) }
        }
    }

    init(outputShapes: [[Int]], geometry: ReductionGeometry, squares: Bool) {
        self.outputShapes = outputShapes
        self.geometry = geometry
        self.squares = squares
    }
}
