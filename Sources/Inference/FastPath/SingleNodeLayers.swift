import Kernels

// The fast path's single-node steps for the layers around the convolutions: normalisation,
// PRelu, Clip, Softmax along rows or over channels, resizing by tables, pooling.

extension KernelChoices {
    /// The [C, H, W] of a batch-1 rank-4 shape.
    static func planes(_ shape: [Int]) -> (channels: Int, height: Int, width: Int)? {
        guard shape.count == 4, shape[0] == 1 else { return nil }
        return (shape[1], shape[2], shape[3])
    }

    static func denseMap(_ base: UnsafePointer<Float>, channels: Int, height: Int, width: Int) -> FeatureMap {
        FeatureMap(base: UnsafeMutablePointer(mutating: base), channels: channels, layout: .dense(width: width, height: height))
    }
}

extension StepBuilder {
    /// BatchNormalization with constant parameters as one per-channel multiply-add (the factor and
    /// shift the reference kernel computes), then `activation` (the fused activation node's),
    /// written to `paddedOutput` when its reader wants it zero-bordered (a [1, C, H, W] map).
    func batchNormalizationStep(_ norm: BatchNormalization, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                                _ outputs: [UnsafeMutablePointer<Float>], activation: Activation,
                                paddedOutput: FeatureMap? = nil) -> (any Step)? {
        guard norm.batch == 1, hasConstantWeights(node) else { return nil }
        let c = norm.channels
        let parameter = { (index: Int) in Array(UnsafeBufferPointer(start: inputs[index], count: c)) }
        let scale = parameter(1), bias = parameter(2), mean = parameter(3), variance = parameter(4)
        let factor = (0..<c).map { scale[$0] / (variance[$0] + norm.epsilon).squareRoot() }
        let shift = (0..<c).map { bias[$0] - mean[$0] * factor[$0] }
        let input: FeatureMap, output: FeatureMap
        if let paddedOutput {
            input = StepBuilder.denseMap(inputs[0], channels: c, height: paddedOutput.layout.height, width: paddedOutput.layout.width)
            output = paddedOutput
        } else {
            input = StepBuilder.denseMap(inputs[0], channels: c, height: 1, width: norm.planeSize)
            output = StepBuilder.denseMap(outputs[0], channels: c, height: 1, width: norm.planeSize)
        }
        return ChannelAffineStep(input: input, output: output, factor: FloatBuffer(factor), shift: FloatBuffer(shift),
                                 activation: activation, pool: pool)
    }

    /// LayerNormalization of a float32 tensor over its last axis alone (C values), with a Scale
    /// and a B of C values each (any leading dims of 1), and no Mean or InvStdDev output.
    func layerNormalizationStep(_ norm: Normalization, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                                _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard node.opType == "LayerNormalization", norm.statisticsCount == 0, norm.subtractsMean,
              case .insideRoot(let epsilon) = norm.epsilon, graph.values[node.inputs[0]].type == .float32,
              let columns = graph.values[node.inputs[0]].shape.last, norm.geometry.count == columns, columns > 0 else { return nil }
        let isRow = { (value: Int) in
            let shape = self.graph.values[value].shape
            return shape.last == columns && shape.dropLast().allSatisfy { $0 == 1 }
        }
        guard node.inputs.dropFirst().allSatisfy(isRow) else { return nil }
        return LayerNormalizationStep(input: inputs[0], rows: graph.values[node.inputs[0]].elementCount / columns,
                                      columns: columns, scale: inputs[1], bias: norm.hasBias ? inputs[2] : nil,
                                      epsilon: epsilon, output: outputs[0], pool: pool)
    }

