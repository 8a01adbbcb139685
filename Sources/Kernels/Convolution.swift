/// Dense (groups = 1) K×K convolution weights packed for ``convolution(_:weights:stride:padTop:padLeft:activation:output:pool:)``:
/// output channels in tiles of 8, each tile [input channel][ky][kx][8].
package final class ConvolutionWeights {
    package let outputChannels: Int
    package let inputChannels: Int
    package let kernelSize: Int
    let packed: FloatBuffer
    let bias: FloatBuffer

    var tiles: Int { (outputChannels + 7) / 8 }

    /// `weights` as ONNX's [Cout, Cin, K, K] (row-major), `bias` Cout values or zero when nil.
    package init(weights: [Float], bias: [Float]?, outputChannels: Int, inputChannels: Int, kernelSize: Int) {
        let kk = kernelSize * kernelSize
        precondition(outputChannels > 0 && inputChannels > 0 && kernelSize > 0, "empty convolution")
        precondition(weights.count == outputChannels * inputChannels * kk, "convolution weights: wrong size")
        precondition(bias == nil || bias!.count == outputChannels, "convolution bias: expected \(outputChannels)")
        self.outputChannels = outputChannels
        self.inputChannels = inputChannels
        self.kernelSize = kernelSize
        let tiles = (outputChannels + 7) / 8
        packed = FloatBuffer(count: tiles * 8 * inputChannels * kk)
        self.bias = FloatBuffer(count: tiles * 8)
        for o in 0..<outputChannels {
            let tile = o / 8, lane = o % 8
            for i in 0..<inputChannels * kk {
                packed.baseAddress[(tile * inputChannels * kk + i) * 8 + lane] = weights[o * inputChannels * kk + i]
            }
            self.bias.baseAddress[o] = bias?[o] ?? 0
        }
    }
}

/// Dense K×K convolution, stride 1 or 2, any dilation, with bias and activation; the 3x3
/// stride-2 convolution (the stem of the built-in models) has its own function.
///
/// Reads the input in place from its padded layout (as ``depthwiseConvolution(_:weights:stride:padTop:padLeft:activation:residual:output:pool:)``).
/// Register tile: 8 output channels × 32 pixels of one output row; output rows are split
/// between threads. Each output is bias + fused multiply-adds in (input channel, ky, kx) order.
///
/// - Precondition: the input border covers the window (see the depthwise kernel); `output` has
///   `weights.outputChannels` channels.
package func convolution(
    _ input: FeatureMap, weights: ConvolutionWeights, stride: Int, dilation: Int = 1, padTop: Int, padLeft: Int,
    activation: Activation, output: FeatureMap, pool: WorkerPool
) {
    let k = weights.kernelSize
    let span = (k - 1) * dilation + 1
    let inL = input.layout, outL = output.layout
    precondition(stride == 1 || stride == 2, "convolution stride must be 1 or 2")
    precondition(input.channels == weights.inputChannels && output.channels == weights.outputChannels, "convolution channel mismatch")
    precondition(padTop >= 0 && padLeft >= 0 && padTop <= inL.pad && padLeft <= inL.pad, "convolution pad exceeds the input border")
    precondition(dilation >= 1, "convolution dilation must be positive")
    precondition((outL.height - 1) * stride - padTop + span - 1 <= inL.height - 1 + inL.pad
                 && (outL.width - 1) * stride - padLeft + span - 1 <= inL.width - 1 + inL.pad,
                 "convolution window reads beyond the input border")
    pool.run(ConvolutionParts(input: input, weights: weights, stride: stride, dilation: dilation, padTop: padTop,
                              padLeft: padLeft, activation: activation, output: output))
}

/// The dense convolution split over output rows between threads.
struct ConvolutionParts: PoolJob {
    let input: FeatureMap, weights: ConvolutionWeights, stride: Int, dilation: Int, padTop: Int, padLeft: Int
    let activation: Activation, output: FeatureMap
    func run(part: Int, pool: WorkerPool) {
        let k = weights.kernelSize
        let rows = WorkerPool.range(output.layout.height, part: part, of: pool.threadCount)
        let job = ConvolutionJob(input: input, weights: weights, stride: stride, dilation: dilation, padTop: padTop,
                                 padLeft: padLeft, activation: activation, output: output, rows: rows)
        if k == 3 && stride == 2 && dilation == 1 {
            switch activation {
            case .none: convolution3x3Stride2(job, Identity.self)
            case .relu: convolution3x3Stride2(job, ReLU.self)
            case .relu6: convolution3x3Stride2(job, ReLU6.self)
            case .hardSwish: convolution3x3Stride2(job, HardSwish.self)
            case .sigmoid: convolution3x3Stride2(job, Sigmoid.self)
            }
        } else {
            convolutionGeneric(job, kernelSize: k, stride: stride, dilation: dilation)
        }
    }
}

