import Kernels

// The convolution rules: a Conv with the epilogue and residual Add it absorbs, and a zero Pad folded
// into the convolution after it. Their steps are built in `Convolutions.swift`.

extension FusionRules {
    /// The Pad (an `AxisGather` that fills zeros before and after the rows and columns only) read
    /// only by the convolution right after it, when the combined borders suit a padded kernel.
    /// The step runs at the Pad's turn: the convolution copies the Pad's input into its
    /// zero-bordered buffer before it writes, so its output may take that input's buffer (or
    /// reads it where its producer wrote it zero-bordered, `paddedBorder`: the buffer plan never
    /// hands such a buffer over).
    func matchPaddedConvolution(_ gather: AxisGather, _ node: PlannedNode) -> PaddedConvolution? {
        guard gather.outputTypes == [.float32], gather.fill == 0,
              let (_, h, w) = Self.planes(graph.values[node.inputs[0]].shape),
              let (rows, columns) = spatialBorders(gather, node),
              let next = follower(of: node.outputs[0]), let conv = next.operation as? Conv, next.inputs.first == node.outputs[0],
              hasConstantWeights(next), conv.depth == .unit else { return nil }
        var height = conv.height, width = conv.width
        height.input = h
        height.padBegin += rows.before
        height.padEnd += rows.after
        width.input = w
        width.padBegin += columns.before
        width.padEnd += columns.after
        let folded = Conv(dataInputs: conv.dataInputs, outputShapes: conv.outputShapes, batch: conv.batch,
                          inputChannels: conv.inputChannels, outputChannels: conv.outputChannels, group: conv.group,
                          depth: conv.depth, height: height, width: width, hasBias: conv.hasBias)
        guard let kind = Self.kind(of: folded), kind.inputPad != nil else { return nil }
        let fusion = matchConvolution(folded, kind: kind, next, reading: node.inputs[0])
        // The Pad's output is never written: nothing may read it.
        guard fusion.residual != node.outputs[0] else { return nil }
        return PaddedConvolution(convolutionNode: nodeIndex[next.outputs[0]]!, conv: folded, kind: kind, convolution: fusion,
                                 absorbed: [next.outputs[0]] + fusion.absorbed)
    }

    /// The zeros before and after the rows and the columns of a 4-D gather that copies the batch
    /// and channel axes through and pads (never crops) the other two.
    func spatialBorders(_ gather: AxisGather, _ node: PlannedNode) -> (rows: (before: Int, after: Int), columns: (before: Int, after: Int))? {
        let input = graph.values[node.inputs[0]].shape, output = gather.outputShapes[0]
        guard input.count == 4, output.count == 4, input[0] == output[0], input[1] == output[1] else { return nil }
        let (n, c, h, w) = (input[0], input[1], input[2], input[3])
        guard gather.sources[0] == (0..<n).map({ $0 * c * h * w }), gather.sources[1] == (0..<c).map({ $0 * h * w }),
              let rows = Self.zeroBorders(gather.sources[2], length: h, stride: w),
              let columns = Self.zeroBorders(gather.sources[3], length: w, stride: 1) else { return nil }
        return (rows, columns)
    }

    /// The zeros before and after an axis whose gather table is `before` fills, the input's
    /// `length` indices in order (times `stride`), then `after` fills.
    static func zeroBorders(_ table: [Int], length: Int, stride: Int) -> (before: Int, after: Int)? {
        guard let first = table.firstIndex(where: { $0 >= 0 }) else { return nil }
        let after = table.count - first - length
        guard after >= 0, table[..<first].allSatisfy({ $0 == -1 }), table[(first + length)...].allSatisfy({ $0 == -1 }),
              (0..<length).allSatisfy({ table[first + $0] == $0 * stride }) else { return nil }
        return (first, after)
    }