    /// PRelu of a [1, C, …] tensor (a [1, C] one after a Gemm, say) with one slope or one per channel.
    func parametricReLUStep(_ binary: ElementwiseBinary, _ inputs: [UnsafePointer<Float>],
                            _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard binary.kind == .prelu, let shape = binary.outputShapes.first, shape.count >= 2, shape[0] == 1 else { return nil }
        let c = shape[1], plane = shape.dropFirst(2).reduce(1, *)
        // StridedLoop operands: 0 is the output, 1 the data, 2 the slope, over the last `rank` slots.
        let rank = shape.count, loop = binary.loop
        let data = Array(loop.strides[1].suffix(rank)), slope = Array(loop.strides[2].suffix(rank))
        let dense = Shapes.strides(shape)
        func matches(_ strides: [Int], _ expected: [Int]) -> Bool {
            shape.indices.allSatisfy { shape[$0] == 1 || strides[$0] == expected[$0] }
        }
        guard matches(data, dense) else { return nil }
        let perChannel: Bool
        if c > 1, matches(slope, shape.indices.map { $0 == 1 ? 1 : 0 }) {
            perChannel = true
        } else if matches(slope, Array(repeating: 0, count: rank)) {
            perChannel = false
        } else {
            return nil
        }
        return ParametricReLUStep(input: StepBuilder.denseMap(inputs[0], channels: c, height: 1, width: plane),
                                  slope: inputs[1], perChannel: perChannel,
                                  output: StepBuilder.denseMap(outputs[0], channels: c, height: 1, width: plane), pool: pool)
    }

    /// Clip with other bounds than ReLU6's.
    func clampStep(_ unary: ElementwiseUnary, _ inputs: [UnsafePointer<Float>],
                   _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard case .clip(let lower, let upper) = unary.kind, lower <= upper else { return nil }
        return ClampStep(input: inputs[0], output: outputs[0], count: unary.count, lower: lower, upper: upper)
    }

    /// Softmax along the last axis (attention weights, a classifier's logits; rows of contiguous
    /// values), or over the channel axis of a [1, C, …] tensor (a mask's class scores).
    func softmaxStep(_ softmax: Softmax, _ inputs: [UnsafePointer<Float>],
                     _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard case .softmax = softmax.kind, softmax.type == .float32, softmax.length > 0 else { return nil }
        if softmax.inner == 1 {
            return RowSoftmaxStep(input: inputs[0], rows: softmax.outer, length: softmax.length, output: outputs[0], pool: pool)
        }
        guard softmax.outer == 1, softmax.length > 1,
              let shape = softmax.outputShapes.first, shape.count >= 2, shape[1] == softmax.length else { return nil }
        let c = softmax.length
        return SoftmaxStep(input: StepBuilder.denseMap(inputs[0], channels: c, height: 1, width: softmax.inner),
                           output: StepBuilder.denseMap(outputs[0], channels: c, height: 1, width: softmax.inner), pool: pool)
    }

    /// Bilinear resizing of the last two axes by the reference's tap tables, any scales.
    func resizeTableStep(_ resize: Resize, _ inputs: [UnsafePointer<Float>],
                         _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        let axis = { (table: Resize.AxisTable) in ResizeAxis(first: table.first, second: table.second, weight: table.weight) }
        return ResizeTableStep(input: StepBuilder.denseMap(inputs[0], channels: resize.planes, height: resize.inH, width: resize.inW),
                               rows: axis(resize.rows), columns: axis(resize.columns),
                               output: StepBuilder.denseMap(outputs[0], channels: resize.planes, height: resize.outH, width: resize.outW),
                               pool: pool)
    }

    /// An AveragePool whose window is the whole map, without padding: a global average pool.
    func globalAveragePoolStep(_ pool: Pool, _ inputs: [UnsafePointer<Float>],
                               _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard case .average = pool.kind, pool.depth == .unit, pool.height.kernel == pool.height.input,
              pool.width.kernel == pool.width.input, pool.height.output == 1, pool.width.output == 1,
              pool.height.padBegin == 0, pool.width.padBegin == 0, pool.height.padEnd == 0, pool.width.padEnd == 0,
              pool.height.dilation == 1, pool.width.dilation == 1 else { return nil }
        return AveragePoolStep(input: inputs[0], output: outputs[0], planes: pool.planes,
                               planeSize: pool.height.input * pool.width.input, onnxruntimeGlobalOrder: false)
    }

