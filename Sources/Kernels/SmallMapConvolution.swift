/// Dense K×K convolution (one group) vectorised over output channels, for output rows too
/// narrow to fill the pixel vectors of ``convolution(_:weights:stride:padTop:padLeft:activation:output:pool:)``:
/// register tiles of up to 12 pixels of one output row, or of the map across row ends when its
/// rows are not a multiple of 4 wide (`SmallMapConvolutionParts.rowTiles`), × 32 output
/// channels (one panel of `weights`, whose inner index is (input channel, ky, kx)), every input
/// value broadcast from the zero-bordered input where it lies (no patch matrix), then the
/// pixel-major products spread to the output planes with the activation,
/// `output[o] = act(bias[o] + Σ w[o][c][ky][kx] · x)`.
///
/// Every output is the bias followed by fused multiply-adds in (input channel, ky, kx) order. A
/// tile of one output row skips the rows of taps that read only the border for that row, and the
/// columns of taps that read only the border for every pixel of the tile (as the direct kernel
/// skips them: a skipped tap would add ±0); chunks across row ends skip the rows of taps that
/// read only the border for every output row they reach (windows other than 3x3).
/// Weight panels run outermost, in blocks of input channels that stay in L2 for every tile
/// (`smallMapChannelBlock`); a tile stores its running sums between blocks.
/// A row's (or the map's) last pixels take a tile of 4, 8, 10 or 12 rows, whichever is the smallest that holds them.
///
/// With `groups` above 1 the convolution is grouped, each group ``pairedGroupWidth`` output
/// channels reading its own input.channels / groups input channels: a panel's low half holds one
/// group's filters and its high half the next group's (`weights.inner` is one group's input
/// channels · k², its column o output channel o's filter), and a tile reads the two groups'
/// windows side by side, in chunks across row ends (`SmallMapConvolutionParts.pairDistance`).
///
/// With a `residual` the spread adds it after the activation, raised to 0 with `rectifiesSum`
/// (as ``convolution(_:weights:stride:dilation:padTop:padLeft:activation:residual:rectifiesSum:output:pool:)``).
///
/// - Precondition: the input's border covers the window (as for the direct convolution, pads
///   within the border); the stride is 1 or 2, or any with ``smallMapTilesSpanRows``; `weights.inner` is the input's channels (one group's) · k², and
///   `weights.columns` the output's channels; `groups` is 1, or the output's channels / ``pairedGroupWidth``
///   with ``pairsGroups`` on. `products` holds `productCount` ≥ the output's
///   pixels × channels floats (the caller's scratch) and overlaps neither map; `output` does not
///   overlap `input`.
package func smallMapConvolution(
    _ input: FeatureMap, weights: MatrixWeights, kernelSize k: Int, stride: Int, dilation: Int, padTop: Int, padLeft: Int,
    activation: Activation, residual: FeatureMap? = nil, rectifiesSum: Bool = false, output: FeatureMap,
    products: UnsafeMutablePointer<Float>, productCount: Int, groups: Int = 1, pool: WorkerPool
) {
    smallMapConvolution(input, weights: weights, kernelHeight: k, kernelWidth: k, stride: stride, dilation: dilation,
                        padTop: padTop, padLeft: padLeft, activation: activation, residual: residual, rectifiesSum: rectifiesSum,
                        output: output, products: products, productCount: productCount, groups: groups, pool: pool)
}

