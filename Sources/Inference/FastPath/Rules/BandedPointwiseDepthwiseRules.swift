import Kernels

// The banded 1x1 + depthwise rule. Its step is built in `BandedPointwiseDepthwise.swift`.

extension FusionRules {
    /// The banded pair led by the 1x1 convolution at `index`: its output (after its epilogue) is
    /// read by the depthwise convolution right after it, and at most also by that convolution's
    /// residual Add. Taken only where a band recomputes fewer rows than it keeps.
    func matchPointwiseDepthwise(at index: Int, plan: FusionPlan) -> BandedFusion? {
        guard let conv = graph.nodes[index].operation as? Conv else { return nil }
        let node = graph.nodes[index], value = node.outputs[0]
        let (channels, height, width) = (conv.outputChannels, conv.height.output, conv.width.output)
        let pointwiseChain = epilogue(after: value, channels: channels)
        let v = pointwiseChain.output, next = index + 1 + pointwiseChain.absorbed.count
        guard next < graph.nodes.count, !graph.outputIDs.contains(v), consumers[v].contains(next),
              consumers[v].count <= 2 else { return nil }
        let dwNode = graph.nodes[next]
        guard let dw = dwNode.operation as? Conv, dwNode.inputs.first == v, hasConstantWeights(dwNode),
              case .depthwise(let pad) = Self.kind(of: dw), dw.height.kernel <= 9, !Self.runsOnSmallMap(depthwise: dw),
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
        let fitting = max(1, (rowsFit - span) / stride + 1)
        // Bands whose input rows are more than twice their output rows' worth (a 5x5 over rows of
        // 61 KiB fits one output row) measure slower than separate steps.
        guard bandInputRows(outputRows: fitting, stride: stride, kernelSize: span) <= 2 * fitting * stride else { return nil }
        // At least four output rows, the depthwise kernel's register tile: a band of fewer runs
        // one-row tiles, each a chain of dependent multiply-adds.
        var bandRows = max(4, fitting)
        bandRows -= bandRows % 4
        bandRows = min(bandRows, dw.height.output)
        guard bandInputRows(outputRows: bandRows, stride: stride, kernelSize: span) <= 2 * bandRows * stride else { return nil }
        return BandedFusion(pointwise: pointwiseChain, depthwiseNode: next, depthwise: fused, residualIsInput: residualIsInput,
                            gate: gate?.leader, gateInputs: gate.map { ($0.fusion.skip, $0.fusion.upsampled) },
                            bandRows: bandRows,
                            absorbed: pointwiseChain.absorbed + [dwNode.outputs[0]] + fused.absorbed)
    }

}

extension FusionRules {
    /// The small-map pair led by the 1x1 convolution at `index`: a 1x1 that runs as the GEMM over
    /// output channels (`runsAsMatrixProduct`) whose output (after its epilogue) only the depthwise
    /// convolution right after it reads, which runs vectorised over channels (`runsOnSmallMap`)
    /// on its whole window (no taps trimmed, `inputWindow`). The depthwise node keeps its
    /// epilogue and residual Add; a Transpose after it stays a node of its own. A 1x1 that runs as
    /// the GEMM and is the only reader of the depthwise output (no residual Add on it) right
    /// after it is taken too, with its own fusion (`matchSmallMapProjection`).
    func matchSmallMapPointwiseDepthwise(at index: Int) -> SmallMapPairFusion? {
        guard let conv = graph.nodes[index].operation as? Conv, Self.kind(of: conv) == .pointwise(groups: 1),
              conv.height.kernel == 1, conv.width.kernel == 1 else { return nil }
        let node = graph.nodes[index], value = node.outputs[0]
        let (channels, height, width) = (conv.outputChannels, conv.height.output, conv.width.output)
        guard Self.runsAsMatrixProduct(pixels: height * width, weights: conv.inputChannels * channels) else { return nil }
        let pointwiseChain = epilogue(after: value, channels: channels)
        let v = pointwiseChain.output, next = index + 1 + pointwiseChain.absorbed.count
        guard next < graph.nodes.count, !graph.outputIDs.contains(v), consumers[v] == [next] else { return nil }
        let dwNode = graph.nodes[next]
        guard let dw = dwNode.operation as? Conv, dwNode.inputs.first == v, hasConstantWeights(dwNode),
              case .depthwise = Self.kind(of: dw), Self.runsOnSmallMap(depthwise: dw), Self.inputWindow(of: dw) == nil,
              dw.inputChannels == channels, dw.height.input == height, dw.width.input == width else { return nil }
        let (outH, outW) = (dw.height.output, dw.width.output)
        let fused = fusedOutput(of: dwNode.outputs[0], channels: channels, height: outH, width: outW, absorbsResidual: true)
        let absorbed = pointwiseChain.absorbed + [dwNode.outputs[0]] + fused.absorbed
        guard let (projectionNode, projection) = matchSmallMapProjection(after: fused, at: next + 1 + fused.absorbed.count,
                                                                         channels: channels, height: outH, width: outW) else {
            return SmallMapPairFusion(pointwise: pointwiseChain, depthwiseNode: next, depthwise: fused, absorbed: absorbed)
        }
        return SmallMapPairFusion(pointwise: pointwiseChain, depthwiseNode: next, depthwise: fused,
                                  projectionNode: projectionNode, projection: projection,
                                  absorbed: absorbed + [graph.nodes[projectionNode].outputs[0]] + projection.absorbed)
    }

    /// The 1x1 convolution at `index` reading the small-map pair's depthwise output (`fused`, no
    /// residual) as its only reader, which also runs as the GEMM over output channels, with its
    /// epilogue, residual Add and the Relu after it (as `matchConvolution` gives a 1x1).
    func matchSmallMapProjection(after fused: ConvolutionFusion, at index: Int, channels: Int, height: Int,
                                 width: Int) -> (node: Int, fusion: ConvolutionFusion)? {
        let v = fused.target
        guard fused.residual == nil, index < graph.nodes.count, !graph.outputIDs.contains(v), consumers[v] == [index] else {
            return nil
        }
        let node = graph.nodes[index]
        guard let conv = node.operation as? Conv, node.inputs.first == v, hasConstantWeights(node),
              Self.kind(of: conv) == .pointwise(groups: 1), conv.height.kernel == 1, conv.width.kernel == 1,
              conv.inputChannels == channels, conv.height.input == height, conv.width.input == width,
              Self.runsAsMatrixProduct(pixels: height * width, weights: channels * conv.outputChannels) else { return nil }
        let projection = fusedOutput(of: node.outputs[0], channels: conv.outputChannels, height: height, width: width,
                                     absorbsResidual: true, rectifiesSum: true)
        return (index, projection)
    }
}
