import Kernels

/// What a convolution's step computes after its own sums, on the way to the value it writes:
/// the per-channel affine nodes after it (a `BatchNormalization`, a `Mul` / `Add` / `Sub` by a
/// per-channel constant) folded into its weights and bias, then an activation.
///
/// The fusion rule, written once for every producer that has an epilogue: each node of the chain
/// is the only reader of the value before it and runs right after that value's producer.
struct Epilogue {
    /// Per output channel, y = x · factor + shift (the folded affine nodes, composed in order).
    var channelAffine: (factor: [Float], shift: [Float])? = nil
    var activation: Activation = .none
    /// The value the chain ends in: the producer's own output when nothing is absorbed.
    var output: Int
    /// The output values of the nodes whose work the producer's step does (they run nothing).
    var absorbed: [Int] = []

    /// `weights` ([Cout][rest], row-major) and `bias` with the affine map folded in:
    /// w·factor[o], b·factor[o] + shift[o] (as onnxruntime folds them).
    func folded(weights: [Float], bias: [Float]?, outputChannels: Int) -> (weights: [Float], bias: [Float]?) {
        guard let (factor, shift) = channelAffine else { return (weights, bias) }
        let perChannel = weights.count / outputChannels
        var w = weights
        for o in 0..<outputChannels {
            for i in 0..<perChannel { w[o * perChannel + i] *= factor[o] }
        }
        let b = (0..<outputChannels).map { o in (bias?[o] ?? 0) * factor[o] + shift[o] }
        return (w, b)
    }
}

extension KernelChoices {
    /// The kernels' activation for an activation node: Relu, HardSwish, and Clip(0, 6) (ReLU6).
    static func kernelActivation(of node: PlannedNode) -> Activation? {
        guard let unary = node.operation as? ElementwiseUnary else { return nil }
        switch unary.kind {
        case .relu: return .relu
        case .hardSwish: return .hardSwish
        case .clip(minimum: 0, maximum: 6): return .relu6
        default: return nil
        }
    }
}