/// ``smallMapConvolution(_:weights:kernelSize:stride:dilation:padTop:padLeft:activation:residual:rectifiesSum:output:products:productCount:groups:pool:)``
/// with a window of `kh` rows × `kw` columns (Inception's 1×7, 7×1, 1×3 and 3×1): the same
/// tiles, sums and order, over (input channel, ky < kh, kx < kw); `weights.inner` is the
/// input's channels (one group's) · kh · kw. The stride and dilation are the same on both axes.
package func smallMapConvolution(
    _ input: FeatureMap, weights: MatrixWeights, kernelHeight kh: Int, kernelWidth kw: Int, stride: Int, dilation: Int,
    padTop: Int, padLeft: Int, activation: Activation, residual: FeatureMap? = nil, rectifiesSum: Bool = false,
    output: FeatureMap, products: UnsafeMutablePointer<Float>, productCount: Int, groups: Int = 1, pool: WorkerPool
) {
    checkResidual(residual, rectifiesSum: rectifiesSum, output: output, kind: "small-map convolution")
    checkWindow(input.layout, output.layout, kernelHeight: kh, kernelWidth: kw, stride: stride, dilation: dilation,
                padTop: padTop, padLeft: padLeft, maximumStride: stride > 2 && smallMapTilesSpanRows ? stride : 2,
                kind: "small-map convolution")
    precondition(groups == 1 || (pairsGroups && output.channels == groups * pairedGroupWidth && input.channels % groups == 0),
                 "small-map convolution: \(groups) groups of \(output.channels) output channels, expected groups of \(pairedGroupWidth)")
    precondition(weights.inner == input.channels / groups * kh * kw && weights.columns == output.channels,
                 "small-map convolution: weights are \(weights.inner)x\(weights.columns), expected "
                 + "\(input.channels / groups * kh * kw)x\(output.channels)")
    precondition(productCount >= output.pixels * output.channels,
                 "small-map convolution: \(productCount) floats for the products of \(output.pixels) pixels × \(output.channels) channels")
    pool.run(SmallMapConvolutionParts(input: input, weights: weights, kernelHeight: kh, kernelWidth: kw, stride: stride,
                                      dilation: dilation, padTop: padTop, padLeft: padLeft, outputHeight: output.layout.height,
                                      outputWidth: output.layout.width, products: products, groups: groups))
    pool.run(SpreadParts(products: products, pixels: output.pixels, activation: activation, residual: residual,
                         floor: sumFloor(rectifiesSum: rectifiesSum), output: output))
}

/// The sums of ``smallMapConvolution(_:weights:kernelSize:stride:dilation:padTop:padLeft:activation:residual:rectifiesSum:output:products:productCount:groups:pool:)``
/// (one group, no activation) written pixel-major instead of spread to planes: output pixel
/// (y, x)'s channel o at `output[(y · outputWidth + x) · Cout + o]`, that is the output in NHWC,
/// `bias[o] + Σ w[o][c][ky][kx] · x` with the same tiles, multiply-adds and order.
///
/// - Precondition: as the planar kernel's, for an output of `outputHeight` × `outputWidth`
///   pixels of `weights.columns` channels; `output` holds their `pixels × columns` floats and
///   does not overlap `input`.
package func smallMapConvolutionChannelsLast(
    _ input: FeatureMap, weights: MatrixWeights, kernelHeight kh: Int, kernelWidth kw: Int, stride: Int, dilation: Int,
    padTop: Int, padLeft: Int, outputHeight: Int, outputWidth: Int, output: UnsafeMutablePointer<Float>, pool: WorkerPool
) {
    checkWindow(input.layout, .dense(width: outputWidth, height: outputHeight), kernelHeight: kh, kernelWidth: kw,
                stride: stride, dilation: dilation, padTop: padTop, padLeft: padLeft,
                maximumStride: stride > 2 && smallMapTilesSpanRows ? stride : 2, kind: "small-map convolution")
    precondition(weights.inner == input.channels * kh * kw,
                 "small-map convolution: weights are \(weights.inner)x\(weights.columns), expected \(input.channels * kh * kw) rows")
    pool.run(SmallMapConvolutionParts(input: input, weights: weights, kernelHeight: kh, kernelWidth: kw, stride: stride,
                                      dilation: dilation, padTop: padTop, padLeft: padLeft, outputHeight: outputHeight,
                                      outputWidth: outputWidth, products: output, groups: 1))
}

/// Whether ``smallMapConvolution(_:weights:kernelSize:stride:dilation:padTop:padLeft:activation:output:products:productCount:pool:)``
/// runs tiles of 12 pixels across row ends for rows that are not a multiple of 4 wide (with
/// AVX-512's 32 vector registers; with fewer, 4 pixels of a row at a time).
package var smallMapTilesSpanRows: Bool { wideRegisterFile }

/// Whether ``smallMapConvolution(_:weights:kernelSize:stride:dilation:padTop:padLeft:activation:output:products:productCount:groups:pool:)``
/// takes groups of ``pairedGroupWidth`` output channels two to a panel (with AVX-512's 32 vector
/// registers, whose chunk tiles hold 12 pixels × both halves).
package var pairsGroups: Bool { wideRegisterFile }

