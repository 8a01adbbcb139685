import Kernels

/// What a convolution's step computes after its own sums, on the way to the value it writes:
/// a following `BatchNormalization` folded into its weights and bias, then an activation.
///
/// The fusion rule, written once for every producer that has an epilogue: each node of the chain
/// is the only reader of the value before it and runs right after that value's producer.
struct Epilogue {
    /// Per output channel, y = x · factor + shift (a folded `BatchNormalization`).
    var batchNorm: (factor: [Float], shift: [Float])? = nil
    var activation: Activation = .none
    /// The value the chain ends in: the producer's own output when nothing is absorbed.
    var output: Int
    /// The output values of the nodes whose work the producer's step does (they run nothing).
    var absorbed: [Int] = []

    /// `weights` ([Cout][rest], row-major) and `bias` with the batch normalization folded in:
    /// w·factor[o], b·factor[o] + shift[o].
    func folded(weights: [Float], bias: [Float]?, outputChannels: Int) -> (weights: [Float], bias: [Float]?) {
        guard let (factor, shift) = batchNorm else { return (weights, bias) }
        let perChannel = weights.count / outputChannels
        var w = weights
        for o in 0..<outputChannels {
            for i in 0..<perChannel { w[o * perChannel + i] *= factor[o] }
        }
        let b = (0..<outputChannels).map { o in (bias?[o] ?? 0) * factor[o] + shift[o] }
        return (w, b)
    }
}

extension FastExecutor {
    /// The node reading `value` when it is its only reader (and `value` is not a graph output)
    /// and it runs right after `value`'s producer.
    func follower(of value: Int) -> PlannedNode? {
        guard let graph, let next = soleConsumer(of: value), let here = nodeIndex[value], here + 1 < graph.nodes.count,
              graph.nodes[here + 1].outputs == next.outputs else { return nil }
        return next
    }

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

    /// The epilogue after `value` (`channels` per-channel values, batch 1): a BatchNormalization
    /// of it with constant parameters when `foldsBatchNorm`, then an activation.
    func epilogue(after value: Int, channels: Int, foldsBatchNorm: Bool) -> Epilogue {
        var chain = Epilogue(output: value)
        if foldsBatchNorm, let next = follower(of: value), let norm = next.operation as? BatchNormalization,
           norm.batch == 1, norm.channels == channels, next.inputs.first == value,
           next.inputs.dropFirst().allSatisfy(constants.contains) {
            let parameter = { (index: Int) in Array(UnsafeBufferPointer(start: self.pointer(next.inputs[index]), count: channels)) }
            let scale = parameter(1), bias = parameter(2), mean = parameter(3), variance = parameter(4)
            // The reference kernel's factor and shift, computed the same way.
            let factor = (0..<channels).map { c in scale[c] / (variance[c] + norm.epsilon).squareRoot() }
            chain.batchNorm = (factor, (0..<channels).map { c in bias[c] - mean[c] * factor[c] })
            chain.output = next.outputs[0]
            chain.absorbed.append(chain.output)
        }
        if let next = follower(of: chain.output), let activation = Self.kernelActivation(of: next) {
            chain.activation = activation
            chain.output = next.outputs[0]
            chain.absorbed.append(chain.output)
        }
        return chain
    }
}
