import Kernels

/// The fast path: one SIMD step from the `Kernels` module per node it recognises; nil (the
/// reference step) for everything else, so every model the reference path runs still runs.
///
/// Batch 1, float32. When the executor is made it plans the fusions across nodes for the whole
/// graph (`FusionPlan`); `work(for:inputs:outputs:)` then builds each node's step from that plan. The rules are
/// one file per concern: convolutions and what they absorb in `ConvolutionSteps.swift`,
/// `Epilogue.swift` and `BandedSteps.swift`, the single-node layers in `LayerSteps.swift`, the
/// matrix products and Transpose pairs in `MatrixSteps.swift`, the built-in models' multi-node
/// blocks in `DecoderSteps.swift`. This file dispatches on the operator and holds the graph
/// queries the rules share (readers, overlaps).
///
/// Weights are packed when the step is made (constants' buffers are filled before steps are
/// made and never move); steps allocate nothing when they run.
///
/// Fusion (when the session does not keep intermediates): a step may do the work of nodes after
/// its own, writing their final value; those nodes get no step (`NodeWork.absorbed`). Fused
/// values are never written to the arena, which is why inspection sessions run unfused.
final class FastExecutor {
    let pool: WorkerPool
    /// Non-nil when the graph's single input is read only by a step that can take it straight
    /// from the caller's buffer (the NHWC→NCHW transpose); the session then skips its copy.
    private(set) var externalInput: ExternalInput? = nil
    let graph: LoadedGraph?
    let pointer: (Int) -> UnsafeMutablePointer<Float>
    let constants: Set<Int>
    /// For each value, the nodes reading it (indices into `graph.nodes`).
    private(set) var consumers: [[Int]] = []
    /// The index in `graph.nodes` of the node producing each value.
    private(set) var nodeIndex: [Int: Int] = [:]
    /// The fusions across nodes, planned for the whole graph when the executor is made (empty
    /// without a graph).
    private(set) var plan = FusionPlan()

