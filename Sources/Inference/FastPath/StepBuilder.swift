import Kernels

/// The fast path's step builder: binds each node of the lowered graph to a SIMD step from the
/// `Kernels` module where it has one, and to its operator's reference kernel otherwise, so
/// every model the reference path runs still runs. The session runs the steps.
///
/// Batch 1, float32. The builder is made after the rules lowered the graph (`FusionRules`,
/// `FusionPlan`) and the buffer plan placed every value of the lowered graph in the session's
/// arena (`BufferPlan.init(_:lowered:)`); `work(for:inputs:outputs:)` then builds each node's
/// step from both. The builders are one file per concern, their rules in `Rules/`: convolutions in
/// `Convolutions.swift` and `BandedPointwiseDepthwise.swift` (the epilogue they absorb is
/// `Epilogue.swift`), the single-node layers in `SingleNodeLayers.swift`, the matrix products and
/// Transpose pairs in `MatrixProducts.swift`, the multi-node blocks in `MultiNodeBlocks.swift`.
/// This file dispatches on the operator.
///
/// Weights are packed when the step is made, from the model's constants, once per lowered graph
/// (`PackedWeights`: every session of the model's graph shares them); steps allocate nothing
/// when they run.
///
/// A fused step does the work of nodes after its own, writing their final value; those nodes
/// get no step (`NodeWork.absorbed`). Fused values are never written to the arena, which is
/// why inspection sessions plan no fusion.
final class StepBuilder: KernelChoices {
    let pool: WorkerPool
    /// Non-nil when the graph's single input is read only by a step that can take it straight
    /// from the caller's buffer (the NHWC→NCHW transpose); the session then skips its copy.
    private(set) var externalInput: ExternalInput? = nil
    let rules: FusionRules
    let plan: FusionPlan
    let buffers: BufferPlan
    let arena: UnsafeMutablePointer<Float>
    let constants: ConstantStore
    /// The model's packed weights, shared by the sessions of its lowered graph; nil for a
    /// session that planned its own fusions (it packs its own).
    let packedWeights: PackedWeights?
    /// The node whose step is being built: the key of the weights it packs.
    private var building = -1

    var graph: LoadedGraph { rules.graph }

    /// - Parameters:
    ///   - plan: the lowered graph (empty: every node runs its single-node step).
    ///   - buffers: where `plan`'s values live in `arena`.
    ///   - constants: the model's constants (weights are packed from there).
    ///   - packedWeights: where the weights packed for `plan` are kept, if they are shared.
    init(threads: Int, rules: FusionRules, plan: FusionPlan, buffers: BufferPlan, arena: UnsafeMutablePointer<Float>,
         constants: ConstantStore, packedWeights: PackedWeights?) {
        pool = WorkerPool(threads: threads)
        self.rules = rules
        self.plan = plan
        self.buffers = buffers
        self.arena = arena
        self.constants = constants
        self.packedWeights = packedWeights
    }

    /// The weights `make` packs for the step being built, packed once per lowered graph when the
    /// session shares them. Every read of a weight's constant (the operands a kernel packs, not
    /// those it reads while running) is made inside `make`: once the model has released those
    /// constants, `make` is never called.
    func packed<W>(file: String = #fileID, line: Int = #line, _ make: () -> W) -> W {
        guard let packedWeights, building >= 0 else { return make() }
        return packedWeights.weights(PackedWeights.Key(node: building, site: "\(file):\(line)"), make)
    }

    /// The address of a value: a constant in the model's store (never to be written), any other in
    /// the arena (dense; see `paddedMap` for a zero-bordered one).
    ///
    /// - Precondition: the value has a buffer (a value only the nodes of one fused step read has
    ///   none: the step never writes it).
    func pointer(_ value: Int) -> UnsafeMutablePointer<Float> {
        if let constant = constants.pointer(value) { return constant }
        precondition(buffers.offsets[value] >= 0, "value \(value) ('\(graph.values[value].name)') has no buffer: no step writes it")
        return arena + buffers.offsets[value]
    }

