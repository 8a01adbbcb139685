/// The class-indexed loss NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss share: scores
/// (N, C, d1…dk) (k ≥ 0), int32 / int64 targets (N, d1…dk), an optional weight per class (C), the
/// `ignore_index` and `reduction` attributes, and the reduction itself.
///
/// At each position p = (n, d…) with target t: the loss is −w[t]·s(n, t, d…) and its weight w[t]
/// (1 without weights); a target equal to `ignore_index` gives loss 0 and weight 0. A target
/// outside [0, C) that is not ignored (which the spec leaves undefined) gives a NaN loss.
/// `none` outputs the losses (shape of the target); `sum` their sum; `mean` their sum divided by
/// the sum of the weights (NaN when every position is ignored: 0 / 0). Sums are in Double.
struct ClassLoss: Sendable {
    enum Reduction: String, Sendable { case none, sum, mean }

    /// Float32 or double: scores, weights and outputs.
    let type: ElementType
    let targetType: ElementType
    /// The weight's type: the scores' or float32.
    let weightType: ElementType
    let batch: Int, classes: Int, positions: Int
    let targetShape: [Int]
    let hasWeights: Bool
    let ignoreIndex: Int64?
    let reduction: Reduction

    /// The loss output's shape: the target's for `none`, a scalar otherwise.
    var lossShape: [Int] { reduction == .none ? targetShape : [] }

    /// Reads and checks inputs 0 (scores), 1 (target) and 2 (weight, optional) and the attributes.
    init(_ context: NodeContext) throws(ModelError) {
        type = try context.requireType(ofInput: 0, in: [.float32, .double])
        targetType = try context.requireType(ofInput: 1, in: [.int32, .int64])
        let scores = try context.shape(ofInput: 0), target = try context.shape(ofInput: 1)
        guard scores.count >= 2 else {
            throw context.error(.invalidShape, "input 0 (shape \(scores)) must have rank ≥ 2: (N, C, d1…dk)")
        }
        guard target.count == scores.count - 1, target[0] == scores[0], Array(target[1...]) == Array(scores[2...]) else {
            throw context.error(.invalidShape, "target (shape \(target)) must be the input's shape \(scores) without dim 1 (C)")
        }
        hasWeights = context.hasInput(2)
        weightType = hasWeights ? try context.type(ofInput: 2) : type
        if hasWeights {
            // A double initializer is stored as float32 (`ConstantTensor`), so float32 weights go with double scores.
            guard weightType == type || weightType == .float32 else {
                throw context.error(.invalidValue, "weight has element type \(weightType); it must be the input's (\(type))")
            }
            let weight = try context.shape(ofInput: 2)
            guard weight == [scores[1]] else {
                throw context.error(.invalidShape, "weight (shape \(weight)) must be [C] = [\(scores[1])]")
            }
        }
        batch = scores[0]
        classes = scores[1]
        positions = scores[2...].reduce(1, *)
        targetShape = target
        ignoreIndex = context.attribute("ignore_index") == nil ? nil : Int64(try context.int("ignore_index", default: 0))
        let name = try context.choice("reduction", ["none", "sum", "mean"], default: "mean")
        reduction = Reduction(rawValue: name) ?? .mean
    }

    /// Computes the losses from `score(n, c, p)` (the value at batch n, class c, flattened
    /// position p) and writes output 0 to `loss`.
    ///
    /// - Precondition: `target` holds N·positions indices of `targetType`; `weight` is nil exactly
    ///   when the node has no weight; `loss` has room for `lossShape`.
    func run(score: (Int, Int, Int) -> Double, target: UnsafeRawPointer, weight: UnsafeRawPointer?,
             loss: UnsafeMutableRawPointer) {
        var lossSum = 0.0, weightSum = 0.0
        for n in 0..<batch {
            for p in 0..<positions {
                let k = n * positions + p
                let t = TensorElements.integer(target, at: k, targetType)
                var value = 0.0, w = 0.0
                if t != ignoreIndex {
                    if t >= 0 && t < Int64(classes) {
                        let c = Int(t)
                        w = weight.map { TensorElements.double($0, at: c, weightType) } ?? 1
                        value = -w * score(n, c, p)
                    } else {
                        value = .nan
                        w = .nan
                    }
                }
                if reduction == .none {
                    TensorElements.setDouble(value, loss, at: k, type)
                } else {
                    lossSum += value
                    weightSum += w
                }
            }
        }
        switch reduction {
        case .none: break
        case .sum: TensorElements.setDouble(lossSum, loss, at: 0, type)
        case .mean: TensorElements.setDouble(lossSum / weightSum, loss, at: 0, type)
        }
    }
}

/// ONNX `NegativeLogLikelihoodLoss` (12, 13): the loss of `ClassLoss` with s the input itself
/// (log-probabilities, (N, C, d1…dk)). Float32 and double.
final class NegativeLogLikelihoodLoss: Operator {
    let loss: ClassLoss
    let dataInputs: [Int]
    var outputShapes: [[Int]] { [loss.lossShape] }
    var outputTypes: [ElementType] { [loss.type] }
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 3)
        try context.checkAttributes(["ignore_index", "reduction"])
        let loss = try ClassLoss(context)
        return NegativeLogLikelihoodLoss(loss: loss, dataInputs: loss.hasWeights ? [0, 1, 2] : [0, 1])
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = UnsafeRawPointer(inputs[0]), type = loss.type
        let classes = loss.classes, positions = loss.positions
        loss.run(score: { n, c, p in TensorElements.double(x, at: (n * classes + c) * positions + p, type) },
                 target: UnsafeRawPointer(inputs[1]), weight: inputs.count > 2 ? UnsafeRawPointer(inputs[2]) : nil,
                 loss: UnsafeMutableRawPointer(outputs[0]))
    }

    init(loss: ClassLoss, dataInputs: [Int]) {
        self.loss = loss
        self.dataInputs = dataInputs
    }
}
