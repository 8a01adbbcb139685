import Kernels

// The epilogue rule: what a convolution absorbs after its sums (`Epilogue.swift`).

extension FusionRules {
    /// The epilogue after `value` (`channels` per-channel values, batch 1): a BatchNormalization
    /// of it with constant parameters when `foldsBatchNorm`, then an activation.
    func epilogue(after value: Int, channels: Int, foldsBatchNorm: Bool) -> Epilogue {
        var chain = Epilogue(output: value)
        if foldsBatchNorm, let next = follower(of: value), let norm = next.operation as? BatchNormalization,
           norm.batch == 1, norm.channels == channels, next.inputs.first == value,
           let scale = constantFloats(next.inputs[1], count: channels), let bias = constantFloats(next.inputs[2], count: channels),
           let mean = constantFloats(next.inputs[3], count: channels),
           let variance = constantFloats(next.inputs[4], count: channels) {
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
        } else if let silu = silu(after: chain.output) {
            chain.activation = .silu
            chain.output = silu.output
            chain.absorbed += silu.absorbed
        }
        return chain
    }

    /// x · sigmoid(x) of `value` (SiLU, swish, as PyTorch and tf2onnx write it): the two nodes
    /// right after the one writing `value` are a Sigmoid of it and a Mul of it by the Sigmoid's
    /// output (in either order, no broadcast), and nothing else reads `value` or the sigmoid, nor
    /// is either a graph output. The Mul's output, and the values of the two nodes.
    func silu(after value: Int) -> (output: Int, absorbed: [Int])? {
        guard let here = nodeIndex[value], here + 2 < graph.nodes.count, !graph.outputIDs.contains(value) else { return nil }
        let sigmoidNode = graph.nodes[here + 1], mulNode = graph.nodes[here + 2]
        guard let sigmoid = sigmoidNode.operation as? ElementwiseUnary, sigmoid.kind == .sigmoid,
              sigmoidNode.inputs.first == value, let mul = mulNode.operation as? ElementwiseBinary, mul.kind == .mul,
              mulNode.inputs.count == 2, Set(mulNode.inputs) == [value, sigmoidNode.outputs[0]],
              Set(consumers[value]) == [here + 1, here + 2],
              soleConsumer(of: sigmoidNode.outputs[0])?.outputs == mulNode.outputs,
              graph.values[mulNode.outputs[0]].shape == graph.values[value].shape else { return nil }
        return (mulNode.outputs[0], [sigmoidNode.outputs[0], mulNode.outputs[0]])
    }
}
