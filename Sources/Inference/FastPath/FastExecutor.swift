import Kernels

/// The fast path: one SIMD step from the `Kernels` module per node it recognises; nil (the
/// reference step) for everything else, so every model the reference path runs still runs.
///
/// Recognised (batch 1, float): `Conv` as 1x1 (group 1, stride 1, no padding), depthwise 3x3/5x5
/// stride 1/2, or dense K×K stride 1/2 (dilation 1, pads ≤ 2); `Relu`, `HardSwish`, `Sigmoid`;
/// `Add` and `Mul` of equal shapes and `Mul` by a per-channel [1,C,1,1] tensor; global average
/// pooling (`GlobalAveragePool`, or `AveragePool` whose window is the whole map); `Resize`
/// linear half_pixel ×2; `ConvTranspose` 2x2 stride 2 without padding.
///
/// Weights are packed when the step is made (constants' buffers are filled before steps are
/// made and never move); depthwise and dense convolutions read a zero-bordered copy of their
/// input owned by the step (the arena is dense NCHW). Steps allocate nothing when they run.
///
/// Fusion (when the session does not keep intermediates): a convolution whose output feeds only
/// a Relu/HardSwish node computes that activation itself and writes the activation node's
/// output (the activation node then runs nothing); and a 1x1 or depthwise convolution whose
/// (activated) output feeds only a depthwise convolution writes it straight into that
/// convolution's zero-bordered input buffer, so no pad copy runs; a 1x1 convolution followed
/// (after its activation, if any) by an `Add` of a same-shaped residual adds it in its store
/// (the `Add` node then runs nothing). Fused values are never
/// written to the arena, which is why inspection sessions run unfused.
final class FastExecutor: Executor {
    let pool: WorkerPool
    /// Non-nil when the graph's single input is read only by a step that can take it straight
    /// from the caller's buffer (the NHWC→NCHW transpose); the session then skips its copy.
    private(set) var externalInput: ExternalInput? = nil
    private let graph: LoadedGraph?
    private let pointer: (Int) -> UnsafeMutablePointer<Float>
    private let constants: Set<Int>
    /// For each value, the nodes reading it (indices into `graph.nodes`).
    private var consumers: [[Int]] = []
    /// Activation and residual `Add` nodes (by first output value) whose work a convolution step
    /// already does.
    private var fusedActivations: Set<Int> = []
    /// Padded input buffers made by a producer for the depthwise node that reads the value.
    private var paddedInputs: [Int: FeatureMapStorage] = [:]
    /// Attention gates (by output value) whose application a following banded 1x1 + depthwise
    /// step may take over.
    private var pendingGates: [Int: (skip: Int, upsampled: Int, map: (Int) -> FeatureMap, buffer: GateBuffer)] = [:]
    /// The index in `graph.nodes` of the node producing each value.
    private var nodeIndex: [Int: Int] = [:]

    /// - Parameters:
    ///   - graph: the session's graph, to fuse across nodes; nil for no fusion.
    ///   - pointer: the arena address of a value.
    ///   - constants: the values whose contents are fixed before steps are made (weights are
    ///     packed from them; a node whose weights are computed at run time is not taken).
    init(threads: Int, graph: LoadedGraph? = nil, constants: Set<Int> = [],
         pointer: @escaping (Int) -> UnsafeMutablePointer<Float> = { _ in fatalError() }) {
        pool = WorkerPool(threads: threads)
        self.graph = graph
        self.constants = constants
        self.pointer = pointer
        if let graph {
            consumers = Array(repeating: [], count: graph.values.count)
            for (index, node) in graph.nodes.enumerated() {
                for id in node.inputs { consumers[id].append(index) }
                for id in node.outputs { nodeIndex[id] = index }
            }
        }
    }

    /// Whether every input after the first (weights, bias) is a constant: a kernel packs them
    /// when its step is made.
    private func hasConstantWeights(_ node: PlannedNode) -> Bool {
        node.inputs.dropFirst().allSatisfy(constants.contains)
    }

    /// The single node reading `value`, if exactly one reads it and it is not a graph output.
    private func soleConsumer(of value: Int) -> PlannedNode? {
        guard let graph, consumers[value].count == 1, !graph.outputIDs.contains(value) else { return nil }
        return graph.nodes[consumers[value][0]]
    }

