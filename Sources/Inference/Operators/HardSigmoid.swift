/// ONNX `HardSigmoid` (HardSigmoid-6): max(0, min(1, alpha·x + beta)), alpha = 0.2 and
/// beta = 0.5 by default.
enum HardSigmoid {
    static let build = ElementwiseUnary.builder(attributes: ["alpha", "beta"]) { context throws(ModelError) in
        let alpha = try context.float("alpha", default: 0.2)
        let beta = try context.float("beta", default: 0.5)
        return (.hardSigmoid(alpha: alpha, beta: beta), { x in max(0, min(1, alpha * x + beta)) })
    }
}
