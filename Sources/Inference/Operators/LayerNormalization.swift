/// ONNX `LayerNormalization` (version 17, float32, rank ≤ 6): X is standardised over its
/// dimensions from `axis` (default −1) on, with `epsilon` (default 1e-5), then multiplied by
/// `Scale` and shifted by the optional `B`, each broadcast unidirectionally to X. The optional
/// outputs `Mean` and `InvStdDev` have X's shape with the normalised dimensions 1. Only
/// `stash_type` 1 (float statistics) is accepted; the statistics are computed in Double.
enum LayerNormalization {
    static let build: OperatorBuilder = { context throws(ModelError) in
        // Y, and optionally Mean and InvStdDev: any count from 1 to 3 is accepted.
        try context.checkArity(inputs: 2, 3, outputs: (1...3).contains(context.node.outputs.count) ? context.node.outputs.count : 3)
        try context.checkAttributes(["axis", "epsilon", "stash_type"])
        let (x, geometry, scale) = try Normalization.trailingAxes(context)
        let bias = context.hasInput(2) ? try context.shape(ofInput: 2) : nil
        if let bias, Shapes.broadcast(bias, x) != x {
            throw context.error(.invalidShape, "B of shape \(bias) does not broadcast to the input's \(x)")
        }
        let statistics = Array(repeating: geometry.keptShape, count: context.node.outputs.count - 1)
        return Normalization(dataInputs: bias == nil ? [0, 1] : [0, 1, 2], outputShapes: [x] + statistics, geometry: geometry,
                             epsilon: .insideRoot(Double(try context.float("epsilon", default: 1e-5))),
                             affine: Normalization.affine(view: x, scale: scale, bias: bias), hasBias: bias != nil)
    }
}