    /// Whether two values' arena buffers overlap.
    private func overlap(_ a: Int, _ b: Int) -> Bool {
        guard let graph else { return true }
        let pa = pointer(a), pb = pointer(b)
        return pa < pb + graph.values[b].elementCount && pb < pa + graph.values[a].elementCount
    }

    /// Where a convolution producing `value` should write, with the activation it absorbs.
    ///
    /// The activation is absorbed only when its node comes right after the convolution and its
    /// output buffer overlaps none of the convolution's inputs: the plan gives the activation's
    /// output a buffer free at the activation's turn, and writing it one node early is safe only
    /// if nothing the convolution reads lives there (its inputs are the only values that can be
    /// freed between the two nodes).
    ///
    /// A convolution that reads a zero-bordered copy of its input (`readsArenaInput` false:
    /// depthwise and dense K×K) has read all of it before it writes, so for it no overlap matters.
    ///
    /// A 1x1 convolution (`inPlace` true) may also write exactly over its data input: it reads
    /// every input channel of a pixel strip (packed to scratch when several channel tiles reuse
    /// it) before it writes that strip, and writes nothing else.
    private func fusedOutput(of value: Int, node: PlannedNode, channels: Int, height: Int, width: Int,
                             absorbsResidual: Bool = false, readsArenaInput: Bool = true, inPlace: Bool = false)
        -> (map: FeatureMap, activation: Activation, absorbed: [Int], residual: Int?) {
        var target = value
        var activation = Activation.none
        var absorbed: [Int] = []
        var residual: Int? = nil
        if let graph, let next = soleConsumer(of: value), let unary = next.operation as? ElementwiseUnary,
           let here = nodeIndex[value], here + 1 < graph.nodes.count, graph.nodes[here + 1].outputs == next.outputs,
           writable(next.outputs[0], by: node, readsArenaInput: readsArenaInput, inPlace: inPlace) {
            switch unary.kind {
            case .relu: activation = .relu
            case .hardSwish: activation = .hardSwish
            default: break
            }
            if activation != .none {
                absorbed.append(next.outputs[0])
                target = next.outputs[0]
            }
        }
        if absorbsResidual, let add = residualAdd(after: target, node: node, shape: [1, channels, height, width],
                                                  readsArenaInput: readsArenaInput, inPlace: inPlace) {
            residual = add.residual
            absorbed.append(add.output)
            target = add.output
        }
        if let storage = paddedInput(for: target, channels: channels, height: height, width: width) {
            return (storage.map, activation, absorbed, residual)
        }
        return (FeatureMap(base: pointer(target), channels: channels, layout: .dense(width: width, height: height)),
                activation, absorbed, residual)
    }

