import TargetFeatures

/// 1x1 convolution weights packed for ``pointwiseConvolution(_:weights:activation:residual:output:pool:)``
/// (``ChannelTilePacking`` in groups of ``pointwiseGroup`` channels: one micro-kernel step reads
/// that many consecutive packed weights).
package final class PointwiseWeights {
    package let inputChannels: Int
    package let outputChannels: Int
    let packed: FloatBuffer
    let bias: FloatBuffer

    /// Packs `weights` (row-major [output][input], as ONNX's [Cout, Cin, 1, 1]) and `bias`
    /// (`outputChannels` values, or zero when nil).
    package init(weights: [Float], bias: [Float]?, outputChannels: Int, inputChannels: Int) {
        precondition(outputChannels > 0 && inputChannels > 0, "empty 1x1 convolution")
        let packing = ChannelTilePacking(weights: weights, bias: bias, outputChannels: outputChannels,
                                         perChannel: inputChannels, group: pointwiseGroup, what: "1x1")
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        packed = packing.packed
        self.bias = packing.bias
    }

    /// Weights already packed as ``ChannelTilePacking`` packs them (groups of ``pointwiseGroup``),
    /// and a bias of whole 8-channel tiles; both shared, not copied.
    init(packed: FloatBuffer, bias: FloatBuffer, outputChannels: Int, inputChannels: Int) {
        precondition(bias.count >= (outputChannels + 7) / 8 * 8, "1x1 bias: whole tiles of 8 channels")
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        self.packed = packed
        self.bias = bias
    }

    /// Multiply-adds per pixel.
    package var macsPerPixel: Int { inputChannels * outputChannels }
}

/// Output channels per packed group of the 1x1 weights: the channels of the micro-kernel's
/// register tile (8; 2 with ``narrowRegisterFile``, whose `Tile2` then reads its weights for one
/// input channel from one 32-byte run instead of two runs 128 bytes apart).
@inline(__always)
var pointwiseGroup: Int { narrowRegisterFile ? 2 : 8 }

/// Filters of `outputChannels` output channels, `perChannel` floats each (ONNX's [Cout, …]
/// row-major), packed in groups of `group` output channels, each group stored as
/// [filter element][group] with every weight ``packedWeightLanes`` floats wide; missing channels
/// of the last group are zero. The bias is padded with zeros to a multiple of 8 (a `Tile8` reads
/// 8 bias values whatever the group).
struct ChannelTilePacking {
    let packed: FloatBuffer
    let bias: FloatBuffer

    init(weights: [Float], bias: [Float]?, outputChannels: Int, perChannel: Int, group: Int = 8, what: String) {
        precondition(weights.count == outputChannels * perChannel, "\(what) weights: expected \(outputChannels)x\(perChannel)")
        precondition(bias == nil || bias!.count == outputChannels, "\(what) bias: expected \(outputChannels)")
        let groups = (outputChannels + group - 1) / group, l = packedWeightLanes
        packed = FloatBuffer(count: groups * group * perChannel * l)
        self.bias = FloatBuffer(count: roundUp(outputChannels, toMultipleOf: 8))
        for o in 0..<outputChannels {
            let g = o / group, lane = o % group
            for i in 0..<perChannel {
                let at = ((g * perChannel + i) * group + lane) * l
                for j in 0..<l { packed.baseAddress[at + j] = weights[o * perChannel + i] }
            }
            self.bias.baseAddress[o] = bias?[o] ?? 0
        }
    }

    /// Packed weight `element` of output channel `first` (any channel of a group) from `base`.
    @inline(__always)
    static func offset(firstChannel first: Int, perChannel: Int, element: Int = 0, group: Int = 8) -> Int {
        (((first / group) * perChannel + element) * group + first % group) * packedWeightLanes
    }
}