struct ConvolutionJob {
    var input: FeatureMap
    var weights: ConvolutionWeights
    var stride: Int
    var dilation: Int
    var padTop: Int
    var padLeft: Int
    var activation: Activation
    var output: FeatureMap
    var rows: Range<Int>
}

@inline(never) func convolution3x3Stride2<A: ActivationFunction>(_ job: ConvolutionJob, _: A.Type) {
    convolutionRows(job) { tile in convolutionTile(tile, A.self, Window3x3Stride2.self) }
}

/// A window size and stride known at compile time, so a non-inlined tile function still unrolls.
protocol WindowShape {
    static var size: Int { get }
    static var stride: Int { get }
}

enum Window3x3Stride2: WindowShape {
    static var size: Int { 3 }
    static var stride: Int { 2 }
}

@inline(never) func convolutionGeneric(_ job: ConvolutionJob, kernelSize: Int, stride: Int, dilation: Int) {
    convolutionRows(job) { tile in convolutionTileAnyShape(tile, kernelSize: kernelSize, stride: stride, dilation: dilation) }
}

/// One register tile: 8 output channels × up to 32 pixels of one output row.
struct ConvolutionTile {
    /// Input pixel (yo·stride − padTop, xo·stride − padLeft) of channel 0.
    var source: UnsafePointer<Float>
    var sourceRow: Int
    var sourcePlane: Int
    var inputChannels: Int
    var weights: UnsafePointer<Float>      // this tile's [cin][ky][kx][8]
    var bias: UnsafePointer<Float>
    /// Output pixel (yo, xo) of the tile's first channel.
    var destination: UnsafeMutablePointer<Float>
    var destinationPlane: Int
    var channels: Int
    /// Pixels in the tile: 32, or 1…16 at the end of a row.
    var count: Int
    var activation: Activation
}

@inline(always)
func convolutionRows(_ job: ConvolutionJob, _ body: (ConvolutionTile) -> Void) {
    let w = job.weights
    let k = w.kernelSize, stride = job.stride
    let inL = job.input.layout, outL = job.output.layout
    let src = UnsafePointer(job.input.plane(0))
    for yo in job.rows {
        let rowBase = src + (yo * stride - job.padTop) * inL.rowStride - job.padLeft
        for tile in 0..<w.tiles {
            var xo = 0
            while xo < outL.width {
                let widest = narrowRegisterFile ? lanes : Row32.width
                let count = outL.width - xo >= widest ? widest : min(lanes, outL.width - xo)
                body(ConvolutionTile(
                    source: rowBase + xo * stride, sourceRow: inL.rowStride, sourcePlane: inL.planeStride,
                    inputChannels: w.inputChannels,
                    weights: UnsafePointer(w.packed.baseAddress + tile * 8 * w.inputChannels * k * k),
                    bias: UnsafePointer(w.bias.baseAddress + tile * 8),
                    destination: job.output.plane(tile * 8) + yo * outL.rowStride + xo,
                    destinationPlane: outL.planeStride, channels: min(8, w.outputChannels - tile * 8),
                    count: count, activation: job.activation))
                xo += count
            }
        }
    }
}

