import Kernels

// The steps of the fast path: each binds a kernel to the node's arena buffers once, and runs it
// without allocating.

/// A step whose kernels use the worker pool's scratch: `scratch` is what they need for the
/// step's problem (from the kernels' own statements, e.g. `pointwiseScratch(inputChannels:)`),
/// read once when the step is planned (`FastExecutor.makeStep` reserves it in the pool).
protocol ScratchUsingStep: Step {
    var scratch: ScratchSize { get }
}

/// A node whose work another step does (an activation fused into the convolution before it).
struct NothingStep: Step {
    func run() {}
}

struct PointwiseStep: ScratchUsingStep {
    let input: FeatureMap, output: FeatureMap, activation: Activation, residual: FeatureMap?, pool: WorkerPool
    let weights: PointwiseWeights
    var scratch: ScratchSize { pointwiseScratch(inputChannels: weights.inputChannels) }
    func run() {
        pointwiseConvolution(input, weights: weights, activation: activation, residual: residual, output: output,
                             pool: pool)
    }
}

/// A grouped 1x1 convolution: one GEMM per group, on the group's slices of the input, output
/// and residual channels.
struct GroupedPointwiseStep: ScratchUsingStep {
    let input: FeatureMap, output: FeatureMap, activation: Activation, residual: FeatureMap?
    let groups: [PointwiseWeights], pool: WorkerPool
    var scratch: ScratchSize {
        groups.reduce(.none) { $0.union(pointwiseScratch(inputChannels: $1.inputChannels)) }
    }
    func run() {
        var inputChannel = 0, outputChannel = 0
        for weights in groups {
            pointwiseConvolution(input.channels(inputChannel, count: weights.inputChannels), weights: weights,
                                 activation: activation,
                                 residual: residual?.channels(outputChannel, count: weights.outputChannels),
                                 output: output.channels(outputChannel, count: weights.outputChannels), pool: pool)
            inputChannel += weights.inputChannels
            outputChannel += weights.outputChannels
        }
    }
}

/// Copies a dense map's planes into the interior of a zero-bordered map (the border is never written).
func copyIntoPadded(_ input: FeatureMap, _ padded: FeatureMapStorage) {
    let layout = padded.layout
    let width = layout.width
    for c in 0..<input.channels {
        for y in 0..<layout.height {
            (padded.buffer.baseAddress + layout.offset(channel: c, y: y, x: 0))
                .update(from: input.base + (c * layout.height + y) * width, count: width)
        }
    }
}

struct DepthwiseStep: Step {
    let input: FeatureMap, padded: FeatureMapStorage
    /// False when the producer writes the padded buffer itself.
    let copiesInput: Bool
    let output: FeatureMap, activation: Activation, residual: FeatureMap?, pool: WorkerPool
    let weights: DepthwiseWeights
    let stride: Int, dilation: Int, padTop: Int, padLeft: Int
    func run() {
        if copiesInput { copyIntoPadded(input, padded) }
        depthwiseConvolution(padded.map, weights: weights, stride: stride, dilation: dilation, padTop: padTop, padLeft: padLeft,
                             activation: activation, residual: residual, output: output, pool: pool)
    }
}

/// A K×K convolution, one dense convolution per group on the group's channel slices.
struct DenseConvolutionStep: Step {
    let input: FeatureMap, padded: FeatureMapStorage
    /// False when the producer writes the padded buffer itself.
    let copiesInput: Bool
    let output: FeatureMap, activation: Activation, pool: WorkerPool
    let groups: [ConvolutionWeights]
    let stride: Int, dilation: Int, padTop: Int, padLeft: Int
    func run() {
        if copiesInput { copyIntoPadded(input, padded) }
        var inputChannel = 0, outputChannel = 0
        for g in groups.indices {
            let weights = groups[g]
            convolution(padded.map.channels(inputChannel, count: weights.inputChannels), weights: weights, stride: stride,
                        dilation: dilation, padTop: padTop, padLeft: padLeft, activation: activation,
                        output: output.channels(outputChannel, count: weights.outputChannels), pool: pool)
            inputChannel += weights.inputChannels
            outputChannel += weights.outputChannels
        }
    }
}

struct ActivationStep: Step {
    let input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int, activation: Activation
    func run() { activate(input, activation: activation, output: output, count: count) }
}

struct AveragePoolStep: Step {
    let input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, planes: Int, planeSize: Int
    func run() {
        globalAveragePool(FeatureMap(base: UnsafeMutablePointer(mutating: input), channels: planes,
                                     layout: .dense(width: planeSize, height: 1)), output: output)
    }
}

struct ResizeStep: ScratchUsingStep {
    let input: FeatureMap, output: FeatureMap, pool: WorkerPool
    var scratch: ScratchSize { resizeBilinear2xScratch(inputWidth: input.layout.width) }
    func run() { resizeBilinear2x(input, output: output, pool: pool) }
}

struct TransposedConvolutionStep: Step {
    let input: FeatureMap, output: FeatureMap, activation: Activation, pool: WorkerPool
    let weights: TransposedConvolutionWeights
    func run() { transposedConvolution2x2(input, weights: weights, activation: activation, output: output, pool: pool) }
}

