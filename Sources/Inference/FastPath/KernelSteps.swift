import Kernels

// The steps of the fast path: each binds a kernel to the node's arena buffers once, and runs it
// without allocating.

/// A builder's answer for a node that moves nothing: its outputs already lie where the buffer
/// plan put its inputs (a Concat or Split in place, Transposes that cancel into one buffer). The
/// session makes no step for it (`NodeWork.view`).
final class NoMove: Step {
    func run() {}

    init() {}
}

final class PointwiseStep: Step {
    let input: FeatureMap, output: FeatureMap, activation: Activation, residual: FeatureMap?, rectifiesSum: Bool
    let pool: WorkerPool
    let weights: PointwiseWeights
    var scratch: ScratchSize { pointwiseScratch(inputChannels: weights.inputChannels) }
    func run() {
        pointwiseConvolution(input, weights: weights, activation: activation, residual: residual, rectifiesSum: rectifiesSum,
                             output: output, pool: pool)
    }

    init(input: FeatureMap, output: FeatureMap, activation: Activation, residual: FeatureMap?, rectifiesSum: Bool,
         pool: WorkerPool, weights: PointwiseWeights) {
        self.input = input
        self.output = output
        self.activation = activation
        self.residual = residual
        self.rectifiesSum = rectifiesSum
        self.pool = pool
        self.weights = weights
    }
}

/// An ungrouped 1x1 convolution on a small map as the packed GEMM over output channels, with
/// the pointwise step's fusions (activation, residual, any output layout) and its results.
final class SmallMapPointwiseStep: Step {
    let input: FeatureMap, output: FeatureMap, activation: Activation, residual: FeatureMap?, rectifiesSum: Bool
    let weights: MatrixWeights, pool: WorkerPool
    var scratch: ScratchSize { smallMapPointwiseScratch(pixels: input.pixels, weights: weights) }
    func run() {
        smallMapPointwise(input, weights: weights, activation: activation, residual: residual, rectifiesSum: rectifiesSum,
                          output: output, pool: pool)
    }

    init(input: FeatureMap, output: FeatureMap, activation: Activation, residual: FeatureMap?, rectifiesSum: Bool,
         weights: MatrixWeights, pool: WorkerPool) {
        self.input = input
        self.output = output
        self.activation = activation
        self.residual = residual
        self.rectifiesSum = rectifiesSum
        self.weights = weights
        self.pool = pool
    }
}

/// A strided 1x1 convolution: the pixels it reads gathered into a dense map of its own
/// (`subsampleChannels`), then the 1x1 step `then` over that map.
final class SubsampledStep: Step {
    let input: FeatureMap, stride: Int, subsampled: FeatureMapStorage, then: any Step
    var scratch: ScratchSize { then.scratch }
    func run() {
        subsampleChannels(input, stride: stride, output: subsampled.map)
        then.run()
    }

    init(input: FeatureMap, stride: Int, subsampled: FeatureMapStorage, then: any Step) {
        self.input = input
        self.stride = stride
        self.subsampled = subsampled
        self.then = then
    }
}

/// A grouped 1x1 convolution: one GEMM per group, on the group's slices of the input, output
/// and residual channels.
final class GroupedPointwiseStep: Step {
    let input: FeatureMap, output: FeatureMap, activation: Activation, residual: FeatureMap?, rectifiesSum: Bool
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
                                 rectifiesSum: rectifiesSum, output: output.channels(outputChannel, count: weights.outputChannels), pool: pool)
            inputChannel += weights.inputChannels
            outputChannel += weights.outputChannels
        }
    }

    init(input: FeatureMap, output: FeatureMap, activation: Activation, residual: FeatureMap?, rectifiesSum: Bool,
         groups: [PointwiseWeights], pool: WorkerPool) {
        self.input = input
        self.output = output
        self.activation = activation
        self.residual = residual
        self.rectifiesSum = rectifiesSum
        self.groups = groups
        self.pool = pool
    }
}

