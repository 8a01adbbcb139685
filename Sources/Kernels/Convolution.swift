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
/// With a `residual` (the output's size and channels, any layout, not overlapping `output`),
/// each output is `act(sum) + residual` at the same pixel, raised to 0 with `rectifiesSum` (a
/// Relu after the residual Add): the tile's stored values, reloaded while in cache.
///
/// - Precondition: the input border covers the window (see the depthwise kernel); `output` has
///   `weights.outputChannels` channels.
package func convolution(
    _ input: FeatureMap, weights: ConvolutionWeights, stride: Int, dilation: Int = 1, padTop: Int, padLeft: Int,
    activation: Activation, residual: FeatureMap? = nil, rectifiesSum: Bool = false, output: FeatureMap, pool: WorkerPool
) {
    precondition(input.channels == weights.inputChannels && output.channels == weights.outputChannels, "convolution channel mismatch")
    checkWindow(input.layout, output.layout, kernelSize: weights.kernelSize, stride: stride, dilation: dilation,
                padTop: padTop, padLeft: padLeft, kind: "convolution")
    checkResidual(residual, rectifiesSum: rectifiesSum, output: output, kind: "convolution")
    pool.run(ConvolutionParts(input: input, weights: weights, stride: stride, dilation: dilation, padTop: padTop,
                              padLeft: padLeft, activation: activation, output: output, residual: residual,
                              floor: sumFloor(rectifiesSum: rectifiesSum)))
}

/// The preconditions of a K×K window read in place from a padded input (dense and depthwise
/// convolutions): stride 1 or 2 (up to `maximumStride`), the pads within the border, and every
/// window row and column of the output at most `pad` beyond the interior.
func checkWindow(_ inL: PlaneLayout, _ outL: PlaneLayout, kernelSize k: Int, stride: Int, dilation: Int,
                 padTop: Int, padLeft: Int, maximumStride: Int = 2, kind: String) {
    checkWindow(inL, outL, kernelHeight: k, kernelWidth: k, stride: stride, dilation: dilation, padTop: padTop,
                padLeft: padLeft, maximumStride: maximumStride, kind: kind)
}

/// ``checkWindow(_:_:kernelSize:stride:dilation:padTop:padLeft:maximumStride:kind:)`` for a window
/// of `kh` rows × `kw` columns.
func checkWindow(_ inL: PlaneLayout, _ outL: PlaneLayout, kernelHeight kh: Int, kernelWidth kw: Int, stride: Int,
                 dilation: Int, padTop: Int, padLeft: Int, maximumStride: Int = 2, kind: String) {
    let rowSpan = (kh - 1) * dilation + 1, columnSpan = (kw - 1) * dilation + 1
    precondition(stride >= 1 && stride <= maximumStride, "\(kind) stride must be 1 to \(maximumStride)")
    precondition(padTop >= 0 && padLeft >= 0 && padTop <= inL.pad && padLeft <= inL.pad, "\(kind) pad exceeds the input border")
    precondition(dilation >= 1 && kh >= 1 && kw >= 1, "\(kind) dilation and window must be positive")
    precondition((outL.height - 1) * stride - padTop + rowSpan - 1 <= inL.height - 1 + inL.pad
                 && (outL.width - 1) * stride - padLeft + columnSpan - 1 <= inL.width - 1 + inL.pad,
                 "\(kind) window reads beyond the input border")
}

/// The preconditions of a residual a K×K convolution adds in its store: the output's channels and
/// size, any layout, apart from the output (it is read after the output is written).
func checkResidual(_ residual: FeatureMap?, rectifiesSum: Bool, output: FeatureMap, kind: String) {
    precondition(!rectifiesSum || residual != nil, "\(kind): a rectified sum needs a residual")
    guard let residual else { return }
    precondition(residual.channels == output.channels && residual.layout.width == output.layout.width
                 && residual.layout.height == output.layout.height && !residual.overlaps(output),
                 "\(kind): the residual must have the output's shape and not overlap it")
}

/// The dense convolution split over output rows between threads.
struct ConvolutionParts: PoolJob {
    let input: FeatureMap, weights: ConvolutionWeights, stride: Int, dilation: Int, padTop: Int, padLeft: Int
    let activation: Activation, output: FeatureMap
    var residual: FeatureMap? = nil, floor: Float = -.infinity
    func run(part: Int, pool: WorkerPool) {
        let rows = WorkerPool.range(output.layout.height, part: part, of: pool.threadCount)
        switch activation {
        case .none: convolutionPart(self, rows: rows, Identity.self)
        case .relu: convolutionPart(self, rows: rows, ReLU.self)
        case .relu6: convolutionPart(self, rows: rows, ReLU6.self)
        case .hardSwish: convolutionPart(self, rows: rows, HardSwish.self)
        case .sigmoid: convolutionPart(self, rows: rows, Sigmoid.self)
        case .silu: convolutionPart(self, rows: rows, SiLU.self)
        }
    }
}