    /// The zero-bordered map of a value its producer writes so for its reader, if it is one.
    func paddedMap(_ value: Int) -> FeatureMap? {
        guard let (channels, layout) = plan.paddedValues[value] else { return nil }
        return FeatureMap(base: pointer(value), channels: channels, layout: layout)
    }

    /// The buffer of the per-channel values of an attention gate (by its leading node) whose
    /// application a banded step took over.
    func gateValues(_ leader: Int) -> UnsafeMutablePointer<Float>? {
        buffers.gateOffsets[leader].map { arena + $0 }
    }

    func hasConstantWeights(_ node: PlannedNode) -> Bool { rules.hasConstantWeights(node) }

    /// What runs `node`: the step built for it (the pool's scratch grown to what the step's
    /// kernels state they need, `Step.scratch`, so no kernel call of a planned step finds its
    /// scratch too small), the fused step of the node leading it, nothing for a view, or its
    /// reference kernel when no fast kernel takes it.
    func work(for node: PlannedNode, inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) -> NodeWork {
        let index = node.outputs.first.flatMap { rules.nodeIndex[$0] }
        if let index, let leader = plan.absorbedBy[index] { return .absorbed(leader: leader) }
        building = index ?? -1
        // A view the buffer plan laid over its input: nothing to move.
        if node.outputs.count == 1, buffers.views.contains(node.outputs[0]) { return .view }
        let step: (any Step)?
        if let index, let fusion = plan.fusions[index] {
            step = fusedStep(fusion, leader: index, node, inputs, outputs)
        } else {
            step = singleNodeStep(node, inputs, outputs)
        }
        guard let step else { return .reference }
        if step is NoMove { return .view }
        pool.reserve(step.scratch)
        return .step(step)
    }

    /// The step of a node that leads a fusion.
    func fusedStep(_ fusion: FusionPlan.Fusion, leader: Int, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                   _ outputs: [UnsafeMutablePointer<Float>]) -> any Step {
        switch fusion {
        case .convolution(let f):
            let conv = node.operation as! Conv
            return convolutionStep(conv, kind: StepBuilder.kind(of: conv)!, input: inputs[0], inputValue: node.inputs[0],
                                   weights: inputs[1], bias: conv.hasBias ? inputs[2] : nil, output: nil, fusion: f)
        case .paddedConvolution(let f):
            let convNode = graph.nodes[f.convolutionNode]
            return convolutionStep(f.conv, kind: f.kind, input: inputs[0], inputValue: node.inputs[0],
                                   weights: pointer(convNode.inputs[1]), bias: f.conv.hasBias ? pointer(convNode.inputs[2]) : nil,
                                   output: nil, fusion: f.convolution)
        case .pointwiseDepthwise(let f): return pointwiseDepthwiseStep(f, node, inputs)
        case .smallMapPointwiseDepthwise(let f): return smallMapPointwiseDepthwiseStep(f, node, inputs)
        case .squeezeExcite(let chain): return squeezeExciteStep(chain)
        case .attentionGate(let f): return attentionGateStep(f, leader: leader)
        case .resizedPointwise(let output): return resizedPointwiseStep(node.operation as! Resize, convolutionOutput: output, inputs)
        case .maskHead(let f): return doublingTransposedStep(node.operation as! ConvTranspose, inputs, output: outputs[0], fusion: f)
        case .cancelledTransposes(let f): return cancelledTransposesStep(node.operation as! Transpose, f, node, inputs)
        case .channelSoftmax(_, let output): return channelSoftmaxStep(node.operation as! Transpose, output: output, inputs)
        case .deinterleave(let f): return deinterleaveStep(node.operation as! Transpose, node, inputs, outputs, fusion: f)
        case .paddedQuantizedConvolution(let f):
            // The rule matched only a QLinearConv this step takes (2-D, constant weights); the
            // Pad's output (and the QuantizeLinear's, in the QDQ form) has no buffer.
            let convNode = graph.nodes[f.convolutionNode]
            let convInputs = [UnsafePointer(pointer(f.input))] + convNode.inputs.dropFirst().map { UnsafePointer(pointer($0)) }
            return quantizedConvolutionStep(f.conv, convNode, convInputs, [pointer(convNode.outputs[0])])!
        case .matrixProduct(let f):
            return matMulStep(node.operation as! MatMul, node, inputs, output: pointer(f.output),
                              bias: f.bias.map { UnsafePointer(pointer($0)) }, function: f.function)!
        case .gelu(let chain):
            return FunctionStep(input: pointer(chain.input), output: pointer(chain.output),
                                count: graph.values[chain.input].elementCount, function: .gelu(chain.argument))
        case .normalizedActivation(let chain):
            // The rule matched only what the single-node step takes.
            return batchNormalizationStep(node.operation as! BatchNormalization, node, inputs, [pointer(chain.output)],
                                          activation: chain.activation, paddedOutput: paddedMap(chain.output))!
        case .integerSums(let f):
            // The rule matched only what these steps take (`integerProductRunsFast`).
            if let conv = node.operation as? ConvInteger { return integerConvolutionStep(conv, node, inputs, outputs, fusion: f)! }
            return integerMatrixStep(node.operation as! MatMulInteger, node, inputs, outputs, fusion: f)!
        }
    }