    /// A float ReduceMean over axes that are one run of the input's (axes of size 1 aside) and at
    /// most 2^16 elements per mean: a spatial mean of NCHW (axes 2, 3: the global average pool)
    /// or of NHWC (axes 1, 2, as tf2onnx writes a Keras squeeze-excite's), viewed as
    /// [outer, reduced, inner].
    func meanStep(_ reduce: Reduce, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                  _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        // Float sums (the reference path sums in Double): up to 2^16 terms per mean, which any
        // spatial mean of a feature map is well within.
        guard reduce.kind == .mean, reduce.type == .float32, reduce.geometry.count > 0,
              reduce.geometry.count <= 1 << 16 else { return nil }
        let x = graph.values[node.inputs[0]].shape, kept = reduce.geometry.keptShape
        guard kept.count == x.count else { return nil }
        let reduced = x.indices.filter { x[$0] > 1 && kept[$0] == 1 }
        guard let first = reduced.first, let last = reduced.last,
              (first...last).allSatisfy({ x[$0] == 1 || kept[$0] == 1 }) else { return nil }
        let outer = x[..<first].reduce(1, *), inner = x[(last + 1)...].reduce(1, *)
        guard outer * reduce.geometry.count * inner == x.reduce(1, *) else { return nil }
        return MeanStep(input: inputs[0], output: outputs[0], outer: outer, count: reduce.geometry.count, inner: inner)
    }

    /// 2-D max and average pooling without dilation (float).
    func poolStep(_ p: Pool, _ inputs: [UnsafePointer<Float>], _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard p.elementType == .float32, p.indexOrder == nil, p.depth == .unit, p.height.dilation == 1,
              p.width.dilation == 1 else { return nil }
        let kind: PoolKind
        switch p.kind {
        case .max: kind = .max
        case .average(let countIncludesPad):
            // The kernel counts every tap of a window as padding; a window that ceil_mode extends
            // past the pads must not count its part beyond them.
            let inside = { (axis: WindowAxis) in (axis.output - 1) * axis.stride - axis.padBegin + axis.kernel <= axis.input + axis.padEnd }
            guard !countIncludesPad || (inside(p.height) && inside(p.width)) else { return nil }
            kind = .average(countIncludesPad: countIncludesPad)
        case .lp: return nil
        }
        return PoolStep(input: StepBuilder.denseMap(inputs[0], channels: p.planes, height: p.height.input, width: p.width.input),
                        kind: kind, height: p.height, width: p.width,
                        output: StepBuilder.denseMap(outputs[0], channels: p.planes, height: p.height.output, width: p.width.output),
                        pool: pool)
    }
}

extension StepBuilder {
    /// A float Transpose that swaps the last two axes and keeps the others in place (attention's
    /// keyᵀ): a batch of matrix transposes.
    func matrixTransposeStep(_ t: Transpose, _ inputs: [UnsafePointer<Float>],
                             _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        let rank = t.perm.count
        guard t.outputTypes == [.float32], rank >= 2, t.perm.dropLast(2).elementsEqual(0..<(rank - 2)),
              t.perm[rank - 2] == rank - 1, t.perm[rank - 1] == rank - 2 else { return nil }
        let (rows, columns) = (t.inputShape[rank - 2], t.inputShape[rank - 1])
        return MatrixTransposeStep(input: inputs[0], count: t.inputShape.dropLast(2).reduce(1, *), rows: rows, columns: columns,
                                   output: outputs[0], pool: pool)
    }

