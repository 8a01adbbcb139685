import Kernels

// The rules of multi-node blocks: squeeze-and-excite and attention gates, an upsample reordered after
// the 1x1 convolution reading it, and a transposed convolution writing the mask. Their steps are
// built in `MultiNodeBlocks.swift`.

extension FusionRules {
    /// The gate chain starting at the global average pool at `i`.
    func gateChain(poolIndex i: Int) -> GateChain? {
        guard i + 5 < graph.nodes.count else { return nil }
        let n = graph.nodes
        guard n[i].operation is GlobalAveragePool, let pooled = n[i].outputs.first,
              let reduce = n[i + 1].operation as? Conv, soleConsumer(of: pooled)?.outputs == n[i + 1].outputs,
              hasConstantWeights(n[i + 1]) else { return nil }
        // The hidden activation: nodes i + 2 ..< e.
        let reduced = n[i + 1].outputs[0]
        let hiddenActivation: GateHiddenActivation
        var e = i + 2
        if let relu = n[e].operation as? ElementwiseUnary, relu.kind == .relu,
           soleConsumer(of: reduced)?.outputs == n[e].outputs {
            hiddenActivation = .relu
            e += 1
        } else if silu(after: reduced) != nil {
            hiddenActivation = .silu
            e += 2
        } else {
            return nil
        }
        guard e + 2 < n.count, hasConstantWeights(n[e]),
              let expand = n[e].operation as? Conv, soleConsumer(of: n[e - 1].outputs[0])?.outputs == n[e].outputs,
              let activation = n[e + 1].operation as? ElementwiseUnary,
              soleConsumer(of: n[e].outputs[0])?.outputs == n[e + 1].outputs,
              let mul = n[e + 2].operation as? ElementwiseBinary, mul.kind == .mul, n[e + 2].inputs.count == 2,
              soleConsumer(of: n[e + 1].outputs[0])?.outputs == n[e + 2].outputs else { return nil }
        let gateActivation: GateActivation
        switch activation.kind {
        case .sigmoid: gateActivation = .sigmoid
        case let .hardSigmoid(alpha, beta): gateActivation = .hardSigmoid(alpha: alpha, beta: beta)
        default: return nil
        }
        let gate = n[e + 1].outputs[0]
        let gated = n[e + 2].inputs[0] == gate ? n[e + 2].inputs[1] : n[e + 2].inputs[0]
        let shape = graph.values[gated].shape
        guard gated != gate, shape.count == 4, shape[0] == 1, graph.values[n[e + 2].outputs[0]].shape == shape,
              graph.values[gate].shape == [1, shape[1], 1, 1] else { return nil }
        let c = shape[1], hidden = reduce.outputChannels
        for conv in [reduce, expand] {
            guard conv.batch == 1, conv.depth == .unit, conv.group == 1, conv.height.input == 1, conv.width.input == 1,
                  conv.height.kernel == 1, conv.width.kernel == 1, conv.height.padBegin == 0, conv.height.padEnd == 0,
                  conv.width.padBegin == 0, conv.width.padEnd == 0 else { return nil }
        }
        guard reduce.inputChannels == c, expand.inputChannels == hidden, expand.outputChannels == c else { return nil }
        return GateChain(reduce: n[i + 1], expand: n[e], channels: c, hiddenChannels: hidden, hiddenActivation: hiddenActivation,
                         gateActivation: gateActivation, gated: gated, mul: n[e + 2], mulIndex: e + 2,
                         covered: (i + 1...e + 2).map { n[$0].outputs[0] })
    }

    /// Squeeze-and-excite `x · gate(mean(x))` as one step (`squeezeExcite`), led by the pool at `index`.
    func matchSqueezeExcite(at index: Int) -> GateChain? {
        guard let chain = gateChain(poolIndex: index), graph.nodes[index].inputs.first == chain.gated else { return nil }
        return chain
    }
}

