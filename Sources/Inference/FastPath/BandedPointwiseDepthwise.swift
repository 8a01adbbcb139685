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
    /// Output rows per band, and the input rows a band needs.
    let bandRows: Int, rowsIn: Int
    let absorbed: [Int]
}

extension FusionRules {
    /// The banded pair led by the 1x1 convolution at `index`: its output (after its epilogue) is
    /// read by the depthwise convolution right after it, and at most also by that convolution's
    /// residual Add. Taken only where a band recomputes fewer rows than it keeps.
    func matchPointwiseDepthwise(at index: Int, plan: FusionPlan) -> BandedFusion? {
        guard let conv = graph.nodes[index].operation as? Conv else { return nil }
        let node = graph.nodes[index], value = node.outputs[0]
        let (channels, height, width) = (conv.outputChannels, conv.height.output, conv.width.output)
        let pointwiseChain = epilogue(after: value, channels: channels, foldsBatchNorm: true)
        let v = pointwiseChain.output, next = index + 1 + pointwiseChain.absorbed.count
        guard next < graph.nodes.count, !graph.outputIDs.contains(v), consumers[v].contains(next),
              consumers[v].count <= 2 else { return nil }
        let dwNode = graph.nodes[next]
        guard let dw = dwNode.operation as? Conv, dwNode.inputs.first == v, hasConstantWeights(dwNode),
              case .depthwise(let pad) = Self.kind(of: dw), dw.height.kernel <= 9,
              dw.inputChannels == channels, dw.height.input == height, dw.width.input == width else { return nil }
        let stride = dw.height.stride
        let fused = fusedOutput(of: dwNode.outputs[0], channels: channels, height: dw.height.output,
                                width: dw.width.output, absorbsResidual: true)
        let residualIsInput = fused.residual == v
        // v's second reader, if any, must be the residual Add just absorbed.
        guard consumers[v].count == 1 || residualIsInput else { return nil }
        // The depthwise output is written band by band while the 1x1 convolution still reads its
        // input: the buffer plan keeps them apart (the step is one node to it).
        // The gated map is never written, so nothing else may read it (a graph output is read by
        // the caller); the step reads the gate's inputs instead, which the buffer plan keeps
        // until it ran (`FusionPlan.Fusion.extraReads`).
        var gate: (leader: Int, fusion: AttentionGateFusion)? = nil
        if let producer = nodeIndex[node.inputs[0]], producer + 1 == index, let leader = plan.absorbedBy[producer],
           case .attentionGate(let g)? = plan.fusions[leader], g.output == node.inputs[0], soleConsumer(of: g.output) != nil {
            gate = (leader, g)
        }
        // Bands of about 192 KiB of expanded rows (L2 holds the band, its input rows and output rows;
        // smaller and larger bands measure slower on the built-in models).
        let rowBytes = channels * PlaneLayout.padded(width: width, height: height, pad: pad).rowStride * MemoryLayout<Float>.size
        let span = dw.height.effectiveKernel
        let rowsFit = max(span, (192 << 10) / rowBytes)
        var bandRows = max(1, (rowsFit - span) / stride + 1)
        if bandRows >= 4 { bandRows -= bandRows % 4 }
        bandRows = min(bandRows, dw.height.output)
        let rowsIn = bandInputRows(outputRows: bandRows, stride: stride, kernelSize: span)
        // Rows two bands share are computed twice: past twice the work, separate steps are faster.
        guard rowsIn <= 2 * bandRows * stride else { return nil }
        return BandedFusion(pointwise: pointwiseChain, depthwiseNode: next, depthwise: fused, residualIsInput: residualIsInput,
                            gate: gate?.leader, gateInputs: gate.map { ($0.fusion.skip, $0.fusion.upsampled) },
                            bandRows: bandRows, rowsIn: rowsIn,
                            absorbed: pointwiseChain.absorbed + [dwNode.outputs[0]] + fused.absorbed)
    }

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
            let lattice = Self.compactLattice(folded.weights, channels: channels, kernelSize: k)
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
        let pad = Self.kind(of: dw)!.inputPad!
        let (outH, outW) = (dw.height.output, dw.width.output)
        let residual = f.residualIsInput ? nil : f.depthwise.residual.map {
            Self.denseMap(pointer($0), channels: channels, height: outH, width: outW)
        }
        var gatedInput: GatedInput? = nil
        if let leader = f.gate, case .attentionGate(let gate)? = plan.fusions[leader], let values = gateValues(leader) {
            let (c, h, w) = Self.planes(graph.values[gate.output].shape)!
            gatedInput = GatedInput(skip: Self.denseMap(pointer(gate.skip), channels: c, height: h, width: w),
                                    upsampled: Self.denseMap(pointer(gate.upsampled), channels: c, height: h, width: w),
                                    gate: UnsafePointer(values))
        }
        return PointwiseDepthwiseStep(
            input: Self.denseMap(inputs[0], channels: conv.inputChannels, height: height, width: width), gatedInput: gatedInput,
            pointwise: weights, pointwiseActivation: f.pointwise.activation, bandRows: f.bandRows, bandPad: pad,
            depthwise: depthwise, stride: dw.height.stride, dilation: dw.height.dilation * latticeStep,
            padTop: dw.height.padBegin, padLeft: dw.width.padBegin, depthwiseActivation: f.depthwise.epilogue.activation,
            residualIsInput: f.residualIsInput, residual: residual,
            output: outputMap(f.depthwise.target, channels: channels, height: outH, width: outW), pool: pool)
    }
}