/// 1x1 convolution with bias, activation and optional residual:
/// `output[o] = act(bias[o] + Σ_i w[o][i]·input[i]) + residual[o]`, and with `rectifiesSum`
/// max(that sum, 0) (a Relu after the residual Add; NaN stays NaN, as the Relu node keeps it).
///
/// A GEMM over pixels: a register tile of 8 output channels × 48 pixels (24 accumulators),
/// the input panel packed to contiguous scratch when more than two channel tiles reuse it or the
/// output overlaps the input.
/// Every output element is the bias followed by fused multiply-adds in input-channel order,
/// whatever the tile and the thread, so results do not depend on the thread count.
///
/// - Precondition: `input` is dense with `weights.inputChannels` channels; `output` (any layout,
///   e.g. padded for a following depthwise convolution) and `residual` (any layout) have
///   `weights.outputChannels` channels and the input's width and height. The pool's scratch
///   holds ``pointwiseScratch(inputChannels:)``.
package func pointwiseConvolution(
    _ input: FeatureMap, weights: PointwiseWeights, activation: Activation,
    residual: FeatureMap? = nil, rectifiesSum: Bool = false, output: FeatureMap, pool: WorkerPool
) {
    precondition(input.layout.isDense, "1x1 convolution input must be dense")
    precondition(!rectifiesSum || residual != nil, "1x1 convolution: a rectified sum needs a residual")
    precondition(input.channels == weights.inputChannels && output.channels == weights.outputChannels,
                 "1x1 convolution channel mismatch")
    precondition(output.layout.width == input.layout.width && output.layout.height == input.layout.height,
                 "1x1 convolution size mismatch")
    if let residual {
        precondition(residual.channels == output.channels && residual.layout.width == input.layout.width
                     && residual.layout.height == input.layout.height, "1x1 residual shape mismatch")
    }
    precondition(pool.holds(pointwiseScratch(inputChannels: weights.inputChannels)),
                 "1x1 convolution of \(weights.inputChannels) input channels: pool scratch too small")
    pool.run(PointwiseParts(input: input, weights: weights, activation: activation, residual: residual,
                            floor: sumFloor(rectifiesSum: rectifiesSum), output: output, pixels: input.pixels))
}

/// The 1x1 convolution split over pixels (whole 48-pixel tiles, or tiles and their extra column)
/// between threads; on maps of fewer 48-pixel chunks than threads (7×7: one chunk and a column),
/// over tiles of output channels instead, when the output does not overlap the input (a thread
/// would write planes another still reads).
struct PointwiseParts: PoolJob {
    let input: FeatureMap, weights: PointwiseWeights, activation: Activation
    let residual: FeatureMap?, floor: Float, output: FeatureMap, pixels: Int
    func run(part: Int, pool: WorkerPool) {
        let cout = weights.outputChannels, tiles = (cout + pointwiseGroup - 1) / pointwiseGroup
        let byChannels = pool.threadCount > 1 && pixels / Row48.width < pool.threadCount && tiles >= pool.threadCount
            && !output.overlaps(input)
        let (pixelPart, pixelParts) = byChannels ? (0, 1) : (part, pool.threadCount)
        var channels = 0..<cout
        if byChannels {
            let mine = WorkerPool.range(tiles, part: part, of: pool.threadCount)
            channels = mine.lowerBound * pointwiseGroup..<min(cout, mine.upperBound * pointwiseGroup)
        }
        var range = WorkerPool.range(pixels, part: pixelPart, of: pixelParts, granularity: Row48.width)
        var columnPixels = pixels..<pixels
        let columns = narrowRegisterFile ? 0 : pointwiseColumns(pixels: pixels)
        if columns > 0 {
            // The last pixels ride on the chunks as columns, in chunk order: each thread takes its
            // chunks' columns.
            let chunks = pixels / Row48.width, mine = WorkerPool.range(chunks, part: pixelPart, of: pixelParts)
            range = mine.lowerBound * Row48.width..<mine.upperBound * Row48.width
            columnPixels = chunks * Row48.width + min(mine.lowerBound, columns)..<chunks * Row48.width + min(mine.upperBound, columns)
        }
        let job = PointwiseJob(input: input, weights: weights, residual: residual, floor: floor, output: output,
                               pixels: range, columnPixels: columnPixels, channels: channels, scratch: pool.scratch(part))
        switch activation {
        case .none: pointwiseRange(job, Identity.self)
        case .relu: pointwiseRange(job, ReLU.self)
        case .relu6: pointwiseRange(job, ReLU6.self)
        case .hardSwish: pointwiseRange(job, HardSwish.self)
        case .sigmoid: pointwiseRange(job, Sigmoid.self)
        case .silu: pointwiseRange(job, SiLU.self)
        }
    }
}

