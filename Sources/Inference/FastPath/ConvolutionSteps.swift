import Kernels

// The convolution steps: 1x1, depthwise and dense K×K, with their epilogues, padded inputs
// written by their producers, and the banded 1x1 + depthwise pair.
extension FastExecutor {
    /// Where a convolution producing `value` should write, with the epilogue it absorbs
    /// (`Epilogue`: a BatchNormalization folded in when `foldsBatchNorm`, an activation) and a
    /// residual `Add` after that (when `absorbsResidual`).
    ///
    /// The chain is absorbed only when the value it ends in has a buffer that overlaps none of the
    /// convolution's inputs: the plan gives that value a buffer free at its own node's turn, and
    /// writing it a node or two early is safe only if nothing the convolution reads lives there
    /// (its inputs are the only values that can be freed in between; the absorbed values in
    /// between are never written).
    ///
    /// A convolution that reads a zero-bordered copy of its input (`readsArenaInput` false:
    /// depthwise and dense K×K) has read all of it before it writes, so for it no overlap matters.
    ///
    /// A 1x1 convolution (`inPlace` true) may also write exactly over its data input: it reads
    /// every input channel of a pixel strip (packed to scratch when several channel tiles reuse
    /// it) before it writes that strip, and writes nothing else.
    func fusedOutput(of value: Int, node: PlannedNode, channels: Int, height: Int, width: Int,
                     absorbsResidual: Bool = false, readsArenaInput: Bool = true, inPlace: Bool = false,
                     foldsBatchNorm: Bool = true)
        -> (map: FeatureMap, epilogue: Epilogue, absorbed: [Int], residual: Int?) {
        var chain = epilogue(after: value, channels: channels, foldsBatchNorm: foldsBatchNorm)
        if chain.output != value && !writable(chain.output, by: node, readsArenaInput: readsArenaInput, inPlace: inPlace) {
            chain = Epilogue(output: value)
        }
        var target = chain.output
        var absorbed = chain.absorbed
        var residual: Int? = nil
        if absorbsResidual, let add = residualAdd(after: target, node: node, shape: [1, channels, height, width],
                                                  readsArenaInput: readsArenaInput, inPlace: inPlace) {
            residual = add.residual
            absorbed.append(add.output)
            target = add.output
        }
        if let storage = paddedInput(for: target, channels: channels, height: height, width: width) {
            return (storage.map, chain, absorbed, residual)
        }
        return (FeatureMap(base: pointer(target), channels: channels, layout: .dense(width: width, height: height)),
                chain, absorbed, residual)
    }

    /// The `Add` node right after `value`'s producer (or its absorbed activation) that adds
    /// another value of the same shape to it, when a 1x1 convolution can do that addition in its
    /// store: `value` has no other reader, the sum's buffer overlaps none of the convolution's
    /// inputs (the only values that can be freed before the Add's turn), and it is the residual's
    /// buffer exactly or does not overlap it (the kernel reads each residual element right before
    /// writing the same output element).
    func residualAdd(after value: Int, node: PlannedNode, shape: [Int], readsArenaInput: Bool,
                             inPlace: Bool) -> (residual: Int, output: Int)? {
        guard let graph, let next = soleConsumer(of: value), let binary = next.operation as? ElementwiseBinary,
              binary.kind == .add, next.inputs.count == 2, let here = nodeIndex[value],
              here + 1 < graph.nodes.count, graph.nodes[here + 1].outputs == next.outputs else { return nil }
        let residual = next.inputs[0] == value ? next.inputs[1] : next.inputs[0]
        let output = next.outputs[0]
        guard residual != value, graph.values[residual].shape == shape, graph.values[output].shape == shape,
              graph.values[value].shape == shape,
              writable(output, by: node, readsArenaInput: readsArenaInput, inPlace: inPlace),
              pointer(residual) == pointer(output) || !overlap(residual, output) else { return nil }
        return (residual, output)
    }

    /// Whether `node` may write `output` while it runs (see `fusedOutput`).
    func writable(_ output: Int, by node: PlannedNode, readsArenaInput: Bool, inPlace: Bool) -> Bool {
        guard readsArenaInput else { return true }
        return node.inputs.enumerated().allSatisfy { index, input in
            !overlap(input, output) || (inPlace && index == 0 && pointer(input) == pointer(output))
        }
    }

    /// The zero-bordered input buffer of the depthwise or dense K×K convolution that is the sole
    /// reader of `value` (made here and kept for that convolution's step, which then copies
    /// nothing), or nil when `value` has another reader or its reader reads the arena.
    func paddedInput(for value: Int, channels: Int, height: Int, width: Int) -> FeatureMapStorage? {
        guard let reader = soleConsumer(of: value), let conv = reader.operation as? Conv,
              let pad = Self.kind(of: conv)?.inputPad, reader.inputs.first == value,
              conv.inputChannels == channels, conv.height.input == height, conv.width.input == width else { return nil }
        let storage = FeatureMapStorage(channels: channels, layout: .padded(width: width, height: height, pad: pad))
        paddedInputs[value] = storage
        return storage
    }