    /// The `Add` node right after `value`'s producer (or its absorbed activation) that adds
    /// another value of the same shape to it, when a 1x1 convolution can do that addition in its
    /// store: `value` has no other reader, the sum's buffer overlaps none of the convolution's
    /// inputs (the only values that can be freed before the Add's turn), and it is the residual's
    /// buffer exactly or does not overlap it (the kernel reads each residual element right before
    /// writing the same output element).
    private func residualAdd(after value: Int, node: PlannedNode, shape: [Int], readsArenaInput: Bool,
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
    private func writable(_ output: Int, by node: PlannedNode, readsArenaInput: Bool, inPlace: Bool) -> Bool {
        guard readsArenaInput else { return true }
        return node.inputs.enumerated().allSatisfy { index, input in
            !overlap(input, output) || (inPlace && index == 0 && pointer(input) == pointer(output))
        }
    }

    /// The zero-bordered input buffer of the depthwise or dense K×K convolution that is the sole
    /// reader of `value` (made here and kept for that convolution's step, which then copies
    /// nothing), or nil when `value` has another reader or its reader reads the arena.
    private func paddedInput(for value: Int, channels: Int, height: Int, width: Int) -> FeatureMapStorage? {
        guard let reader = soleConsumer(of: value), let conv = reader.operation as? Conv,
              let pad = Self.paddedInputPad(conv), reader.inputs.first == value,
              conv.inputChannels == channels, conv.height.input == height, conv.width.input == width else { return nil }
        let storage = FeatureMapStorage(channels: channels, layout: .padded(width: width, height: height, pad: pad))
        paddedInputs[value] = storage
        return storage
    }

    /// The border of the padded input a depthwise or dense K×K convolution the fast path runs
    /// reads, or nil if it is neither.
    static func paddedInputPad(_ conv: Conv) -> Int? {
        if let pad = depthwisePad(conv) { return pad }
        let h = conv.height, w = conv.width
        guard conv.batch == 1, conv.depth == .unit, conv.group == 1, h.dilation == 1, w.dilation == 1, h.kernel == w.kernel,
              h.stride == w.stride, h.stride == 1 || h.stride == 2, h.kernel > 1, h.kernel <= 7 else { return nil }
        let pad = max(h.padBegin, h.padEnd, w.padBegin, w.padEnd)
        return pad <= 2 ? pad : nil
    }

    /// The border a depthwise node the fast path runs needs, or nil if it is not one.
    static func depthwisePad(_ conv: Conv) -> Int? {
        let h = conv.height, w = conv.width
        guard conv.batch == 1, conv.depth == .unit, h.dilation == 1, w.dilation == 1, h.kernel == w.kernel, h.stride == w.stride,
              h.stride == 1 || h.stride == 2, conv.group == conv.inputChannels, conv.outputChannels == conv.inputChannels,
              h.kernel > 1, h.kernel <= 7 else { return nil }
        let pad = max(h.padBegin, h.padEnd, w.padBegin, w.padEnd)
        return pad <= 2 ? pad : nil
    }

    func makeStep(for node: PlannedNode, inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>],
                  threads: Int) -> (any Step)? {
        if let first = node.outputs.first, fusedActivations.contains(first) { return NothingStep() }
        switch node.operation {
        case let conv as Conv:
            guard hasConstantWeights(node) else { return nil }
            return convolutionStep(conv, node, inputs, outputs)
        case let unary as ElementwiseUnary:
            let activation: Activation
            switch unary.kind {
            case .relu: activation = .relu
            case .hardSwish: activation = .hardSwish
            case .sigmoid: activation = .sigmoid
            default: return nil
            }
            return ActivationStep(input: inputs[0], output: outputs[0], count: unary.count, activation: activation)
        case let binary as ElementwiseBinary:
            return attentionGateStep(binary, node) ?? binaryStep(binary, inputs, outputs)
        case let gap as GlobalAveragePool:
            if let step = squeezeExciteStep(node) { return step }
            return AveragePoolStep(input: inputs[0], output: outputs[0], planes: gap.planes, planeSize: gap.planeSize)
        case let pool as Pool:
            guard case .average = pool.kind, pool.depth == .unit, pool.height.kernel == pool.height.input, pool.width.kernel == pool.width.input,
                  pool.height.output == 1, pool.width.output == 1, pool.height.padBegin == 0, pool.width.padBegin == 0,
                  pool.height.padEnd == 0, pool.width.padEnd == 0, pool.height.dilation == 1, pool.width.dilation == 1
            else { return nil }
            return AveragePoolStep(input: inputs[0], output: outputs[0], planes: pool.planes,
                                   planeSize: pool.height.input * pool.width.input)
        case let resize as Resize:
            return resizeThenPointwiseStep(resize, node, inputs) ?? resizeStep(resize, inputs, outputs)
        case let transposed as ConvTranspose:
            guard hasConstantWeights(node) else { return nil }
            return transposedStep(transposed, node, inputs, outputs)
        case let transpose as Transpose: return transposeStep(transpose, node, inputs, outputs)
        default: return nil
        }
    }

