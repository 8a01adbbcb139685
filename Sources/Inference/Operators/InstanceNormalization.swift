/// ONNX `InstanceNormalization` (versions 6 and 22, float32): each channel of each batch item,
/// X `[N, C, D…]` (rank ≥ 2), is standardised over its spatial elements with `epsilon` (default
/// 1e-5), then scaled by `scale[c]` and shifted by `B[c]` (both `[C]`).
enum InstanceNormalization {
    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 3, 3)
        try context.checkAttributes(["epsilon"])
        let x = try context.shape(ofInput: 0)
        guard x.count >= 2 else { throw context.error(.invalidShape, "input must be [N, C, D…], got \(x)") }
        for index in 1...2 where try context.shape(ofInput: index) != [x[1]] {
            throw context.error(.invalidShape, "input \(index) must have shape [\(x[1])], got \(try context.shape(ofInput: index))")
        }
        let view = [x[0], x[1], x[2...].reduce(1, *)]
        return Normalization(dataInputs: [0, 1, 2], outputShapes: [x], geometry: ReductionGeometry(input: view, axes: [2]),
                             epsilon: .insideRoot(Double(try context.float("epsilon", default: 1e-5))),
                             affine: Normalization.affine(view: view, scale: [x[1], 1], bias: [x[1], 1]), hasBias: true)
    }
}