/// The output channels of a group that shares a weight panel with the next group: half a panel,
/// one vector (16 with AVX-512: RegNet-X's group width).
package var pairedGroupWidth: Int { lanes }

/// Input channels of a block of the inner index (input channel, ky, kx): those whose taps fill
/// 128 Ki floats (512 KiB) of a 32-column weight panel, so that the block stays in a core's L2
/// while every tile of pixels reads it. A block after the first goes on from the sums the one
/// before stored (exact: the same multiply-adds in the same order, the running sum kept in
/// float32 either way).
func smallMapChannelBlock(kernelSize k: Int) -> Int {
    smallMapChannelBlock(taps: k * k)
}

/// ``smallMapChannelBlock(kernelSize:)`` for a window of `taps` taps (kh · kw).
func smallMapChannelBlock(taps: Int) -> Int {
    max(1, (1 << 17) / (taps * MatrixWeights.panelWidth))
}

/// Output rows (or chunks of pixels) split between threads, or the weight panels when there are
/// fewer of them than threads.
struct SmallMapConvolutionParts: PoolJob {
    let input: FeatureMap, weights: MatrixWeights
    let kernelHeight: Int, kernelWidth: Int, stride: Int, dilation: Int, padTop: Int, padLeft: Int
    let outputHeight: Int, outputWidth: Int
    let products: UnsafeMutablePointer<Float>
    /// 1, or the groups of ``pairedGroupWidth`` output channels, two to a panel.
    let groups: Int

    /// Whether each output row is cut into tiles of its own: rows a multiple of 4 wide fill them
    /// (and register files of 16 vectors or fewer take 4 pixels at a time anyway). Other maps run
    /// in tiles of 12 consecutive pixels across row ends (a 5×5 map is 12 + 12 + 1 pixels, not
    /// five rows of 5 in tiles of 8), and so do paired groups and strides above 2 (a chunk's
    /// pixel offsets take any stride).
    var rowTiles: Bool { groups == 1 && stride <= 2 && (outputWidth % 4 == 0 || !smallMapTilesSpanRows) }

    /// The input channels panel `p` reads: all of them, or its first group's.
    func panelChannels(_ p: Int) -> Range<Int> {
        guard groups > 1 else { return 0..<input.channels }
        let perGroup = input.channels / groups
        return 2 * p * perGroup ..< (2 * p + 1) * perGroup
    }

    /// How far the high half of panel `p` reads from its low half in the input: 0 for a dense
    /// panel (or a last panel of one group, whose high half's weights are zero), else one group's
    /// planes.
    func pairDistance(_ p: Int) -> Int {
        groups > 1 && 2 * p + 1 < groups ? input.channels / groups * input.layout.planeStride : 0
    }

    func run(part: Int, pool: WorkerPool) {
        let count = rowTiles ? outputHeight : (outputHeight * outputWidth + packedRows - 1) / packedRows
        let byParts = count >= pool.threadCount
        let mine = byParts ? WorkerPool.range(count, part: part, of: pool.threadCount) : 0..<count
        let panels = byParts ? 0..<weights.panels : WorkerPool.range(weights.panels, part: part, of: pool.threadCount)
        if !rowTiles {
            smallMapConvolutionChunks(self, chunks: mine, panels: panels)
        } else if stride == 1 {
            smallMapConvolutionRows(self, rows: mine, panels: panels, UnitStep.self)
        } else {
            smallMapConvolutionRows(self, rows: mine, panels: panels, DoubleStep.self)
        }
    }
}

/// The distance between the windows of neighbouring output pixels in an input row: the stride,
/// known at compile time so that a tile's twelve broadcasts are at constant offsets.
protocol PixelStep { static var step: Int { get } }
enum UnitStep: PixelStep { static var step: Int { 1 } }
enum DoubleStep: PixelStep { static var step: Int { 2 } }