/// The rows of one thread, by the function for the window.
@inline(always)
func convolutionPart<A: ActivationFunction>(_ job: ConvolutionParts, rows: Range<Int>, _: A.Type) {
    if job.weights.kernelSize == 3 && job.stride == 2 && job.dilation == 1 {
        convolution3x3Stride2(job, rows: rows, A.self)
    } else if job.weights.kernelSize == 7 && job.stride == 2 && job.dilation == 1 && !narrowRegisterFile {
        convolution7x7Stride2(job, rows: rows, A.self)
    } else {
        convolutionGeneric(job, rows: rows, A.self)
    }
}

@inline(never) func convolution3x3Stride2<A: ActivationFunction>(_ job: ConvolutionParts, rows: Range<Int>, _: A.Type) {
    convolutionRows(job, rows: rows, skipsPadding: false) { tile, _ in convolutionTile(tile, A.self, Window3x3Stride2.self) }
}

/// The 7x7 stride-2 stem (ResNet's, GoogLeNet's, DenseNet's) with its window a constant, so the
/// 49 taps of an input channel unroll.
@inline(never) func convolution7x7Stride2<A: ActivationFunction>(_ job: ConvolutionParts, rows: Range<Int>, _: A.Type) {
    convolutionRows(job, rows: rows, skipsPadding: false) { tile, _ in convolutionTile(tile, A.self, Window7x7Stride2.self) }
}

enum Window7x7Stride2: WindowShape {
    static var size: Int { 7 }
    static var stride: Int { 2 }
}

/// A window size and stride known at compile time, so a non-inlined tile function still unrolls.
protocol WindowShape {
    static var size: Int { get }
    static var stride: Int { get }
}

/// The side of a square window, a constant where it is 3, so the loops over a tile's taps unroll
/// whole (a loop of a runtime 3 is unrolled by 2 with a remainder, which spills accumulators).
/// With ``SideOfThree`` a caller promises the window is 3 wide and, where it passes taps, that
/// they are all three.
protocol WindowSide {
    static func side(_ k: Int) -> Int
    /// `taps` (a window's rows or columns that read the input), a constant 0 ..< 3 for ``SideOfThree``.
    static func taps(_ taps: Range<Int>) -> Range<Int>
}

enum SideOfThree: WindowSide {
    @inline(always) static func side(_: Int) -> Int { 3 }
    @inline(always) static func taps(_: Range<Int>) -> Range<Int> { 0..<3 }
}

enum AnySide: WindowSide {
    @inline(always) static func side(_ k: Int) -> Int { k }
    @inline(always) static func taps(_ taps: Range<Int>) -> Range<Int> { taps }
}

enum Window3x3Stride2: WindowShape {
    static var size: Int { 3 }
    static var stride: Int { 2 }
}

@inline(never) func convolutionGeneric<A: ActivationFunction>(_ job: ConvolutionParts, rows: Range<Int>, _: A.Type) {
    let k = job.weights.kernelSize, stride = job.stride, dilation = job.dilation
    convolutionRows(job, rows: rows, skipsPadding: true, pairsRows: true) { tile, taps in
        convolutionTileAnyShape(tile, A.self, kernelSize: k, stride: stride, dilation: dilation, taps: taps)
    }
}

/// The taps of a tile's window that read the input: rows `ky` and columns `kx` of the kernel
/// with some pixel of the tile's window inside the input (the others read only the zero border).
struct WindowTaps {
    var rows: Range<Int>, columns: Range<Int>

    /// The taps `k` (of `kernel`, `dilation` apart) for which some window start in
    /// `first ... last` (an input index, possibly negative) reads an index in `0 ..< extent`:
    /// the hull of them (all of them at stride 1).
    static func reading(first: Int, last: Int, extent: Int, kernel: Int, dilation: Int) -> Range<Int> {
        // Smallest k with last + k·d >= 0, largest with first + k·d <= extent − 1.
        let low = last >= 0 ? 0 : (-last + dilation - 1) / dilation
        let spare = extent - 1 - first
        let high = spare < 0 ? 0 : min(kernel, spare / dilation + 1)
        return low < high ? low..<high : low..<low
    }
}

