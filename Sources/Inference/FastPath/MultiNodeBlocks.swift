import Kernels

// Fusions of multi-node blocks: squeeze-and-excite and attention gates, an upsample reordered
// after the 1x1 convolution reading it, and a transposed convolution writing the mask.

/// The decoder's attention gate `s · gate(mean(s + u)) + u`, led by its first Add `s + u`.
struct AttentionGateFusion {
    let chain: GateChain
    let skip: Int, upsampled: Int
    /// The final Add's output.
    let output: Int
    let absorbed: [Int]
}

/// A 2x2 stride-2 ConvTranspose with the Sigmoid after it, and the Reshape after that.
struct MaskHeadFusion {
    /// The value the step writes (the Sigmoid's or the Reshape's output).
    let target: Int
    let absorbed: [Int]
}

/// A squeeze-and-excite gate starting at a global average pool: the nodes after it are, in
/// order and each the only reader of the one before, a 1x1 Conv (reduce), its activation (Relu,
/// or SiLU: a Sigmoid of the Conv's output and a Mul of the two, the Conv's output read by those
/// two nodes alone), a 1x1 Conv (expand), the gate's activation (Sigmoid or HardSigmoid) and a
/// Mul of the gate with a [1, C, H, W] value.
struct GateChain {
    /// The reduce and expand convolutions (their weights are packed when the step is made).
    let reduce: PlannedNode, expand: PlannedNode
    let channels: Int, hiddenChannels: Int
    let hiddenActivation: GateHiddenActivation, gateActivation: GateActivation
    /// The value the gate multiplies, and the Mul node with its index in `graph.nodes`.
    let gated: Int
    let mul: PlannedNode
    let mulIndex: Int
    /// Output values of the nodes after the pool, up to and including the Mul.
    let covered: [Int]
}

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
        } else if let sigmoid = n[e].operation as? ElementwiseUnary, sigmoid.kind == .sigmoid, n[e].inputs.first == reduced,
                  let mul = n[e + 1].operation as? ElementwiseBinary, mul.kind == .mul, n[e + 1].inputs.count == 2,
                  Set(n[e + 1].inputs) == [reduced, n[e].outputs[0]], !graph.outputIDs.contains(reduced),
                  Set(consumers[reduced]) == [e, e + 1], soleConsumer(of: n[e].outputs[0])?.outputs == n[e + 1].outputs {
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

extension StepBuilder {
    /// A gate chain's two convolutions, packed.
    func gateWeights(_ chain: GateChain) -> GateWeights {
        let (c, hidden) = (chain.channels, chain.hiddenChannels)
        let constants = { (node: PlannedNode, index: Int, count: Int) in
            Array(UnsafeBufferPointer(start: self.pointer(node.inputs[index]), count: count))
        }
        let reduce = chain.reduce.operation as! Conv, expand = chain.expand.operation as! Conv
        return packed {
            GateWeights(
                reduce: constants(chain.reduce, 1, hidden * c), reduceBias: reduce.hasBias ? constants(chain.reduce, 2, hidden) : nil,
                expand: constants(chain.expand, 1, c * hidden), expandBias: expand.hasBias ? constants(chain.expand, 2, c) : nil,
                channels: c, hiddenChannels: hidden, hiddenActivation: chain.hiddenActivation, gateActivation: chain.gateActivation)
        }
    }

    func squeezeExciteStep(_ chain: GateChain) -> any Step {
        let out = chain.mul.outputs[0]
        let (c, h, w) = Self.planes(graph.values[out].shape)!
        return SqueezeExciteStep(input: Self.denseMap(pointer(chain.gated), channels: c, height: h, width: w),
                                 output: Self.denseMap(pointer(out), channels: c, height: h, width: w),
                                 weights: gateWeights(chain), pool: pool)
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

extension StepBuilder {
    /// The gate's step: it applies the gate, or (when a banded step took the application over)
    /// only computes the gate's values for that step.
    func attentionGateStep(_ f: AttentionGateFusion, leader: Int) -> any Step {
        let (c, h, w) = Self.planes(graph.values[f.output].shape)!
        let map = { (value: Int) in Self.denseMap(self.pointer(value), channels: c, height: h, width: w) }
        if let values = gateValues(leader) {
            return AttentionGateValuesStep(skip: map(f.skip), upsampled: map(f.upsampled), weights: gateWeights(f.chain),
                                           gate: values, pool: pool)
        }
        return AttentionGateStep(skip: map(f.skip), upsampled: map(f.upsampled), output: map(f.output),
                                 weights: gateWeights(f.chain), pool: pool)
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

extension StepBuilder {
    func resizedPointwiseStep(_ resize: Resize, convolutionOutput: Int, _ inputs: [UnsafePointer<Float>]) -> any Step {
        let next = graph.nodes[rules.nodeIndex[convolutionOutput]!]
        let conv = next.operation as! Conv
        let cin = conv.inputChannels, cout = conv.outputChannels
        let weights = packed {
            PointwiseWeights(weights: Array(UnsafeBufferPointer(start: pointer(next.inputs[1]), count: cout * cin)),
                             bias: conv.hasBias ? Array(UnsafeBufferPointer(start: pointer(next.inputs[2]), count: cout)) : nil,
                             outputChannels: cout, inputChannels: cin)
        }
        return ResizedPointwiseStep(
            input: Self.denseMap(inputs[0], channels: cin, height: resize.inH, width: resize.inW),
            small: FeatureMapStorage(channels: cout, layout: .dense(width: resize.inW, height: resize.inH)),
            output: outputMap(next.outputs[0], channels: cout, height: resize.outH, width: resize.outW), pool: pool,
            weights: weights)
    }

}

extension KernelChoices {
    /// Whether `t` is a 2x2 stride-2 ConvTranspose without padding (group 1, batch 1, 2-D).
    static func isDoubling(_ t: ConvTranspose) -> Bool {
        t.outputShapes[0].count == 4 && t.batch == 1 && t.group == 1 && t.kH == 2 && t.kW == 2 && t.strideH == 2
            && t.strideW == 2 && t.dilationH == 1 && t.dilationW == 1 && t.padTop == 0 && t.padLeft == 0
            && t.outH == 2 * t.inH && t.outW == 2 * t.inW
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

extension StepBuilder {
    /// The 2x2 stride-2 ConvTranspose (`fusion` nil: alone, writing `output`).
    func doublingTransposedStep(_ t: ConvTranspose, _ inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>,
                                fusion: MaskHeadFusion?) -> any Step {
        let weights = packed {
            TransposedConvolutionWeights(weights: Array(UnsafeBufferPointer(start: inputs[1], count: t.inputChannels * t.outputChannels * 4)),
                                         bias: t.hasBias ? Array(UnsafeBufferPointer(start: inputs[2], count: t.outputChannels)) : nil,
                                         inputChannels: t.inputChannels, outputChannels: t.outputChannels)
        }
        return TransposedConvolutionStep(
            input: Self.denseMap(inputs[0], channels: t.inputChannels, height: t.inH, width: t.inW),
            output: Self.denseMap(fusion.map { pointer($0.target) } ?? output, channels: t.outputChannels, height: t.outH, width: t.outW),
            activation: fusion == nil ? .none : .sigmoid, pool: pool, weights: weights)
    }
}