    /// How the fast path runs a convolution, or nil when it leaves it to the reference kernel.
    enum ConvolutionKind: Equatable {
        /// 1x1, stride 1, no padding: one GEMM over pixels per group of channels.
        case pointwise(groups: Int)
        /// One K×K filter per channel (group = input channels = output channels), stride 1 or 2,
        /// any dilation, reading a zero-bordered copy of its input with this border.
        case depthwise(pad: Int)
        /// K×K of any group count (one dense convolution per group), stride 1 or 2, any dilation,
        /// reading a zero-bordered copy with this border.
        case dense(pad: Int)

        /// The border of the zero-bordered input the kernel reads (nil: it reads the arena).
        var inputPad: Int? {
            switch self {
            case .pointwise: nil
            case .depthwise(let pad), .dense(let pad): pad
            }
        }
    }

    /// The kernel that runs `conv` (batch 1, 2-D, square windows and strides).
    static func kind(of conv: Conv) -> ConvolutionKind? {
        let h = conv.height, w = conv.width
        guard conv.batch == 1, conv.depth == .unit, h.kernel == w.kernel, h.stride == w.stride,
              h.dilation == w.dilation else { return nil }
        let pad = max(h.padBegin, h.padEnd, w.padBegin, w.padEnd)
        if h.kernel == 1 && h.stride == 1 && pad == 0 { return .pointwise(groups: conv.group) }
        // A border of 8 keeps every vector read of the kernels within the padded buffer's slack.
        guard h.stride == 1 || h.stride == 2, h.kernel > 1, pad <= 8 else { return nil }
        if conv.group == conv.inputChannels && conv.outputChannels == conv.inputChannels && h.kernel <= 16 {
            return .depthwise(pad: pad)
        }
        return h.kernel <= 7 ? .dense(pad: pad) : nil
    }

    /// A depthwise filter whose non-zero taps all lie on every `step`-th row and column (a dilated
    /// filter written out with zeros, as tf2onnx writes a SpaceToBatchND convolution), as the
    /// smaller filter of those taps, to run with `step` times the dilation. The sums are the same
    /// for finite inputs: a skipped tap adds 0 · x to a chain of fused multiply-adds in the same
    /// order (only the sign of a zero sum can differ).
    static func compactLattice(_ weights: [Float], channels: Int, kernelSize k: Int) -> (weights: [Float], kernelSize: Int, step: Int) {
        guard k > 2 else { return (weights, k, 1) }
        for step in stride(from: k - 1, through: 2, by: -1) where (k - 1) % step == 0 {
            let onLattice = (0..<channels).allSatisfy { c in
                (0..<k * k).allSatisfy { t in weights[c * k * k + t] == 0 || (t / k % step == 0 && t % k % step == 0) }
            }
            guard onLattice else { continue }
            let size = (k - 1) / step + 1
            var taps: [Float] = []
            taps.reserveCapacity(channels * size * size)
            for c in 0..<channels {
                for ky in 0..<size {
                    for kx in 0..<size { taps.append(weights[c * k * k + ky * step * k + kx * step]) }
                }
            }
            return (taps, size, step)
        }
        return (weights, k, 1)
    }