/// One register tile: 8 output channels × up to 32 pixels of one output row.
struct ConvolutionTile {
    /// Input pixel (yo·stride − padTop, xo·stride − padLeft) of channel 0.
    var source: UnsafePointer<Float>
    var sourceRow: Int
    var sourcePlane: Int
    var inputChannels: Int
    var weights: UnsafePointer<Float>      // this tile's [cin][ky][kx][8] (ChannelTilePacking)
    var bias: UnsafePointer<Float>
    /// Output pixel (yo, xo) of the tile's first channel.
    var destination: UnsafeMutablePointer<Float>
    var destinationPlane: Int
    var channels: Int
    /// Pixels in the tile: 32, or 1…16 at the end of a row; per row when `nextRow` is set.
    var count: Int
    /// Output floats from the tile's row to the row below it when the tile holds both (rows of
    /// at most 16 pixels; the window of the second row starts `stride` input rows lower), else 0.
    var nextRow: Int = 0
}

/// Every tile of `rows`, with the taps of its window that read the input when `skipsPadding`
/// (else the whole window). With `pairsRows`, a wide register file and rows of at most 16
/// pixels, two output rows make one tile (``ConvolutionTile/nextRow``).
@inline(always)
func convolutionRows(_ job: ConvolutionParts, rows: Range<Int>, skipsPadding: Bool, pairsRows: Bool = false,
                     _ body: (ConvolutionTile, WindowTaps) -> Void) {
    let w = job.weights
    let k = w.kernelSize, stride = job.stride
    let inL = job.input.layout, outL = job.output.layout
    let src = UnsafePointer(job.input.plane(0))
    let whole = 0..<k
    let pairs = pairsRows && wideRegisterFile && outL.width <= lanes
    var yo = rows.lowerBound
    while yo < rows.upperBound {
        let paired = pairs && yo + 1 < rows.upperBound
        let rowBase = src + (yo * stride - job.padTop) * inL.rowStride - job.padLeft
        let top = yo * stride - job.padTop
        let tapRows = skipsPadding ? WindowTaps.reading(first: top, last: paired ? top + stride : top, extent: inL.height,
                                                        kernel: k, dilation: job.dilation) : whole
        for tile in 0..<w.tiles {
            var xo = 0
            while xo < outL.width {
                let widest = narrowRegisterFile || paired ? lanes : Row32.width
                let count = outL.width - xo >= widest ? widest : min(lanes, outL.width - xo)
                let left = xo * stride - job.padLeft
                let tapColumns = skipsPadding ? WindowTaps.reading(first: left, last: left + (count - 1) * stride,
                                                                   extent: inL.width, kernel: k, dilation: job.dilation) : whole
                let channels = min(8, w.outputChannels - tile * 8)
                body(ConvolutionTile(
                    source: rowBase + xo * stride, sourceRow: inL.rowStride, sourcePlane: inL.planeStride,
                    inputChannels: w.inputChannels,
                    weights: UnsafePointer(w.packed.baseAddress + ChannelTilePacking.offset(
                        firstChannel: tile * 8, perChannel: w.inputChannels * k * k)),
                    bias: UnsafePointer(w.bias.baseAddress + tile * 8),
                    destination: job.output.plane(tile * 8) + yo * outL.rowStride + xo,
                    destinationPlane: outL.planeStride, channels: channels,
                    count: count, nextRow: paired ? outL.rowStride : 0), WindowTaps(rows: tapRows, columns: tapColumns))
                if let residual = job.residual {
                    addResidual(residual, floor: job.floor, to: job.output, channels: tile * 8 ..< tile * 8 + channels,
                                rows: yo ..< yo + (paired ? 2 : 1), columns: xo ..< xo + count)
                }
                xo += count
            }
        }
        yo += paired ? 2 : 1
    }
}