/// Every tile of `rows` × `panels`.
@inline(always)
func smallMapConvolutionRows<S: PixelStep>(_ job: SmallMapConvolutionParts, rows: Range<Int>, panels: Range<Int>, _: S.Type) {
    let step = S.step
    let inL = job.input.layout, n = job.weights.columns, width = MatrixWeights.panelWidth
    let origin = UnsafePointer(job.input.plane(0))
    // Panels outermost, as in smallMapConvolutionChunks, in blocks of input channels.
    let (kh, kw) = (job.kernelHeight, job.kernelWidth)
    let block = smallMapChannelBlock(taps: kh * kw)
    for p in panels {
        let column = p * width
        var c0 = 0
        while c0 < job.input.channels {
            let channels = min(block, job.input.channels - c0)
            for oy in rows {
                let rowBase = origin + c0 * inL.planeStride + (oy * step - job.padTop) * inL.rowStride - job.padLeft
                let rowTaps = job.inputTaps(from: oy * step - job.padTop, outputs: 1, step: step, length: inL.height, kernel: kh)
                var ox = 0
                while ox < job.outputWidth {
                    let count = min(packedRows, job.outputWidth - ox)
                    let columnTaps = job.inputTaps(from: ox * step - job.padLeft, outputs: count, step: step, length: inL.width,
                                                   kernel: kw)
                    let tile = SmallMapTile(
                        window: rowBase + ox * step, channels: channels, planeStride: inL.planeStride,
                        rowStride: inL.rowStride, kernelHeight: kh, kernelWidth: kw, dilation: job.dilation,
                        rowTaps: rowTaps, columnTaps: columnTaps,
                        weights: job.weights.panel(p) + c0 * kh * kw * width,
                        bias: UnsafePointer(job.weights.bias.baseAddress + column),
                        output: job.products + (oy * job.outputWidth + ox) * n + column, outputStride: n,
                        pixels: count, width: min(width, n - column), continues: c0 > 0,
                        streamed: oy == rows.lowerBound && ox == 0)
                    smallMapConvolutionTile(tile, S.self)
                    ox += count
                }
            }
            c0 += channels
        }
    }
}

extension SmallMapConvolutionParts {
    /// The taps of one axis of the window (first ..< last + 1) that read the input, not only the
    /// border, for at least one of `outputs` consecutive outputs whose first tap is input
    /// position `start` (−pad·… for the first output) and which move `step` positions apart, on
    /// an axis of `length` input positions and a window `kernel` taps long. Empty when every tap
    /// reads the border.
    func inputTaps(from start: Int, outputs: Int, step: Int, length: Int, kernel: Int) -> Range<Int> {
        let last = start + (outputs - 1) * step
        // Tap t reads position p + t·dilation for p in start ... last (every step-th).
        var first = 0
        while first < kernel && !readsInput(start, last, step, first * dilation, length) { first += 1 }
        var end = kernel
        while end > first && !readsInput(start, last, step, (end - 1) * dilation, length) { end -= 1 }
        return first..<end
    }

    /// Whether some position start + offset, start + step + offset, … ≤ last + offset lies in 0 ..< length.
    private func readsInput(_ start: Int, _ last: Int, _ step: Int, _ offset: Int, _ length: Int) -> Bool {
        var p = start
        while p <= last {
            if p + offset >= 0 && p + offset < length { return true }
            p += step
        }
        return false
    }
}

/// One register tile's operands: `pixels` (1…12) outputs of one row whose windows start at
/// `window`, `step` floats apart, and one weight panel; the rows and columns of the window
/// the tile reads (the others read only the border for every pixel of the tile).
struct SmallMapTile {
    let window: UnsafePointer<Float>
    let channels: Int, planeStride: Int, rowStride: Int, kernelHeight: Int, kernelWidth: Int, dilation: Int
    let rowTaps: Range<Int>, columnTaps: Range<Int>
    let weights: UnsafePointer<Float>, bias: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>, outputStride: Int
    let pixels: Int, width: Int
    /// Whether `output` holds the sums over the channels before `window`'s (a block of the
    /// inner index before this one), to go on from instead of the bias.
    let continues: Bool
    /// Whether the tile is the first to read its block of the panel (``PanelReading``).
    let streamed: Bool
}

/// The tile with the smallest register tile that holds its pixels.
@inline(never)
func smallMapConvolutionTile<S: PixelStep>(_ t: SmallMapTile, _: S.Type) {
    if t.streamed {
        smallMapConvolutionTile(t, S.self, StreamedPanel.self)
    } else {
        smallMapConvolutionTile(t, S.self, CachedPanel.self)
    }
}

