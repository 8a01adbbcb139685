import Kernels

/// The lowered graph: the fast path's decisions across nodes, made by `FusionRules` for the whole
/// graph before any memory is placed or step built.
///
/// The rules walk the nodes in order and offer each node not yet absorbed to the cross-node
/// rules; a rule that matches leads a fusion and absorbs the nodes whose work its step does. The
/// buffer plan is then made over the lowered graph (`BufferPlan.init(_:lowered:)`: a fused step
/// is one node reading the inputs of all the nodes it does and writing all their outputs), and
/// steps are built from both: an absorbed node runs nothing, a leader builds its fused step, any
/// other node its single-node step. What two steps share is stated here too, and placed by the
/// buffer plan: the zero-bordered map a producer writes for the convolution reading it, and the
/// values of an attention gate that the banded step after it applies.
struct FusionPlan: Sendable {
    enum Fusion: Sendable {
        /// A convolution with what it absorbs (see `ConvolutionFusion`).
        case convolution(ConvolutionFusion)
        /// A 1x1 convolution and the depthwise convolution reading it, in bands of rows.
        case pointwiseDepthwise(BandedFusion)
        /// A 1x1 convolution on a small map and the small-map depthwise convolution reading it.
        case smallMapPointwiseDepthwise(SmallMapPairFusion)
        /// Global average pool, two 1x1 convolutions (ReLU or SiLU between), the Sigmoid or
        /// HardSigmoid gate and its Mul as one step (`GateChain`).
        case squeezeExcite(GateChain)
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
        /// A ConvInteger or MatMulInteger with the Cast, Mul, Add and activation after it.
        case integerSums(IntegerSumsFusion)
        /// A constant Pad with the zero point (on bytes, or between DequantizeLinear and
        /// QuantizeLinear) folded into the QLinearConv reading it.
        case paddedQuantizedConvolution(PaddedQuantizedConvolution)
        /// A MatMul by a constant matrix with its bias Add and activation or GELU.
        case matrixProduct(MatrixProductFusion)
        /// A GELU spelled as nodes, from its first node.
        case gelu(GeluChain)
        /// A BatchNormalization and the activation after it (the epilogue's activation alone).
        case normalizedActivation(Epilogue)

        /// The output values of the nodes after the leader whose work its step does.
        var absorbed: [Int] {
            switch self {
            case .convolution(let f): f.absorbed
            case .pointwiseDepthwise(let f): f.absorbed
            case .smallMapPointwiseDepthwise(let f): f.absorbed
            case .squeezeExcite(let chain): chain.covered
            case .attentionGate(let f): f.absorbed
            case .resizedPointwise(let conv): [conv]
            case .maskHead(let f): f.absorbed
            case .cancelledTransposes(let f): f.absorbed
            case .channelSoftmax(let softmax, let output): [softmax, output]
            case .deinterleave: []
            case .paddedConvolution(let f): f.absorbed
            case .integerSums(let f): f.absorbed
            case .paddedQuantizedConvolution(let f): f.absorbed
            case .matrixProduct(let f): f.absorbed
            case .gelu(let chain): chain.absorbed
            case .normalizedActivation(let chain): chain.absorbed
            }
        }

        /// Values the step reads besides the inputs of the nodes it does (the buffer plan keeps
        /// them until it ran): a banded step that took over an attention gate reads the gate's
        /// two inputs.
        var extraReads: [Int] {
            if case .pointwiseDepthwise(let f) = self, let gate = f.gateInputs { return [gate.skip, gate.upsampled] }
            return []
        }

        /// Pairs of (output, input) values where the step's kernel may write the output over the
        /// input, when the input has no reader after the step (the buffer plan then lays the
        /// output in the input's slot; it never does otherwise).
        func mayOverwrite(leader node: PlannedNode, takenOver: Bool) -> [(output: Int, input: Int)] {
            switch self {
            case .convolution(let f) where f.overwritesInput:
                // A 1x1 reads every input channel of a pixel strip before it writes that strip; a
                // depthwise or dense K×K reads a zero-bordered copy made before it writes.
                return [(f.target, node.inputs[0])]
            case .paddedConvolution(let f) where f.convolution.overwritesInput:
                // The convolution copies the Pad's input into its zero-bordered buffer first (the
                // small-map depthwise kernel reads it in place: `matchConvolution`).
                return [(f.convolution.target, node.inputs[0])]
            case .squeezeExcite(let chain):
                // The gate's mean is taken before any element is scaled, each in place.
                return [(chain.mul.outputs[0], chain.gated)]
            case .attentionGate(let f) where !takenOver:
                // Each element of the sum reads s and u right before it is written.
                return [(f.output, f.skip), (f.output, f.upsampled)]
            case .cancelledTransposes(let f):
                // One move (or an activation element by element) from input to output.
                return [(f.output, node.inputs[0])]
            case .gelu(let chain):
                // Element by element.
                return [(chain.output, chain.input)]
            case .normalizedActivation(let chain):
                // Element by element.
                return [(chain.output, node.inputs[0])]
            default:
                return []
            }
        }
    }

    /// The fusion each leading node (by index in `graph.nodes`) runs.
    private(set) var fusions: [Int: Fusion] = [:]
    /// For each absorbed node (by index), the leader whose step does its work.
    private(set) var absorbedBy: [Int: Int] = [:]
    /// Values kept zero-bordered, by value: the value's producer writes it so and the convolution
    /// reading it reads it so. The buffer plan gives such a value a buffer of its own for this
    /// layout, never reused (its border stays zero), and no dense one.
    private(set) var paddedValues: [Int: (channels: Int, layout: PlaneLayout)] = [:]
    /// The channel count of each attention gate (by its leading node) whose application a banded
    /// step took over: the gate's step writes its per-channel values into a buffer the buffer plan
    /// places, and the banded step reads them.
    private(set) var takenOverGates: [Int: Int] = [:]

    /// Each fusion as the indices (into `graph.nodes`) of its leader and the nodes it absorbs,
    /// in the leaders' order.
    var spans: [[Int]] {
        fusions.keys.sorted().map { leader in [leader] + absorbedBy.filter { $0.value == leader }.map { $0.key }.sorted() }
    }

    mutating func record(_ fusion: Fusion, at leader: Int, absorbing nodes: [Int]) {
        fusions[leader] = fusion
        for node in nodes { absorbedBy[node] = leader }
    }

    mutating func writePadded(_ value: Int, channels: Int, layout: PlaneLayout) { paddedValues[value] = (channels, layout) }

    mutating func takeOver(gate: Int, channels: Int) { takenOverGates[gate] = channels }
}
