import CMath

/// ONNX `LRN` (versions 1 and 13, float32): local response normalisation across channels of
/// X `[N, C, D…]`: y = x / (bias + alpha / size · Σ x²)^beta, the sum over the channels
/// c − ⌊(size − 1) / 2⌋ … c + ⌈(size − 1) / 2⌉ that exist, in Double. `size` is required;
/// `alpha` (1e-4), `beta` (0.75) and `bias` (1) have the spec's defaults.
final class LRN: Operator {
    let dataInputs = [0]
    let outputShapes: [[Int]]
    let batch: Int, channels: Int, spatial: Int
    let size: Int
    let alpha: Double, beta: Double, bias: Double

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes(["alpha", "beta", "bias", "size"])
        let x = try context.shape(ofInput: 0)
        guard x.count >= 2 else { throw context.error(.invalidShape, "input must be [N, C, D…], got \(x)") }
        guard context.attribute("size") != nil else { throw context.error(.malformed, "the attribute is required", attribute: "size") }
        let size = try context.int("size", default: 1, in: 1...(1 << 20))
        return LRN(outputShapes: [x], batch: x[0], channels: x[1], spatial: x[2...].reduce(1, *), size: size,
                   alpha: Double(try context.float("alpha", default: 1e-4)), beta: Double(try context.float("beta", default: 0.75)),
                   bias: Double(try context.float("bias", default: 1)))
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = inputs[0], y = outputs[0]
        let before = (size - 1) / 2, after = size / 2  // ⌊(size − 1) / 2⌋ and ⌈(size − 1) / 2⌉
        for n in 0..<batch {
            for c in 0..<channels {
                let first = max(0, c - before), last = min(channels - 1, c + after)
                for s in 0..<spatial {
                    var sum = 0.0
                    for i in first...last {
                        let v = Double(x[(n * channels + i) * spatial + s])
                        sum += v * v
                    }
                    let index = (n * channels + c) * spatial + s
                    y[index] = Float(Double(x[index]) / pow(bias + alpha / Double(size) * sum, beta))
                }
            }
        }
    }

    init(outputShapes: [[Int]], batch: Int, channels: Int, spatial: Int, size: Int, alpha: Double, beta: Double,
         bias: Double) {
        self.outputShapes = outputShapes
        self.batch = batch
        self.channels = channels
        self.spatial = spatial
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.bias = bias
    }
}