    /// - Parameters:
    ///   - graph: the session's graph, to fuse across nodes; nil for no fusion.
    ///   - leaders: when given, only fusions led by these nodes (indices into `graph.nodes`) are
    ///     planned: the others' nodes run their single-node steps (to find which fusion changes
    ///     a result).
    ///   - pointer: the arena address of a value.
    ///   - constants: the values whose contents are fixed before steps are made (weights are
    ///     packed from them; a node whose weights are computed at run time is not taken).
    init(threads: Int, graph: LoadedGraph? = nil, leaders: Set<Int>? = nil, constants: Set<Int> = [],
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
            plan = makePlan(graph, leaders: leaders)
        }
    }

    /// Whether every input after the first (weights, bias) is a constant: a kernel packs them
    /// when its step is made.
    func hasConstantWeights(_ node: PlannedNode) -> Bool {
        node.inputs.dropFirst().allSatisfy(constants.contains)
    }

    /// The single node reading `value`, if exactly one reads it and it is not a graph output.
    func soleConsumer(of value: Int) -> PlannedNode? {
        guard let graph, consumers[value].count == 1, !graph.outputIDs.contains(value) else { return nil }
        return graph.nodes[consumers[value][0]]
    }

    /// Whether two values' arena buffers overlap.
    func overlap(_ a: Int, _ b: Int) -> Bool {
        guard let graph else { return true }
        let pa = pointer(a), pb = pointer(b)
        return pa < pb + graph.values[b].elementCount && pb < pa + graph.values[a].elementCount
    }

    /// What runs `node`: the step built for it (the pool's scratch grown to what the step's
    /// kernels state they need, `ScratchUsingStep`, so no kernel call of a planned step finds its
    /// scratch too small), the fused step of the node leading it, nothing for a view, or its
    /// reference kernel when no fast kernel takes it.
    func work(for node: PlannedNode, inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) -> NodeWork {
        let index = node.outputs.first.flatMap { nodeIndex[$0] }
        if let index, let leader = plan.absorbedBy[index] { return .absorbed(leader: leader) }
        // A view the buffer plan laid over its input (`BufferPlan.viewSource`): nothing to move.
        if node.operation is Reshape || node.operation is ShapeView, inputs.first == UnsafePointer(outputs[0]) {
            return .view
        }
        let step: (any Step)?
        if let index, let fusion = plan.fusions[index] {
            step = fusedStep(fusion, leader: index, node, inputs, outputs)
        } else {
            step = singleNodeStep(node, inputs, outputs)
        }
        guard let step else { return .reference }
        if step is NoMove { return .view }
        if let user = step as? any ScratchUsingStep { pool.reserve(user.scratch) }
        return .step(step)
    }

    /// The step of a node that leads a fusion.
    func fusedStep(_ fusion: FusionPlan.Fusion, leader: Int, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                   _ outputs: [UnsafeMutablePointer<Float>]) -> any Step {
        switch fusion {
        case .convolution(let f):
            let conv = node.operation as! Conv
            return convolutionStep(conv, kind: Self.kind(of: conv)!, input: inputs[0], inputValue: node.inputs[0],
                                   weights: inputs[1], bias: conv.hasBias ? inputs[2] : nil, output: outputs[0], fusion: f)
        case .paddedConvolution(let f):
            let convNode = graph!.nodes[f.convolutionNode]
            return convolutionStep(f.conv, kind: f.kind, input: inputs[0], inputValue: node.inputs[0],
                                   weights: pointer(convNode.inputs[1]), bias: f.conv.hasBias ? pointer(convNode.inputs[2]) : nil,
                                   output: pointer(convNode.outputs[0]), fusion: f.convolution)
        case .pointwiseDepthwise(let f): return pointwiseDepthwiseStep(f, node, inputs)
        case .squeezeExcite(let chain): return squeezeExciteStep(chain)
        case .attentionGate(let f): return attentionGateStep(f, leader: leader)
        case .resizedPointwise(let output): return resizedPointwiseStep(node.operation as! Resize, convolutionOutput: output, inputs)
        case .maskHead(let f): return doublingTransposedStep(node.operation as! ConvTranspose, inputs, output: outputs[0], fusion: f)
        case .cancelledTransposes(let f): return cancelledTransposesStep(node.operation as! Transpose, f, node, inputs)
        case .channelSoftmax(_, let output): return channelSoftmaxStep(node.operation as! Transpose, output: output, inputs)
        case .deinterleave(let f): return deinterleaveStep(node.operation as! Transpose, node, inputs, outputs, fusion: f)
        }
    }

    /// The step of a node on its own (no fusion planned for it), or nil for the reference kernel.
    func singleNodeStep(_ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                        _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        switch node.operation {
        case let conv as Conv:
            guard hasConstantWeights(node) else { return nil }
            guard let kind = Self.kind(of: conv) else { return patchConvolutionStep(conv, inputs, outputs) }
            return convolutionStep(conv, kind: kind, input: inputs[0], inputValue: nil, weights: inputs[1],
                                   bias: conv.hasBias ? inputs[2] : nil, output: outputs[0], fusion: nil)
        case let unary as ElementwiseUnary:
            guard let activation = Self.kernelActivation(of: node) ?? (unary.kind == .sigmoid ? .sigmoid : nil) else {
                return clampStep(unary, inputs, outputs)
            }
            return ActivationStep(input: inputs[0], output: outputs[0], count: unary.count, activation: activation)
        case let binary as ElementwiseBinary:
            return parametricReLUStep(binary, inputs, outputs) ?? broadcastBinaryStep(binary, inputs, outputs)
        case let norm as BatchNormalization:
            return batchNormalizationStep(norm, node, inputs, outputs)
        case let softmax as Softmax:
            return softmaxStep(softmax, inputs, outputs)
        case let gap as GlobalAveragePool:
            return AveragePoolStep(input: inputs[0], output: outputs[0], planes: gap.planes, planeSize: gap.planeSize)
        case let pool as Pool:
            return globalAveragePoolStep(pool, inputs, outputs) ?? poolStep(pool, inputs, outputs)
        case let resize as Resize:
            return resizeStep(resize, inputs, outputs) ?? resizeTableStep(resize, inputs, outputs)
        case let transposed as ConvTranspose:
            guard hasConstantWeights(node) else { return nil }
            if Self.isDoubling(transposed) { return doublingTransposedStep(transposed, inputs, output: outputs[0], fusion: nil) }
            return tapTransposedConvolutionStep(transposed, inputs, outputs)
        case let gather as AxisGather:
            return planeGatherStep(gather, node, inputs, outputs)
        case let expand as Expand:
            return expandStep(expand, inputs, outputs)
        case let concat as Concat:
            return concatStep(concat, inputs, outputs)
        case let split as Split:
            return splitStep(split, inputs, outputs)
        case let product as MatMul:
            return matMulStep(product, node, inputs, outputs)
        case let gemm as Gemm:
            return gemmStep(gemm, node, inputs, outputs)
        case let conv as QLinearConv:
            return quantizedConvolutionStep(conv, node, inputs, outputs)
        case let product as QLinearMatMul:
            return quantizedMatrixStep(product, node, inputs, outputs)
        case let transpose as Transpose:
            if Self.isDeinterleave(transpose) { return deinterleaveStep(transpose, node, inputs, outputs, fusion: nil) }
            return interleaveStep(transpose, inputs, outputs) ?? blockTransposeStep(transpose, inputs, outputs)
        default: return nil
        }
    }

    /// Whether a kernel that reads element e of `input` right before writing element e of
    /// `output` may run with these buffers: the same buffer, or disjoint ones.
    func elementwiseSafe(_ input: Int, _ output: Int) -> Bool {
        pointer(input) == pointer(output) || !overlap(input, output)
    }

    func resizeStep(_ resize: Resize, _ inputs: [UnsafePointer<Float>],
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

    /// Whether `t` is NHWC → NCHW of a batch-1 rank-4 float tensor (a model's image input).
    static func isDeinterleave(_ t: Transpose) -> Bool {
        guard let shape = t.outputShapes.first, shape.count == 4, shape[0] == 1, t.outputTypes == [.float32] else { return false }
        let (c, h, w) = (shape[1], shape[2], shape[3])
        // Operand 1 (the input, [1, H, W, C]) read along the output's axes: C·H·W, 1, W·C, C.
        return Array(t.loop.strides[1].suffix(3)) == [1, w * c, c] || c * h * w == 0
    }

    /// The image input's NHWC → NCHW, read straight from the caller's buffer when it is the
    /// graph's single input and this is its only reader.
    func matchDeinterleave(_ t: Transpose, _ node: PlannedNode) -> DeinterleaveFusion? {
        guard let graph, Self.isDeinterleave(t) else { return nil }
        let input = graph.inputIDs.count == 1 ? graph.inputIDs[0] : -1
        return DeinterleaveFusion(readsCallerBuffer: node.inputs.first == input && consumers[input].count == 1
                                    && !graph.outputIDs.contains(input))
    }

    /// NHWC → NCHW (maybe into the zero-bordered input of the convolution reading it).
    func deinterleaveStep(_ t: Transpose, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                          _ outputs: [UnsafeMutablePointer<Float>], fusion: DeinterleaveFusion?) -> any Step {
        let shape = t.outputShapes[0]
        let (c, h, w) = (shape[1], shape[2], shape[3])
        let output = fusion == nil ? Self.denseMap(outputs[0], channels: c, height: h, width: w)
            : outputMap(node.outputs[0], channels: c, height: h, width: w)
        var external: ExternalInput? = nil
        if fusion?.readsCallerBuffer == true {
            external = ExternalInput()
            externalInput = external
        }
        return DeinterleaveStep(input: inputs[0], external: external, output: output, pool: pool)
    }
}

