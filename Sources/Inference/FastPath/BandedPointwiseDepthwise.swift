import Kernels

/// A 1x1 convolution (+ its epilogue) and the depthwise convolution reading its output, run as
/// one step in bands of rows (`pointwiseThenDepthwise`): the expanded map lives only in a small
/// band buffer. The depthwise node keeps its own fusion (epilogue, residual Add, padded output).
struct BandedFusion {
    /// The 1x1 convolution's epilogue (it writes only the band buffer).
    let pointwise: Epilogue
    /// The depthwise node's index in `graph.nodes`, and its fusion.
    let depthwiseNode: Int
    let depthwise: ConvolutionFusion
    /// Whether the depthwise node's residual is the 1x1's output (then read from the band).
    let residualIsInput: Bool
    /// The attention gate (by its leading node) producing the 1x1's input, applied band by band:
    /// the gated map is never written, the band reads the gate's two inputs. Taken only when the
    /// 1x1 is the gated map's only reader (it is no graph output) and runs right after the gate.
    let gate: Int?
    /// That gate's two inputs, which the step reads (`FusionPlan.Fusion.extraReads`).
    let gateInputs: (skip: Int, upsampled: Int)?
    /// Output rows per band.
    let bandRows: Int
    let absorbed: [Int]
}

extension StepBuilder {
    func pointwiseDepthwiseStep(_ f: BandedFusion, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>]) -> any Step {
        let conv = node.operation as! Conv
        let dwNode = graph.nodes[f.depthwiseNode]
        let dw = dwNode.operation as! Conv
        let (channels, height, width) = (conv.outputChannels, conv.height.output, conv.width.output)
        let k = dw.height.kernel
        let constant = { (value: Int, count: Int) in Array(UnsafeBufferPointer(start: self.pointer(value), count: count)) }
        let (depthwise, latticeStep) = packed {
            let folded = f.depthwise.epilogue.folded(weights: constant(dwNode.inputs[1], channels * k * k),
                                                     bias: dw.hasBias ? constant(dwNode.inputs[2], channels) : nil,
                                                     outputChannels: channels)
            let lattice = StepBuilder.compactLattice(folded.weights, channels: channels, kernelSize: k)
            return (DepthwiseWeights(weights: lattice.weights, bias: folded.bias, channels: channels, kernelSize: lattice.kernelSize),
                    lattice.step)
        }
        let weights = packed {
            let folded = f.pointwise.folded(weights: Array(UnsafeBufferPointer(start: inputs[1], count: channels * conv.inputChannels)),
                                            bias: conv.hasBias ? Array(UnsafeBufferPointer(start: inputs[2], count: channels)) : nil,
                                            outputChannels: channels)
            return PointwiseWeights(weights: folded.weights, bias: folded.bias, outputChannels: channels,
                                    inputChannels: conv.inputChannels)
        }
        let pad = StepBuilder.kind(of: dw)!.inputPad!
        // The kernel's window as it runs (the compacted lattice), which sizes the band.
        let band = bandLayout(width: width, bandOutputRows: f.bandRows, stride: dw.height.stride,
                              kernelSpan: (depthwise.kernelSize - 1) * dw.height.dilation * latticeStep + 1, bandPad: pad)
        let ownBands = band.borderOutweighsInterior
            ? (0..<pool.threadCount).map { _ in FeatureMapStorage(channels: channels, layout: band) } : nil
        let (outH, outW) = (dw.height.output, dw.width.output)
        let residual = f.residualIsInput ? nil : f.depthwise.residual.map {
            StepBuilder.denseMap(pointer($0), channels: channels, height: outH, width: outW)
        }
        var gatedInput: GatedInput? = nil
        if let leader = f.gate, case .attentionGate(let gate)? = plan.fusions[leader], let values = gateValues(leader) {
            let (c, h, w) = StepBuilder.planes(graph.values[gate.output].shape)!
            gatedInput = GatedInput(skip: StepBuilder.denseMap(pointer(gate.skip), channels: c, height: h, width: w),
                                    upsampled: StepBuilder.denseMap(pointer(gate.upsampled), channels: c, height: h, width: w),
                                    gate: UnsafePointer(values))
        }
        return PointwiseDepthwiseStep(
            input: StepBuilder.denseMap(inputs[0], channels: conv.inputChannels, height: height, width: width), gatedInput: gatedInput,
            pointwise: weights, pointwiseActivation: f.pointwise.activation, bandRows: f.bandRows, bandPad: pad, ownBands: ownBands,
            depthwise: depthwise, stride: dw.height.stride, dilation: dw.height.dilation * latticeStep,
            padTop: dw.height.padBegin, padLeft: dw.width.padBegin, depthwiseActivation: f.depthwise.epilogue.activation,
            residualIsInput: f.residualIsInput, residual: residual,
            output: outputMap(f.depthwise.target, channels: channels, height: outH, width: outW), pool: pool)
    }
}