/// `output` += `residual` over a block of channels, rows and columns (stored activations, still
/// in cache), raised to `floor`: the same values as a store of `act(sum) + residual`.
@inline(never)
func addResidual(_ residual: FeatureMap, floor: Float, to output: FeatureMap, channels: Range<Int>, rows: Range<Int>,
                 columns: Range<Int>) {
    let outRow = output.layout.rowStride, addRow = residual.layout.rowStride
    for c in channels {
        for y in rows {
            let out = output.plane(c) + y * outRow + columns.lowerBound
            let add = UnsafePointer(residual.plane(c) + y * addRow + columns.lowerBound)
            var x = 0
            while x + lanes <= columns.count {
                store(raised(load(out + x) + load(add + x), to: floor), out + x)
                x += lanes
            }
            if x < columns.count {
                let n = columns.count - x
                store(raised(load(out + x, count: n) + load(add + x, count: n), to: floor), out + x, count: n)
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
        convolutionQuarters(t, A.self, k: k, stride: stride, dilation: 1, rows: 0..<k, columns: 0..<k)
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
func convolutionTileAnyShape<A: ActivationFunction>(_ t: ConvolutionTile, _: A.Type, kernelSize k: Int, stride: Int,
                                                    dilation: Int, taps: WindowTaps) {
    if narrowRegisterFile {
        convolutionQuarters(t, A.self, k: k, stride: stride, dilation: dilation, rows: taps.rows, columns: taps.columns)
    } else if k == 3 && taps.rows == 0..<3 && taps.columns == 0..<3 {
        convolutionTileAnyShape(t, A.self, kernelSize: k, stride: stride, dilation: dilation, taps: taps, SideOfThree.self)
    } else {
        convolutionTileAnyShape(t, A.self, kernelSize: k, stride: stride, dilation: dilation, taps: taps, AnySide.self)
    }
}

/// The tile with every tap of a 3x3 window (``SideOfThree``: the tap loops unroll whole), or any
/// window.
@inline(always)
func convolutionTileAnyShape<A: ActivationFunction, K: WindowSide>(_ t: ConvolutionTile, _: A.Type, kernelSize k: Int,
                                                                  stride: Int, dilation: Int, taps: WindowTaps, _: K.Type) {
    if t.nextRow != 0 {
        let acc = convolutionAccumulate(Tile8<Row32>.self, t, k: k, stride: stride, dilation: dilation, taps: taps, K.self)
        if t.count == lanes {
            acc.forEachRow(t.channels, ActivatedStore<A, Row32>(base: t.destination, planeStride: t.destinationPlane,
                                                                  o0: 0, o1: t.nextRow, o2: 0))
        } else {
            acc.forEachRow(t.channels, PartialPairStore<A>(base: t.destination, planeStride: t.destinationPlane,
                                                           nextRow: t.nextRow, count: t.count))
        }
    } else if t.count == Row32.width {
        let acc = convolutionAccumulate(Tile8<Row32>.self, t, k: k, stride: stride, dilation: dilation, taps: taps, K.self)
        acc.forEachRow(t.channels, ActivatedStore<A, Row32>(base: t.destination, planeStride: t.destinationPlane,
                                                            o0: 0, o1: lanes, o2: 2 * lanes))
    } else {
        let acc = convolutionAccumulate(Tile8<Row16>.self, t, k: k, stride: stride, dilation: dilation, taps: taps, K.self)
        acc.forEachRow(t.channels, PartialStore<A>(base: t.destination, planeStride: t.destinationPlane, count: t.count))
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

/// The 8 channels of the tile over the taps `taps` of the window only (the others read only
/// the zero border), in the same (input channel, ky, kx) order.
@inline(always)
func convolutionAccumulate<T: ChannelTile, K: WindowSide>(_: T.Type, _ t: ConvolutionTile, k: Int, stride: Int,
                                                          dilation: Int, taps: WindowTaps, _: K.Type) -> T
    where T.Row: StridedPixelRow {
    let k = K.side(k), taps = WindowTaps(rows: K.taps(taps.rows), columns: K.taps(taps.columns))
    var acc = T(bias: t.bias)
    var channelWeights = t.weights
    var plane = t.source
    let tapStride = 8 * packedWeightLanes
    let next = t.nextRow != 0 ? stride &* t.sourceRow : lanes &* stride
    for _ in 0..<t.inputChannels {
        for ky in taps.rows {
            let r = plane + ky &* dilation &* t.sourceRow
            var wp = channelWeights + (ky &* k &+ taps.columns.lowerBound) &* tapStride
            for kx in taps.columns {
                acc.accumulate(wp, T.Row(r + kx &* dilation, stride: stride, next: next))
                wp += tapStride
            }
        }
        plane += t.sourcePlane
        channelWeights += k &* k &* tapStride
    }
    return acc
}

protocol StridedPixelRow: PixelRow {
    init(_ p: UnsafePointer<Float>, stride: Int)
    /// The row from `p` whose vectors after the first start `next` floats apart (`16·stride` in
    /// one row; a row of the input lower for a row pair, ``ConvolutionTile/nextRow``).
    init(_ p: UnsafePointer<Float>, stride: Int, next: Int)
}

extension StridedPixelRow {
    @inline(always) init(_ p: UnsafePointer<Float>, stride: Int, next: Int) { self.init(p, stride: stride) }
}

/// The first `count` (< 16) pixels of both rows of a row pair (``ConvolutionTile/nextRow``), activated and stored.
struct PartialPairStore<A: ActivationFunction>: TileRowSink {
    var base: UnsafeMutablePointer<Float>
    var planeStride: Int
    var nextRow: Int
    var count: Int
    @inline(always) func take(_ r: Int, _ row: Row32) {
        let plane = base + r &* planeStride
        store(A.apply(row.a), plane, count: count)
        store(A.apply(row.b), plane + nextRow, count: count)
    }
}

extension Row32: StridedPixelRow {
    @inline(always) init(_ p: UnsafePointer<Float>, stride: Int) { self.init(p, stride: stride, next: lanes &* stride) }
    @inline(always) init(_ p: UnsafePointer<Float>, stride: Int, next: Int) {
        if stride == 1 { a = load(p); b = load(p + next) } else { a = loadEven(p); b = loadEven(p + next) }
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
func convolutionQuarters<A: ActivationFunction>(_ t: ConvolutionTile, _: A.Type, k: Int, stride: Int, dilation: Int,
                                                rows: Range<Int>, columns: Range<Int>) {
    var x = 0
    let tapStride = 8 * packedWeightLanes
    while x < t.count {
        var acc = Quarter8(bias: t.bias)
        var channelWeights = t.weights
        var plane = t.source + x &* stride
        for _ in 0..<t.inputChannels {
            for ky in rows {
                let r = plane + ky &* dilation &* t.sourceRow
                var wp = channelWeights + (ky &* k &+ columns.lowerBound) &* tapStride
                for kx in columns {
                    let p = r + kx &* dilation
                    acc.accumulate(wp, stride == 1 ? loadQuarter(p) : loadQuarterEven(p))
                    wp += tapStride
                }
            }
            plane += t.sourcePlane
            channelWeights += k &* k &* tapStride
        }
        acc.store(A.self, t.destination + x, planeStride: t.destinationPlane, channels: t.channels,
                  count: min(4, t.count - x))
        x += 4
    }
}

/// Eight output channels × 4 pixels, one SSE register each (``narrowRegisterFile``): 8
/// accumulators, the input vector and a weight fit the 16 XMM registers. Channel r's 4 pixels
/// are quarter r % 4 of `low` (r < 4) or `high`, so the 4-lane packed weights of 4 channels
/// (``packedWeightLanes``) are one vector load.
struct Quarter8 {
    var low, high: Vector

    @inline(always) init(bias: UnsafePointer<Float>) {
        @inline(always) func spread(_ b: UnsafePointer<Float>) -> Vector {
            Vector(lowHalf: SIMD8(lowHalf: Quarter(repeating: b[0]), highHalf: Quarter(repeating: b[1])),
                   highHalf: SIMD8(lowHalf: Quarter(repeating: b[2]), highHalf: Quarter(repeating: b[3])))
        }
        low = spread(bias)
        high = spread(bias + 4)
    }

    /// Adds packed weight r · x to channel r (`w`: 8 weights of 4 lanes, 64-byte aligned as
    /// every 8-channel group of a packing is, so the loads can be operands of the multiplies).
    @inline(always) mutating func accumulate(_ w: UnsafePointer<Float>, _ x: Quarter) {
        let xs = repeatQuarter(x)
        low = multiplyAdd(low, UnsafeRawPointer(w).load(as: Vector.self), xs)
        high = multiplyAdd(high, UnsafeRawPointer(w + lanes).load(as: Vector.self), xs)
    }

    /// Channels 0 ..< `channels`, activated, to planes `planeStride` apart from `p`: `count`
    /// (1…4) pixels each.
    @inline(always)
    func store<A: ActivationFunction>(_: A.Type, _ p: UnsafeMutablePointer<Float>, planeStride: Int, channels: Int, count: Int) {
        storeQuarters(A.apply(low), p, planeStride: planeStride, rows: min(channels, 4), count: count)
        if channels > 4 {
            storeQuarters(A.apply(high), p + 4 &* planeStride, planeStride: planeStride, rows: channels - 4, count: count)
        }
    }
}

/// The four quarters of `v` to `rows` planes `planeStride` apart, `count` (1…4) floats each.
@inline(always)
func storeQuarters(_ v: Vector, _ p: UnsafeMutablePointer<Float>, planeStride: Int, rows: Int, count: Int) {
    if count == 4 {
        @inline(always) func put(_ q: Quarter, _ row: Int) {
            UnsafeMutableRawPointer(p + row &* planeStride).storeBytes(of: q, as: Quarter.self)
        }
        put(v.lowHalf.lowHalf, 0)
        if rows > 1 { put(v.lowHalf.highHalf, 1) }
        if rows > 2 { put(v.highHalf.lowHalf, 2) }
        if rows > 3 { put(v.highHalf.highHalf, 3) }
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