    func convolutionStep(_ conv: Conv, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                         _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard let kind = Self.kind(of: conv) else { return nil }
        let h = conv.height, w = conv.width
        let k = h.kernel, stride = h.stride
        let cin = conv.inputChannels, cout = conv.outputChannels
        let rawWeights = Array(UnsafeBufferPointer(start: inputs[1], count: cout * (cin / conv.group) * k * k))
        let rawBias = conv.hasBias ? Array(UnsafeBufferPointer(start: inputs[2], count: cout)) : nil
        let input = FeatureMap(base: UnsafeMutablePointer(mutating: inputs[0]), channels: cin,
                               layout: .dense(width: w.input, height: h.input))
        if kind == .pointwise(groups: 1), let step = pointwiseDepthwiseStep(
            node, input: input, weights: rawWeights, bias: rawBias, height: h.output, width: w.output) {
            return step
        }
        // The output (with the epilogue and residual it absorbs, maybe written padded), when fusing.
        var output = FeatureMap(base: outputs[0], channels: cout, layout: .dense(width: w.output, height: h.output))
        var chain = Epilogue(output: node.outputs[0])
        var residualValue: Int? = nil
        if graph != nil, let value = node.outputs.first {
            let isDepthwise = if case .depthwise = kind { true } else { false }
            let fused = fusedOutput(of: value, node: node, channels: cout, height: h.output, width: w.output,
                                    absorbsResidual: kind.inputPad == nil || isDepthwise,
                                    readsArenaInput: kind.inputPad == nil,
                                    // A group's GEMM writes only its own output channels, which
                                    // with as many outputs as inputs are the channels it read.
                                    inPlace: kind.inputPad == nil && cin == cout)
            output = fused.map
            chain = fused.epilogue
            residualValue = fused.residual
            fusedActivations.formUnion(fused.absorbed)
        }
        let (weights, bias) = chain.folded(weights: rawWeights, bias: rawBias, outputChannels: cout)
        let denseResidual = residualValue.map {
            FeatureMap(base: pointer($0), channels: cout, layout: .dense(width: w.output, height: h.output))
        }
        switch kind {
        case .pointwise(groups: 1):
            return PointwiseStep(input: input, output: output, activation: chain.activation, residual: denseResidual, pool: pool,
                                 weights: PointwiseWeights(weights: weights, bias: bias, outputChannels: cout, inputChannels: cin))
        case .pointwise(let groups):
            let (gin, gout) = (cin / groups, cout / groups)
            let parts = (0..<groups).map { g in
                PointwiseWeights(weights: Array(weights[g * gout * gin ..< (g + 1) * gout * gin]),
                                 bias: bias.map { Array($0[g * gout ..< (g + 1) * gout]) }, outputChannels: gout, inputChannels: gin)
            }
            return GroupedPointwiseStep(input: input, output: output, activation: chain.activation, residual: denseResidual,
                                        groups: parts, pool: pool)
        case .depthwise(let pad), .dense(let pad):
            let prefilled = node.inputs.first.flatMap { paddedInputs[$0] }
            let padded = prefilled ?? FeatureMapStorage(channels: cin, layout: .padded(width: w.input, height: h.input, pad: pad))
            if case .dense = kind {
                let (gin, gout, size) = (cin / conv.group, cout / conv.group, (cin / conv.group) * k * k)
                let groups = (0..<conv.group).map { g in
                    ConvolutionWeights(weights: Array(weights[g * gout * size ..< (g + 1) * gout * size]),
                                       bias: bias.map { Array($0[g * gout ..< (g + 1) * gout]) },
                                       outputChannels: gout, inputChannels: gin, kernelSize: k)
                }
                return DenseConvolutionStep(
                    input: input, padded: padded, copiesInput: prefilled == nil, output: output, activation: chain.activation,
                    pool: pool, groups: groups, stride: stride, dilation: h.dilation, padTop: h.padBegin, padLeft: w.padBegin)
            }
            // `r + act(dw(r))` reads r from the padded copy the convolution reads anyway.
            let residual = residualValue == node.inputs.first ? padded.map : denseResidual
            let lattice = Self.compactLattice(weights, channels: cin, kernelSize: k)
            return DepthwiseStep(input: input, padded: padded, copiesInput: prefilled == nil, output: output,
                                 activation: chain.activation, residual: residual, pool: pool,
                                 weights: DepthwiseWeights(weights: lattice.weights, bias: bias, channels: cin,
                                                           kernelSize: lattice.kernelSize),
                                 stride: stride, dilation: h.dilation * lattice.step, padTop: h.padBegin, padLeft: w.padBegin)
        }
    }