@inline(always)
func smallMapConvolutionTile<S: PixelStep, R: PanelReading>(_ t: SmallMapTile, _: S.Type, _: R.Type) {
    if !wideRegisterFile {
        smallMapConvolutionTile(PackedTile4.self, t, S.self, R.self)
        return
    }
    switch t.pixels {
    case ...4: smallMapConvolutionTile(PackedTile4.self, t, S.self, R.self)
    case ...8: smallMapConvolutionTile(PackedTile8.self, t, S.self, R.self)
    case ...10: smallMapConvolutionTile(PackedTile10.self, t, S.self, R.self)
    default: smallMapConvolutionTile(PackedTile.self, t, S.self, R.self)
    }
}

/// The first `t.pixels` pixels (at most `T`'s rows; on register files of 16 vectors or fewer,
/// four at a time) over every (input channel, ky, kx) in order that reads the input.
@inline(always)
func smallMapConvolutionTile<T: PackedRowTile, S: PixelStep, R: PanelReading>(_: T.Type, _ t: SmallMapTile, _: S.Type,
                                                                               _: R.Type) {
    let step = S.step, rowsPerTile = wideRegisterFile ? t.pixels : 4
    var first = 0
    while first < t.pixels {
        let rows = min(rowsPerTile, t.pixels - first)
        var acc = t.continues ? T(continuing: t.output + first * t.outputStride, stride: t.outputStride, rows: rows, width: t.width)
            : T(t.bias)
        let (kh, kw) = (t.kernelHeight, t.kernelWidth), width = MatrixWeights.panelWidth
        // Per channel: the window's first row and column read, and the weights of the taps skipped.
        let firstTap = t.window + first * step + t.rowTaps.lowerBound * t.dilation * t.rowStride
            + t.columnTaps.lowerBound * t.dilation
        let skippedBefore = (t.rowTaps.lowerBound * kw + t.columnTaps.lowerBound) * width
        let skippedPerRow = (kw - t.columnTaps.count) * width
        let skippedAfter = (kh - t.rowTaps.upperBound) * kw * width - t.columnTaps.lowerBound * width
        var w = t.weights, plane = firstTap
        for _ in 0..<t.channels {
            // Every tap's weights ahead, the skipped ones too: the tiles after the first read them.
            for tap in 0..<kh * kw { R.ahead(w + tap * width) }
            var row = plane
            w += skippedBefore
            for _ in t.rowTaps {
                var tap = row
                for _ in t.columnTaps {
                    acc.accumulate(tap, step: step, w)
                    w += width
                    tap += t.dilation
                }
                w += skippedPerRow
                row += t.dilation * t.rowStride
            }
            w += skippedAfter
            plane += t.planeStride
        }
        acc.store(t.output + first * t.outputStride, stride: t.outputStride, rows: rows, width: t.width)
        first += rowsPerTile
    }
}

