/// ONNX `RMSNormalization` (version 23, float32, rank ≤ 6): X is divided by its root mean square
/// over its dimensions from `axis` (default −1) on, √(mean(x²) + `epsilon`) with epsilon 1e-5 by
/// default, then multiplied by `scale` broadcast unidirectionally to X. Only `stash_type` 1
/// (float statistics) is accepted; the mean is computed in Double. It is `Normalization` without
/// the mean.
enum RMSNormalization {
    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 2)
        try context.checkAttributes(["axis", "epsilon", "stash_type"])
        let (x, geometry, scale) = try Normalization.trailingAxes(context)
        return Normalization(dataInputs: [0, 1], outputShapes: [x], geometry: geometry,
                             epsilon: .insideRoot(Double(try context.float("epsilon", default: 1e-5))),
                             affine: Normalization.affine(view: x, scale: scale, bias: nil), hasBias: false,
                             subtractsMean: false)
    }
}