/// Floats of thread scratch ``pointwiseConvolution(_:weights:activation:residual:output:pool:)``
/// uses for `inputChannels` input channels: the packed input panel (`inputChannels` rows of the
/// widest register tile's pixels) from offset 0, then one spilled register tile
/// (``PointwiseJob/tileOffset``), a vector's slack (a row segment's vector is loaded from any
/// lane of the tile's last row), a chunk's row pieces (``PointwiseJob/piecesOffset``) and its
/// extra pixel's inputs (``PointwiseJob/columnOffset``).
package func pointwiseScratch(inputChannels: Int) -> ScratchSize {
    ScratchSize(perThread: (inputChannels + pointwiseGroup) * pointwisePanelWidth + lanes + pointwisePiecesFloats
                    + roundUp(inputChannels, toMultipleOf: lanes))
}

/// Floats of scratch for a chunk's row pieces (``pointwiseStorePieces(_:_:rowWidth:firstChannel:channels:pixel:)``).
let pointwisePiecesFloats = 2 * lanes

/// Pixels of the widest 1x1 register tile (`Tile8<Row48>`; `Tile2<Row16>` with ``narrowRegisterFile``):
/// the width of a packed panel row and of a spilled tile row.
@inline(__always)
var pointwisePanelWidth: Int { narrowRegisterFile ? Row16.width : Row48.width }

struct PointwiseJob {
    var input: FeatureMap
    var weights: PointwiseWeights
    var residual: FeatureMap?
    /// The floor of the sum with the residual (``sumFloor(rectifiesSum:)``).
    var floor: Float
    var output: FeatureMap
    var pixels: Range<Int>
    /// Pixels after the map's whole chunks computed as columns of this job's chunks, the i-th
    /// with its i-th chunk (``pointwiseColumns(pixels:)``); empty when there are none.
    var columnPixels: Range<Int> = 0..<0
    /// The output channels this job computes (whole tiles of ``pointwiseGroup`` from its first).
    var channels: Range<Int>
    /// Thread scratch (``pointwiseScratch(inputChannels:)``): the packed panel from 0, a spilled
    /// tile from ``tileOffset``.
    var scratch: UnsafeMutableBufferPointer<Float>

    /// Where a spilled tile starts in scratch: after the largest panel (whole vectors, so aligned).
    var tileOffset: Int { weights.inputChannels * pointwisePanelWidth }

    /// Where a chunk's row pieces are kept in scratch: after the spilled tile and its vector of slack.
    var piecesOffset: Int { tileOffset + pointwiseGroup * pointwisePanelWidth + lanes }

    /// Where a chunk's extra pixel's inputs are copied (``pointwiseColumns(pixels:)``): after the pieces.
    var columnOffset: Int { piecesOffset + pointwisePiecesFloats }
}

/// The pixels `job.pixels` of all output channels; specialised per activation.
@inline(never)
func pointwiseRange<A: ActivationFunction>(_ job: PointwiseJob, _: A.Type) {
    if narrowRegisterFile {
        pointwiseChunks(job, A.self, Tile2<Row16>.self, tail: Tile2<Row16>.self)
    } else {
        pointwiseChunks(job, A.self, Tile8<Row48>.self, tail: Tile8<Row16>.self)
    }
}

/// How many of the pixels past a map's whole 48-pixel chunks ride on the chunks as one extra
/// pixel each (a register tile's ninth column, ``pointwiseChunk(_:_:_:pixel:packPanel:column:)``)
/// instead of taking a 16-pixel tail vector: up to 7 of them (an extra pixel costs one
/// multiply-add per input channel where the tail vector costs eight), at most one per chunk, on
/// maps of at most 3 chunks (a tile's loop with the column is slower than without, so a map of
/// more chunks keeps its tail). 49 pixels (a 7x7 map) are one chunk and a column.
func pointwiseColumns(pixels: Int) -> Int {
    let chunks = pixels / Row48.width, rest = pixels - chunks * Row48.width
    return chunks <= 3 && rest <= min(7, chunks) ? rest : 0
}

