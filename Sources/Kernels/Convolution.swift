/// Dense (groups = 1) K×K convolution weights packed for ``convolution(_:weights:stride:padTop:padLeft:activation:output:pool:)``:
/// output channels in tiles of 8, each tile [input channel][ky][kx][8] (``ChannelTilePacking``).
package final class ConvolutionWeights {
    package let outputChannels: Int
    package let inputChannels: Int
    package let kernelSize: Int
    let packed: FloatBuffer
    let bias: FloatBuffer

    var tiles: Int { (outputChannels + 7) / 8 }

    /// `weights` as ONNX's [Cout, Cin, K, K] (row-major), `bias` Cout values or zero when nil.
    package init(weights: [Float], bias: [Float]?, outputChannels: Int, inputChannels: Int, kernelSize: Int) {
        precondition(outputChannels > 0 && inputChannels > 0 && kernelSize > 0, "empty convolution")
        let packing = ChannelTilePacking(weights: weights, bias: bias, outputChannels: outputChannels,
                                         perChannel: inputChannels * kernelSize * kernelSize, what: "convolution")
        self.outputChannels = outputChannels
        self.inputChannels = inputChannels
        self.kernelSize = kernelSize
        packed = packing.packed
        self.bias = packing.bias
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
                    weights: UnsafePointer(w.packed.baseAddress + ChannelTilePacking.offset(
                        firstChannel: tile * 8, perChannel: w.inputChannels * k * k)),
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
        convolutionQuarters(t, A.self, k: k, stride: stride, dilation: 1)
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
        switch t.activation {
        case .none: convolutionQuarters(t, Identity.self, k: k, stride: stride, dilation: dilation)
        case .relu: convolutionQuarters(t, ReLU.self, k: k, stride: stride, dilation: dilation)
        case .relu6: convolutionQuarters(t, ReLU6.self, k: k, stride: stride, dilation: dilation)
        case .hardSwish: convolutionQuarters(t, HardSwish.self, k: k, stride: stride, dilation: dilation)
        case .sigmoid: convolutionQuarters(t, Sigmoid.self, k: k, stride: stride, dilation: dilation)
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
    var wp = t.weights + first * packedWeightLanes
    var plane = t.source
    for _ in 0..<t.inputChannels {
        for ky in 0..<k {
            let r = plane + ky &* dilation &* t.sourceRow
            for kx in 0..<k {
                acc.accumulate(wp, T.Row(r + kx &* dilation, stride: stride))
                wp += 8 * packedWeightLanes
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

/// The tile with 16 XMM registers (``narrowRegisterFile``): groups of 4 pixels, each through all
/// 8 channels of the tile (``Quarter8``), so every input vector (a deinterleave at stride 2)
/// serves 8 channels. Each output is computed as in the wide tiles.
@inline(always)
func convolutionQuarters<A: ActivationFunction>(_ t: ConvolutionTile, _: A.Type, k: Int, stride: Int, dilation: Int) {
    var x = 0
    while x < t.count {
        var acc = Quarter8(bias: t.bias)
        var wp = t.weights
        var plane = t.source + x &* stride
        for _ in 0..<t.inputChannels {
            for ky in 0..<k {
                let r = plane + ky &* dilation &* t.sourceRow
                for kx in 0..<k {
                    let p = r + kx &* dilation
                    acc.accumulate(wp, stride == 1 ? loadQuarter(p) : loadQuarterEven(p))
                    wp += 8 * packedWeightLanes
                }
            }
            plane += t.sourcePlane
        }
        acc.store(A.self, t.destination + x, planeStride: t.destinationPlane, channels: t.channels,
                  count: min(4, t.count - x))
        x += 4
    }
}

/// Eight output channels × 4 pixels, one SSE register each (``narrowRegisterFile``): 8
/// accumulators, the input vector and a weight fit the 16 XMM registers. Weights are packed
/// 4 lanes wide (``packedWeightLanes``), so each is one aligned load.
struct Quarter8 {
    var r0, r1, r2, r3, r4, r5, r6, r7: Quarter

    @inline(always) init(bias: UnsafePointer<Float>) {
        r0 = Quarter(repeating: bias[0]); r1 = Quarter(repeating: bias[1])
        r2 = Quarter(repeating: bias[2]); r3 = Quarter(repeating: bias[3])
        r4 = Quarter(repeating: bias[4]); r5 = Quarter(repeating: bias[5])
        r6 = Quarter(repeating: bias[6]); r7 = Quarter(repeating: bias[7])
    }

    /// Adds packed weight r · x to row r (`w`: 8 weights of 4 lanes).
    @inline(always) mutating func accumulate(_ w: UnsafePointer<Float>, _ x: Quarter) {
        r0 = multiplyAdd(r0, loadQuarterAligned(w), x); r1 = multiplyAdd(r1, loadQuarterAligned(w + 4), x)
        r2 = multiplyAdd(r2, loadQuarterAligned(w + 8), x); r3 = multiplyAdd(r3, loadQuarterAligned(w + 12), x)
        r4 = multiplyAdd(r4, loadQuarterAligned(w + 16), x); r5 = multiplyAdd(r5, loadQuarterAligned(w + 20), x)
        r6 = multiplyAdd(r6, loadQuarterAligned(w + 24), x); r7 = multiplyAdd(r7, loadQuarterAligned(w + 28), x)
    }

    /// Rows 0 ..< `channels`, activated, to planes `planeStride` apart from `p`: `count` (1…4)
    /// pixels each. The activation runs on four rows at a time as one ``Vector``.
    @inline(always)
    func store<A: ActivationFunction>(_: A.Type, _ p: UnsafeMutablePointer<Float>, planeStride: Int, channels: Int, count: Int) {
        let low = A.apply(Vector(lowHalf: SIMD8(lowHalf: r0, highHalf: r1), highHalf: SIMD8(lowHalf: r2, highHalf: r3)))
        storeQuarters(low, p, planeStride: planeStride, rows: min(channels, 4), count: count)
        if channels > 4 {
            let high = A.apply(Vector(lowHalf: SIMD8(lowHalf: r4, highHalf: r5), highHalf: SIMD8(lowHalf: r6, highHalf: r7)))
            storeQuarters(high, p + 4 &* planeStride, planeStride: planeStride, rows: channels - 4, count: count)
        }
    }
}

/// The four quarters of `v` to `rows` planes `planeStride` apart, `count` (1…4) floats each.
@inline(always)
func storeQuarters(_ v: Vector, _ p: UnsafeMutablePointer<Float>, planeStride: Int, rows: Int, count: Int) {
    if count == 4 {
        storeQuarter(v.lowHalf.lowHalf, p)
        if rows > 1 { storeQuarter(v.lowHalf.highHalf, p + planeStride) }
        if rows > 2 { storeQuarter(v.highHalf.lowHalf, p + 2 &* planeStride) }
        if rows > 3 { storeQuarter(v.highHalf.highHalf, p + 3 &* planeStride) }
    } else {
        var copy = v
        storeQuartersPartial(&copy, p, planeStride: planeStride, rows: rows, count: count)
    }
}

@inline(never)
func storeQuartersPartial(_ v: inout Vector, _ p: UnsafeMutablePointer<Float>, planeStride: Int, rows: Int, count: Int) {
    for r in 0..<rows {
        for lane in 0..<count { p[r * planeStride + lane] = v[4 * r + lane] }
    }
}
