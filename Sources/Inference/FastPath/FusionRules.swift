import Kernels

/// The fast path's cross-node rules, run on the graph before any memory is placed: they decide
/// which node leads a fused step and which nodes it absorbs (`FusionPlan`), from the graph alone
/// (shapes, operators, constants, readers). No rule sees a buffer: the buffer plan is made after
/// them, over the lowered graph (`BufferPlan.init(_:lowered:)`), and keeps every value a fused
/// step reads apart from every value it writes, except where the fusion says its kernel may
/// write over an input (`FusionPlan.Fusion.mayOverwrite`).
///
/// Each rule is a `match…` function in `Rules/`, one file per family (convolutions and what they
/// absorb in `ConvolutionRules.swift`, `EpilogueRules.swift` and `BandedPointwiseDepthwiseRules.swift`;
/// multi-node blocks in `BlockRules.swift`; a BatchNormalization's activation in
/// `NormalizationRules.swift`; Transposes in `TransposeRules.swift`; a MatMul's bias and
/// activation, and GELU, in `MatrixProductRules.swift`; the dynamic form's
/// integer products in `IntegerProductRules.swift`; a Pad before a quantized convolution in
/// `QuantizedPadRules.swift`); the builders of
/// their steps stay in the `StepBuilder` files. `matchFusion(at:plan:)` dispatches on the operator.
struct FusionRules: KernelChoices {
    let graph: LoadedGraph
    /// The values whose contents are fixed before the graph runs (weights are packed from them;
    /// a node whose weights are computed at run time is not taken).
    let constants: Set<Int>
    /// For each value, the nodes reading it (indices into `graph.nodes`).
    let consumers: [[Int]]
    /// The index in `graph.nodes` of the node producing each value.
    let nodeIndex: [Int: Int]
    /// The constants' contents (the graph keeps only their shapes and types).
    let store: ConstantStore

    init(_ graph: LoadedGraph, constants store: ConstantStore) {
        self.graph = graph
        self.store = store
        constants = Set(graph.values.indices.filter { graph.values[$0].constant != nil })
        var consumers = Array(repeating: [Int](), count: graph.values.count)
        var nodeIndex: [Int: Int] = [:]
        for (index, node) in graph.nodes.enumerated() {
            for id in node.inputs { consumers[id].append(index) }
            for id in node.outputs { nodeIndex[id] = index }
        }
        self.consumers = consumers
        self.nodeIndex = nodeIndex
    }

    /// Whether every input after the first (weights, bias) is a constant: a kernel packs them
    /// when its step is made.
    func hasConstantWeights(_ node: PlannedNode) -> Bool {
        node.inputs.dropFirst().allSatisfy(constants.contains)
    }

    /// The single node reading `value`, if exactly one reads it and it is not a graph output.
    func soleConsumer(of value: Int) -> PlannedNode? {
        guard consumers[value].count == 1, !graph.outputIDs.contains(value) else { return nil }
        return graph.nodes[consumers[value][0]]
    }

    /// The first `count` floats of a float32 constant, or nil when `value` is not one.
    func constantFloats(_ value: Int, count: Int) -> [Float]? {
        guard graph.values[value].type == .float32, graph.values[value].elementCount >= count,
              let floats = store.pointer(value) else { return nil }
        return Array(UnsafeBufferPointer(start: floats, count: count))
    }

    /// The plan for the graph: every node offered to the cross-node rules, in order (only the
    /// nodes in `leaders` may lead a fusion, when it is given).
    func plan(leaders: Set<Int>? = nil) -> FusionPlan {
        var plan = FusionPlan()
        for index in graph.nodes.indices where plan.absorbedBy[index] == nil && leaders?.contains(index) != false {
            guard let fusion = matchFusion(at: index, plan: plan) else { continue }
            plan.record(fusion, at: index, absorbing: fusion.absorbed.compactMap { nodeIndex[$0] })
            if case .pointwiseDepthwise(let banded) = fusion, let gate = banded.gate {
                plan.takeOver(gate: gate, channels: graph.values[graph.nodes[index].inputs[0]].shape[1])
            }
            if let target = paddedTarget(of: fusion, at: index),
               let pad = paddedBorder(for: target.value, channels: target.channels, height: target.height, width: target.width,
                                      padMayLead: { leaders?.contains($0) != false }) {
                plan.writePadded(target.value, channels: target.channels,
                                 layout: .padded(width: target.width, height: target.height, pad: pad))
            }
        }
        return plan
    }

