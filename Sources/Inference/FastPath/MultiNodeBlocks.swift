import Kernels

// Fusions of multi-node blocks: squeeze-and-excite and attention gates, an upsample reordered
// after the 1x1 convolution reading it, and a transposed convolution writing the mask (their
// rules are in `Rules/BlockRules.swift`).

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
        let (c, h, w) = StepBuilder.planes(graph.values[out].shape)!
        return SqueezeExciteStep(input: StepBuilder.denseMap(pointer(chain.gated), channels: c, height: h, width: w),
                                 output: StepBuilder.denseMap(pointer(out), channels: c, height: h, width: w),
                                 weights: gateWeights(chain), pool: pool)
    }
}

extension StepBuilder {
    /// The gate's step: it applies the gate, or (when a banded step took the application over)
    /// only computes the gate's values for that step.
    func attentionGateStep(_ f: AttentionGateFusion, leader: Int) -> any Step {
        let (c, h, w) = StepBuilder.planes(graph.values[f.output].shape)!
        let map = { (value: Int) in StepBuilder.denseMap(self.pointer(value), channels: c, height: h, width: w) }
        if let values = gateValues(leader) {
            return AttentionGateValuesStep(skip: map(f.skip), upsampled: map(f.upsampled), weights: gateWeights(f.chain),
                                           gate: values, pool: pool)
        }
        return AttentionGateStep(skip: map(f.skip), upsampled: map(f.upsampled), output: map(f.output),
                                 weights: gateWeights(f.chain), pool: pool)
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
            input: StepBuilder.denseMap(inputs[0], channels: cin, height: resize.inH, width: resize.inW),
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
            input: StepBuilder.denseMap(inputs[0], channels: t.inputChannels, height: t.inH, width: t.inW),
            output: StepBuilder.denseMap(fusion.map { pointer($0.target) } ?? output, channels: t.outputChannels, height: t.outH, width: t.outW),
            activation: fusion == nil ? .none : .sigmoid, pool: pool, weights: weights)
    }
}