extension FastExecutor {
    /// A float Transpose that, on the axes longer than 1, moves the leading ones behind the
    /// others (NCHW → NHWC; [1, C, N] → [1, N, C]): the transpose of a rows × columns matrix, as
    /// C = rows planes of the columns interleaved (split in rows of the input's last axis when
    /// that has all the columns' other factor).
    func interleaveStep(_ t: Transpose, _ inputs: [UnsafePointer<Float>], _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard t.outputTypes == [.float32], inputs[0] != UnsafePointer(outputs[0]) else { return nil }
        let kept = t.perm.filter { t.inputShape[$0] > 1 }
        guard let first = kept.first, let split = kept.firstIndex(where: { $0 < first }),
              kept[split...].elementsEqual(kept.sorted().prefix(kept.count - split)),
              kept[..<split].elementsEqual(kept.sorted().suffix(split)) else { return nil }
        let rows = kept[split...].reduce(1) { $0 * t.inputShape[$1] }
        let columns = kept[..<split].reduce(1) { $0 * t.inputShape[$1] }
        let width = t.inputShape.last!, height = columns % width == 0 ? columns / width : 1
        return InterleaveStep(input: Self.denseMap(inputs[0], channels: rows, height: height, width: columns / height),
                              output: outputs[0], pool: pool)
    }
}

struct InterleaveStep: Step {
    let input: FeatureMap, output: UnsafeMutablePointer<Float>, pool: WorkerPool
    func run() { interleaveChannels(input, output: output, pool: pool) }
}

/// The image input's NHWC → NCHW.
struct DeinterleaveFusion {
    /// Whether the step reads the caller's input buffer (the session then skips its copy).
    let readsCallerBuffer: Bool
}