    /// A Transpose that moves whole blocks: the trailing axes it leaves in place hold at least 16
    /// elements, copied as one run each (a channel shuffle's [1, g, C/g, H, W] → [1, C/g, g, H, W]).
    func blockTransposeStep(_ t: Transpose, _ inputs: [UnsafePointer<Float>],
                            _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        let rank = t.perm.count
        var kept = rank
        while kept > 0 && t.perm[kept - 1] == kept - 1 { kept -= 1 }
        let block = t.inputShape[kept...].reduce(1, *)
        guard kept > 0, block >= 16 else { return nil }
        let inputStrides = Shapes.strides(t.inputShape)
        let outer = Array(t.outputShapes[0][..<kept])
        var sources: [Int] = []
        sources.reserveCapacity(outer.reduce(1, *))
        var index = [Int](repeating: 0, count: kept)
        for _ in 0..<outer.reduce(1, *) {
            sources.append((0..<kept).reduce(0) { $0 + index[$1] * inputStrides[t.perm[$1]] })
            advance(&index, in: outer, through: kept - 1)
        }
        let bytes = t.outputTypes[0].byteSize
        return BlockCopyStep(input: UnsafeRawPointer(inputs[0]), output: UnsafeMutableRawPointer(outputs[0]),
                             sources: sources.map { $0 * bytes }, blockBytes: block * bytes)
    }
}

extension StepBuilder {
    func channelSoftmaxStep(_ t: Transpose, output: Int, _ inputs: [UnsafePointer<Float>]) -> any Step {
        let (c, h, w) = StepBuilder.planes(t.inputShape)!
        return SoftmaxStep(input: StepBuilder.denseMap(inputs[0], channels: c, height: h, width: w),
                           output: StepBuilder.denseMap(pointer(output), channels: c, height: h, width: w), pool: pool)
    }
}

extension StepBuilder {
    /// A Concat whose axis has only unit axes before it: the inputs the buffer plan placed in
    /// the output (`Slices`) are there already; the others are copied to their places.
    func concatStep(_ concat: Concat, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                    _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard concat.outer == 1 else { return nil }
        var copies: [Copy] = []
        var offset = 0
        for (k, bytes) in concat.runs.enumerated() {
            let destination = UnsafeMutableRawPointer(outputs[0]) + offset
            if !buffers.slices.isPlaced(node.inputs[k], inSlotOf: node.outputs[0]) {
                copies.append(Copy(source: UnsafeRawPointer(inputs[k]), destination: destination, bytes: bytes))
            }
            offset += bytes
        }
        return copies.isEmpty ? NoMove() : CopiesStep(copies: copies)
    }

    /// A Split whose outputs the buffer plan placed inside its input (`Slices`): nothing to move.
    func splitStep(_ split: Split, _ node: PlannedNode) -> (any Step)? {
        guard split.outer == 1, node.outputs.allSatisfy({ buffers.slices.isPlaced($0, inSlotOf: node.inputs[0]) }) else { return nil }
        return NoMove()
    }
}

/// One block of bytes to copy.
struct Copy {
    let source: UnsafeRawPointer, destination: UnsafeMutableRawPointer, bytes: Int
}

final class CopiesStep: Step {
    let copies: [Copy]
    func run() {
        for copy in copies { copy.destination.copyMemory(from: copy.source, byteCount: copy.bytes) }
    }

    init(copies: [Copy]) {
        self.copies = copies
    }
}

/// Copies blocks of bytes from the given source offsets, one after another into the output
/// (`copyMemory` moves, so a single block may overlap its source).
final class BlockCopyStep: Step {
    let input: UnsafeRawPointer, output: UnsafeMutableRawPointer, sources: [Int], blockBytes: Int
    func run() {
        var destination = output
        for index in sources.indices {
            destination.copyMemory(from: input + sources[index], byteCount: blockBytes)
            destination += blockBytes
        }
    }

    init(input: UnsafeRawPointer, output: UnsafeMutableRawPointer, sources: [Int], blockBytes: Int) {
        self.input = input
        self.output = output
        self.sources = sources
        self.blockBytes = blockBytes
    }
}