/// The zero-bordered map a depthwise or dense convolution step reads: the one its input's
/// producer writes so (`written`), or a copy of its dense input the step makes on every run in
/// the pool's shared scratch (`copied`), border included, since other kernels use that scratch.
enum PaddedInput {
    case written(FeatureMap)
    case copied(FeatureMap, channels: Int, layout: PlaneLayout)
    /// A copy into a buffer of the step's own, whose border stays zero: for maps that are mostly
    /// border (`PlaneLayout.borderOutweighsInterior`), where writing the border every run costs
    /// more than the memory it saves.
    case copiedIntoOwn(FeatureMap, FeatureMapStorage)

    /// The copy of `input` a step makes: into the pool's scratch, or into a buffer of its own.
    static func copy(of input: FeatureMap, layout: PlaneLayout) -> PaddedInput {
        layout.borderOutweighsInterior ? .copiedIntoOwn(input, FeatureMapStorage(channels: input.channels, layout: layout))
            : .copied(input, channels: input.channels, layout: layout)
    }

    /// The pool scratch a copy takes.
    var scratch: ScratchSize {
        guard case let .copied(_, channels, layout) = self else { return .none }
        return ScratchSize(shared: layout.storageCount(channels: channels))
    }

    /// The map to read, copied first when it is a copy.
    func prepare(_ pool: WorkerPool) -> FeatureMap {
        switch self {
        case let .written(map):
            return map
        case let .copiedIntoOwn(input, storage):
            copyChannels(input, output: storage.map)
            return storage.map
        case let .copied(input, channels, layout):
            precondition(pool.holds(scratch), "a zero-bordered copy of \(channels) channels \(layout): pool shared scratch too small")
            let map = FeatureMap(base: pool.shared.baseAddress!, channels: channels, layout: layout)
            zeroBorder(map)
            copyChannels(input, output: map)
            return map
        }
    }
}

final class DepthwiseStep: Step {
    var scratch: ScratchSize { source.scratch }
    let source: PaddedInput
    /// `residualIsInput`: the residual is the input itself, read from the zero-bordered map.
    let output: FeatureMap, activation: Activation, residual: FeatureMap?, residualIsInput: Bool, pool: WorkerPool
    let weights: DepthwiseWeights
    let stride: Int, dilation: Int, padTop: Int, padLeft: Int
    func run() {
        let padded = source.prepare(pool)
        depthwiseConvolution(padded, weights: weights, stride: stride, dilation: dilation, padTop: padTop, padLeft: padLeft,
                             activation: activation, residual: residualIsInput ? padded : residual, output: output, pool: pool)
    }

    init(source: PaddedInput, output: FeatureMap, activation: Activation, residual: FeatureMap?, residualIsInput: Bool,
         pool: WorkerPool, weights: DepthwiseWeights, stride: Int, dilation: Int, padTop: Int, padLeft: Int) {
        self.source = source
        self.output = output
        self.activation = activation
        self.residual = residual
        self.residualIsInput = residualIsInput
        self.pool = pool
        self.weights = weights
        self.stride = stride
        self.dilation = dilation
        self.padTop = padTop
        self.padLeft = padLeft
    }
}

/// A depthwise convolution on a map of narrow rows, vectorised over channels
/// (`KernelChoices.runsOnSmallMap(depthwise:)`); its input in any layout.
final class SmallMapDepthwiseStep: Step {
    let input: FeatureMap, output: FeatureMap, activation: Activation, residual: FeatureMap?, pool: WorkerPool
    let weights: ChannelLaneDepthwiseWeights
    let stride: Int, dilation: Int, padTop: Int, padLeft: Int
    /// Where the step writes its output in NHWC instead (an absorbed Transpose's buffer), or nil.
    let channelsLast: UnsafeMutablePointer<Float>?
    var scratch: ScratchSize {
        smallMapDepthwiseScratch(inputWidth: input.layout.width, inputHeight: input.layout.height,
                                 outputWidth: output.layout.width, outputHeight: output.layout.height)
    }
    func run() {
        if let channelsLast {
            smallMapDepthwiseChannelsLast(input, weights: weights, stride: stride, dilation: dilation, padTop: padTop,
                                          padLeft: padLeft, activation: activation, outputHeight: output.layout.height,
                                          outputWidth: output.layout.width, output: channelsLast, pool: pool)
            return
        }
        smallMapDepthwise(input, weights: weights, stride: stride, dilation: dilation, padTop: padTop, padLeft: padLeft,
                          activation: activation, residual: residual, output: output, pool: pool)
    }