    /// The first cross-node rule that matches at node `index`, if any.
    func matchFusion(at index: Int, plan: FusionPlan) -> FusionPlan.Fusion? {
        let node = graph.nodes[index]
        switch node.operation {
        case let conv as Conv:
            guard hasConstantWeights(node), let kind = Self.kind(of: conv) else { return nil }
            // The banded pair reads the 1x1 weights as they are (not from a trimmed window).
            if kind == .pointwise(groups: 1), conv.height.kernel == 1, let banded = matchPointwiseDepthwise(at: index, plan: plan) {
                return .pointwiseDepthwise(banded)
            }
            if let pair = matchSmallMapPointwiseDepthwise(at: index) { return .smallMapPointwiseDepthwise(pair) }
            return .convolution(matchConvolution(conv, kind: kind, node))
        case let norm as BatchNormalization:
            return matchNormalizedActivation(norm, node).map { .normalizedActivation($0) }
        case is GlobalAveragePool:
            return matchSqueezeExcite(at: index).map { .squeezeExcite($0) }
        case let binary as ElementwiseBinary:
            if let chain = matchGelu(at: index) { return .gelu(chain) }
            return matchAttentionGate(binary, at: index).map { .attentionGate($0) }
        case let product as MatMul:
            return matchMatrixProduct(product, node).map { .matrixProduct($0) }
        case let resize as Resize:
            return matchResizedPointwise(resize, at: index).map { .resizedPointwise(convolutionOutput: $0) }
        case let transposed as ConvTranspose:
            guard hasConstantWeights(node) else { return nil }
            return matchMaskHead(transposed, at: index).map { .maskHead($0) }
        case let transpose as Transpose:
            if let deinterleave = matchDeinterleave(transpose, node) { return .deinterleave(deinterleave) }
            if let pair = matchCancelledTransposes(transpose, node) { return .cancelledTransposes(pair) }
            return matchChannelSoftmax(transpose, node).map { .channelSoftmax(softmax: $0.softmax, output: $0.output) }
        case let gather as AxisGather:
            if let padded = matchPaddedQuantizedConvolution(gather, node) { return .paddedQuantizedConvolution(padded) }
            return matchPaddedConvolution(gather, node).map { .paddedConvolution($0) }
        case let dequantize as DequantizeLinear:
            return matchPaddedQuantizedConvolution(dequantize, node).map { .paddedQuantizedConvolution($0) }
        case is ConvInteger, is MatMulInteger:
            guard integerProductRunsFast(node) else { return nil }
            return matchIntegerSums(node, at: index).map { .integerSums($0) }
        default:
            return nil
        }
    }

    /// The value a fusion writes that a producer may write zero-bordered, with its planes.
    func paddedTarget(of fusion: FusionPlan.Fusion, at index: Int) -> (value: Int, channels: Int, height: Int, width: Int)? {
        let value: Int
        switch fusion {
        case .convolution(let f) where !f.channelsLast: value = f.target
        case .pointwiseDepthwise(let f): value = f.depthwise.target
        case .smallMapPointwiseDepthwise(let f): value = f.target
        case .resizedPointwise(let output): value = output
        case .deinterleave: value = graph.nodes[index].outputs[0]
        case .paddedConvolution(let f) where !f.convolution.channelsLast: value = f.convolution.target
        case .normalizedActivation(let chain): value = chain.output
        default: return nil
        }
        guard let (c, h, w) = Self.planes(graph.values[value].shape) else { return nil }
        return (value, c, h, w)
    }

    /// The border of the zero-bordered input that the depthwise or dense K×K convolution reading
    /// `value` wants, when it is the value's only reader and runs on the fast path (so the value's
    /// producer can write it there), or nil. The reader may be a zero Pad folded into the
    /// convolution after it (`matchPaddedConvolution`), when the Pad's node may lead that fusion
    /// (`padMayLead` of its index): the border is then the combined one.
    func paddedBorder(for value: Int, channels: Int, height: Int, width: Int, padMayLead: (Int) -> Bool) -> Int? {
        guard let reader = soleConsumer(of: value), reader.inputs.first == value else { return nil }
        let conv: Conv, kind: ConvolutionKind
        if let gather = reader.operation as? AxisGather {
            guard let index = nodeIndex[reader.outputs[0]], padMayLead(index),
                  let padded = matchPaddedConvolution(gather, reader) else { return nil }
            (conv, kind) = (padded.conv, padded.kind)
        } else {
            guard let readerConv = reader.operation as? Conv, hasConstantWeights(reader),
                  let readerKind = Self.kind(of: readerConv) else { return nil }
            (conv, kind) = (readerConv, readerKind)
        }
        guard let pad = kind.inputPad, !(kind == .depthwise(pad: pad) && Self.runsOnSmallMap(depthwise: conv)),
              conv.inputChannels == channels, conv.height.input == height, conv.width.input == width else { return nil }
        return pad
    }

    /// Whether a DynamicQuantizeLinear reads `value`, or reads the output of an elementwise
    /// operator reading it (up to `depth` such operators in between).
    func feedsDynamicQuantization(_ value: Int, depth: Int = 3) -> Bool {
        consumers[value].contains { index in
            let reader = graph.nodes[index]
            if reader.operation is DynamicQuantizeLinear { return true }
            guard depth > 0, reader.operation is ElementwiseUnary || reader.operation is ElementwiseBinary else { return false }
            return reader.outputs.contains { feedsDynamicQuantization($0, depth: depth - 1) }
        }
    }

    /// The node reading `value` when it is its only reader (and `value` is not a graph output)
    /// and it runs right after `value`'s producer.
    func follower(of value: Int) -> PlannedNode? {
        guard let next = soleConsumer(of: value), let here = nodeIndex[value], here + 1 < graph.nodes.count,
              graph.nodes[here + 1].outputs == next.outputs else { return nil }
        return next
    }
}