extension StepBuilder {
    /// A float gather of rows and columns only (nearest-neighbour resizing and Upsample, edge and
    /// reflect Pad of the spatial axes) of a [N, C, H, W] tensor: `resizeNearest` on its planes.
    func planeGatherStep(_ gather: AxisGather, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                         _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard gather.outputTypes == [.float32] else { return nil }
        let input = graph.values[node.inputs[0]].shape, output = gather.outputShapes[0]
        guard input.count == 4, output.count == 4, input[0] == output[0], input[1] == output[1] else { return nil }
        let (h, w) = (input[2], input[3])
        // The batch and channel axes copied through; every row and column one of the input's.
        guard gather.sources[0] == (0..<input[0]).map({ $0 * input[1] * h * w }),
              gather.sources[1] == (0..<input[1]).map({ $0 * h * w }),
              gather.sources[2].allSatisfy({ $0 >= 0 && $0 % w == 0 }), gather.sources[3].allSatisfy({ $0 >= 0 }) else { return nil }
        let planes = input[0] * input[1]
        return PlaneGatherStep(input: StepBuilder.denseMap(inputs[0], channels: planes, height: h, width: w),
                               rows: gather.sources[2].map { $0 / w }, columns: gather.sources[3],
                               output: StepBuilder.denseMap(outputs[0], channels: planes, height: output[2], width: output[3]),
                               pool: pool)
    }
}

final class PlaneGatherStep: Step {
    let input: FeatureMap, rows: [Int], columns: [Int], output: FeatureMap, pool: WorkerPool
    func run() { resizeNearest(input, rows: rows, columns: columns, output: output, pool: pool) }

    init(input: FeatureMap, rows: [Int], columns: [Int], output: FeatureMap, pool: WorkerPool) {
        self.input = input
        self.rows = rows
        self.columns = columns
        self.output = output
        self.pool = pool
    }
}

final class ChannelAffineStep: Step {
    let input: FeatureMap, output: FeatureMap, factor: FloatBuffer, shift: FloatBuffer, activation: Activation, pool: WorkerPool
    func run() {
        channelAffine(input, scale: factor.baseAddress, shift: shift.baseAddress, activation: activation, output: output, pool: pool)
    }

    init(input: FeatureMap, output: FeatureMap, factor: FloatBuffer, shift: FloatBuffer, activation: Activation, pool: WorkerPool) {
        self.input = input
        self.output = output
        self.factor = factor
        self.shift = shift
        self.activation = activation
        self.pool = pool
    }
}

final class LayerNormalizationStep: Step {
    let input: UnsafePointer<Float>, rows: Int, columns: Int, scale: UnsafePointer<Float>, bias: UnsafePointer<Float>?
    let epsilon: Double, output: UnsafeMutablePointer<Float>, pool: WorkerPool
    func run() {
        layerNormalize(input, rows: rows, columns: columns, scale: scale, bias: bias, epsilon: epsilon, output: output,
                       pool: pool)
    }

    init(input: UnsafePointer<Float>, rows: Int, columns: Int, scale: UnsafePointer<Float>, bias: UnsafePointer<Float>?,
         epsilon: Double, output: UnsafeMutablePointer<Float>, pool: WorkerPool) {
        self.input = input
        self.rows = rows
        self.columns = columns
        self.scale = scale
        self.bias = bias
        self.epsilon = epsilon
        self.output = output
        self.pool = pool
    }
}

final class RowSoftmaxStep: Step {
    let input: UnsafePointer<Float>, rows: Int, length: Int, output: UnsafeMutablePointer<Float>, pool: WorkerPool
    func run() { softmaxAlongRows(input, rows: rows, length: length, output: output, pool: pool) }

    init(input: UnsafePointer<Float>, rows: Int, length: Int, output: UnsafeMutablePointer<Float>, pool: WorkerPool) {
        self.input = input
        self.rows = rows
        self.length = length
        self.output = output
        self.pool = pool
    }
}

final class MatrixTransposeStep: Step {
    let input: UnsafePointer<Float>, count: Int, rows: Int, columns: Int, output: UnsafeMutablePointer<Float>
    let pool: WorkerPool
    func run() { transposeMatrices(input, count: count, rows: rows, columns: columns, output: output, pool: pool) }

    init(input: UnsafePointer<Float>, count: Int, rows: Int, columns: Int, output: UnsafeMutablePointer<Float>,
         pool: WorkerPool) {
        self.input = input
        self.count = count
        self.rows = rows
        self.columns = columns
        self.output = output
        self.pool = pool
    }
}