    init(input: FeatureMap, output: FeatureMap, activation: Activation, residual: FeatureMap?, pool: WorkerPool,
         weights: ChannelLaneDepthwiseWeights, stride: Int, dilation: Int, padTop: Int, padLeft: Int,
         channelsLast: UnsafeMutablePointer<Float>? = nil) {
        self.channelsLast = channelsLast
        self.input = input
        self.output = output
        self.activation = activation
        self.residual = residual
        self.pool = pool
        self.weights = weights
        self.stride = stride
        self.dilation = dilation
        self.padTop = padTop
        self.padLeft = padLeft
    }
}

/// A K×K convolution, one dense convolution per group on the group's channel slices.
final class DenseConvolutionStep: Step {
    var scratch: ScratchSize { source.scratch }
    let source: PaddedInput
    let output: FeatureMap, activation: Activation, pool: WorkerPool
    /// A residual Add (and the Relu after it) absorbed into the stores.
    let residual: FeatureMap?, rectifiesSum: Bool
    let groups: [ConvolutionWeights]
    let stride: Int, dilation: Int, padTop: Int, padLeft: Int
    func run() {
        let padded = source.prepare(pool)
        var inputChannel = 0, outputChannel = 0
        for g in groups.indices {
            let weights = groups[g]
            convolution(padded.channels(inputChannel, count: weights.inputChannels), weights: weights, stride: stride,
                        dilation: dilation, padTop: padTop, padLeft: padLeft, activation: activation,
                        residual: residual?.channels(outputChannel, count: weights.outputChannels), rectifiesSum: rectifiesSum,
                        output: output.channels(outputChannel, count: weights.outputChannels), pool: pool)
            inputChannel += weights.inputChannels
            outputChannel += weights.outputChannels
        }
    }

    init(source: PaddedInput, output: FeatureMap, activation: Activation, residual: FeatureMap? = nil,
         rectifiesSum: Bool = false, pool: WorkerPool,
         groups: [ConvolutionWeights], stride: Int, dilation: Int, padTop: Int, padLeft: Int) {
        self.source = source
        self.output = output
        self.activation = activation
        self.residual = residual
        self.rectifiesSum = rectifiesSum
        self.pool = pool
        self.groups = groups
        self.stride = stride
        self.dilation = dilation
        self.padTop = padTop
        self.padLeft = padLeft
    }
}

/// A 3×3 stride-1 convolution of one group by Winograd's F(2×2, 3×3) (`winogradConvolution`).
final class WinogradConvolutionStep: Step {
    /// The zero-bordered copy when the step makes one, then the kernel's (its whole-map form's
    /// shared scratch after the copy).
    var scratch: ScratchSize {
        source.scratch.union(winogradScratch(inputChannels: weights.inputChannels, outputChannels: weights.outputChannels,
                                             outputWidth: output.layout.width, outputHeight: output.layout.height,
                                             sharedOffset: source.scratch.shared))
    }
    let source: PaddedInput
    let output: FeatureMap, activation: Activation, pool: WorkerPool
    /// A residual Add (and the Relu after it) absorbed into the stores.
    let residual: FeatureMap?, rectifiesSum: Bool
    let weights: WinogradWeights
    let padTop: Int, padLeft: Int
    func run() {
        winogradConvolution(source.prepare(pool), weights: weights, padTop: padTop, padLeft: padLeft, activation: activation,
                            residual: residual, rectifiesSum: rectifiesSum, output: output, pool: pool,
                            sharedOffset: source.scratch.shared)
    }