extension FusionRules {
    /// The decoder's attention gate `s · gate(mean(s + u)) + u` as one step (`attentionGate`),
    /// led by its first Add: `a = s + u` read only by a pool starting a gate chain over `s`, whose
    /// Mul is read only by the next node, an Add of `u`.
    func matchAttentionGate(_ binary: ElementwiseBinary, at i: Int) -> AttentionGateFusion? {
        guard binary.kind == .add else { return nil }
        let node = graph.nodes[i]
        guard node.inputs.count == 2, let sum = node.outputs.first, i + 7 < graph.nodes.count,
              soleConsumer(of: sum)?.outputs == graph.nodes[i + 1].outputs,
              let chain = gateChain(poolIndex: i + 1), node.inputs.contains(chain.gated),
              chain.mulIndex + 1 < graph.nodes.count else { return nil }
        let s = chain.gated
        let u = node.inputs[0] == s ? node.inputs[1] : node.inputs[0]
        let final = graph.nodes[chain.mulIndex + 1]
        guard u != s, let add = final.operation as? ElementwiseBinary, add.kind == .add, final.inputs.count == 2,
              soleConsumer(of: chain.mul.outputs[0])?.outputs == final.outputs,
              Set(final.inputs) == [chain.mul.outputs[0], u], graph.values[u].shape == graph.values[s].shape,
              graph.values[sum].shape == graph.values[s].shape, Self.planes(graph.values[s].shape) != nil,
              let out = final.outputs.first else { return nil }
        return AttentionGateFusion(chain: chain, skip: s, upsampled: u, output: out,
                                   absorbed: [graph.nodes[i + 1].outputs[0]] + chain.covered + [out])
    }

}

extension FusionRules {
    /// A bilinear ×2 `Resize` whose only reader is a 1x1 convolution without activation (the
    /// decoder's upsample-then-project): both are linear per pixel and the resize weights sum to
    /// 1, so `conv(resize(x)) = resize(conv(x))` (bias included). The step convolves at the low
    /// resolution into its own buffer, then upsamples the convolution's (fewer or as many)
    /// channels into the convolution's output, whose node then runs nothing: a quarter of the
    /// multiply-adds and one pass over the large map instead of two. The rounding differs from
    /// the unfused order by a few ulp (the fused results are compared with onnxruntime; the
    /// node-by-node check runs unfused). Returns the convolution's output.
    func matchResizedPointwise(_ resize: Resize, at here: Int) -> Int? {
        guard let value = graph.nodes[here].outputs.first,
              resize.outH == 2 * resize.inH, resize.outW == 2 * resize.inW,
              let shape = resize.outputShapes.first, shape.count == 4, shape[0] == 1,
              Self.isHalfPixelDoubling(resize.rows, input: resize.inH),
              Self.isHalfPixelDoubling(resize.columns, input: resize.inW),
              let next = follower(of: value),
              let conv = next.operation as? Conv, next.inputs.first == value, hasConstantWeights(next), conv.batch == 1,
              conv.depth == .unit, conv.group == 1,
              conv.height.kernel == 1, conv.width.kernel == 1, conv.height.stride == 1, conv.width.stride == 1,
              conv.height.padBegin == 0, conv.height.padEnd == 0, conv.width.padBegin == 0, conv.width.padEnd == 0,
              conv.inputChannels == shape[1] else { return nil }
        // An activation after the convolution does not commute with the resize: it stays its own node.
        return next.outputs[0]
    }

}

extension FusionRules {
    /// A 2x2 stride-2 ConvTranspose with a Sigmoid right after it (the mask), and a Reshape right
    /// after that (NCHW → NHWC of one channel: the same elements), written by one step: rows of
    /// the output are written while later input rows are still to be read (the buffer plan keeps
    /// them apart).
    func matchMaskHead(_ t: ConvTranspose, at here: Int) -> MaskHeadFusion? {
        guard Self.isDoubling(t) else { return nil }
        let node = graph.nodes[here]
        guard let next = follower(of: node.outputs[0]), let unary = next.operation as? ElementwiseUnary,
              unary.kind == .sigmoid else { return nil }
        if let reshape = follower(of: next.outputs[0]), reshape.operation is Reshape {
            return MaskHeadFusion(target: reshape.outputs[0], absorbed: [next.outputs[0], reshape.outputs[0]])
        }
        return MaskHeadFusion(target: next.outputs[0], absorbed: [next.outputs[0]])
    }

}
