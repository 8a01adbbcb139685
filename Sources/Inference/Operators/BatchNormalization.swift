/// ONNX `BatchNormalization` in inference mode (BatchNormalization-15, also -14):
/// y = scale · (x − mean) / sqrt(var + epsilon) + B per channel (dimension 1); `momentum` only
/// matters in training (`BatchNormalizationTraining`, `training_mode` = 1).
final class BatchNormalization: Operator {
    let dataInputs = [0, 1, 2, 3, 4]
    let outputShapes: [[Int]]
    let batch: Int, channels: Int, planeSize: Int
    let epsilon: Float

    static let build: OperatorBuilder = { context throws(ModelError) in
        if context.opVersion >= 14, try context.int("training_mode", default: 0, in: 0...1) == 1 {
            return try BatchNormalizationTraining(context)
        }
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

    init(outputShapes: [[Int]], batch: Int, channels: Int, planeSize: Int, epsilon: Float) {
        self.outputShapes = outputShapes
        self.batch = batch
        self.channels = channels
        self.planeSize = planeSize
        self.epsilon = epsilon
    }
}

/// ONNX `BatchNormalization` with `training_mode` = 1 (BatchNormalization-14, -15): each channel
/// normalised by the batch's own statistics, mean and population variance over every axis but 1
/// (computed in Double): y = scale · (x − mean_b) / sqrt(var_b + epsilon) + B; outputs 1 and 2
/// (required in training mode, as onnx's checker has it) are the updated running statistics
/// input_mean · momentum + mean_b · (1 − momentum) and input_var · momentum + var_b · (1 − momentum)
/// (`momentum` default 0.9). Float32.
final class BatchNormalizationTraining: Operator {
    let dataInputs = [0, 1, 2, 3, 4]
    let outputShapes: [[Int]]
    let batch: Int, channels: Int, planeSize: Int
    let epsilon: Double, momentum: Double

    init(_ context: NodeContext) throws(ModelError) {
        try context.checkArity(inputs: 5, 5, outputs: 3)
        try context.checkAttributes(["epsilon", "momentum", "training_mode"])
        let x = try context.shape(ofInput: 0)
        guard x.count >= 2 else { throw context.error(.invalidShape, "input must have rank 2 or more, got \(x)") }
        for (index, role) in [(1, "scale"), (2, "B"), (3, "input_mean"), (4, "input_var")] {
            let shape = try context.shape(ofInput: index)
            guard shape == [x[1]] else { throw context.error(.invalidShape, "input '\(role)' has shape \(shape), expected [\(x[1])]") }
        }
        outputShapes = [x, [x[1]], [x[1]]]
        batch = x[0]
        channels = x[1]
        planeSize = x[2...].reduce(1, *)
        epsilon = Double(try context.float("epsilon", default: 1e-5))
        momentum = Double(try context.float("momentum", default: 0.9))
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = inputs[0], scale = inputs[1], bias = inputs[2], y = outputs[0]
        let count = Double(batch * planeSize)
        for c in 0..<channels {
            var sum = 0.0
            for n in 0..<batch {
                let offset = (n * channels + c) * planeSize
                for i in 0..<planeSize { sum += Double(x[offset + i]) }
            }
            let mean = sum / count
            var squares = 0.0
            for n in 0..<batch {
                let offset = (n * channels + c) * planeSize
                for i in 0..<planeSize { squares += (Double(x[offset + i]) - mean) * (Double(x[offset + i]) - mean) }
            }
            let variance = squares / count
            let factor = Double(scale[c]) / (variance + epsilon).squareRoot()
            for n in 0..<batch {
                let offset = (n * channels + c) * planeSize
                for i in 0..<planeSize { y[offset + i] = Float((Double(x[offset + i]) - mean) * factor + Double(bias[c])) }
            }
            outputs[1][c] = Float(Double(inputs[3][c]) * momentum + mean * (1 - momentum))
            outputs[2][c] = Float(Double(inputs[4][c]) * momentum + variance * (1 - momentum))
        }
    }
}