/// Chunks of `T.Row.width` pixels, each through every group of `T.channels` output channels
/// (a slice of the weights' 8-channel packing), then the remaining pixels through `U`.
@inline(always)
func pointwiseChunks<A: ActivationFunction, T: ChannelTile, U: ChannelTile>(
    _ job: PointwiseJob, _: A.Type, _: T.Type, tail _: U.Type
) where U.Row == Row16 {
    assert(T.channels == pointwiseGroup && U.channels == pointwiseGroup, "tiles must read whole packed groups")
    let cout = job.weights.outputChannels
    // Up to two channel tiles read the input planes directly (the second finds the strip in L1);
    // more tiles, or an output written over the input, read a packed copy.
    let directTiles = narrowRegisterFile ? 1 : 2
    let packPanel = cout > directTiles * T.channels || (cout > T.channels && job.output.overlaps(job.input))
    precondition(T.Row.width <= pointwisePanelWidth && job.columnOffset + job.weights.inputChannels <= job.scratch.count,
                 "1x1 convolution: thread scratch too small for the panel and the spilled tile")
    var p = job.pixels.lowerBound, q = job.columnPixels.lowerBound
    while q < job.columnPixels.upperBound {
        pointwiseChunkWithColumn(job, A.self, T.self, pixel: p, packPanel: packPanel, column: q)
        p += T.Row.width
        q += 1
    }
    while p + T.Row.width <= job.pixels.upperBound {
        pointwiseChunk(job, A.self, T.self, pixel: p, packPanel: packPanel, column: nil)
        p += T.Row.width
    }
    while p < job.pixels.upperBound {
        pointwiseTailChunk(job, A.self, U.self, pixel: p)
        p += lanes
    }
}

/// ``pointwiseChunk(_:_:_:pixel:packPanel:column:)`` with a column, out of line: the plain
/// chunk's loop, which every map runs, stays as compact as it is without columns.
@inline(never)
private func pointwiseChunkWithColumn<A: ActivationFunction, T: ChannelTile>(
    _ job: PointwiseJob, _: A.Type, _: T.Type, pixel p: Int, packPanel: Bool, column: Int
) {
    pointwiseChunk(job, A.self, T.self, pixel: p, packPanel: packPanel, column: column)
}