    init(source: PaddedInput, output: FeatureMap, activation: Activation, residual: FeatureMap?, rectifiesSum: Bool,
         pool: WorkerPool, weights: WinogradWeights, padTop: Int, padLeft: Int) {
        self.source = source
        self.output = output
        self.activation = activation
        self.residual = residual
        self.rectifiesSum = rectifiesSum
        self.pool = pool
        self.weights = weights
        self.padTop = padTop
        self.padLeft = padLeft
    }
}

/// A 3×3 stride-1 convolution of dilation d ≥ 2 and pads of d, by Winograd's F(2×2, 3×3) on its d²
/// sub-lattices (`dilatedWinogradConvolution`), reading its input where it lies.
final class DilatedWinogradConvolutionStep: Step {
    var scratch: ScratchSize {
        dilatedWinogradScratch(inputChannels: weights.inputChannels, outputChannels: weights.outputChannels,
                               width: output.layout.width, height: output.layout.height, dilation: dilation)
    }
    let input: FeatureMap, output: FeatureMap, activation: Activation, pool: WorkerPool
    let weights: WinogradWeights
    let dilation: Int
    func run() {
        dilatedWinogradConvolution(input, weights: weights, dilation: dilation, activation: activation, output: output, pool: pool)
    }

    init(input: FeatureMap, output: FeatureMap, activation: Activation, pool: WorkerPool, weights: WinogradWeights, dilation: Int) {
        self.input = input
        self.output = output
        self.activation = activation
        self.pool = pool
        self.weights = weights
        self.dilation = dilation
    }
}

/// A dense convolution vectorised over output channels, per group (`smallMapConvolution`).
final class SmallMapConvolutionStep: Step {
    let source: PaddedInput
    let output: FeatureMap, activation: Activation, pool: WorkerPool
    /// A residual Add (and the Relu after it) absorbed into the spread.
    let residual: FeatureMap?, rectifiesSum: Bool
    let groups: [MatrixWeights]
    /// The groups each of `groups` holds: 1, or every group, two to a panel.
    let pairedGroups: Int
    let kernelHeight: Int, kernelWidth: Int, stride: Int, dilation: Int, padTop: Int, padLeft: Int
    /// Where the step writes its one group's pixel-major sums instead (the output in NHWC, an
    /// absorbed Transpose's buffer), or nil: spread to `output`'s planes.
    let channelsLast: UnsafeMutablePointer<Float>?
    /// The zero-bordered copy when the step makes one, then one group's pixel-major products,
    /// in the pool's shared scratch (none when they go to `channelsLast`).
    var scratch: ScratchSize {
        channelsLast != nil ? source.scratch
            : ScratchSize(shared: productsOffset + output.pixels * groups.reduce(0) { max($0, $1.columns) })
    }
    private var productsOffset: Int { (source.scratch.shared + 15) / 16 * 16 }
    func run() {
        precondition(pool.holds(scratch), "small-map convolution of \(output.pixels) pixels: pool shared scratch too small")
        let padded = source.prepare(pool)
        if let channelsLast {
            smallMapConvolutionChannelsLast(padded, weights: groups[0], kernelHeight: kernelHeight, kernelWidth: kernelWidth,
                                            stride: stride, dilation: dilation, padTop: padTop, padLeft: padLeft,
                                            outputHeight: output.layout.height, outputWidth: output.layout.width,
                                            output: channelsLast, pool: pool)
            return
        }
        let products = pool.shared.baseAddress! + productsOffset, productCount = scratch.shared - productsOffset
        let taps = kernelHeight * kernelWidth
        var inputChannel = 0, outputChannel = 0
        for weights in groups {
            let inputs = weights.inner / taps * pairedGroups
            smallMapConvolution(padded.channels(inputChannel, count: inputs), weights: weights,
                                kernelHeight: kernelHeight, kernelWidth: kernelWidth, stride: stride, dilation: dilation,
                                padTop: padTop, padLeft: padLeft,
                                activation: activation, residual: residual?.channels(outputChannel, count: weights.columns),
                                rectifiesSum: rectifiesSum, output: output.channels(outputChannel, count: weights.columns),
                                products: products, productCount: productCount, groups: pairedGroups, pool: pool)
            inputChannel += inputs
            outputChannel += weights.columns
        }
    }