final class ParametricReLUStep: Step {
    let input: FeatureMap, slope: UnsafePointer<Float>, perChannel: Bool, output: FeatureMap, pool: WorkerPool
    func run() { parametricReLU(input, slope: slope, slopeIsPerChannel: perChannel, output: output, pool: pool) }

    init(input: FeatureMap, slope: UnsafePointer<Float>, perChannel: Bool, output: FeatureMap, pool: WorkerPool) {
        self.input = input
        self.slope = slope
        self.perChannel = perChannel
        self.output = output
        self.pool = pool
    }
}

final class ClampStep: Step {
    let input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int, lower: Float, upper: Float
    func run() { clamp(input, lower: lower, upper: upper, output: output, count: count) }

    init(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int, lower: Float, upper: Float) {
        self.input = input
        self.output = output
        self.count = count
        self.lower = lower
        self.upper = upper
    }
}

/// A HardSigmoid on its own (not a gate's, `GateChain`): mobilenet_v3's quantized HardSwish,
/// DequantizeLinear → HardSigmoid → QuantizeLinear → QLinearMul.
final class HardSigmoidStep: Step {
    let input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int, alpha: Float, beta: Float
    func run() { hardSigmoid(input, alpha: alpha, beta: beta, output: output, count: count) }

    init(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int, alpha: Float, beta: Float) {
        self.input = input
        self.output = output
        self.count = count
        self.alpha = alpha
        self.beta = beta
    }
}

final class SoftmaxStep: Step {
    let input: FeatureMap, output: FeatureMap, pool: WorkerPool
    func run() { softmaxOverChannels(input, output: output, pool: pool) }

    init(input: FeatureMap, output: FeatureMap, pool: WorkerPool) {
        self.input = input
        self.output = output
        self.pool = pool
    }
}

final class ResizeTableStep: Step {
    let input: FeatureMap, rows: ResizeAxis, columns: ResizeAxis, output: FeatureMap, pool: WorkerPool
    var scratch: ScratchSize { resizeBilinearScratch(outputWidth: columns.count) }
    func run() { resizeBilinear(input, rows: rows, columns: columns, output: output, pool: pool) }

    init(input: FeatureMap, rows: ResizeAxis, columns: ResizeAxis, output: FeatureMap, pool: WorkerPool) {
        self.input = input
        self.rows = rows
        self.columns = columns
        self.output = output
        self.pool = pool
    }
}

final class PoolStep: Step {
    let input: FeatureMap, kind: PoolKind, height: WindowAxis, width: WindowAxis, output: FeatureMap, pool: WorkerPool
    var scratch: ScratchSize {
        pool2DScratch(input: input.layout, output: output.layout, kind: kind, kernelHeight: height.kernel, kernelWidth: width.kernel,
                      strideWidth: width.stride, padLeft: width.padBegin)
    }
    func run() {
        pool2D(input, kind: kind, kernelHeight: height.kernel, kernelWidth: width.kernel, strideHeight: height.stride,
               strideWidth: width.stride, padTop: height.padBegin, padLeft: width.padBegin, output: output, pool: pool)
    }

    init(input: FeatureMap, kind: PoolKind, height: WindowAxis, width: WindowAxis, output: FeatureMap,
         pool: WorkerPool) {
        self.input = input
        self.kind = kind
        self.height = height
        self.width = width
        self.output = output
        self.pool = pool
    }
}

extension StepBuilder {
    /// Add, Sub, Mul or Div of float tensors with any broadcasting whose innermost run (after
    /// merging contiguous axes) reads each operand with step 0 or 1: one vector loop per run (a
    /// single run for equal shapes, one per channel for a [1, C, 1, 1] operand).
    func broadcastBinaryStep(_ binary: ElementwiseBinary, _ inputs: [UnsafePointer<Float>],
                             _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        let operation: BinaryOperation
        switch binary.kind {
        case .add: operation = .add
        case .sub: operation = .subtract
        case .mul: operation = .multiply
        case .div: operation = .divide
        case .prelu: return nil
        }
        guard let runs = StepBuilder.runs(of: binary.loop) else { return nil }
        return BroadcastBinaryStep(a: inputs[0], b: inputs[1], output: outputs[0], operation: operation, offsets: runs.offsets,
                                   runLength: runs.length, aStep: runs.steps[1], bStep: runs.steps[2])
    }