/// The `T.Row.width` pixels from `p` through every channel tile: stored straight into the output
/// when the chunk is contiguous there (and a residual, if any, is dense), else through the
/// spilled tile. With a `column` pixel (8-channel tiles, packed weights one float wide) that
/// pixel too, in one more accumulator: lane r is channel r's sum, the weights of the tile's
/// eight channels for an input channel (consecutive in the packing) times the pixel's input.
@inline(always)
private func pointwiseChunk<A: ActivationFunction, T: ChannelTile>(
    _ job: PointwiseJob, _: A.Type, _: T.Type, pixel p: Int, packPanel: Bool, column columnPixel: Int?
) {
    let weights = job.weights, output = job.output
    let k = weights.inputChannels
    let width = T.Row.width, vectors = T.Row.width / lanes
    let outPlane = output.layout.planeStride
    let (panel, panelStride) = packPanel
        ? (pointwisePackedPanel(job, pixel: p, count: width, vectors: vectors), width)
        : (UnsafePointer(job.input.base + p), job.input.layout.planeStride)
    let a0 = ChunkAddress(pixel: p, count: lanes, layout: output.layout)
    let a1 = vectors > 1 ? ChunkAddress(pixel: p + 16, count: lanes, layout: output.layout) : a0
    let a2 = vectors > 2 ? ChunkAddress(pixel: p + 32, count: lanes, layout: output.layout) : a0
    // A dense residual is read at the same plane offsets in the direct store.
    let denseResidual = job.residual.flatMap { $0.layout.isDense ? $0 : nil }
    let direct = a0.contiguous && a1.contiguous && a2.contiguous && (job.residual == nil || denseResidual != nil)
    // A chunk crossing row ends of a padded output (rows of 5 or more): each vector stored by its
    // row pieces with masked stores (AVX-512), not pixel run by pixel run.
    let piecewise = !direct && wideRegisterFile && ChunkPieces.fits(output.layout)
        && (job.residual == nil || denseResidual != nil)
    // The extra pixel's inputs: a contiguous copy in scratch when the panel is packed.
    let column = columnPixel != nil, q = columnPixel ?? 0
    let columnOffset = column ? ChunkAddress(pixel: q, count: 1, layout: output.layout).offset : 0
    let (columnInput, columnStride) = !column ? (panel, 0)
        : packPanel ? (pointwisePackedColumn(job, pixel: q), 1)
        : (UnsafePointer(job.input.base + q), job.input.layout.planeStride)
    var first = job.channels.lowerBound
    while first < job.channels.upperBound {
        var extra = Vector()
        let t = column
            ? pointwiseTile(T.self, panel, stride: panelStride, k: k,
                            weights: pointwiseTileWeights(weights, firstChannel: first), bias: weights.bias.baseAddress + first,
                            streamed: p == job.pixels.lowerBound, column: columnInput, columnStride: columnStride, extra: &extra)
            : pointwiseTile(T.self, panel, stride: panelStride, k: k,
                            weights: pointwiseTileWeights(weights, firstChannel: first), bias: weights.bias.baseAddress + first,
                            streamed: p == job.pixels.lowerBound)
        let channels = min(T.channels, job.channels.upperBound - first)
        if column {
            // The column's sums as they are; activated (and the residual added) after the last tile.
            let at = output.base + first * outPlane + columnOffset
            for r in 0..<channels { at[r * outPlane] = extra[r] }
        }
        if direct, let residual = denseResidual, job.floor == -.infinity {
            t.forEachRow(channels, ActivatedStore<A, T.Row>(
                base: output.base + first * outPlane, planeStride: outPlane,
                o0: a0.offset, o1: a1.offset, o2: a2.offset,
                residual: UnsafePointer(residual.base + first * residual.layout.planeStride + p),
                residualPlane: residual.layout.planeStride, r0: 0, r1: 16, r2: 32))
        } else if direct, let residual = denseResidual {
            t.forEachRow(channels, RectifiedSumStore<A, T.Row>(
                base: output.base + first * outPlane, planeStride: outPlane,
                o0: a0.offset, o1: a1.offset, o2: a2.offset,
                residual: UnsafePointer(residual.base + first * residual.layout.planeStride + p),
                residualPlane: residual.layout.planeStride, r0: 0, r1: 16, r2: 32, floor: job.floor))
        } else if direct {
            t.forEachRow(channels, ActivatedStore<A, T.Row>(
                base: output.base + first * outPlane, planeStride: outPlane,
                o0: a0.offset, o1: a1.offset, o2: a2.offset))
        } else if piecewise {
            t.spill(to: job.scratch.baseAddress! + job.tileOffset)
            pointwiseStorePieces(job, A.self, rowWidth: width, firstChannel: first, channels: channels, pixel: p)
        } else {
            t.spill(to: job.scratch.baseAddress! + job.tileOffset)
            pointwiseStoreSpilled(job, A.self, rowWidth: width, firstChannel: first, channels: channels,
                                  pixel: p, count: width)
        }
        first += T.channels
    }
    if column { pointwiseFinishColumn(job, A.self, pixel: q) }
}

/// The last pixels from `p` (up to one vector) through every channel tile `U`, always through the
/// spilled tile.
@inline(always)
private func pointwiseTailChunk<A: ActivationFunction, U: ChannelTile>(
    _ job: PointwiseJob, _: A.Type, _: U.Type, pixel p: Int
) where U.Row == Row16 {
    let weights = job.weights
    let k = weights.inputChannels, cout = weights.outputChannels
    let count = min(lanes, job.pixels.upperBound - p)
    var panel = UnsafePointer(job.input.base + p), panelStride = job.input.layout.planeStride
    if count < lanes || cout > U.channels {
        // Copy the tail into zero-filled scratch so the micro-kernel never reads past the
        // input, and so that an output written over the input (same buffer) cannot change
        // what a later channel tile reads.
        var src = UnsafePointer(job.input.base + p), dst = job.scratch.baseAddress!
        for _ in 0..<k {
            store(load(src, count: count), dst)
            src += job.input.layout.planeStride; dst += lanes
        }
        panel = UnsafePointer(job.scratch.baseAddress!)
        panelStride = lanes
    }
    var first = job.channels.lowerBound
    while first < job.channels.upperBound {
        let t = pointwiseTile(U.self, panel, stride: panelStride, k: k,
                              weights: pointwiseTileWeights(weights, firstChannel: first), bias: weights.bias.baseAddress + first,
                              streamed: p == job.pixels.lowerBound)
        t.spill(to: job.scratch.baseAddress! + job.tileOffset)
        pointwiseStoreSpilled(job, A.self, rowWidth: Row16.width, firstChannel: first,
                              channels: min(U.channels, job.channels.upperBound - first), pixel: p, count: count)
        first += U.channels
    }
}

