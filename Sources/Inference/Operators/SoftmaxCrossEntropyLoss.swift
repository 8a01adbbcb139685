import CMath

/// ONNX `SoftmaxCrossEntropyLoss` (12, 13): the loss of `ClassLoss` with s the log-softmax of
/// the scores over C (dim 1): x − max − log Σ exp(x − max), in Double. The optional second
/// output is that log-probability tensor (the scores' shape). Float32 and double.
final class SoftmaxCrossEntropyLoss: Operator {
    let loss: ClassLoss
    let dataInputs: [Int]
    let scoresShape: [Int]
    let writesLogProbabilities: Bool
    var outputShapes: [[Int]] { writesLogProbabilities ? [loss.lossShape, scoresShape] : [loss.lossShape] }
    var outputTypes: [ElementType] { outputShapes.map { _ in loss.type } }
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        let outputs = context.node.outputs.count
        try context.checkArity(inputs: 2, 3, outputs: outputs == 2 ? 2 : 1)
        try context.checkAttributes(["ignore_index", "reduction"])
        let loss = try ClassLoss(context)
        return SoftmaxCrossEntropyLoss(loss: loss, dataInputs: loss.hasWeights ? [0, 1, 2] : [0, 1],
                                       scoresShape: try context.shape(ofInput: 0),
                                       writesLogProbabilities: outputs == 2 && !context.node.outputs[1].isEmpty)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = UnsafeRawPointer(inputs[0]), type = loss.type
        let classes = loss.classes, positions = loss.positions
        let logProbabilities = writesLogProbabilities ? UnsafeMutableRawPointer(outputs[1]) : nil
        // max + log Σ exp(x − max) over the classes at (n, p); the loss reads it once per position.
        func shift(_ n: Int, _ p: Int) -> Double {
            let base = n * classes * positions + p
            var maximum = -Double.infinity
            for c in 0..<classes { maximum = max(maximum, TensorElements.double(x, at: base + c * positions, type)) }
            var sum = 0.0
            for c in 0..<classes { sum += exp(TensorElements.double(x, at: base + c * positions, type) - maximum) }
            return maximum + log(sum)
        }
        if let logProbabilities {
            for n in 0..<loss.batch {
                for p in 0..<positions {
                    let s = shift(n, p), base = n * classes * positions + p
                    for c in 0..<classes {
                        let index = base + c * positions
                        TensorElements.setDouble(TensorElements.double(x, at: index, type) - s, logProbabilities, at: index, type)
                    }
                }
            }
        }
        loss.run(score: { n, c, p in TensorElements.double(x, at: (n * classes + c) * positions + p, type) - shift(n, p) },
                 target: UnsafeRawPointer(inputs[1]), weight: inputs.count > 2 ? UnsafeRawPointer(inputs[2]) : nil,
                 loss: UnsafeMutableRawPointer(outputs[0]))
    }

    init(loss: ClassLoss, dataInputs: [Int], scoresShape: [Int], writesLogProbabilities: Bool) {
        self.loss = loss
        self.dataInputs = dataInputs
        self.scoresShape = scoresShape
        self.writesLogProbabilities = writesLogProbabilities
    }
}
