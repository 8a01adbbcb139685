/// ONNX `RMSNormalization` (version 23, float32, rank ≤ 6): X is divided by its root mean square
/// over its dimensions from `axis` (default −1) on, √(mean(x²) + `epsilon`) with epsilon 1e-5 by
/// default, then multiplied by `scale` broadcast unidirectionally to X. Only `stash_type` 1
/// (float statistics) is accepted; the mean is computed in Double.
struct RMSNormalization: Operator {
    let dataInputs = [0, 1]
    let outputShapes: [[Int]]
    let geometry: ReductionGeometry
    let epsilon: Double
    /// Over the output: the offsets of y (operand 0) and scale (1).
    let affine: StridedLoop

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 2)
        try context.checkAttributes(["axis", "epsilon", "stash_type"])
        _ = try context.int("stash_type", default: 1, in: 1...1)
        let x = try context.shape(ofInput: 0)
        guard x.count <= StridedLoop.maximumRank else { throw context.error(.unsupported, "rank \(x.count) is above 6") }
        let axis = try context.axis(try context.int("axis", default: -1), rank: x.count, attribute: "axis")
        let scale = try context.shape(ofInput: 1)
        guard Shapes.broadcast(scale, x) == x else {
            throw context.error(.invalidShape, "scale of shape \(scale) does not broadcast to the input's \(x)")
        }
        return RMSNormalization(outputShapes: [x], geometry: ReductionGeometry(input: x, axes: Set(axis..<x.count)),
                                epsilon: Double(try context.float("epsilon", default: 1e-5)),
                                affine: Normalization.affine(view: x, scale: scale, bias: nil))
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = inputs[0], scale = inputs[1], y = outputs[0]
        let geometry = self.geometry, count = Double(geometry.count), epsilon = self.epsilon
        geometry.outer.forEach { _, base, _ in
            let meanSquare = geometry.fold(0.0, from: base) { $0 + Double(x[$1]) * Double(x[$1]) } / count
            let inverse = 1 / (meanSquare + epsilon).squareRoot()
            geometry.inner.forEach { r, _, _ in y[base + r] = Float(Double(x[base + r]) * inverse) }
        }
        affine.forEach { o, s, _ in y[o] *= scale[s] }
    }
}
