import Kernels

// The epilogue rule: what a convolution absorbs after its sums (`Epilogue.swift`).

extension FusionRules {
    /// The epilogue after `value` (`channels` per-channel values, batch 1): the per-channel
    /// affine nodes after it (`channelAffine(after:channels:)`), then an activation. (tf2onnx's
    /// channels-last round trips reach it as NCHW nodes: `TransposeSinking`.)
    func epilogue(after value: Int, channels: Int) -> Epilogue {
        var chain = Epilogue(output: value)
        absorbAffine(into: &chain, channels: channels)
        _ = absorbActivation(into: &chain)
        return chain
    }

    /// The affine nodes after `chain.output`, composed into `chain`.
    private func absorbAffine(into chain: inout Epilogue, channels: Int) {
        while let (factor, shift, output) = channelAffine(after: chain.output, channels: channels) {
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
    func absorbActivation(into chain: inout Epilogue) -> Bool {
        if let next = follower(of: chain.output), let activation = Self.kernelActivation(of: next) {
            chain.activation = activation
            chain.output = next.outputs[0]
            chain.absorbed.append(chain.output)
        } else if let silu = silu(after: chain.output) {
            chain.activation = .silu
            chain.output = silu.output
            chain.absorbed += silu.absorbed
        } else if let hardSwish = spelledHardSwish(after: chain.output) {
            chain.activation = .hardSwish
            chain.output = hardSwish.output
            chain.absorbed += hardSwish.absorbed
        } else {
            return false
        }
        return true
    }

    /// The map y = x · factor + shift, one factor and shift per channel, that the node after
    /// `value` (a [1, channels, …] map) applies, and that node's output, when a convolution's
    /// weights and bias can take it: a BatchNormalization with constant parameters, or a Mul by
    /// finite factors, an Add (either operand order) or a Sub (`value` − constant) by a float32
    /// constant that is one value or one per channel (`perChannelConstant`) and leaves the shape
    /// as it is.
    func channelAffine(after value: Int, channels: Int) -> (factor: [Float], shift: [Float], output: Int)? {
        guard let next = follower(of: value) else { return nil }
        if let norm = next.operation as? BatchNormalization {
            guard norm.batch == 1, norm.channels == channels, next.inputs.first == value,
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
        guard shape.count >= 2, shape[0] == 1, shape[1] == channels, graph.values[next.outputs[0]].shape == shape,
              let perChannel = perChannelConstant(operand, channels: channels, rank: shape.count) else { return nil }
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

    /// x · min(max(x + 3, 0), 6) / 6 of `value` written out in nodes, as tf2onnx writes Keras's
    /// hard_swish and older PyTorch exports write `hardswish`: the nodes right after the one
    /// writing `value` are one of
    /// - Add(x, 3) → Clip(0, 6) → Mul by 1/6 or Div by 6 → Mul by x;
    /// - Add(x, 3) → Clip(0, 6) → Mul by x → Mul by 1/6 or Div by 6;
    /// - HardSigmoid(x) with alpha 1/6 and beta 0.5 → Mul by x;
    /// (constants of one element, either operand order of Add and Mul), each value read only by the
    /// next node, `value` only by the first and the Mul by x, none a graph output, no broadcast.
    /// They differ from the kernels' hard-swish (x · t · (1/6)) only in rounding. The last node's
    /// output, and the values of the nodes.
    func spelledHardSwish(after value: Int) -> (output: Int, absorbed: [Int])? {
        guard let here = nodeIndex[value], !graph.outputIDs.contains(value), consumers[value].count == 2 else { return nil }
        let shape = graph.values[value].shape
        func node(_ offset: Int) -> PlannedNode? { here + offset < graph.nodes.count ? graph.nodes[here + offset] : nil }
        func scalar(_ id: Int) -> Float? {
            graph.values[id].shape.reduce(1, *) == 1 && graph.values[id].shape.count <= shape.count ? constantFloats(id, count: 1)?[0] : nil
        }
        /// `n` as binary `kind` of `input` and a one-element constant (either order for Add and Mul): the constant.
        func binary(_ n: PlannedNode, _ kind: ElementwiseBinary.Kind, of input: Int) -> Float? {
            guard let op = n.operation as? ElementwiseBinary, op.kind == kind, n.inputs.count == 2,
                  graph.values[n.outputs[0]].shape == shape else { return nil }
            if n.inputs[0] == input { return scalar(n.inputs[1]) }
            return kind == .div ? nil : n.inputs[1] == input ? scalar(n.inputs[0]) : nil
        }
        func isTimesValue(_ n: PlannedNode, _ other: Int) -> Bool {
            guard let op = n.operation as? ElementwiseBinary, op.kind == .mul, n.inputs.count == 2 else { return false }
            return Set(n.inputs) == [value, other] && graph.values[n.outputs[0]].shape == shape
        }
        func isSixth(_ n: PlannedNode, of input: Int) -> Bool {
            binary(n, .mul, of: input) == Float(1) / 6 || binary(n, .div, of: input) == 6
        }
        /// The nodes from `here + 1` on, each the sole reader of the value before it (the first
        /// and the Mul by x read `value`), become one activation.
        func chain(_ count: Int) -> (output: Int, absorbed: [Int])? {
            let nodes = (1...count).map { graph.nodes[here + $0] }
            for (index, n) in nodes.enumerated().dropLast() {
                guard !graph.outputIDs.contains(n.outputs[0]), consumers[n.outputs[0]] == [here + index + 2] else { return nil }
            }
            guard Set(consumers[value]) == Set(nodes.indices.filter { nodes[$0].inputs.contains(value) }.map { here + $0 + 1 }) else { return nil }
            return (nodes.last!.outputs[0], nodes.map { $0.outputs[0] })
        }
        guard let first = node(1) else { return nil }
        if let gate = first.operation as? ElementwiseUnary, case .hardSigmoid(let alpha, let beta) = gate.kind,
           alpha == Float(1) / 6, beta == 0.5, first.inputs.first == value, let mul = node(2), isTimesValue(mul, first.outputs[0]) {
            return chain(2)
        }
        guard binary(first, .add, of: value) == 3, let clipNode = node(2), let clip = clipNode.operation as? ElementwiseUnary,
              clip.kind == .clip(minimum: 0, maximum: 6), clipNode.inputs.first == first.outputs[0],
              let third = node(3), let fourth = node(4) else { return nil }
        if isSixth(third, of: clipNode.outputs[0]), isTimesValue(fourth, third.outputs[0]) { return chain(4) }
        if isTimesValue(third, clipNode.outputs[0]), isSixth(fourth, of: third.outputs[0]) { return chain(4) }
        return nil
    }
}
