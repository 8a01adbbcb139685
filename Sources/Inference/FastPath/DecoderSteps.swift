import Kernels

// Fusions of multi-node blocks: squeeze-and-excite and attention gates, an upsample reordered
// after the 1x1 convolution reading it, and a transposed convolution writing the mask.
extension FastExecutor {
    /// A squeeze-and-excite gate starting at the global average pool at `index`: the nodes
    /// after it are, in order and each the only reader of the one before, a 1x1 Conv (reduce),
    /// Relu, a 1x1 Conv (expand), Sigmoid and a Mul of the gate with a [1, C, H, W] value.
    struct GateChain {
        let weights: GateWeights
        /// The value the gate multiplies, and the Mul node.
        let gated: Int
        let mul: PlannedNode
        /// Output values of the nodes after the pool, up to and including the Mul.
        let covered: [Int]
    }

    func gateChain(poolIndex i: Int) -> GateChain? {
        guard let graph, i + 5 < graph.nodes.count else { return nil }
        let n = graph.nodes
        guard n[i].operation is GlobalAveragePool, let pooled = n[i].outputs.first,
              let reduce = n[i + 1].operation as? Conv, soleConsumer(of: pooled)?.outputs == n[i + 1].outputs,
              hasConstantWeights(n[i + 1]), hasConstantWeights(n[i + 3]),
              let relu = n[i + 2].operation as? ElementwiseUnary, relu.kind == .relu,
              soleConsumer(of: n[i + 1].outputs[0])?.outputs == n[i + 2].outputs,
              let expand = n[i + 3].operation as? Conv, soleConsumer(of: n[i + 2].outputs[0])?.outputs == n[i + 3].outputs,
              let sigmoid = n[i + 4].operation as? ElementwiseUnary, sigmoid.kind == .sigmoid,
              soleConsumer(of: n[i + 3].outputs[0])?.outputs == n[i + 4].outputs,
              let mul = n[i + 5].operation as? ElementwiseBinary, mul.kind == .mul, n[i + 5].inputs.count == 2,
              soleConsumer(of: n[i + 4].outputs[0])?.outputs == n[i + 5].outputs else { return nil }
        let gate = n[i + 4].outputs[0]
        let gated = n[i + 5].inputs[0] == gate ? n[i + 5].inputs[1] : n[i + 5].inputs[0]
        let shape = graph.values[gated].shape
        guard gated != gate, shape.count == 4, shape[0] == 1, graph.values[n[i + 5].outputs[0]].shape == shape,
              graph.values[gate].shape == [1, shape[1], 1, 1] else { return nil }
        let c = shape[1], hidden = reduce.outputChannels
        for conv in [reduce, expand] {
            guard conv.batch == 1, conv.depth == .unit, conv.group == 1, conv.height.input == 1, conv.width.input == 1,
                  conv.height.kernel == 1, conv.width.kernel == 1, conv.height.padBegin == 0, conv.height.padEnd == 0,
                  conv.width.padBegin == 0, conv.width.padEnd == 0 else { return nil }
        }
        guard reduce.inputChannels == c, expand.inputChannels == hidden, expand.outputChannels == c else { return nil }
        let constants = { (node: PlannedNode, index: Int, count: Int) in
            Array(UnsafeBufferPointer(start: self.pointer(node.inputs[index]), count: count))
        }
        let weights = GateWeights(
            reduce: constants(n[i + 1], 1, hidden * c), reduceBias: reduce.hasBias ? constants(n[i + 1], 2, hidden) : nil,
            expand: constants(n[i + 3], 1, c * hidden), expandBias: expand.hasBias ? constants(n[i + 3], 2, c) : nil,
            channels: c, hiddenChannels: hidden)
        return GateChain(weights: weights, gated: gated, mul: n[i + 5],
                         covered: (i + 1...i + 5).map { n[$0].outputs[0] })
    }