    /// The step of a node on its own (no fusion planned for it), or nil for the reference kernel.
    func singleNodeStep(_ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                        _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        switch node.operation {
        case let conv as Conv:
            guard hasConstantWeights(node) else { return nil }
            guard let kind = StepBuilder.kind(of: conv) else { return patchConvolutionStep(conv, inputs, outputs) }
            return convolutionStep(conv, kind: kind, input: inputs[0], inputValue: nil, weights: inputs[1],
                                   bias: conv.hasBias ? inputs[2] : nil, output: outputs[0], fusion: nil)
        case let unary as ElementwiseUnary:
            // Erf's fast kernel is the reference's (onnxruntime's) arithmetic; the Gelu op's
            // reference rounds otherwise, so one a DynamicQuantizeLinear reads keeps that kernel.
            if unary.kind == .erf || (unary.kind == .gelu && !rules.feedsDynamicQuantization(node.outputs[0])) {
                return FunctionStep(input: inputs[0], output: outputs[0], count: unary.count,
                                    function: unary.kind == .erf ? .erf : .gelu(.timesInverseSqrt2))
            }
            if case let .hardSigmoid(alpha, beta) = unary.kind {
                return HardSigmoidStep(input: inputs[0], output: outputs[0], count: unary.count, alpha: alpha, beta: beta)
            }
            guard let activation = StepBuilder.kernelActivation(of: node) ?? (unary.kind == .sigmoid ? .sigmoid : nil) else {
                return clampStep(unary, inputs, outputs)
            }
            return ActivationStep(input: inputs[0], output: outputs[0], count: unary.count, activation: activation)
        case let binary as ElementwiseBinary:
            return parametricReLUStep(binary, inputs, outputs) ?? broadcastBinaryStep(binary, inputs, outputs)
        case let norm as BatchNormalization:
            return batchNormalizationStep(norm, node, inputs, outputs, activation: .none)
        case let norm as Normalization:
            return layerNormalizationStep(norm, node, inputs, outputs)
        case let softmax as Softmax:
            return softmaxStep(softmax, inputs, outputs)
        case let gap as GlobalAveragePool:
            return AveragePoolStep(input: inputs[0], output: outputs[0], planes: gap.planes, planeSize: gap.planeSize,
                                   onnxruntimeGlobalOrder: true)
        case let reduce as Reduce:
            return meanStep(reduce, node, inputs, outputs)
        case let pool as Pool:
            return globalAveragePoolStep(pool, inputs, outputs) ?? poolStep(pool, inputs, outputs)
                ?? byteMaxPoolStep(pool, inputs, outputs)
        case let resize as Resize:
            return resizeStep(resize, inputs, outputs) ?? resizeTableStep(resize, inputs, outputs)
        case let transposed as ConvTranspose:
            guard hasConstantWeights(node) else { return nil }
            if StepBuilder.isDoubling(transposed) { return doublingTransposedStep(transposed, inputs, output: outputs[0], fusion: nil) }
            return tapTransposedConvolutionStep(transposed, inputs, outputs)
        case let gather as AxisGather:
            return planeGatherStep(gather, node, inputs, outputs) ?? runPlaneGatherStep(gather, node, inputs, outputs)
        case let expand as Expand:
            return expandStep(expand, inputs, outputs)
        case let concat as Concat:
            return concatStep(concat, node, inputs, outputs)
        case let split as Split:
            return splitStep(split, node)
        case let product as MatMul:
            return matMulStep(product, node, inputs, output: outputs[0], bias: nil, function: nil)
                ?? batchedMatMulStep(product, inputs, outputs)
        case let gemm as Gemm:
            return gemmStep(gemm, node, inputs, outputs)
        case let conv as QLinearConv:
            return quantizedConvolutionStep(conv, node, inputs, outputs)
        case let product as QLinearMatMul:
            return quantizedMatrixStep(product, node, inputs, outputs)
        case let quantize as QuantizeLinear:
            return quantizeStep(quantize, node, inputs, outputs)
        case let dequantize as DequantizeLinear:
            return dequantizeStep(dequantize, node, inputs, outputs)
        case let binary as QLinearBinary:
            return quantizedBinaryStep(binary, node, inputs, outputs)
        case let gemm as QGemm:
            return quantizedGemmStep(gemm, node, inputs, outputs)
        case let cast as Cast:
            return halfCastStep(cast, inputs, outputs)
        case let concat as QLinearConcat:
            return quantizedConcatStep(concat, node, inputs, outputs)
        case let lookup as QLinearLookup:
            return quantizedLookupStep(lookup, node, inputs, outputs)
        case let pool as QLinearGlobalAveragePool:
            return quantizedMeanStep(pool, node, inputs, outputs)
        case let pool as QLinearAveragePool:
            return quantizedAveragePoolStep(pool, node, inputs, outputs)
        case let resize as ByteResize:
            return byteResizeStep(resize, inputs, outputs)
        case let conv as ConvInteger:
            return integerConvolutionStep(conv, node, inputs, outputs, fusion: nil)
        case let product as MatMulInteger:
            return integerMatrixStep(product, node, inputs, outputs, fusion: nil)
        case let quantize as DynamicQuantizeLinear:
            return dynamicQuantizeStep(quantize, inputs, outputs)
        case let transpose as Transpose:
            if StepBuilder.isDeinterleave(transpose) { return deinterleaveStep(transpose, node, inputs, outputs, fusion: nil) }
            return interleaveStep(transpose, inputs, outputs) ?? blockTransposeStep(transpose, inputs, outputs)
                ?? matrixTransposeStep(transpose, inputs, outputs) ?? byteMatrixTransposeStep(transpose, inputs, outputs)
        default: return nil
        }
    }

