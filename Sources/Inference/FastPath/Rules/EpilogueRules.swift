import Kernels

// The epilogue rule: what a convolution absorbs after its sums (`Epilogue.swift`).

extension FusionRules {
    /// The epilogue after `value` (`channels` per-channel values, batch 1): the per-channel
    /// affine nodes after it (`channelAffine(after:channels:)`), then an activation; or, when a
    /// Transpose to channels-last follows, the same along the last axis up to the Transpose back
    /// (`channelsLastRoundTrip`).
    func epilogue(after value: Int, channels: Int) -> Epilogue {
        var chain = Epilogue(output: value)
        absorbAffine(into: &chain, channels: channels, channelsLast: false)
        if !absorbActivation(into: &chain), let roundTrip = channelsLastRoundTrip(chain, channels: channels) {
            chain = roundTrip
        }
        return chain
    }

    /// The affine nodes after `chain.output`, composed into `chain`.
    private func absorbAffine(into chain: inout Epilogue, channels: Int, channelsLast: Bool) {
        while let (factor, shift, output) = channelAffine(after: chain.output, channels: channels, channelsLast: channelsLast) {
            if let (f, s) = chain.channelAffine {
                // y·factor + shift of y = x·f + s.
                chain.channelAffine = ((0..<channels).map { f[$0] * factor[$0] },
                                       (0..<channels).map { s[$0] * factor[$0] + shift[$0] })
            } else {
                chain.channelAffine = (factor, shift)
            }
            chain.output = output
            chain.absorbed.append(output)
        }
    }

    /// The activation node or SiLU after `chain.output`, absorbed into `chain`; false if none.
    private func absorbActivation(into chain: inout Epilogue) -> Bool {
        if let next = follower(of: chain.output), let activation = Self.kernelActivation(of: next) {
            chain.activation = activation
            chain.output = next.outputs[0]
            chain.absorbed.append(chain.output)
        } else if let silu = silu(after: chain.output) {
            chain.activation = .silu
            chain.output = silu.output
            chain.absorbed += silu.absorbed
        } else {
            return false
        }
        return true
    }

    /// tf2onnx's channels-last round trip after a convolution: a Transpose of `chain.output` (a
    /// [1, C, H, W] map) to [1, H, W, C], affine nodes by constants along its last axis (one value
    /// or one per channel), maybe an activation, and the Transpose back. That is the affine map
    /// and activation on the NCHW map, so the convolution writes the second Transpose's output.
    /// Each node is the only reader of the value before it and runs right after its producer.
    func channelsLastRoundTrip(_ chain: Epilogue, channels: Int) -> Epilogue? {
        guard graph.values[chain.output].shape.count == 4, let forward = follower(of: chain.output),
              let t = forward.operation as? Transpose, t.perm == [0, 2, 3, 1] else { return nil }
        var inner = chain
        inner.output = forward.outputs[0]
        inner.absorbed.append(inner.output)
        absorbAffine(into: &inner, channels: channels, channelsLast: true)
        _ = absorbActivation(into: &inner)
        guard let backward = follower(of: inner.output), let back = backward.operation as? Transpose,
              back.perm == [0, 3, 1, 2] else { return nil }
        inner.output = backward.outputs[0]
        inner.absorbed.append(inner.output)
        return inner
    }

    /// The map y = x · factor + shift, one factor and shift per channel, that the node after
    /// `value` (a [1, channels, …] map, or [1, …, channels] when `channelsLast`) applies, and that
    /// node's output, when a convolution's weights and bias can take it: a BatchNormalization
    /// with constant parameters (not channels-last), or a Mul by finite factors, an Add (either
    /// operand order) or a Sub (`value` − constant) by a float32 constant that is one value or
    /// one per channel (`perChannelConstant`, `lastAxisConstant`) and leaves the shape as it is.
    func channelAffine(after value: Int, channels: Int, channelsLast: Bool = false) -> (factor: [Float], shift: [Float], output: Int)? {
        guard let next = follower(of: value) else { return nil }
        if let norm = next.operation as? BatchNormalization {
            guard !channelsLast, norm.batch == 1, norm.channels == channels, next.inputs.first == value,
                  let scale = constantFloats(next.inputs[1], count: channels),
                  let bias = constantFloats(next.inputs[2], count: channels),
                  let mean = constantFloats(next.inputs[3], count: channels),
                  let variance = constantFloats(next.inputs[4], count: channels) else { return nil }
            // The reference kernel's factor and shift, computed the same way.
            let factor = (0..<channels).map { c in scale[c] / (variance[c] + norm.epsilon).squareRoot() }
            return (factor, (0..<channels).map { c in bias[c] - mean[c] * factor[c] }, next.outputs[0])
        }
        guard let binary = next.operation as? ElementwiseBinary, next.inputs.count == 2,
              next.inputs.filter({ $0 == value }).count == 1 else { return nil }
        let operand = next.inputs[0] == value ? next.inputs[1] : next.inputs[0]
        let shape = graph.values[value].shape
        guard shape.count >= 2, shape[0] == 1, (channelsLast ? shape.last! : shape[1]) == channels,
              graph.values[next.outputs[0]].shape == shape,
              let perChannel = channelsLast ? lastAxisConstant(operand, channels: channels, rank: shape.count)
                : perChannelConstant(operand, channels: channels, rank: shape.count) else { return nil }
        let ones = [Float](repeating: 1, count: channels), zeros = [Float](repeating: 0, count: channels)
        switch binary.kind {
        case .mul where perChannel.allSatisfy({ $0.isFinite }): return (perChannel, zeros, next.outputs[0])
        case .add: return (ones, perChannel, next.outputs[0])
        // x − k = x + (−k) exactly.
        case .sub where next.inputs[0] == value: return (ones, perChannel.map { -$0 }, next.outputs[0])
        default: return nil
        }
    }

    /// `channels` floats of a float32 constant that broadcasts along a rank-`rank` [1, channels, …]
    /// map as one value per channel: one value of any rank up to `rank`, or a shape that
    /// right-aligned to the map's is [1, channels, 1, …] ([channels, 1, 1] or [1, channels, 1, 1]
    /// on a rank-4 map; [channels] there runs along the columns).
    func perChannelConstant(_ value: Int, channels: Int, rank: Int) -> [Float]? {
        let shape = graph.values[value].shape
        guard shape.count <= rank else { return nil }
        if shape.allSatisfy({ $0 == 1 }) {
            return constantFloats(value, count: 1).map { Array(repeating: $0[0], count: channels) }
        }
        let aligned = Array(repeating: 1, count: rank - shape.count) + shape
        guard aligned.indices.allSatisfy({ aligned[$0] == ($0 == 1 ? channels : 1) }) else { return nil }
        return constantFloats(value, count: channels)
    }

    /// `channels` floats of a float32 constant that broadcasts along a rank-`rank` [1, …, channels]
    /// map as one value per channel: one value of any rank up to `rank`, or a shape that
    /// right-aligned to the map's is [1, …, 1, channels].
    func lastAxisConstant(_ value: Int, channels: Int, rank: Int) -> [Float]? {
        let shape = graph.values[value].shape
        guard shape.count <= rank else { return nil }
        if shape.allSatisfy({ $0 == 1 }) {
            return constantFloats(value, count: 1).map { Array(repeating: $0[0], count: channels) }
        }
        guard shape.last == channels, shape.dropLast().allSatisfy({ $0 == 1 }) else { return nil }
        return constantFloats(value, count: channels)
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
