/// ONNX `BatchNormalization` in inference mode (BatchNormalization-15, also -14):
/// y = scale · (x − mean) / sqrt(var + epsilon) + B per channel (dimension 1). `training_mode`
/// = 1 and the running-statistics outputs are not supported; `momentum` only matters in training.
struct BatchNormalization: Operator {
    let dataInputs = [0, 1, 2, 3, 4]
    let outputShapes: [[Int]]
    let batch: Int, channels: Int, planeSize: Int
    let epsilon: Float

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 5, 5)
        try context.checkAttributes(["epsilon", "momentum", "training_mode", "spatial"])
        _ = try context.int("training_mode", default: 0, in: 0...0)
        _ = try context.int("spatial", default: 1, in: 1...1)
        let x = try context.shape(ofInput: 0)
        guard x.count >= 2 else { throw context.error(.invalidShape, "input must have rank 2 or more, got \(x)") }
        for (index, role) in [(1, "scale"), (2, "B"), (3, "input_mean"), (4, "input_var")] {
            let shape = try context.shape(ofInput: index)
            guard shape == [x[1]] else { throw context.error(.invalidShape, "input '\(role)' has shape \(shape), expected [\(x[1])]") }
        }
        let epsilon = try context.float("epsilon", default: 1e-5)
        return BatchNormalization(outputShapes: [x], batch: x[0], channels: x[1], planeSize: x[2...].reduce(1, *), epsilon: epsilon)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = inputs[0], scale = inputs[1], bias = inputs[2], mean = inputs[3], variance = inputs[4], y = outputs[0]
        for n in 0..<batch {
            for c in 0..<channels {
                let factor = scale[c] / (variance[c] + epsilon).squareRoot()
                let shift = bias[c] - mean[c] * factor
                let offset = (n * channels + c) * planeSize
                for i in 0..<planeSize { y[offset + i] = x[offset + i] * factor + shift }
            }
        }
    }
}