    init(source: PaddedInput, output: FeatureMap, activation: Activation, residual: FeatureMap? = nil,
         rectifiesSum: Bool = false, pool: WorkerPool, groups: [MatrixWeights],
         pairedGroups: Int = 1, kernelHeight: Int, kernelWidth: Int, stride: Int, dilation: Int, padTop: Int, padLeft: Int,
         channelsLast: UnsafeMutablePointer<Float>? = nil) {
        self.channelsLast = channelsLast
        self.source = source
        self.output = output
        self.activation = activation
        self.residual = residual
        self.rectifiesSum = rectifiesSum
        self.pool = pool
        self.groups = groups
        self.pairedGroups = pairedGroups
        self.kernelHeight = kernelHeight
        self.kernelWidth = kernelWidth
        self.stride = stride
        self.dilation = dilation
        self.padTop = padTop
        self.padLeft = padLeft
    }
}

final class ActivationStep: Step {
    let input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int, activation: Activation
    func run() { activate(input, activation: activation, output: output, count: count) }

    init(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int, activation: Activation) {
        self.input = input
        self.output = output
        self.count = count
        self.activation = activation
    }
}

final class AveragePoolStep: Step {
    let input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, planes: Int, planeSize: Int
    /// A GlobalAveragePool node: summed in onnxruntime's order (``globalAveragePoolLikeOnnxruntime``),
    /// as the reference kernel sums, so a mean a DynamicQuantizeLinear reads is its bits. An
    /// AveragePool whose window is the whole map: in float64, rounded once, as its reference.
    let onnxruntimeGlobalOrder: Bool
    func run() {
        if onnxruntimeGlobalOrder {
            globalAveragePoolLikeOnnxruntime(input, planes: planes, planeSize: planeSize, output: output)
        } else {
            globalAveragePool(FeatureMap(base: UnsafeMutablePointer(mutating: input), channels: planes,
                                         layout: .dense(width: planeSize, height: 1)), output: output)
        }
    }

    init(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, planes: Int, planeSize: Int,
         onnxruntimeGlobalOrder: Bool) {
        self.input = input
        self.output = output
        self.planes = planes
        self.planeSize = planeSize
        self.onnxruntimeGlobalOrder = onnxruntimeGlobalOrder
    }
}

/// The mean over the middle axis of [outer, count, inner] (a ReduceMean over one run of axes).
final class MeanStep: Step {
    let input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, outer: Int, count: Int, inner: Int
    func run() { meanOverMiddleAxis(input, outer: outer, count: count, inner: inner, output: output) }

    init(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, outer: Int, count: Int, inner: Int) {
        self.input = input
        self.output = output
        self.outer = outer
        self.count = count
        self.inner = inner
    }
}

final class ResizeStep: Step {
    let input: FeatureMap, output: FeatureMap, pool: WorkerPool
    var scratch: ScratchSize { resizeBilinear2xScratch(inputWidth: input.layout.width) }
    func run() { resizeBilinear2x(input, output: output, pool: pool) }

    init(input: FeatureMap, output: FeatureMap, pool: WorkerPool) {
        self.input = input
        self.output = output
        self.pool = pool
    }
}

final class TransposedConvolutionStep: Step {
    let input: FeatureMap, output: FeatureMap, activation: Activation, pool: WorkerPool
    let weights: TransposedConvolutionWeights
    func run() { transposedConvolution2x2(input, weights: weights, activation: activation, output: output, pool: pool) }

    init(input: FeatureMap, output: FeatureMap, activation: Activation, pool: WorkerPool,
         weights: TransposedConvolutionWeights) {
        self.input = input
        self.output = output
        self.activation = activation
        self.pool = pool
        self.weights = weights
    }
}

/// NHWC → NCHW (a model's image input), possibly into a convolution's zero-bordered input.
final class DeinterleaveStep: Step {
    let input: UnsafePointer<Float>
    /// The caller's input buffer for this run, when the session passes it instead of copying it
    /// into the arena at `input`.
    let external: ExternalInput?
    let output: FeatureMap, pool: WorkerPool
    func run() { deinterleaveChannels(external?.pointer ?? input, output: output, pool: pool) }

