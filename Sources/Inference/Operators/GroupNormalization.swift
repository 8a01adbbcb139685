/// ONNX `GroupNormalization` (versions 18 and 21, float32): X `[N, C, D…]` is split into
/// `num_groups` groups of C / num_groups channels, each group of each batch item standardised
/// with `epsilon` (default 1e-5), then scaled and shifted. Version 18 takes `scale` and `bias` per
/// group (`[num_groups]`), version 21 per channel (`[C]`) and adds `stash_type`, of which only 1
/// (float statistics) is accepted; the statistics are computed in Double.
enum GroupNormalization {
    static let build: OperatorBuilder = { context throws(ModelError) in
        let perChannel = context.opVersion >= 21
        try context.checkArity(inputs: 3, 3)
        try context.checkAttributes(perChannel ? ["epsilon", "num_groups", "stash_type"] : ["epsilon", "num_groups"])
        _ = try context.int("stash_type", default: 1, in: 1...1)
        let x = try context.shape(ofInput: 0)
        guard x.count >= 2 else { throw context.error(.invalidShape, "input must be [N, C, D…], got \(x)") }
        guard context.attribute("num_groups") != nil else { throw context.error(.malformed, "the attribute is required", attribute: "num_groups") }
        let groups = try context.int("num_groups", default: 1, in: 1...(1 << 31))
        guard x[1] % groups == 0 else {
            throw context.error(.invalidShape, "\(x[1]) channels do not split into \(groups) groups", attribute: "num_groups")
        }
        let parameters = perChannel ? x[1] : groups
        for index in 1...2 where try context.shape(ofInput: index) != [parameters] {
            throw context.error(.invalidShape, "input \(index) must have shape [\(parameters)], got \(try context.shape(ofInput: index))")
        }
        let spatial = x[2...].reduce(1, *)
        let view = [x[0], groups, x[1] / groups * spatial]
        let affineView = perChannel ? [x[0], x[1], spatial] : view
        return Normalization(dataInputs: [0, 1, 2], outputShapes: [x], geometry: ReductionGeometry(input: view, axes: [2]),
                             epsilon: .insideRoot(Double(try context.float("epsilon", default: 1e-5))),
                             affine: Normalization.affine(view: affineView, scale: [parameters, 1], bias: [parameters, 1]),
                             hasBias: true)
    }
}