/// The tile with the window known at compile time (the loops unroll); kept out of line so the
/// optimizer sees a small function.
@inline(never)
func convolutionTile<A: ActivationFunction, W: WindowShape>(_ t: ConvolutionTile, _: A.Type, _: W.Type) {
    let k = W.size, stride = W.stride
    if narrowRegisterFile {
        // Groups of 2 channels × 16 pixels (see Tile2).
        var first = 0
        while first < t.channels {
            let acc = convolutionAccumulate(Tile2<Row16>.self, t, first: first, k: k, stride: stride)
            let rows = min(2, t.channels - first), destination = t.destination + first * t.destinationPlane
            if t.count == lanes {
                acc.forEachRow(rows, ActivatedStore<A, Row16>(base: destination, planeStride: t.destinationPlane,
                                                              o0: 0, o1: lanes, o2: 2 * lanes))
            } else {
                acc.forEachRow(rows, PartialStore<A>(base: destination, planeStride: t.destinationPlane, count: t.count))
            }
            first += 2
        }
    } else if t.count == Row32.width {
        let acc = convolutionAccumulate(Row32.self, t, k: k, stride: stride)
        acc.forEachRow(t.channels, ActivatedStore<A, Row32>(base: t.destination, planeStride: t.destinationPlane,
                                                            o0: 0, o1: lanes, o2: 2 * lanes))
    } else if t.count == lanes {
        let acc = convolutionAccumulate(Row16.self, t, k: k, stride: stride)
        acc.forEachRow(t.channels, ActivatedStore<A, Row16>(base: t.destination, planeStride: t.destinationPlane,
                                                            o0: 0, o1: lanes, o2: 2 * lanes))
    } else {
        let acc = convolutionAccumulate(Row16.self, t, k: k, stride: stride)
        acc.forEachRow(t.channels, PartialStore<A>(base: t.destination, planeStride: t.destinationPlane, count: t.count))
    }
}

@inline(never)
func convolutionTileAnyShape(_ t: ConvolutionTile, kernelSize k: Int, stride: Int, dilation: Int) {
    if narrowRegisterFile {
        var first = 0
        while first < t.channels {
            let acc = convolutionAccumulate(Tile2<Row16>.self, t, first: first, k: k, stride: stride, dilation: dilation)
            let destination = t.destination + first * t.destinationPlane
            acc.forEachRow(min(2, t.channels - first)) { r, row in
                store(t.activation.apply(row.a), destination + r &* t.destinationPlane, count: t.count)
            }
            first += 2
        }
    } else if t.count == Row32.width {
        let acc = convolutionAccumulate(Row32.self, t, k: k, stride: stride, dilation: dilation)
        acc.forEachRow(t.channels) { r, row in
            let dst = t.destination + r &* t.destinationPlane
            store(t.activation.apply(row.a), dst)
            store(t.activation.apply(row.b), dst + 16)
        }
    } else {
        let acc = convolutionAccumulate(Row16.self, t, k: k, stride: stride, dilation: dilation)
        acc.forEachRow(t.channels) { r, row in
            store(t.activation.apply(row.a), t.destination + r &* t.destinationPlane, count: t.count)
        }
    }
}

@inline(always)
func convolutionAccumulate<Row: StridedPixelRow>(_: Row.Type, _ t: ConvolutionTile, k: Int, stride: Int,
                                                 dilation: Int = 1) -> Tile8<Row> {
    convolutionAccumulate(Tile8<Row>.self, t, first: 0, k: k, stride: stride, dilation: dilation)
}

/// Channels `first ..< first + T.channels` of the tile (within its packed group of 8).
@inline(always)
func convolutionAccumulate<T: ChannelTile>(_: T.Type, _ t: ConvolutionTile, first: Int, k: Int, stride: Int,
                                           dilation: Int = 1) -> T where T.Row: StridedPixelRow {
    var acc = T(bias: t.bias + first)
    var wp = t.weights + first
    var plane = t.source
    for _ in 0..<t.inputChannels {
        for ky in 0..<k {
            let r = plane + ky &* dilation &* t.sourceRow
            for kx in 0..<k {
                acc.accumulate(wp, T.Row(r + kx &* dilation, stride: stride))
                wp += 8
            }
        }
        plane += t.sourcePlane
    }
    return acc
}

protocol StridedPixelRow: PixelRow {
    init(_ p: UnsafePointer<Float>, stride: Int)
}

extension Row32: StridedPixelRow {
    @inline(always) init(_ p: UnsafePointer<Float>, stride: Int) {
        if stride == 1 { a = load(p); b = load(p + 16) } else { a = loadEven(p); b = loadEven(p + 32) }
    }
}

extension Row16: StridedPixelRow {
    @inline(always) init(_ p: UnsafePointer<Float>, stride: Int) {
        a = stride == 1 ? load(p) : loadEven(p)
    }
}