    init(input: UnsafePointer<Float>, external: ExternalInput?, output: FeatureMap, pool: WorkerPool) {
        self.input = input
        self.external = external
        self.output = output
        self.pool = pool
    }
}

/// The graph input's buffer for the current run (set and cleared by the session around the
/// steps; used by one session at a time, under its lock).
final class ExternalInput {
    var pointer: UnsafePointer<Float>? = nil
}

/// A 1x1 convolution at the low resolution, then the bilinear ×2 upsampling of its result (a
/// `Resize` followed by a 1x1 convolution, reordered; see `matchResizedPointwise`).
final class ResizedPointwiseStep: Step {
    let input: FeatureMap, output: FeatureMap, pool: WorkerPool
    let weights: PointwiseWeights
    /// The convolution's output at the input's size, in the pool's shared scratch (neither
    /// kernel uses that one).
    var scratch: ScratchSize {
        var size = pointwiseScratch(inputChannels: weights.inputChannels).union(resizeBilinear2xScratch(inputWidth: input.layout.width))
        size.shared = weights.outputChannels * input.pixels
        return size
    }
    func run() {
        precondition(pool.holds(scratch), "the resized 1x1's small map: pool shared scratch too small")
        let small = FeatureMap(base: pool.shared.baseAddress!, channels: weights.outputChannels, layout: input.layout)
        pointwiseConvolution(input, weights: weights, activation: .none, output: small, pool: pool)
        resizeBilinear2x(small, output: output, pool: pool)
    }

    init(input: FeatureMap, output: FeatureMap, pool: WorkerPool, weights: PointwiseWeights) {
        self.input = input
        self.output = output
        self.pool = pool
        self.weights = weights
    }
}

/// Squeeze-and-excite (pool, two 1x1 convolutions on the means, sigmoid, channel multiply).
final class SqueezeExciteStep: Step {
    let input: FeatureMap, output: FeatureMap, weights: GateWeights, pool: WorkerPool
    var scratch: ScratchSize { gateScratch(weights) }
    func run() { squeezeExcite(input, weights: weights, output: output, pool: pool) }

    init(input: FeatureMap, output: FeatureMap, weights: GateWeights, pool: WorkerPool) {
        self.input = input
        self.output = output
        self.weights = weights
        self.pool = pool
    }
}

/// The decoder's attention gate `s · gate(mean(s + u)) + u`.
final class AttentionGateStep: Step {
    let skip: FeatureMap, upsampled: FeatureMap, output: FeatureMap, weights: GateWeights, pool: WorkerPool
    var scratch: ScratchSize { gateScratch(weights) }
    func run() { attentionGate(skip: skip, upsampled: upsampled, weights: weights, output: output, pool: pool) }

    init(skip: FeatureMap, upsampled: FeatureMap, output: FeatureMap, weights: GateWeights, pool: WorkerPool) {
        self.skip = skip
        self.upsampled = upsampled
        self.output = output
        self.weights = weights
        self.pool = pool
    }
}

/// An attention gate's values only, for the banded step that applies the gate.
final class AttentionGateValuesStep: Step {
    let skip: FeatureMap, upsampled: FeatureMap, weights: GateWeights, gate: UnsafeMutablePointer<Float>, pool: WorkerPool
    var scratch: ScratchSize { gateValuesScratch(weights) }
    func run() { attentionGateValues(skip: skip, upsampled: upsampled, weights: weights, gate: gate, pool: pool) }

    init(skip: FeatureMap, upsampled: FeatureMap, weights: GateWeights, gate: UnsafeMutablePointer<Float>,
         pool: WorkerPool) {
        self.skip = skip
        self.upsampled = upsampled
        self.weights = weights
        self.gate = gate
        self.pool = pool
    }
}