/// The input panel of pixels `p..<p + count` (`vectors` whole vectors), copied from every input
/// plane into thread scratch, rows `count` floats apart. The next chunk's pixels of each plane
/// are asked for (``vbg_prefetch``) as this one's are copied: one stream per input plane is more
/// than the hardware prefetchers follow, and a model whose weights outgrow the caches finds its
/// first layers' maps in memory.
@inline(always)
private func pointwisePackedPanel(_ job: PointwiseJob, pixel p: Int, count: Int, vectors: Int) -> UnsafePointer<Float> {
    let planeStride = job.input.layout.planeStride
    let ahead = p + 2 * count <= job.pixels.upperBound
    var src = UnsafePointer(job.input.base + p), dst = job.scratch.baseAddress!
    for _ in 0..<job.weights.inputChannels {
        if ahead {
            // The next `count` floats span up to `vectors + 1` cache lines.
            for v in 0..<vectors { vbg_prefetch(src + count + v * lanes) }
            vbg_prefetch(src + 2 * count - 1)
        }
        for v in 0..<vectors { store(load(src + v * lanes), dst + v * lanes) }
        src += planeStride; dst += count
    }
    return UnsafePointer(job.scratch.baseAddress!)
}

/// The inputs of pixel `p` (every input channel's), copied to thread scratch one after another
/// (``PointwiseJob/columnOffset``).
@inline(always)
private func pointwisePackedColumn(_ job: PointwiseJob, pixel p: Int) -> UnsafePointer<Float> {
    let planeStride = job.input.layout.planeStride
    let dst = job.scratch.baseAddress! + job.columnOffset
    var src = UnsafePointer(job.input.base + p)
    for i in 0..<job.weights.inputChannels {
        dst[i] = src.pointee
        src += planeStride
    }
    return UnsafePointer(dst)
}

/// A column's sums, stored as they are in every output channel at `pixel`, activated and plus the
/// residual's same pixel (raised to the floor), 16 channels at a time.
@inline(never)
func pointwiseFinishColumn<A: ActivationFunction>(_ job: PointwiseJob, _: A.Type, pixel: Int) {
    let output = job.output, cout = job.channels.upperBound
    let plane = output.layout.planeStride, at = output.base + ChunkAddress(pixel: pixel, count: 1, layout: output.layout).offset
    var residualAt: UnsafeMutablePointer<Float>? = nil, residualPlane = 0
    if let residual = job.residual {
        residualAt = residual.base + ChunkAddress(pixel: pixel, count: 1, layout: residual.layout).offset
        residualPlane = residual.layout.planeStride
    }
    var c = job.channels.lowerBound
    while c < cout {
        let n = min(lanes, cout - c)
        var v = Vector()
        for i in 0..<n { v[i] = at[(c + i) * plane] }
        v = A.apply(v)
        if let residualAt {
            var r = Vector()
            for i in 0..<n { r[i] = residualAt[(c + i) * residualPlane] }
            v = raised(v + r, to: job.floor)
        }
        for i in 0..<n { at[(c + i) * plane] = v[i] }
        c += lanes
    }
}

/// The packed weights of the channel tile starting at output channel `first`.
@inline(always)
private func pointwiseTileWeights(_ weights: PointwiseWeights, firstChannel first: Int) -> UnsafePointer<Float> {
    UnsafePointer(weights.packed.baseAddress + ChannelTilePacking.offset(firstChannel: first, perChannel: weights.inputChannels,
                                                                          group: pointwiseGroup))
}