    /// Squeeze-and-excite `x · gate(mean(x))` as one step (`squeezeExcite`), at the pool node.
    func squeezeExciteStep(_ node: PlannedNode) -> (any Step)? {
        guard let graph, let value = node.outputs.first, let i = nodeIndex[value], let chain = gateChain(poolIndex: i),
              node.inputs.first == chain.gated else { return nil }
        let out = chain.mul.outputs[0]
        guard elementwiseSafe(chain.gated, out) else { return nil }
        let shape = graph.values[out].shape
        let layout = PlaneLayout.dense(width: shape[3], height: shape[2])
        fusedActivations.formUnion(chain.covered)
        return SqueezeExciteStep(input: FeatureMap(base: pointer(chain.gated), channels: shape[1], layout: layout),
                                 output: FeatureMap(base: pointer(out), channels: shape[1], layout: layout),
                                 weights: chain.weights, pool: pool)
    }

    /// The decoder's attention gate `s · gate(mean(s + u)) + u` as one step (`attentionGate`),
    /// at its first Add: `a = s + u` read only by a pool starting a gate chain over `s`, whose
    /// Mul is read only by the next node, an Add of `u`.
    func attentionGateStep(_ binary: ElementwiseBinary, _ node: PlannedNode) -> (any Step)? {
        guard let graph, binary.kind == .add, node.inputs.count == 2, let sum = node.outputs.first,
              let i = nodeIndex[sum], i + 7 < graph.nodes.count, soleConsumer(of: sum)?.outputs == graph.nodes[i + 1].outputs,
              let chain = gateChain(poolIndex: i + 1), node.inputs.contains(chain.gated) else { return nil }
        let s = chain.gated
        let u = node.inputs[0] == s ? node.inputs[1] : node.inputs[0]
        let final = graph.nodes[i + 7]
        guard u != s, let add = final.operation as? ElementwiseBinary, add.kind == .add, final.inputs.count == 2,
              soleConsumer(of: chain.mul.outputs[0])?.outputs == final.outputs,
              Set(final.inputs) == [chain.mul.outputs[0], u], graph.values[u].shape == graph.values[s].shape,
              graph.values[sum].shape == graph.values[s].shape,
              let out = final.outputs.first, elementwiseSafe(s, out), elementwiseSafe(u, out) else { return nil }
        let shape = graph.values[out].shape
        let layout = PlaneLayout.dense(width: shape[3], height: shape[2])
        // Captures the arena's address function, not `self`: `pendingGates` keeps this closure, so
        // capturing `self` would make a retain cycle that leaks the executor and every buffer it
        // owns when the session is released (LeakSanitizer found it through `vbg video`).
        let pointer = self.pointer
        let map = { (value: Int) in FeatureMap(base: pointer(value), channels: shape[1], layout: layout) }
        fusedActivations.formUnion([graph.nodes[i + 1].outputs[0]] + chain.covered + [out])
        let buffer = GateBuffer(channels: shape[1])
        pendingGates[out] = (s, u, map, buffer)
        return AttentionGateStep(skip: map(s), upsampled: map(u), output: map(out), weights: chain.weights,
                                 buffer: buffer, pool: pool)
    }