    private func convolutionStep(_ conv: Conv, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                                 _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        let h = conv.height, w = conv.width
        guard conv.batch == 1, conv.depth == .unit, h.dilation == 1, w.dilation == 1, h.kernel == w.kernel, h.stride == w.stride else { return nil }
        let k = h.kernel, stride = h.stride
        let cin = conv.inputChannels, cout = conv.outputChannels
        let weights = Array(UnsafeBufferPointer(start: inputs[1], count: cout * (cin / conv.group) * k * k))
        let bias = conv.hasBias ? Array(UnsafeBufferPointer(start: inputs[2], count: cout)) : nil
        let input = FeatureMap(base: UnsafeMutablePointer(mutating: inputs[0]), channels: cin,
                               layout: .dense(width: w.input, height: h.input))
        let isPointwise = k == 1 && stride == 1 && conv.group == 1 && h.padBegin == 0 && h.padEnd == 0
            && w.padBegin == 0 && w.padEnd == 0
        let pad = max(h.padBegin, h.padEnd, w.padBegin, w.padEnd)
        guard isPointwise || ((stride == 1 || stride == 2) && pad <= 2 && k <= 7) else { return nil }
        guard isPointwise || conv.group == 1 || (conv.group == cin && cout == cin) else { return nil }
        if isPointwise, let step = pointwiseDepthwiseStep(
            node, input: input, weights: PointwiseWeights(weights: weights, bias: bias, outputChannels: cout, inputChannels: cin),
            height: h.output, width: w.output) {
            return step
        }
        // The output (fused with a following activation and/or written padded), when fusing.
        var output = FeatureMap(base: outputs[0], channels: cout, layout: .dense(width: w.output, height: h.output))
        var activation = Activation.none
        var residualValue: Int? = nil
        if graph != nil, let value = node.outputs.first {
            let fused = fusedOutput(of: value, node: node, channels: cout, height: h.output, width: w.output,
                                    absorbsResidual: isPointwise || conv.group == cin, readsArenaInput: isPointwise,
                                    inPlace: isPointwise)
            output = fused.map
            activation = fused.activation
            residualValue = fused.residual
            fusedActivations.formUnion(fused.absorbed)
        }
        let denseResidual = residualValue.map {
            FeatureMap(base: pointer($0), channels: cout, layout: .dense(width: w.output, height: h.output))
        }
        if isPointwise {
            let residual = denseResidual
            return PointwiseStep(input: input, output: output, activation: activation, residual: residual, pool: pool,
                                 weights: PointwiseWeights(weights: weights, bias: bias, outputChannels: cout, inputChannels: cin))
        }
        let prefilled = node.inputs.first.flatMap { paddedInputs[$0] }
        let padded = prefilled ?? FeatureMapStorage(channels: cin, layout: .padded(width: w.input, height: h.input, pad: pad))
        if conv.group == cin && cout == cin {
            // `r + act(dw(r))` reads r from the padded copy the convolution reads anyway.
            let residual = residualValue == node.inputs.first ? padded.map : denseResidual
            return DepthwiseStep(input: input, padded: padded, copiesInput: prefilled == nil, output: output,
                                 activation: activation, residual: residual, pool: pool,
                                 weights: DepthwiseWeights(weights: weights, bias: bias, channels: cin, kernelSize: k),
                                 stride: stride, padTop: h.padBegin, padLeft: w.padBegin)
        }
        return DenseConvolutionStep(input: input, padded: padded, copiesInput: prefilled == nil, output: output, activation: activation, pool: pool,
                                    weights: ConvolutionWeights(weights: weights, bias: bias, outputChannels: cout,
                                                                inputChannels: cin, kernelSize: k),
                                    stride: stride, padTop: h.padBegin, padLeft: w.padBegin)
    }

    /// A squeeze-and-excite gate starting at the global average pool at `index`: the nodes
    /// after it are, in order and each the only reader of the one before, a 1x1 Conv (reduce),
    /// Relu, a 1x1 Conv (expand), Sigmoid and a Mul of the gate with a [1, C, H, W] value.
    private struct GateChain {
        let weights: GateWeights
        /// The value the gate multiplies, and the Mul node.
        let gated: Int
        let mul: PlannedNode
        /// Output values of the nodes after the pool, up to and including the Mul.
        let covered: [Int]
    }