/// The micro-kernel: bias plus Σ_k w[k][r]·x[k] for the tile's channels r over one pixel row;
/// `weights` points at the tile's first channel in the [input channel][``pointwiseGroup``] packing
/// (``ChannelTilePacking``).
@inline(always)
func pointwiseTile<T: ChannelTile>(
    _: T.Type, _ x: UnsafePointer<Float>, stride: Int, k: Int,
    weights: UnsafePointer<Float>, bias: UnsafePointer<Float>, streamed: Bool = false
) -> T {
    var tile = T(bias: bias)
    var xp = x, wp = weights
    if streamed {
        // The first chunk of pixels reads the weights from beyond the L2 (``PanelReading``).
        for _ in 0..<k {
            vbg_prefetch(wp + prefetchDistance)
            tile.accumulate(wp, T.Row(xp))
            xp += stride
            wp += pointwiseGroup * packedWeightLanes
        }
    } else {
        for _ in 0..<k {
            tile.accumulate(wp, T.Row(xp))
            xp += stride
            wp += pointwiseGroup * packedWeightLanes
        }
    }
    return tile
}

/// Activation, dense residual and store of a tile of whole vectors spilled to scratch, each vector
/// by its row pieces in the output (masked stores, AVX-512): a padded output's chunks that cross
/// row ends. Out of line, as ``pointwiseStoreSpilled(_:_:rowWidth:firstChannel:channels:pixel:count:)``:
/// inlined, its stores made the register allocator spill in the tiles' multiply-add loop.
/// The chunk's pieces are worked out for its first channel tile and kept in scratch
/// (``PointwiseJob/piecesOffset``) for the others.
@inline(never)
func pointwiseStorePieces<A: ActivationFunction>(
    _ job: PointwiseJob, _: A.Type, rowWidth: Int, firstChannel: Int, channels: Int, pixel: Int
) {
    typealias Pieces = (ChunkPieces, ChunkPieces, ChunkPieces)
    let tile = UnsafePointer(job.scratch.baseAddress! + job.tileOffset)
    let output = job.output, vectors = rowWidth / lanes
    let kept = UnsafeMutableRawPointer(job.scratch.baseAddress! + job.piecesOffset)
    // Computed at the job's first channel tile of each chunk, kept for the tiles after it.
    if firstChannel == job.channels.lowerBound {
        let layout = output.layout
        kept.storeBytes(of: (ChunkPieces(layout, pixel: pixel, count: lanes),
                             vectors > 1 ? ChunkPieces(layout, pixel: pixel + lanes, count: lanes) : ChunkPieces(),
                             vectors > 2 ? ChunkPieces(layout, pixel: pixel + 2 * lanes, count: lanes) : ChunkPieces()),
                        as: Pieces.self)
    }
    assert(MemoryLayout<Pieces>.size <= pointwisePiecesFloats * MemoryLayout<Float>.size)
    let pieces = kept.load(as: Pieces.self)
    for r in 0..<channels {
        let plane = output.base + (firstChannel + r) * output.layout.planeStride
        let values = tile + r * rowWidth
        var y0 = A.apply(load(values)), y1 = vectors > 1 ? A.apply(load(values + lanes)) : y0
        var y2 = vectors > 2 ? A.apply(load(values + 2 * lanes)) : y0
        if let residual = job.residual {
            let add = UnsafePointer(residual.base + (firstChannel + r) * residual.layout.planeStride + pixel)
            y0 = raised(y0 + load(add), to: job.floor)
            if vectors > 1 { y1 = raised(y1 + load(add + lanes), to: job.floor) }
            if vectors > 2 { y2 = raised(y2 + load(add + 2 * lanes), to: job.floor) }
        }
        pieces.0.store(y0, plane)
        if vectors > 1 { pieces.1.store(y1, plane) }
        if vectors > 2 { pieces.2.store(y2, plane) }
    }
}