/// NHWC → NCHW (a model's image input), possibly into a convolution's zero-bordered input.
struct DeinterleaveStep: Step {
    let input: UnsafePointer<Float>
    /// The caller's input buffer for this run, when the session passes it instead of copying it
    /// into the arena at `input`.
    let external: ExternalInput?
    let output: FeatureMap, pool: WorkerPool
    func run() { deinterleaveChannels(external?.pointer ?? input, output: output, pool: pool) }
}

/// The graph input's buffer for the current run (set and cleared by the session around the
/// steps; used by one session at a time, under its lock).
final class ExternalInput {
    var pointer: UnsafePointer<Float>? = nil
}

/// A 1x1 convolution at the low resolution, then the bilinear ×2 upsampling of its result (a
/// `Resize` followed by a 1x1 convolution, reordered; see `matchResizedPointwise`).
struct ResizedPointwiseStep: ScratchUsingStep {
    let input: FeatureMap, small: FeatureMapStorage, output: FeatureMap, pool: WorkerPool
    let weights: PointwiseWeights
    var scratch: ScratchSize {
        pointwiseScratch(inputChannels: weights.inputChannels).union(resizeBilinear2xScratch(inputWidth: small.layout.width))
    }
    func run() {
        pointwiseConvolution(input, weights: weights, activation: .none, output: small.map, pool: pool)
        resizeBilinear2x(small.map, output: output, pool: pool)
    }
}

/// Squeeze-and-excite (pool, two 1x1 convolutions on the means, sigmoid, channel multiply).
struct SqueezeExciteStep: ScratchUsingStep {
    let input: FeatureMap, output: FeatureMap, weights: GateWeights, pool: WorkerPool
    var scratch: ScratchSize { gateScratch(weights) }
    func run() { squeezeExcite(input, weights: weights, output: output, pool: pool) }
}

/// The decoder's attention gate `s · gate(mean(s + u)) + u`.
struct AttentionGateStep: ScratchUsingStep {
    let skip: FeatureMap, upsampled: FeatureMap, output: FeatureMap, weights: GateWeights, pool: WorkerPool
    var scratch: ScratchSize { gateScratch(weights) }
    func run() { attentionGate(skip: skip, upsampled: upsampled, weights: weights, output: output, pool: pool) }
}

/// An attention gate's values only, for the banded step that applies the gate.
struct AttentionGateValuesStep: ScratchUsingStep {
    let skip: FeatureMap, upsampled: FeatureMap, weights: GateWeights, gate: FloatBuffer, pool: WorkerPool
    var scratch: ScratchSize { gateValuesScratch(weights) }
    func run() { attentionGateValues(skip: skip, upsampled: upsampled, weights: weights, gate: gate.baseAddress, pool: pool) }
}

/// A 1x1 convolution and the depthwise convolution reading its output, in bands of rows.
struct PointwiseDepthwiseStep: ScratchUsingStep {
    var scratch: ScratchSize { pointwiseThenDepthwiseScratch(pointwise) }
    let input: FeatureMap, gatedInput: GatedInput?, pointwise: PointwiseWeights, pointwiseActivation: Activation
    let bands: [FeatureMapStorage], bandRows: Int
    let depthwise: DepthwiseWeights, stride: Int, dilation: Int, padTop: Int, padLeft: Int, depthwiseActivation: Activation
    let residualIsInput: Bool, residual: FeatureMap?, output: FeatureMap, pool: WorkerPool
    func run() {
        pointwiseThenDepthwise(input, gatedInput: gatedInput, pointwise: pointwise, pointwiseActivation: pointwiseActivation, bands: bands,
                               bandOutputRows: bandRows, depthwise: depthwise, stride: stride, dilation: dilation, padTop: padTop,
                               padLeft: padLeft, depthwiseActivation: depthwiseActivation,
                               residualIsInput: residualIsInput, residual: residual, output: output, pool: pool)
    }
}

/// Where a patch convolution's windows read: per output row and kernel row the input row (−1:
/// padding), and the same for columns.
struct PatchGeometry {
    let inputChannels: Int, inputHeight: Int, inputWidth: Int
    let rows: [[Int]], columns: [[Int]]
}

/// A convolution as gathered patches times the weights, per group (`patchConvolutionStep`).
struct PatchConvolutionStep: Step {
    let input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, weights: [MatrixWeights]
    let geometry: PatchGeometry, patches: FloatBuffer, products: FloatBuffer, pool: WorkerPool
    func run() {
        let g = geometry
        let plane = g.inputHeight * g.inputWidth
        let (outH, outW) = (g.rows.count, g.columns.count)
        for (group, matrix) in weights.enumerated() {
            var row = patches.baseAddress
            for oy in 0..<outH {
                for ox in 0..<outW {
                    for c in 0..<g.inputChannels {
                        let channel = input + (group * g.inputChannels + c) * plane
                        for y in g.rows[oy] {
                            for x in g.columns[ox] {
                                row.pointee = y < 0 || x < 0 ? 0 : channel[y * g.inputWidth + x]
                                row += 1
                            }
                        }
                    }
                }
            }
            matrixMultiply(patches.baseAddress, rows: outH * outW, weights: matrix, output: products.baseAddress, pool: pool)
            let planes = FeatureMap(base: output + group * matrix.columns * outH * outW, channels: matrix.columns,
                                    layout: .dense(width: outW, height: outH))
            deinterleaveChannels(products.baseAddress, output: planes, pool: pool)
        }
    }
}