    func resizeStep(_ resize: Resize, _ inputs: [UnsafePointer<Float>],
                            _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard resize.outH == 2 * resize.inH, resize.outW == 2 * resize.inW,
              StepBuilder.isHalfPixelDoubling(resize.rows, input: resize.inH),
              StepBuilder.isHalfPixelDoubling(resize.columns, input: resize.inW) else { return nil }
        let input = FeatureMap(base: UnsafeMutablePointer(mutating: inputs[0]), channels: resize.planes,
                               layout: .dense(width: resize.inW, height: resize.inH))
        let output = FeatureMap(base: outputs[0], channels: resize.planes, layout: .dense(width: resize.outW, height: resize.outH))
        return ResizeStep(input: input, output: output, pool: pool)
    }

}

extension KernelChoices {
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
}

extension StepBuilder {
    /// NHWC → NCHW (maybe into the zero-bordered input of the convolution reading it).
    func deinterleaveStep(_ t: Transpose, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                          _ outputs: [UnsafeMutablePointer<Float>], fusion: DeinterleaveFusion?) -> any Step {
        let shape = t.outputShapes[0]
        let (c, h, w) = (shape[1], shape[2], shape[3])
        let output = fusion == nil ? StepBuilder.denseMap(outputs[0], channels: c, height: h, width: w)
            : outputMap(node.outputs[0], channels: c, height: h, width: w)
        var external: ExternalInput? = nil
        if fusion?.readsCallerBuffer == true {
            external = ExternalInput()
            externalInput = external
        }
        return DeinterleaveStep(input: inputs[0], external: external, output: output, pool: pool)
    }
}