    /// A bilinear ×2 `Resize` whose only reader is a 1x1 convolution without activation (the
    /// decoder's upsample-then-project): both are linear per pixel and the resize weights sum to
    /// 1, so `conv(resize(x)) = resize(conv(x))` (bias included). The step convolves at the low
    /// resolution into its own buffer, then upsamples the convolution's (fewer or as many)
    /// channels into the convolution's output, whose node then runs nothing: a quarter of the
    /// multiply-adds and one pass over the large map instead of two. The rounding differs from
    /// the unfused order by a few ulp (the fused results are compared with onnxruntime; the
    /// node-by-node check runs unfused).
    func resizeThenPointwiseStep(_ resize: Resize, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>]) -> (any Step)? {
        guard let graph, let value = node.outputs.first, let here = nodeIndex[value],
              resize.outH == 2 * resize.inH, resize.outW == 2 * resize.inW,
              let shape = resize.outputShapes.first, shape.count == 4, shape[0] == 1,
              Self.isHalfPixelDoubling(resize.rows, input: resize.inH),
              Self.isHalfPixelDoubling(resize.columns, input: resize.inW),
              let next = soleConsumer(of: value), here + 1 < graph.nodes.count, graph.nodes[here + 1].outputs == next.outputs,
              let conv = next.operation as? Conv, next.inputs.first == value, hasConstantWeights(next), conv.batch == 1, conv.depth == .unit,
              conv.group == 1,
              conv.height.kernel == 1, conv.width.kernel == 1, conv.height.stride == 1, conv.width.stride == 1,
              conv.height.padBegin == 0, conv.height.padEnd == 0, conv.width.padBegin == 0, conv.width.padEnd == 0,
              conv.inputChannels == shape[1], let convOutput = next.outputs.first else { return nil }
        // An activation after the convolution does not commute with the resize: leave it unfused.
        let cin = conv.inputChannels, cout = conv.outputChannels
        let weights = Array(UnsafeBufferPointer(start: pointer(next.inputs[1]), count: cout * cin))
        let bias = conv.hasBias ? Array(UnsafeBufferPointer(start: pointer(next.inputs[2]), count: cout)) : nil
        let input = FeatureMap(base: UnsafeMutablePointer(mutating: inputs[0]), channels: cin,
                               layout: .dense(width: resize.inW, height: resize.inH))
        let small = FeatureMapStorage(channels: cout, layout: .dense(width: resize.inW, height: resize.inH))
        let output = paddedInput(for: convOutput, channels: cout, height: resize.outH, width: resize.outW)?.map
            ?? FeatureMap(base: pointer(convOutput), channels: cout, layout: .dense(width: resize.outW, height: resize.outH))
        fusedActivations.insert(convOutput)
        return ResizedPointwiseStep(
            input: input, small: small, output: output, pool: pool,
            weights: PointwiseWeights(weights: weights, bias: bias, outputChannels: cout, inputChannels: cin))
    }

    func transposedStep(_ t: ConvTranspose, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                                _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard t.outputShapes[0].count == 4, t.batch == 1, t.group == 1, t.kH == 2, t.kW == 2, t.strideH == 2, t.strideW == 2,
              t.dilationH == 1, t.dilationW == 1, t.padTop == 0, t.padLeft == 0,
              t.outH == 2 * t.inH, t.outW == 2 * t.inW else { return nil }
        let weights = Array(UnsafeBufferPointer(start: inputs[1], count: t.inputChannels * t.outputChannels * 4))
        let bias = t.hasBias ? Array(UnsafeBufferPointer(start: inputs[2], count: t.outputChannels)) : nil
        let input = FeatureMap(base: UnsafeMutablePointer(mutating: inputs[0]), channels: t.inputChannels,
                               layout: .dense(width: t.inW, height: t.inH))
        var target = outputs[0]
        var activation = Activation.none
        // A Sigmoid right after it (the mask), and a Reshape right after that (NCHW → NHWC of one
        // channel: the same elements), are written by this step: rows of the output are written
        // while later input rows are still to be read, so their buffers must not overlap the input.
        if let graph, let value = node.outputs.first, let next = soleConsumer(of: value),
           let unary = next.operation as? ElementwiseUnary, unary.kind == .sigmoid,
           let here = nodeIndex[value], graph.nodes[here + 1].outputs == next.outputs,
           !node.inputs.contains(where: { overlap($0, next.outputs[0]) }) {
            activation = .sigmoid
            fusedActivations.insert(next.outputs[0])
            target = pointer(next.outputs[0])
            if let reshape = soleConsumer(of: next.outputs[0]), reshape.operation is Reshape,
               here + 2 < graph.nodes.count, graph.nodes[here + 2].outputs == reshape.outputs,
               !node.inputs.contains(where: { overlap($0, reshape.outputs[0]) }) {
                fusedActivations.insert(reshape.outputs[0])
                target = pointer(reshape.outputs[0])
            }
        }
        let output = FeatureMap(base: target, channels: t.outputChannels, layout: .dense(width: t.outW, height: t.outH))
        return TransposedConvolutionStep(
            input: input, output: output, activation: activation, pool: pool,
            weights: TransposedConvolutionWeights(weights: weights, bias: bias, inputChannels: t.inputChannels,
                                                  outputChannels: t.outputChannels))
    }
}