/// ``pointwiseTile(_:_:stride:k:weights:bias:streamed:)`` and one more pixel: `extra` (lanes 0 ..< 8,
/// channel r in lane r) is the bias plus Σ_k w[k][r]·column[k · columnStride], in the same order.
/// 8-channel tiles whose packed weights are one float wide (``packedWeightLanes``).
@inline(always)
func pointwiseTile<T: ChannelTile>(
    _: T.Type, _ x: UnsafePointer<Float>, stride: Int, k: Int,
    weights: UnsafePointer<Float>, bias: UnsafePointer<Float>, streamed: Bool,
    column: UnsafePointer<Float>, columnStride: Int, extra: inout Vector
) -> T {
    assert(T.channels == 8 && packedWeightLanes == 1, "a column needs 8 channels of one-float weights")
    var tile = T(bias: bias)
    var sums = load(bias, count: 8)
    var xp = x, wp = weights, cp = column
    // The tile's 8 weights for an input channel: one 32-byte load (vbg_load_eight).
    if streamed {
        for _ in 0..<k {
            vbg_prefetch(wp + prefetchDistance)
            tile.accumulate(wp, T.Row(xp))
            sums = multiplyAdd(sums, vbg_load_eight(wp), Vector(repeating: cp.pointee))
            xp += stride; cp += columnStride
            wp += pointwiseGroup
        }
    } else {
        for _ in 0..<k {
            tile.accumulate(wp, T.Row(xp))
            sums = multiplyAdd(sums, vbg_load_eight(wp), Vector(repeating: cp.pointee))
            xp += stride; cp += columnStride
            wp += pointwiseGroup
        }
    }
    extra = sums
    return tile
}

/// Activation, residual and store of a tile spilled to scratch, for any layout (rows crossing
/// a padded row end, residuals, tails).
@inline(never)
func pointwiseStoreSpilled<A: ActivationFunction>(
    _ job: PointwiseJob, _: A.Type, rowWidth: Int, firstChannel: Int, channels: Int, pixel: Int, count: Int
) {
    let tile = UnsafePointer(job.scratch.baseAddress! + job.tileOffset)
    let output = job.output, layout = output.layout
    // A padded output written over nothing this job reads: the chunk's row segments are stored
    // as whole vectors, zero past the segment (`storeRowSegments`), when every interior pixel those
    // zeros can reach (up to 30 past the vector's first) is stored later by this job or lies past
    // the map.
    let segments = job.residual == nil && layout.pad >= 1 && !layout.isDense && !output.overlaps(job.input)
        && (pixel + count + 2 * lanes <= job.pixels.upperBound || job.pixels.upperBound == output.pixels)
    var v = 0
    while v * lanes < count {
        let n = min(lanes, count - v * lanes)
        if segments {
            // One division per vector: its first row segment, the others whole rows on.
            let first = pixel + v * lanes, w = layout.width
            let y = first / w, x = first - y * w
            let head = min(w - x, n)
            if head < n {
                let start = layout.origin + y * layout.rowStride + x
                let headMask = laneMask(from: head)
                for r in 0..<channels {
                    let values = tile + r * rowWidth + v * lanes
                    let plane = output.base + (firstChannel + r) * layout.planeStride
                    store(A.apply(load(values)).replacing(with: 0, where: headMask), plane + start)
                    storeRowSegments(A.self, values + head, plane + start - x + layout.rowStride, width: w,
                                     rowStride: layout.rowStride, count: n - head)
                }
                v += 1
                continue
            }
        }
        let address = ChunkAddress(pixel: pixel + v * lanes, count: n, layout: job.output.layout)
        let residualAddress = job.residual.map { ChunkAddress(pixel: pixel + v * lanes, count: n, layout: $0.layout) }
        for r in 0..<channels {
            var y = A.apply(load(tile + r * rowWidth + v * lanes))
            if let residual = job.residual, let residualAddress {
                y = raised(y + residual.load(channel: firstChannel + r, at: residualAddress), to: job.floor)
            }
            job.output.store(y, channel: firstChannel + r, at: address)
        }
        v += 1
    }
}

/// `count` activated values at `values` into rows of `width` pixels from the start of the row at
/// `row` on, one whole-vector store per row: the row's values, then zeros (on the row's right
/// border, the next row's left border and the first pixels after the segment, which later
/// stores overwrite). Reads up to 15 floats past `values + count`.
@inline(always)
func storeRowSegments<A: ActivationFunction>(_: A.Type, _ values: UnsafePointer<Float>, _ row: UnsafeMutablePointer<Float>,
                                             width: Int, rowStride: Int, count: Int) {
    var done = 0, row = row
    while done < count {
        let n = min(width, count - done)
        let v = A.apply(load(values + done))
        store(n == lanes ? v : v.replacing(with: 0, where: laneMask(from: n)), row)
        done += n
        row += rowStride
    }
}