    /// The fusion of the convolution `node` of this kind (it absorbs nothing when no chain after
    /// it may be absorbed). `source` is the value its window reads when that is not the node's
    /// input (a Pad folded into it).
    func matchConvolution(_ conv: Conv, kind: ConvolutionKind, _ node: PlannedNode, reading source: Int? = nil) -> ConvolutionFusion {
        let isDepthwise = if case .depthwise = kind { true } else { false }
        let isDense = if case .dense = kind { true } else { false }
        // The 1x1 and dense K×K kernels' stores also rectify the sum with the residual.
        var fusion = fusedOutput(of: node.outputs[0], channels: conv.outputChannels, height: conv.height.output,
                                 width: conv.width.output, absorbsResidual: kind.inputPad == nil || isDepthwise || isDense,
                                 rectifiesSum: kind.inputPad == nil || isDense)
        // A dense K×K adds the residual after its output may have taken the buffer of the input it
        // read (`overwritesInput`): the residual is never that input.
        if isDense, let residual = fusion.residual, residual == node.inputs[0] || residual == source {
            fusion = fusedOutput(of: node.outputs[0], channels: conv.outputChannels, height: conv.height.output,
                                 width: conv.width.output)
        }
        // A 1x1 reads every input channel of a pixel strip (packed to scratch when a second
        // channel tile would read it after the first wrote) before it writes that strip, and a
        // group's GEMM writes only its own output channels, which with as many outputs as inputs
        // are the channels it read. A depthwise or dense K×K reads a zero-bordered copy of its
        // input, made before it writes (an input its producer writes zero-bordered has no dense
        // buffer to write over).
        fusion.overwritesInput = kind.inputPad != nil || conv.inputChannels == conv.outputChannels
        // The small-map depthwise kernel reads its input where it is, a block of channels before
        // it writes their planes: the same planes only when the output has the input's size.
        if isDepthwise && Self.runsOnSmallMap(depthwise: conv) {
            fusion.overwritesInput = conv.height.output == conv.height.input && conv.width.output == conv.width.input
        }
        if let transposed = channelsLastOutput(of: conv, kind: kind, fusion) {
            fusion.absorbed.append(transposed)
            fusion.target = transposed
            fusion.channelsLast = true
            // Its tiles write the output while they read the input.
            fusion.overwritesInput = false
        }
        return fusion
    }

    /// The output of a Transpose to NHWC ([0, 2, 3, 1]) that is the only reader of a convolution's
    /// output (after what its fusion absorbs, no residual), when a small-map kernel runs the
    /// convolution and can write that Transpose's output itself: a dense K×K of one group on the
    /// small-map kernel with no activation (its pixel-major sums are the NHWC output, written in
    /// place of the spread to planes: ConvNeXt's patchify stem), or a depthwise convolution
    /// vectorised over channels, on rows of up to 32 with the wide register file
    /// (`runsOnSmallMapChannelsLast`; its outputs stored pixel-major from the registers instead of
    /// staged and moved to planes: ConvNeXt's 7x7s on 28x28, 14x14 and 7x7 maps before their
    /// channels-last LayerNormalization).
    func channelsLastOutput(of conv: Conv, kind: ConvolutionKind, _ fusion: ConvolutionFusion) -> Int? {
        guard fusion.residual == nil, let next = follower(of: fusion.target), next.inputs.first == fusion.target,
              let transpose = next.operation as? Transpose, transpose.perm == [0, 2, 3, 1],
              transpose.outputTypes == [.float32], transpose.inputShape.count == 4, transpose.inputShape[0] == 1 else { return nil }
        switch kind {
        case .dense:
            let trimmed = Self.inputWindow(of: conv)?.conv ?? conv
            guard conv.group == 1, fusion.epilogue.activation == .none, Self.runsOverChannels(dense: trimmed),
                  !Self.pairsGroups(trimmed) else { return nil }
        case .depthwise:
            guard Self.runsOnSmallMapChannelsLast(depthwise: conv) else { return nil }
        default:
            return nil
        }
        return next.outputs[0]
    }

    /// The epilogue (`Epilogue`: per-channel affine nodes folded in, an activation),
    /// residual `Add` (when `absorbsResidual`) and `Relu` after that Add (when `rectifiesSum`) a
    /// convolution producing `value` may absorb, and the value it then writes. The buffer plan
    /// keeps that value apart from everything the convolution reads (it plans the fused step as
    /// one node).
    func fusedOutput(of value: Int, channels: Int, height: Int, width: Int, absorbsResidual: Bool = false,
                     rectifiesSum: Bool = false) -> ConvolutionFusion {
        let chain = epilogue(after: value, channels: channels)
        var fusion = ConvolutionFusion(epilogue: chain, target: chain.output, absorbed: chain.absorbed)
        if absorbsResidual, let add = residualAdd(after: fusion.target, shape: [1, channels, height, width]) {
            fusion.residual = add.residual
            fusion.absorbed.append(add.output)
            fusion.target = add.output
            if rectifiesSum, let relu = follower(of: add.output), Self.kernelActivation(of: relu) == .relu {
                fusion.rectifiesSum = true
                fusion.absorbed.append(relu.outputs[0])
                fusion.target = relu.outputs[0]
            }
        }
        return fusion
    }

    /// The `Add` node right after `value`'s producer (or its absorbed activation) that adds
    /// another value of the same shape to it, when a convolution can do that addition in its
    /// store: `value` has no other reader.
    func residualAdd(after value: Int, shape: [Int]) -> (residual: Int, output: Int)? {
        guard let next = follower(of: value), let binary = next.operation as? ElementwiseBinary,
              binary.kind == .add, next.inputs.count == 2 else { return nil }
        let residual = next.inputs[0] == value ? next.inputs[1] : next.inputs[0]
        let output = next.outputs[0]
        guard residual != value, graph.values[residual].shape == shape, graph.values[output].shape == shape,
              graph.values[value].shape == shape else { return nil }
        return (residual, output)
    }
}