    private func gateChain(poolIndex i: Int) -> GateChain? {
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

    /// Whether a kernel that reads element e of `input` right before writing element e of
    /// `output` may run with these buffers: the same buffer, or disjoint ones.
    private func elementwiseSafe(_ input: Int, _ output: Int) -> Bool {
        pointer(input) == pointer(output) || !overlap(input, output)
    }

    /// Squeeze-and-excite `x · gate(mean(x))` as one step (`squeezeExcite`), at the pool node.
    private func squeezeExciteStep(_ node: PlannedNode) -> (any Step)? {
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
    private func attentionGateStep(_ binary: ElementwiseBinary, _ node: PlannedNode) -> (any Step)? {
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

    /// A 1x1 convolution (+ Relu/HardSwish) whose output is read by the depthwise convolution
    /// right after it (and at most by the Add of that convolution's residual, when the residual is
    /// this very output): both run as one step in bands of rows (`pointwiseThenDepthwise`), the
    /// expanded map living only in a small band buffer. The depthwise node's own fusions
    /// (activation, residual Add, padded output) are kept.
    private func pointwiseDepthwiseStep(_ node: PlannedNode, input: FeatureMap, weights: PointwiseWeights,
                                        height: Int, width: Int) -> (any Step)? {
        guard let graph, let value = node.outputs.first, let here = nodeIndex[value] else { return nil }
        let channels = weights.outputChannels
        // The 1x1 convolution writes only the band buffer, so its activation needs no overlap check.
        var v = value, pointwiseActivation = Activation.none, next = here + 1
        if let reader = soleConsumer(of: value), let unary = reader.operation as? ElementwiseUnary,
           next < graph.nodes.count, graph.nodes[next].outputs == reader.outputs {
            switch unary.kind {
            case .relu: pointwiseActivation = .relu
            case .hardSwish: pointwiseActivation = .hardSwish
            default: break
            }
            if pointwiseActivation != .none { v = reader.outputs[0]; next += 1 }
        }
        guard next < graph.nodes.count, !graph.outputIDs.contains(v), consumers[v].contains(next),
              consumers[v].count <= 2 else { return nil }
        let dwNode = graph.nodes[next]
        guard let dw = dwNode.operation as? Conv, dwNode.inputs.first == v, hasConstantWeights(dwNode), let pad = Self.depthwisePad(dw),
              dw.inputChannels == channels, dw.height.input == height, dw.width.input == width,
              let dwValue = dwNode.outputs.first else { return nil }
        let stride = dw.height.stride, k = dw.height.kernel
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
        let rowsFit = max(k, (192 << 10) / rowBytes)
        var bandRows = max(1, (rowsFit - k) / stride + 1)
        if bandRows >= 4 { bandRows -= bandRows % 4 }
        bandRows = min(bandRows, dw.height.output)
        let rowsIn = bandInputRows(outputRows: bandRows, stride: stride, kernelSize: k)
        let bands = (0..<pool.threadCount).map { _ in
            FeatureMapStorage(channels: channels, layout: .padded(width: width, height: rowsIn, pad: pad))
        }
        let dwWeights = DepthwiseWeights(
            weights: Array(UnsafeBufferPointer(start: pointer(dwNode.inputs[1]), count: channels * k * k)),
            bias: dw.hasBias ? Array(UnsafeBufferPointer(start: pointer(dwNode.inputs[2]), count: channels)) : nil,
            channels: channels, kernelSize: k)
        fusedActivations.formUnion((v == value ? [] : [v]) + [dwValue] + fused.absorbed)
        var gatedInput: GatedInput? = nil
        if let gate {
            gate.buffer.appliesItself = false
            gatedInput = GatedInput(skip: gate.map(gate.skip), upsampled: gate.map(gate.upsampled),
                                    gate: UnsafePointer(gate.buffer.values.baseAddress),
                                    rows: (0..<pool.threadCount).map { _ in
                                        FeatureMapStorage(channels: weights.inputChannels, layout: .dense(width: width, height: rowsIn))
                                    })
        }
        return PointwiseDepthwiseStep(input: input, gatedInput: gatedInput, pointwise: weights, pointwiseActivation: pointwiseActivation,
                                      bands: bands, bandRows: bandRows, depthwise: dwWeights, stride: stride,
                                      padTop: dw.height.padBegin, padLeft: dw.width.padBegin,
                                      depthwiseActivation: fused.activation, residualIsInput: residualIsInput,
                                      residual: residual, output: fused.map, pool: pool)
    }

    private func binaryStep(_ binary: ElementwiseBinary, _ inputs: [UnsafePointer<Float>],
                            _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard binary.kind == .add || binary.kind == .mul, let shape = binary.outputShapes.first, shape.count == 4,
              shape[0] == 1 else { return nil }
        let (c, hgt, wid) = (shape[1], shape[2], shape[3])
        let count = c * hgt * wid
        let loop = binary.loop
        let dense = [hgt * wid, wid, 1]
        let tail = { (operand: Int) in Array(loop.strides[operand].suffix(3)) }
        // StridedLoop operands: 0 is the output, 1 and 2 the inputs.
        let a = tail(1), b = tail(2)
        // Strides of size-1 axes do not matter.
        func matches(_ strides: [Int], _ expected: [Int]) -> Bool {
            zip([c, hgt, wid], zip(strides, expected)).allSatisfy { extent, pair in extent == 1 || pair.0 == pair.1 }
        }
        if matches(a, dense) && matches(b, dense) {
            return BinaryStep(a: inputs[0], b: inputs[1], output: outputs[0], count: count, isAdd: binary.kind == .add)
        }
        if binary.kind == .mul && matches(a, dense) && matches(b, [1, 0, 0]) {
            return ChannelScaleStep(input: inputs[0], scale: inputs[1], output: outputs[0], channels: c, height: hgt, width: wid)
        }
        if binary.kind == .mul && matches(b, dense) && matches(a, [1, 0, 0]) {
            return ChannelScaleStep(input: inputs[1], scale: inputs[0], output: outputs[0], channels: c, height: hgt, width: wid)
        }
        return nil
    }

    /// A bilinear ×2 `Resize` whose only reader is a 1x1 convolution without activation (the
    /// decoder's upsample-then-project): both are linear per pixel and the resize weights sum to
    /// 1, so `conv(resize(x)) = resize(conv(x))` (bias included). The step convolves at the low
    /// resolution into its own buffer, then upsamples the convolution's (fewer or as many)
    /// channels into the convolution's output, whose node then runs nothing: a quarter of the
    /// multiply-adds and one pass over the large map instead of two. The rounding differs from
    /// the unfused order by a few ulp (the fused results are compared with onnxruntime; the
    /// node-by-node check runs unfused).
    private func resizeThenPointwiseStep(_ resize: Resize, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>]) -> (any Step)? {
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

    private func resizeStep(_ resize: Resize, _ inputs: [UnsafePointer<Float>],
                            _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard resize.outH == 2 * resize.inH, resize.outW == 2 * resize.inW,
              Self.isHalfPixelDoubling(resize.rows, input: resize.inH),
              Self.isHalfPixelDoubling(resize.columns, input: resize.inW) else { return nil }
        let input = FeatureMap(base: UnsafeMutablePointer(mutating: inputs[0]), channels: resize.planes,
                               layout: .dense(width: resize.inW, height: resize.inH))
        let output = FeatureMap(base: outputs[0], channels: resize.planes, layout: .dense(width: resize.outW, height: resize.outH))
        return ResizeStep(input: input, output: output, pool: pool)
    }

    /// Whether the reference's table is bilinear ×2 with half-pixel centres, clamped at the edges.
    static func isHalfPixelDoubling(_ table: Resize.AxisTable, input: Int) -> Bool {
        guard table.first.count == 2 * input else { return false }
        for o in 0..<(2 * input) {
            let source = min(max((Float(o) + 0.5) / 2 - 0.5, 0), Float(input - 1))
            let first = Int(source), second = min(first + 1, input - 1)
            let weight = source - Float(first)
            guard table.first[o] == first else { return false }
            if weight != 0 && (table.second[o] != second || table.weight[o] != weight) { return false }
            if weight == 0 && table.weight[o] != 0 { return false }
        }
        return true
    }

    private func transposedStep(_ t: ConvTranspose, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
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

    /// NHWC → NCHW of a batch-1 rank-4 tensor (a model's image input), written straight into the
    /// zero-bordered input of the convolution reading it when that is its only reader.
    private func transposeStep(_ t: Transpose, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                               _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard let shape = t.outputShapes.first, shape.count == 4, shape[0] == 1, t.outputTypes == [.float32] else { return nil }
        let (c, h, w) = (shape[1], shape[2], shape[3])
        // Operand 1 (the input, [1, H, W, C]) read along the output's axes: C·H·W, 1, W·C, C.
        guard Array(t.loop.strides[1].suffix(3)) == [1, w * c, c] || c * h * w == 0 else { return nil }
        var output = FeatureMap(base: outputs[0], channels: c, layout: .dense(width: w, height: h))
        if let value = node.outputs.first, let storage = paddedInput(for: value, channels: c, height: h, width: w) {
            output = storage.map
        }
        var external: ExternalInput? = nil
        if let graph, graph.inputIDs.count == 1, node.inputs.first == graph.inputIDs[0],
           consumers[graph.inputIDs[0]].count == 1, !graph.outputIDs.contains(graph.inputIDs[0]) {
            external = ExternalInput()
            externalInput = external
        }
        return DeinterleaveStep(input: inputs[0], external: external, output: output, pool: pool)
    }
}