    /// Expand of a float tensor: per run of the output, a copy of the input's run or one value repeated.
    func expandStep(_ expand: Expand, _ inputs: [UnsafePointer<Float>], _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard expand.outputTypes == [.float32], let runs = StepBuilder.runs(of: expand.loop) else { return nil }
        return BroadcastCopyStep(input: inputs[0], output: outputs[0], offsets: runs.offsets, runLength: runs.length,
                                 inputStep: runs.steps[1])
    }

    /// A strided loop over three operands (the output first) as runs along its innermost axis
    /// (after merging contiguous axes and dropping unit ones), when the output steps by 1 there
    /// and each other operand by 0 or 1: per run the three start offsets, back to back.
    static func runs(of loop: StridedLoop) -> (offsets: [Int], length: Int, steps: [Int])? {
        var axes: [(extent: Int, strides: [Int])] = []
        for (axis, extent) in loop.extents.enumerated() where extent > 1 {
            axes.append((extent, (0..<3).map { loop.strides[$0][axis] }))
        }
        var merged: [(extent: Int, strides: [Int])] = []
        for axis in axes {
            if let outer = merged.last, (0..<3).allSatisfy({ outer.strides[$0] == axis.strides[$0] * axis.extent }) {
                merged[merged.count - 1] = (outer.extent * axis.extent, axis.strides)
            } else {
                merged.append(axis)
            }
        }
        let run = merged.last ?? (extent: 1, strides: [1, 0, 0])
        guard run.strides[0] == 1, (0...1).contains(run.strides[1]), (0...1).contains(run.strides[2]) else { return nil }
        let outer = Array(merged.dropLast())
        let extents = outer.map { $0.extent }
        let rows = extents.reduce(1, *)
        guard rows <= 1 << 20 else { return nil }
        var offsets: [Int] = []
        offsets.reserveCapacity(3 * rows)
        var index = [Int](repeating: 0, count: outer.count)
        for _ in 0..<rows {
            for operand in 0..<3 {
                offsets.append(outer.indices.reduce(0) { $0 + index[$1] * outer[$1].strides[operand] })
            }
            advance(&index, in: extents, through: outer.count - 1)
        }
        return (offsets, run.extent, run.strides)
    }
}

/// Runs of a broadcast copy, one per row of `offsets` (output, input, unused): the input's run,
/// or (`inputStep` 0) its first value repeated.
final class BroadcastCopyStep: Step {
    let input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, offsets: [Int], runLength: Int, inputStep: Int
    func run() {
        var row = 0
        while row < offsets.count {
            let destination = output + offsets[row]
            if inputStep == 1 {
                destination.update(from: input + offsets[row + 1], count: runLength)
            } else {
                destination.update(repeating: input[offsets[row + 1]], count: runLength)
            }
            row += 3
        }
    }

    init(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, offsets: [Int], runLength: Int,
         inputStep: Int) {
        self.input = input
        self.output = output
        self.offsets = offsets
        self.runLength = runLength
        self.inputStep = inputStep
    }
}

/// Runs of a broadcast binary operation, one per row of `offsets` (output, a, b).
final class BroadcastBinaryStep: Step {
    let a: UnsafePointer<Float>, b: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>
    let operation: BinaryOperation, offsets: [Int], runLength: Int, aStep: Int, bStep: Int
    func run() {
        var row = 0
        while row < offsets.count {
            combine(a + offsets[row + 1], step: aStep, b + offsets[row + 2], step: bStep, operation: operation,
                    output: output + offsets[row], count: runLength)
            row += 3
        }
    }

    init(a: UnsafePointer<Float>, b: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
         operation: BinaryOperation, offsets: [Int], runLength: Int, aStep: Int, bStep: Int) {
        self.a = a
        self.b = b
        self.output = output
        self.operation = operation
        self.offsets = offsets
        self.runLength = runLength
        self.aStep = aStep
        self.bStep = bStep
    }
}