/// A 1x1 convolution and the depthwise convolution reading its output, in bands of rows.
final class PointwiseDepthwiseStep: Step {
    var scratch: ScratchSize {
        pointwiseThenDepthwiseScratch(pointwise, width: input.layout.width, bandOutputRows: bandRows, stride: stride,
                                      kernelSpan: (depthwise.kernelSize - 1) * dilation + 1, bandPad: bandPad,
                                      gated: gatedInput != nil, ownsBands: ownBands != nil)
    }
    let input: FeatureMap, gatedInput: GatedInput?, pointwise: PointwiseWeights, pointwiseActivation: Activation
    /// Output rows per band, the band buffer's zero border, and the step's own band buffers (one
    /// per thread) when the band is mostly border; nil: they are in the pool's scratch.
    let bandRows: Int, bandPad: Int, ownBands: [FeatureMapStorage]?
    let depthwise: DepthwiseWeights, stride: Int, dilation: Int, padTop: Int, padLeft: Int, depthwiseActivation: Activation
    let residualIsInput: Bool, residual: FeatureMap?, output: FeatureMap, pool: WorkerPool
    func run() {
        pointwiseThenDepthwise(input, gatedInput: gatedInput, pointwise: pointwise, pointwiseActivation: pointwiseActivation,
                               bandOutputRows: bandRows, bandPad: bandPad, ownBands: ownBands, depthwise: depthwise, stride: stride,
                               dilation: dilation, padTop: padTop, padLeft: padLeft, depthwiseActivation: depthwiseActivation,
                               residualIsInput: residualIsInput, residual: residual, output: output, pool: pool)
    }

    init(input: FeatureMap, gatedInput: GatedInput?, pointwise: PointwiseWeights, pointwiseActivation: Activation,
         bandRows: Int, bandPad: Int, ownBands: [FeatureMapStorage]?, depthwise: DepthwiseWeights, stride: Int,
         dilation: Int, padTop: Int, padLeft: Int, depthwiseActivation: Activation, residualIsInput: Bool,
         residual: FeatureMap?, output: FeatureMap, pool: WorkerPool) {
        self.input = input
        self.gatedInput = gatedInput
        self.pointwise = pointwise
        self.pointwiseActivation = pointwiseActivation
        self.bandRows = bandRows
        self.bandPad = bandPad
        self.ownBands = ownBands
        self.depthwise = depthwise
        self.stride = stride
        self.dilation = dilation
        self.padTop = padTop
        self.padLeft = padLeft
        self.depthwiseActivation = depthwiseActivation
        self.residualIsInput = residualIsInput
        self.residual = residual
        self.output = output
        self.pool = pool
    }
}

/// Where a patch convolution's windows read, from per output row and kernel row the input row
/// (−1: padding) and the same for columns: per tap (ky, kx) and output pixel, the pixel's offset
/// in an input plane, or −1 where the tap reads padding.
struct PatchGeometry {
    let inputChannels: Int, inputHeight: Int, inputWidth: Int
    let pixels: Int, outputHeight: Int, outputWidth: Int
    /// Taps per channel (kernel rows × columns).
    let taps: Int
    /// `offsets[tap · pixels + pixel]`.
    let offsets: [Int]
    /// Whether every tap is the pixel itself (a 1x1 window, stride 1, no padding): the patch
    /// matrix is the input transposed.
    let isTranspose: Bool

    init(inputChannels: Int, inputHeight: Int, inputWidth: Int, rows: [[Int]], columns: [[Int]]) {
        self.inputChannels = inputChannels
        self.inputHeight = inputHeight
        self.inputWidth = inputWidth
        outputHeight = rows.count
        outputWidth = columns.count
        pixels = outputHeight * outputWidth
        let kh = rows.first?.count ?? 0, kw = columns.first?.count ?? 0
        taps = kh * kw
        var offsets = [Int](repeating: -1, count: taps * pixels)
        for oy in 0..<outputHeight {
            for ox in 0..<outputWidth {
                for ky in 0..<kh {
                    for kx in 0..<kw {
                        let y = rows[oy][ky], x = columns[ox][kx]
                        offsets[(ky * kw + kx) * pixels + oy * outputWidth + ox] = y < 0 || x < 0 ? -1 : y * inputWidth + x
                    }
                }
            }
        }
        self.offsets = offsets
        isTranspose = taps == 1 && pixels == inputHeight * inputWidth && offsets.indices.allSatisfy { offsets[$0] == $0 }
    }
}

