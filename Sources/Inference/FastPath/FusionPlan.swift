import Kernels

/// The fast path's decisions across nodes, made for the whole graph before any step is built.
///
/// The planner walks the nodes in order and offers each node not yet absorbed to the cross-node
/// rules (each a `match…` function beside the builder of its step); a rule that matches leads a
/// fusion and absorbs the nodes whose work its step does. Steps are then built from the plan: an
/// absorbed node runs nothing, a leader builds its fused step, any other node its single-node
/// step. What two steps share is made here too, so building one step never changes another:
/// the zero-bordered buffer a producer writes for the convolution reading it, and the values of
/// an attention gate that the banded step after it applies.
struct FusionPlan {
    enum Fusion {
        /// A convolution with what it absorbs (see `ConvolutionFusion`).
        case convolution(ConvolutionFusion)
        /// A 1x1 convolution and the depthwise convolution reading it, in bands of rows.
        case pointwiseDepthwise(BandedFusion)
        /// Global average pool, two 1x1 convolutions, Sigmoid and Mul as one gate.
        case squeezeExcite(FastExecutor.GateChain)
        /// `s · gate(mean(s + u)) + u` from its first Add.
        case attentionGate(AttentionGateFusion)
        /// A bilinear ×2 Resize and the 1x1 convolution reading it, reordered.
        case resizedPointwise(convolutionOutput: Int)
        /// A 2x2 stride-2 ConvTranspose with the Sigmoid (and Reshape) writing the mask.
        case maskHead(MaskHeadFusion)
        /// A Transpose and its inverse (maybe with an activation between): one move.
        case cancelledTransposes(CancelledTransposes)
        /// Transpose, Softmax over the original channel axis, inverse Transpose.
        case channelSoftmax(softmax: Int, output: Int)
        /// NHWC → NCHW of the image input.
        case deinterleave(DeinterleaveFusion)
        /// A zero Pad of the spatial axes, folded into the convolution reading it.
        case paddedConvolution(PaddedConvolution)

        /// The output values of the nodes after the leader whose work its step does.
        var absorbed: [Int] {
            switch self {
            case .convolution(let f): f.absorbed
            case .pointwiseDepthwise(let f): f.absorbed
            case .squeezeExcite(let chain): chain.covered
            case .attentionGate(let f): f.absorbed
            case .resizedPointwise(let conv): [conv]
            case .maskHead(let f): f.absorbed
            case .cancelledTransposes(let f): f.absorbed
            case .channelSoftmax(let softmax, let output): [softmax, output]
            case .deinterleave: []
            case .paddedConvolution(let f): f.absorbed
            }
        }
    }

    /// The fusion each leading node (by index in `graph.nodes`) runs.
    private(set) var fusions: [Int: Fusion] = [:]
    /// For each absorbed node (by index), the leader whose step does its work.
    private(set) var absorbedBy: [Int: Int] = [:]
    /// Zero-bordered buffers, by value: the value's producer writes it there and the
    /// convolution reading it reads it there (the value's arena buffer is never written).
    private(set) var paddedInputs: [Int: FeatureMapStorage] = [:]
    /// The values of each attention gate (by its leading node) whose application a banded step
    /// took over: the gate's step writes them and the banded step reads them.
    private(set) var takenOverGates: [Int: FloatBuffer] = [:]

    /// Each fusion as the indices (into `graph.nodes`) of its leader and the nodes it absorbs,
    /// in the leaders' order.
    var spans: [[Int]] {
        fusions.keys.sorted().map { leader in [leader] + absorbedBy.filter { $0.value == leader }.map(\.key).sorted() }
    }

    mutating func record(_ fusion: Fusion, at leader: Int, absorbing nodes: [Int]) {
        fusions[leader] = fusion
        for node in nodes { absorbedBy[node] = leader }
    }

    mutating func writePadded(_ value: Int, _ storage: FeatureMapStorage) { paddedInputs[value] = storage }

    mutating func takeOver(gate: Int, channels: Int) { takenOverGates[gate] = FloatBuffer(count: channels) }
}

extension FastExecutor {
    /// The plan for `graph`: every node offered to the cross-node rules, in order (only the
    /// nodes in `leaders` may lead a fusion, when it is given).
    func makePlan(_ graph: LoadedGraph, leaders: Set<Int>? = nil) -> FusionPlan {
        var plan = FusionPlan()
        for index in graph.nodes.indices where plan.absorbedBy[index] == nil && leaders?.contains(index) != false {
            guard let fusion = matchFusion(at: index, plan: plan) else { continue }
            plan.record(fusion, at: index, absorbing: fusion.absorbed.compactMap { nodeIndex[$0] })
            if case .pointwiseDepthwise(let banded) = fusion, let gate = banded.gate {
                plan.takeOver(gate: gate, channels: graph.values[graph.nodes[index].inputs[0]].shape[1])
            }
            if let target = paddedTarget(of: fusion, at: index),
               let pad = paddedBorder(for: target.value, channels: target.channels, height: target.height, width: target.width) {
                plan.writePadded(target.value, FeatureMapStorage(
                    channels: target.channels, layout: .padded(width: target.width, height: target.height, pad: pad)))
            }
        }
        return plan
    }

    /// The first cross-node rule that matches at node `index`, if any.
    func matchFusion(at index: Int, plan: FusionPlan) -> FusionPlan.Fusion? {
        guard let graph else { return nil }
        let node = graph.nodes[index]
        switch node.operation {
        case let conv as Conv:
            guard hasConstantWeights(node), let kind = Self.kind(of: conv) else { return nil }
            // The banded pair reads the 1x1 weights as they are (not from a trimmed window).
            if kind == .pointwise(groups: 1), conv.height.kernel == 1, let banded = matchPointwiseDepthwise(at: index, plan: plan) {
                return .pointwiseDepthwise(banded)
            }
            return .convolution(matchConvolution(conv, kind: kind, node))
        case is GlobalAveragePool:
            return matchSqueezeExcite(at: index).map { .squeezeExcite($0) }
        case let binary as ElementwiseBinary:
            return matchAttentionGate(binary, at: index).map { .attentionGate($0) }
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
            return matchPaddedConvolution(gather, node).map { .paddedConvolution($0) }
        default:
            return nil
        }
    }

    /// The value a fusion writes that a producer may write zero-bordered, with its planes.
    func paddedTarget(of fusion: FusionPlan.Fusion, at index: Int) -> (value: Int, channels: Int, height: Int, width: Int)? {
        guard let graph else { return nil }
        let value: Int
        switch fusion {
        case .convolution(let f): value = f.target
        case .pointwiseDepthwise(let f): value = f.depthwise.target
        case .resizedPointwise(let output): value = output
        case .deinterleave: value = graph.nodes[index].outputs[0]
        case .paddedConvolution(let f): value = f.convolution.target
        default: return nil
        }
        guard let (c, h, w) = Self.planes(graph.values[value].shape) else { return nil }
        return (value, c, h, w)
    }

    /// The border of the zero-bordered input that the depthwise or dense K×K convolution reading
    /// `value` wants, when it is the value's only reader and runs on the fast path (so the value's
    /// producer can write it there), or nil.
    func paddedBorder(for value: Int, channels: Int, height: Int, width: Int) -> Int? {
        guard let reader = soleConsumer(of: value), let conv = reader.operation as? Conv, hasConstantWeights(reader),
              let pad = Self.kind(of: conv)?.inputPad, reader.inputs.first == value,
              conv.inputChannels == channels, conv.height.input == height, conv.width.input == width else { return nil }
        return pad
    }
}