    /// A 1x1 convolution (+ its epilogue) whose output is read by the depthwise convolution right
    /// after it (and at most by the Add of that convolution's residual, when the residual is this
    /// very output): both run as one step in bands of rows (`pointwiseThenDepthwise`), the
    /// expanded map living only in a small band buffer. The depthwise node's own fusions
    /// (epilogue, residual Add, padded output) are kept.
    func pointwiseDepthwiseStep(_ node: PlannedNode, input: FeatureMap, weights rawWeights: [Float], bias rawBias: [Float]?,
                                height: Int, width: Int) -> (any Step)? {
        guard let graph, let value = node.outputs.first, let here = nodeIndex[value] else { return nil }
        let channels = rawBias?.count ?? rawWeights.count / input.channels
        // The 1x1 convolution writes only the band buffer, so its epilogue needs no overlap check.
        let pointwiseChain = epilogue(after: value, channels: channels, foldsBatchNorm: true)
        let v = pointwiseChain.output, next = here + 1 + pointwiseChain.absorbed.count
        guard next < graph.nodes.count, !graph.outputIDs.contains(v), consumers[v].contains(next),
              consumers[v].count <= 2 else { return nil }
        let dwNode = graph.nodes[next]
        guard let dw = dwNode.operation as? Conv, dwNode.inputs.first == v, hasConstantWeights(dwNode),
              case .depthwise(let pad) = Self.kind(of: dw), dw.height.kernel <= 9,
              dw.inputChannels == channels, dw.height.input == height, dw.width.input == width,
              let dwValue = dwNode.outputs.first else { return nil }
        let stride = dw.height.stride
        let fused = fusedOutput(of: dwValue, node: dwNode, channels: channels, height: dw.height.output,
                                width: dw.width.output, absorbsResidual: true, readsArenaInput: false)
        let residualIsInput = fused.residual == v
        // v's second reader, if any, must be the residual Add just absorbed.
        guard consumers[v].count == 1 || residualIsInput else { return nil }
        // The depthwise output is written band by band while the 1x1 convolution still reads its
        // input: they must not share memory (a private padded buffer never does).
        let final = fused.absorbed.last ?? dwValue
        let isPrivate = paddedInputs[final].map { $0.buffer.baseAddress == fused.map.base } ?? false
        // An attention gate right before whose output only this step reads: apply it band by band
        // (the gated map is never written), reading its two inputs instead.
        let gate = pendingGates[node.inputs[0]].flatMap { gate in
            consumers[node.inputs[0]].count == 1 && (isPrivate || (!overlap(gate.skip, final) && !overlap(gate.upsampled, final)))
                ? gate : nil
        }
        guard gate != nil || isPrivate || !overlap(node.inputs[0], final) else { return nil }
        let residual = residualIsInput ? nil : fused.residual.map {
            FeatureMap(base: pointer($0), channels: channels, layout: .dense(width: dw.width.output, height: dw.height.output))
        }
        // Bands of about 192 KiB of expanded rows (L2 holds the band, its input rows and output rows;
        // smaller and larger bands measure slower on the built-in models).
        let padded = PlaneLayout.padded(width: width, height: height, pad: pad)
        let rowBytes = channels * padded.rowStride * MemoryLayout<Float>.size
        let dwFolded = fused.epilogue.folded(
            weights: Array(UnsafeBufferPointer(start: pointer(dwNode.inputs[1]), count: channels * dw.height.kernel * dw.height.kernel)),
            bias: dw.hasBias ? Array(UnsafeBufferPointer(start: pointer(dwNode.inputs[2]), count: channels)) : nil,
            outputChannels: channels)
        let lattice = Self.compactLattice(dwFolded.weights, channels: channels, kernelSize: dw.height.kernel)
        let dilation = dw.height.dilation * lattice.step
        let span = dw.height.effectiveKernel
        let rowsFit = max(span, (192 << 10) / rowBytes)
        var bandRows = max(1, (rowsFit - span) / stride + 1)
        if bandRows >= 4 { bandRows -= bandRows % 4 }
        bandRows = min(bandRows, dw.height.output)
        let rowsIn = bandInputRows(outputRows: bandRows, stride: stride, kernelSize: span)
        // Rows two bands share are computed twice: past twice the work, separate steps are faster.
        guard rowsIn <= 2 * bandRows * stride else { return nil }
        let bands = (0..<pool.threadCount).map { _ in
            FeatureMapStorage(channels: channels, layout: .padded(width: width, height: rowsIn, pad: pad))
        }
        let dwWeights = DepthwiseWeights(weights: lattice.weights, bias: dwFolded.bias, channels: channels,
                                         kernelSize: lattice.kernelSize)
        let pointwiseFolded = pointwiseChain.folded(weights: rawWeights, bias: rawBias, outputChannels: channels)
        let weights = PointwiseWeights(weights: pointwiseFolded.weights, bias: pointwiseFolded.bias, outputChannels: channels,
                                       inputChannels: input.channels)
        fusedActivations.formUnion(pointwiseChain.absorbed + [dwValue] + fused.absorbed)
        var gatedInput: GatedInput? = nil
        if let gate {
            gate.buffer.appliesItself = false
            gatedInput = GatedInput(skip: gate.map(gate.skip), upsampled: gate.map(gate.upsampled),
                                    gate: UnsafePointer(gate.buffer.values.baseAddress),
                                    rows: (0..<pool.threadCount).map { _ in
                                        FeatureMapStorage(channels: weights.inputChannels, layout: .dense(width: width, height: rowsIn))
                                    })
        }
        return PointwiseDepthwiseStep(input: input, gatedInput: gatedInput, pointwise: weights, pointwiseActivation: pointwiseChain.activation,
                                      bands: bands, bandRows: bandRows, depthwise: dwWeights, stride: stride, dilation: dilation,
                                      padTop: dw.height.padBegin, padLeft: dw.width.padBegin,
                                      depthwiseActivation: fused.epilogue.activation, residualIsInput: residualIsInput,
                                      residual: residual, output: fused.map, pool: pool)
    }
}