/// A convolution as gathered patches times the weights, per group (`patchConvolutionStep`): the
/// patch matrix packed in panels of rows for the 12-row product from `packedFrom` output pixels
/// on, row-major for the unpacked product (one pixel: a matrix-vector product) below.
final class PatchConvolutionStep: Step {
    static let packedFrom = 4

    /// Floats of the patch matrix of `pixels` rows of `inner` values.
    static func patchCount(pixels: Int, inner: Int) -> Int {
        pixels >= packedFrom ? packedOperandCount(rows: pixels, inner: inner) : pixels * inner
    }

    let input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, weights: [MatrixWeights]
    let geometry: PatchGeometry, pool: WorkerPool
    /// The patch matrix, then the pixel-major products (the largest group's), in the pool's
    /// shared scratch (no kernel the step calls uses it).
    var scratch: ScratchSize {
        ScratchSize(shared: productsOffset + geometry.pixels * weights.reduce(0) { max($0, $1.columns) })
    }
    private var productsOffset: Int {
        (weights.reduce(0) { max($0, Self.patchCount(pixels: geometry.pixels, inner: $1.inner)) } + 15) / 16 * 16
    }
    func run() {
        precondition(pool.holds(scratch), "patch convolution of \(geometry.pixels) pixels: pool shared scratch too small")
        let patches = pool.shared.baseAddress!, products = patches + productsOffset
        let g = geometry
        let plane = g.inputHeight * g.inputWidth, pixels = g.pixels
        let (outH, outW) = (g.outputHeight, g.outputWidth)
        let packs = pixels >= PatchConvolutionStep.packedFrom
        // The last panel's rows past the pixels: zero once, then no group writes them.
        if packs { zeroPackedPadding(patches, rows: pixels, inner: weights.reduce(0) { max($0, $1.inner) }) }
        for group in weights.indices {
            let matrix = weights[group], inner = matrix.inner
            let firstChannel = input + group * g.inputChannels * plane
            if packs && g.isTranspose {
                packTransposed(firstChannel, channels: g.inputChannels, pixels: pixels, into: patches)
            } else {
                g.offsets.withUnsafeBufferPointer { offsets in
                    // Column k = channel · taps + tap of the patch matrix, one input plane at a time.
                    for c in 0..<g.inputChannels {
                        let channel = firstChannel + c * plane
                        for t in 0..<g.taps {
                            let k = c * g.taps + t, tapOffsets = offsets.baseAddress! + t * pixels
                            if packs {
                                // Panel by panel: column k of a panel's rows is one run of packedRows.
                                var first = 0
                                while first < pixels {
                                    let run = patches + packedOperandOffset(row: first, k: k, inner: inner)
                                    for r in 0..<min(packedRows, pixels - first) {
                                        let offset = tapOffsets[first + r]
                                        run[r] = offset < 0 ? 0 : channel[offset]
                                    }
                                    first += packedRows
                                }
                            } else {
                                for m in 0..<pixels {
                                    let offset = tapOffsets[m]
                                    patches[m * inner + k] = offset < 0 ? 0 : channel[offset]
                                }
                            }
                        }
                    }
                }
            }
            if packs {
                packedMatrixMultiply(patches, rows: pixels, weights: matrix, output: products, pool: pool)
            } else {
                matrixMultiply(patches, rows: pixels, weights: matrix, output: products, pool: pool)
            }
            let planes = FeatureMap(base: output + group * matrix.columns * outH * outW, channels: matrix.columns,
                                    layout: .dense(width: outW, height: outH))
            deinterleaveChannels(products, output: planes, pool: pool)
        }
    }

    init(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, weights: [MatrixWeights],
         geometry: PatchGeometry, pool: WorkerPool) {
        self.input = input
        self.output = output
        self.weights = weights
        self.geometry = geometry
        self.pool = pool
    }
}