/// Every tile of `chunks` × `panels`, chunk c the pixels 12·c ..< 12·c + 12 of the map in
/// row-major order (the last maybe fewer), across row ends.
@inline(never)
func smallMapConvolutionChunks(_ job: SmallMapConvolutionParts, chunks: Range<Int>, panels: Range<Int>) {
    let inL = job.input.layout, n = job.weights.columns, width = MatrixWeights.panelWidth
    let pixels = job.outputHeight * job.outputWidth
    // Input pixel (−padTop, −padLeft) of channel 0: the window origin of output pixel (0, 0).
    let origin = UnsafePointer(job.input.plane(0)) - job.padTop * inL.rowStride - job.padLeft
    // Panels outermost, in blocks of input channels (`smallMapChannelBlock`): a block of a
    // panel's weights stays in cache for every chunk, and the weights stream from memory once
    // per run.
    let (kh, kw) = (job.kernelHeight, job.kernelWidth)
    let block = smallMapChannelBlock(taps: kh * kw)
    for p in panels {
        let column = p * width, reads = job.panelChannels(p)
        var c0 = 0
        while c0 < reads.count {
            let channels = min(block, reads.count - c0)
            for chunk in chunks {
                let first = chunk * packedRows, count = min(packedRows, pixels - first)
                let offsets = PixelOffsets(first: first, count: count, width: job.outputWidth,
                                           rowStep: job.stride * inL.rowStride, step: job.stride)
                // The rows of taps that read the input for some output row the chunk reaches.
                let firstRow = first / job.outputWidth, lastRow = (first + count - 1) / job.outputWidth
                let rowTaps = job.inputTaps(from: firstRow * job.stride - job.padTop, outputs: lastRow - firstRow + 1,
                                            step: job.stride, length: inL.height, kernel: kh)
                smallMapChunkTile(SmallMapChunkTile(
                    origin: origin + (reads.lowerBound + c0) * inL.planeStride, offsets: offsets, channels: channels,
                    planeStride: inL.planeStride, rowStride: inL.rowStride, kernelHeight: kh, kernelWidth: kw,
                    dilation: job.dilation, rowTaps: rowTaps, weights: job.weights.panel(p) + c0 * kh * kw * width,
                    bias: UnsafePointer(job.weights.bias.baseAddress + column),
                    output: job.products + first * n + column, outputStride: n, pixels: count, width: min(width, n - column),
                    pairDistance: job.pairDistance(p), continues: c0 > 0, streamed: chunk == chunks.lowerBound))
            }
            c0 += channels
        }
    }
}

/// Where the windows of up to 12 consecutive output pixels (row-major, maybe across row ends)
/// start, from the window of pixel (0, 0); the entries past the tile's pixels repeat its last.
struct PixelOffsets {
    var o0, o1, o2, o3, o4, o5, o6, o7, o8, o9, o10, o11: Int

    /// Pixels `first ..< first + count` of a map `width` wide, whose windows move `step` floats
    /// per output column and `rowStep` per output row.
    init(first: Int, count: Int, width: Int, rowStep: Int, step: Int) {
        @inline(always) func at(_ i: Int) -> Int {
            let p = first + min(i, count - 1)
            return p / width * rowStep + p % width * step
        }
        (o0, o1, o2, o3, o4, o5) = (at(0), at(1), at(2), at(3), at(4), at(5))
        (o6, o7, o8, o9, o10, o11) = (at(6), at(7), at(8), at(9), at(10), at(11))
    }
}

/// One register tile's operands: `pixels` (1…12) outputs whose windows start at `offsets` from
/// `origin`, and one weight panel; the rows of the window that read the input for some pixel of
/// the chunk (the others read only the border for every pixel of it).
struct SmallMapChunkTile {
    let origin: UnsafePointer<Float>, offsets: PixelOffsets
    let channels: Int, planeStride: Int, rowStride: Int, kernelHeight: Int, kernelWidth: Int, dilation: Int
    let rowTaps: Range<Int>
    let weights: UnsafePointer<Float>, bias: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>, outputStride: Int
    let pixels: Int, width: Int
    /// Where the panel's high half reads from `origin` on (the next group's planes), or 0 when
    /// both halves read the same window.
    let pairDistance: Int
    /// As ``SmallMapTile/continues`` and ``SmallMapTile/streamed``.
    let continues: Bool, streamed: Bool
}

/// The chunk with the smallest register tile that holds its pixels.
@inline(never)
func smallMapChunkTile(_ t: SmallMapChunkTile) {
    switch (t.streamed, t.pairDistance != 0) {
    case (true, false): smallMapChunkTile(t, StreamedPanel.self, SharedWindow.self)
    case (false, false): smallMapChunkTile(t, CachedPanel.self, SharedWindow.self)
    case (true, true): smallMapChunkTile(t, StreamedPanel.self, PairedWindows.self)
    case (false, true): smallMapChunkTile(t, CachedPanel.self, PairedWindows.self)
    }
}

/// A 3x3 window with its tap loops unrolled whole (``SideOfThree``), any other as it is.
@inline(always)
func smallMapChunkTile<R: PanelReading, H: PanelHalves>(_ t: SmallMapChunkTile, _: R.Type, _: H.Type) {
    if t.kernelHeight == 3 && t.kernelWidth == 3 {
        smallMapChunkTile(t, R.self, H.self, SideOfThree.self)
    } else {
        smallMapChunkTile(t, R.self, H.self, AnySide.self)
    }
}