extension StepBuilder {
    /// The rows × columns matrix a Transpose transposes when, on the axes longer than 1, it moves
    /// the leading ones behind the others (NCHW → NHWC; [1, C, N] → [1, N, C]): rows the product
    /// of the axes it moves forward, columns of those it moves back; nil for any other permutation.
    static func matrixTranspose(_ t: Transpose) -> (rows: Int, columns: Int)? {
        let kept = t.perm.filter { t.inputShape[$0] > 1 }
        guard let first = kept.first, let split = kept.firstIndex(where: { $0 < first }),
              kept[split...].elementsEqual(kept.sorted().prefix(kept.count - split)),
              kept[..<split].elementsEqual(kept.sorted().suffix(split)) else { return nil }
        return (kept[split...].reduce(1) { $0 * t.inputShape[$1] }, kept[..<split].reduce(1) { $0 * t.inputShape[$1] })
    }

    /// A float Transpose that, on the axes longer than 1, moves the leading ones behind the
    /// others (NCHW → NHWC; [1, C, N] → [1, N, C]): the transpose of a rows × columns matrix, as
    /// C = rows planes of the columns interleaved (split in rows of the input's last axis when
    /// that has all the columns' other factor).
    func interleaveStep(_ t: Transpose, _ inputs: [UnsafePointer<Float>], _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard t.outputTypes == [.float32] else { return nil }
        guard let (rows, columns) = StepBuilder.matrixTranspose(t) else { return nil }
        let width = t.inputShape.last!, height = columns % width == 0 ? columns / width : 1
        return InterleaveStep(input: StepBuilder.denseMap(inputs[0], channels: rows, height: height, width: columns / height),
                              output: outputs[0], pool: pool)
    }
}

extension StepBuilder {
    /// A Transpose of 8-bit values that, on the axes longer than 1, moves the leading ones behind
    /// the others (a quantized map's NCHW → NHWC and back): the transpose of a rows × columns byte
    /// matrix (`transposeBytes`, 16 × 16 blocks in registers).
    func byteMatrixTransposeStep(_ t: Transpose, _ inputs: [UnsafePointer<Float>], _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard t.outputTypes == [.uint8] || t.outputTypes == [.int8] else { return nil }
        guard let (rows, columns) = StepBuilder.matrixTranspose(t) else { return nil }
        return ByteMatrixTransposeStep(input: UnsafeRawPointer(inputs[0]).assumingMemoryBound(to: UInt8.self),
                                       output: UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: UInt8.self),
                                       rows: rows, columns: columns)
    }
}

final class ByteMatrixTransposeStep: Step {
    let input: UnsafePointer<UInt8>, output: UnsafeMutablePointer<UInt8>, rows: Int, columns: Int
    func run() { transposeBytes(input, sourceStride: columns, rows: rows, columns: columns, output, targetStride: rows) }

    init(input: UnsafePointer<UInt8>, output: UnsafeMutablePointer<UInt8>, rows: Int, columns: Int) {
        self.input = input
        self.output = output
        self.rows = rows
        self.columns = columns
    }
}

final class InterleaveStep: Step {
    let input: FeatureMap, output: UnsafeMutablePointer<Float>, pool: WorkerPool
    func run() { interleaveChannels(input, output: output, pool: pool) }

    init(input: FeatureMap, output: UnsafeMutablePointer<Float>, pool: WorkerPool) {
        self.input = input
        self.output = output
        self.pool = pool
    }
}

/// The image input's NHWC → NCHW.
struct DeinterleaveFusion {
    /// Whether the step reads the caller's input buffer (the session then skips its copy).
    let readsCallerBuffer: Bool
}