@inline(always)
func smallMapChunkTile<R: PanelReading, H: PanelHalves, K: WindowSide>(_ t: SmallMapChunkTile, _: R.Type, _: H.Type,
                                                                       _: K.Type) {
    switch t.pixels {
    case ...4: smallMapChunkTile(PackedTile4.self, t, R.self, H.self, K.self)
    case ...8: smallMapChunkTile(PackedTile8.self, t, R.self, H.self, K.self)
    case ...10: smallMapChunkTile(PackedTile10.self, t, R.self, H.self, K.self)
    default: smallMapChunkTile(PackedTile.self, t, R.self, H.self, K.self)
    }
}

/// Which windows a chunk tile's two halves of a panel read.
protocol PanelHalves {
    /// One tap: row r's value at `x[offsets.o`r`]` times the panel row `w`, the high half's
    /// `pairDistance` further on.
    static func accumulate<T: PackedRowTile>(_ acc: inout T, _ x: UnsafePointer<Float>, pairDistance: Int,
                                             at offsets: PixelOffsets, _ w: UnsafePointer<Float>)
}

/// Both halves read one window (a dense panel).
enum SharedWindow: PanelHalves {
    @inline(always)
    static func accumulate<T: PackedRowTile>(_ acc: inout T, _ x: UnsafePointer<Float>, pairDistance: Int,
                                             at offsets: PixelOffsets, _ w: UnsafePointer<Float>) {
        acc.accumulate(x, at: offsets, w)
    }
}

/// The high half reads the next group's window.
enum PairedWindows: PanelHalves {
    @inline(always)
    static func accumulate<T: PackedRowTile>(_ acc: inout T, _ x: UnsafePointer<Float>, pairDistance: Int,
                                             at offsets: PixelOffsets, _ w: UnsafePointer<Float>) {
        acc.accumulate(x, x + pairDistance, at: offsets, w)
    }
}

/// The chunk's pixels over every (input channel, ky, kx) in order that reads the input: the rows
/// of taps in ``SmallMapChunkTile/rowTaps`` (all three for ``SideOfThree``), every column.
@inline(always)
func smallMapChunkTile<T: PackedRowTile, R: PanelReading, H: PanelHalves, K: WindowSide>(
    _: T.Type, _ t: SmallMapChunkTile, _: R.Type, _: H.Type, _: K.Type
) {
    var acc = t.continues ? T(continuing: t.output, stride: t.outputStride, rows: t.pixels, width: t.width) : T(t.bias)
    let kh = K.side(t.kernelHeight), kw = K.side(t.kernelWidth), rows = K.taps(t.rowTaps), width = MatrixWeights.panelWidth
    var w = t.weights, plane = t.origin + rows.lowerBound * t.dilation * t.rowStride
    // A window one column wide (7×1, 3×1) runs its rows as the inner loop, `rowStride` apart:
    // with an inner loop of one tap the offsets and broadcasts were reloaded from the stack on
    // every tap (a 7×1 on 17×17 took twice the time of the 1×7). The same taps in the same order.
    let (outer, inner) = kw == 1 ? (1, rows.count) : (rows.count, kw)
    let (innerStep, outerStep) = kw == 1 ? (t.dilation * t.rowStride, 0) : (t.dilation, t.dilation * t.rowStride)
    let skippedBefore = rows.lowerBound * kw, skippedAfter = (kh - rows.upperBound) * kw
    for _ in 0..<t.channels {
        // The skipped taps' weights ahead too: the chunks after the first read them.
        for tap in 0..<skippedBefore { R.ahead(w + tap * width) }
        w += skippedBefore * width
        var row = plane
        for _ in 0..<outer {
            var tap = row
            for _ in 0..<inner {
                R.ahead(w)
                H.accumulate(&acc, tap, pairDistance: t.pairDistance, at: t.offsets, w)
                w += width
                tap += innerStep
            }
            row += outerStep
        }
        for tap in 0..<skippedAfter { R.ahead(w + tap * width) }
        w += skippedAfter * width
        plane += t.planeStride
    }
    acc.store(t.output, stride: t.outputStride, rows: t.pixels, width: t.width)
}
