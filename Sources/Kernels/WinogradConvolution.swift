/// Dense 3×3 stride-1 convolution weights transformed for Winograd's F(2×2, 3×3)
/// (``winogradConvolution(_:weights:padTop:padLeft:activation:residual:rectifiesSum:output:pool:sharedOffset:form:)``):
/// per output and input channel U = G·g·Gᵀ (4×4, computed in Double and rounded once), with
/// G = [[1, 0, 0], [½, ½, ½], [½, −½, ½], [0, 0, 1]]; one matrix per position ξ of the 4×4
/// (16), each packed in tiles of 8 output channels [input channel][8] (``ChannelTilePacking``).
package final class WinogradWeights {
    package let outputChannels: Int
    package let inputChannels: Int
    let packed: [FloatBuffer]
    let bias: FloatBuffer
    /// Eight zeros: the GEMM's accumulators start there (the bias is added after the output transform).
    let zeros = FloatBuffer(count: 8)
    /// The 16 matrices as 1x1 weights of zero bias, for the whole-map form's products (the same buffers).
    let products: [PointwiseWeights]

    var tiles: Int { (outputChannels + 7) / 8 }

    /// `weights` as ONNX's [Cout, Cin, 3, 3] (row-major), `bias` Cout values or zero when nil.
    package init(weights: [Float], bias: [Float]?, outputChannels: Int, inputChannels: Int) {
        precondition(weights.count == outputChannels * inputChannels * 9, "Winograd weights: expected \(outputChannels)x\(inputChannels)x3x3")
        let g: [[Double]] = [[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]]
        var transformed = [[Float]](repeating: [Float](repeating: 0, count: outputChannels * inputChannels), count: 16)
        for o in 0..<outputChannels {
            for i in 0..<inputChannels {
                let k = (o * inputChannels + i) * 9
                // G·k (4×3), then (G·k)·Gᵀ (4×4).
                var left = [[Double]](repeating: [0, 0, 0], count: 4)
                for r in 0..<4 {
                    for c in 0..<3 { left[r][c] = (0..<3).reduce(0) { $0 + g[r][$1] * Double(weights[k + $1 * 3 + c]) } }
                }
                for r in 0..<4 {
                    for c in 0..<4 {
                        transformed[r * 4 + c][o * inputChannels + i] = Float((0..<3).reduce(0) { $0 + left[r][$1] * g[c][$1] })
                    }
                }
            }
        }
        self.outputChannels = outputChannels
        self.inputChannels = inputChannels
        packed = transformed.map {
            ChannelTilePacking(weights: $0, bias: nil, outputChannels: outputChannels, perChannel: inputChannels,
                               what: "Winograd convolution").packed
        }
        self.bias = FloatBuffer(bias ?? [Float](repeating: 0, count: outputChannels))
        let zeroBias = FloatBuffer(count: (outputChannels + 7) / 8 * 8)
        products = packed.map { PointwiseWeights(packed: $0, bias: zeroBias, outputChannels: outputChannels, inputChannels: inputChannels) }
    }
}

/// Whether ``winogradConvolution(_:weights:padTop:padLeft:activation:residual:rectifiesSum:output:pool:sharedOffset:form:)``
/// takes a 3×3 stride-1 convolution: a build with 32 vector registers (AVX-512: the products'
/// tile of 8 × 48 accumulators), at least 16 input and 16 output channels and 512 channel pairs
/// (on fewer the transforms cost as much as they save), and at least 64 output tiles of 2×2
/// (maps of 16×16 and more: on fewer the transformed weights, 16/9 of the direct kernel's, cost
/// more to stream from memory than the multiplications save).
package func winogradFits(inputChannels: Int, outputChannels: Int, outputWidth: Int, outputHeight: Int) -> Bool {
    wideRegisterFile && inputChannels >= 16 && outputChannels >= 16 && inputChannels * outputChannels >= 512
        && (outputWidth + 1) / 2 * ((outputHeight + 1) / 2) >= 64
}

/// The Winograd kernel's blocking: the output's 2×2 tiles, row-major, in bands of whole tile rows
/// whose transformed input (16 × channels × tiles floats) fits about a megabyte; or, when the
/// transformed weights are large and the map takes more than one band (``wholeMap``), every tile
/// at once.
struct WinogradGeometry {
    let tilesWide: Int, tilesHigh: Int
    /// Tile rows per band, and the most tiles a band holds rounded up to a vector.
    let bandRows: Int, bandLanes: Int
    let inputChannels: Int, outputChannels: Int
    /// Whether the map runs as one band whose 16 products are 1x1 convolutions over its tiles
    /// (``pointwiseConvolution(_:weights:activation:residual:output:pool:)``): when the 16
    /// transformed weight matrices (16·Cin·Cout floats) are at least 4 MiB and the bands would
    /// stream them from memory once per band of a few tiles, where the 1x1 kernel streams them
    /// once per 48 tiles and keeps its panel of every input channel in cache.
    let wholeMap: Bool

    /// `form` nil: the form the shape calls for.
    init(inputChannels: Int, outputChannels: Int, outputWidth: Int, outputHeight: Int, form: WinogradForm? = nil) {
        tilesWide = (outputWidth + 1) / 2
        tilesHigh = (outputHeight + 1) / 2
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        let budget = 1 << 18   // floats of transformed input per band
        bandRows = max(1, min(tilesHigh, budget / (16 * inputChannels * tilesWide)))
        // A vector of slack: the output transform loads whole vectors from a band's last tiles.
        bandLanes = roundUp(bandRows * tilesWide, toMultipleOf: lanes) + lanes
        wholeMap = form.map { $0 == .wholeMap } ?? (bandRows < tilesHigh && 16 * inputChannels * outputChannels >= winogradWholeMapWeights)
    }

    /// Floats from one channel's tiles to the next in the whole-map form: every tile, whole vectors.
    var wholeMapStride: Int { roundUp(tilesWide * tilesHigh, toMultipleOf: lanes) }
    /// Floats of shared scratch the whole-map form takes: the transformed input [ξ][input channel][tile],
    /// the products [ξ][output channel][tile], and the 1x1 kernel's slack past the last plane.
    var wholeMapCount: Int { winogradTileScratch(inputChannels: inputChannels, outputChannels: outputChannels, stride: wholeMapStride) }

    var bands: Int { (tilesHigh + bandRows - 1) / bandRows }
    /// Floats from one ξ's transformed input to the next: a cache line more than its channels'
    /// rows, so the 16 stores of a tile group fall in 16 L1 sets, never a multiple of 4 KiB apart.
    var transformedStride: Int { inputChannels * bandLanes + lanes }
    /// Floats from one ξ's products (8 channels) to the next, likewise.
    var productStride: Int { 8 * bandLanes + lanes }
    /// Floats of thread scratch: the band's transformed input, one channel tile's 16 products and
    /// a zero row for the window rows past the input's border.
    var scratchCount: Int { 16 * transformedStride + 16 * productStride + zeroRowCount }
    /// An input row with its border (width + 2·border, at most the output's width + 2 + 16 for a
    /// border of at most 8), as the input transform reads it.
    var zeroRowCount: Int { roundUp(2 * tilesWide + 18 + lanes, toMultipleOf: lanes) }
}

/// How ``winogradConvolution(_:weights:padTop:padLeft:activation:residual:rectifiesSum:output:pool:sharedOffset:form:)``
/// blocks a map (both give the same bits; tests compare them): bands of tile rows, or the whole map.
package enum WinogradForm: Sendable { case bands, wholeMap }

/// Transformed weights (floats, 16·Cin·Cout) from which a map of more than one band runs whole
/// (``WinogradGeometry/wholeMap``): 4 MiB.
let winogradWholeMapWeights = 1 << 20

/// The scratch ``winogradConvolution(_:weights:padTop:padLeft:activation:residual:rectifiesSum:output:pool:sharedOffset:form:)``
/// uses: per thread a band's transforms and products, or in the whole-map form a zero row and the
/// 1x1 kernel's panel; shared, the whole-map form's transformed input and products from
/// `sharedOffset` on.
package func winogradScratch(inputChannels: Int, outputChannels: Int, outputWidth: Int, outputHeight: Int,
                             sharedOffset: Int = 0, form: WinogradForm? = nil) -> ScratchSize {
    let g = WinogradGeometry(inputChannels: inputChannels, outputChannels: outputChannels, outputWidth: outputWidth,
                             outputHeight: outputHeight, form: form)
    guard g.wholeMap else { return ScratchSize(perThread: g.scratchCount) }
    return pointwiseScratch(inputChannels: inputChannels)
        .union(ScratchSize(perThread: g.zeroRowCount, shared: roundUp(sharedOffset, toMultipleOf: lanes) + g.wholeMapCount))
}

/// Dense 3×3 convolution, stride 1, dilation 1, by Winograd's F(2×2, 3×3): each 2×2 output tile
/// from its 4×4 input tile d as Aᵀ·[Σ_cin U ⊙ (Bᵀ·d·B)]·A + bias, then the activation and the
/// residual as ``convolution(_:weights:stride:dilation:padTop:padLeft:activation:residual:rectifiesSum:output:pool:)``
/// applies them. Bᵀ = [[1, 0, −1, 0], [0, 1, 1, 0], [0, −1, 1, 0], [0, 1, 0, −1]],
/// Aᵀ = [[1, 1, 1, 0], [0, 1, −1, −1]].
///
/// Per band of tile rows: the input transform (16 tiles of a tile row at a time, the tile columns
/// deinterleaved from two vectors per window row) into thread scratch, [ξ][input channel][tile];
/// per tile of 8 output channels, 16 GEMMs over input channels (8 channels × 48 tiles of
/// accumulators) into [ξ][channel][tile]; the output transform, stored to the output rows. Bands
/// are split between threads, or output channel tiles when there are fewer bands than threads.
/// In the whole-map form (``WinogradGeometry/wholeMap``) the map is one band in shared scratch:
/// the input transform split over input channels, the 16 products as 1x1 convolutions over its
/// tiles, the output transform split over output channels. Both forms give the same bits: each
/// product is zero followed by fused multiply-adds in input-channel order.
///
/// Rounding differs from the direct kernel's: each output is a sum of 16 products of transformed
/// values (the transforms add and subtract up to 4 inputs, or weights scaled by ½), within a few
/// float32 ulps of the direct sum's largest terms (`Docs/Numerics.md`).
///
/// - Precondition: ``winogradFits(inputChannels:outputChannels:outputWidth:outputHeight:)``; the
///   input border covers the window (`padTop`, `padLeft` within it; the output no larger than the
///   windows the border allows, as the direct kernel checks); the pool's scratch holds
///   ``winogradScratch(inputChannels:outputChannels:outputWidth:outputHeight:sharedOffset:form:)``
///   of the same `form` (the shared scratch before `sharedOffset` is left as it is: the input may
///   lie there); `residual` as the direct kernel's. `form` nil: the form the shape calls for.
package func winogradConvolution(
    _ input: FeatureMap, weights: WinogradWeights, padTop: Int, padLeft: Int, activation: Activation,
    residual: FeatureMap? = nil, rectifiesSum: Bool = false, output: FeatureMap, pool: WorkerPool, sharedOffset: Int = 0,
    form: WinogradForm? = nil
) {
    precondition(input.channels == weights.inputChannels && output.channels == weights.outputChannels, "Winograd convolution channel mismatch")
    precondition(winogradFits(inputChannels: input.channels, outputChannels: output.channels, outputWidth: output.layout.width,
                              outputHeight: output.layout.height), "Winograd convolution: a problem it does not take")
    checkWindow(input.layout, output.layout, kernelSize: 3, stride: 1, dilation: 1, padTop: padTop, padLeft: padLeft,
                kind: "Winograd convolution")
    checkResidual(residual, rectifiesSum: rectifiesSum, output: output, kind: "Winograd convolution")
    let geometry = WinogradGeometry(inputChannels: input.channels, outputChannels: output.channels,
                                    outputWidth: output.layout.width, outputHeight: output.layout.height, form: form)
    precondition(pool.holds(winogradScratch(inputChannels: input.channels, outputChannels: output.channels,
                                            outputWidth: output.layout.width, outputHeight: output.layout.height,
                                            sharedOffset: sharedOffset, form: form)),
                 "Winograd convolution: pool scratch too small")
    let job = WinogradParts(input: input, weights: weights, padTop: padTop, padLeft: padLeft, output: output, residual: residual,
                            floor: sumFloor(rectifiesSum: rectifiesSum), geometry: geometry,
                            wholeMap: geometry.wholeMap ? pool.shared.baseAddress! + roundUp(sharedOffset, toMultipleOf: lanes) : nil)
    if let transformed = job.wholeMap {
        pool.run(WinogradWholeMapInput(job: job))
        winogradTileProducts(transformed, weights: weights, stride: geometry.wholeMapStride, pool: pool)
    }
    switch activation {
    case .none: pool.run(WinogradActivated<Identity>(job: job))
    case .relu: pool.run(WinogradActivated<ReLU>(job: job))
    case .relu6: pool.run(WinogradActivated<ReLU6>(job: job))
    case .hardSwish: pool.run(WinogradActivated<HardSwish>(job: job))
    case .sigmoid: pool.run(WinogradActivated<Sigmoid>(job: job))
    case .silu: pool.run(WinogradActivated<SiLU>(job: job))
    }
}

struct WinogradParts {
    let input: FeatureMap, weights: WinogradWeights, padTop: Int, padLeft: Int
    let output: FeatureMap, residual: FeatureMap?, floor: Float
    let geometry: WinogradGeometry
    /// The whole-map form's shared scratch (``WinogradGeometry/wholeMapCount``), or nil: bands.
    let wholeMap: UnsafeMutablePointer<Float>?
}

/// The whole-map form's input transform, split over input channels, the lanes past the last tile zeroed.
struct WinogradWholeMapInput: PoolJob {
    let job: WinogradParts

    func run(part: Int, pool: WorkerPool) {
        let g = job.geometry, stride = g.wholeMapStride, tiles = g.tilesWide * g.tilesHigh
        let channels = WorkerPool.range(job.input.channels, part: part, of: pool.threadCount)
        guard !channels.isEmpty else { return }
        let zeroRow = pool.scratch(part).baseAddress!
        zeroRow.update(repeating: 0, count: g.zeroRowCount)
        let xiStride = job.input.channels * stride
        winogradInputTransform(job, rows: 0..<g.tilesHigh, channels: channels, into: job.wholeMap!,
                               channelStride: stride, xiStride: xiStride, zeroRow: UnsafePointer(zeroRow))
        for c in channels { zeroTileTails(job.wholeMap! + c * stride, tiles: tiles, stride: stride, xiStride: xiStride) }
    }
}

/// Floats of shared scratch a whole-map form takes for tiles `stride` apart: the transformed input
/// `[ξ][input channel][tile]`, then the products `[ξ][output channel][tile]`, then the 1x1
/// kernel's slack past the last plane.
func winogradTileScratch(inputChannels: Int, outputChannels: Int, stride: Int) -> Int {
    16 * (inputChannels + outputChannels) * stride + PlaneLayout.slack
}

/// Zeroes the lanes past the last tile of one input channel's 16 transformed rows (at `transformed`,
/// ξ `xiStride` apart): the 1x1 kernel computes whole vectors.
@inline(always)
func zeroTileTails(_ transformed: UnsafeMutablePointer<Float>, tiles: Int, stride: Int, xiStride: Int) {
    for xi in 0..<16 { (transformed + xi * xiStride + tiles).update(repeating: 0, count: stride - tiles) }
}

/// The 16 products of a whole-map form: the ξ-th matrix times every tile of the transformed input
/// at `transformed` (``winogradTileScratch(inputChannels:outputChannels:stride:)``'s layout), as a
/// 1x1 convolution over the tiles, into the products after it.
func winogradTileProducts(_ transformed: UnsafeMutablePointer<Float>, weights: WinogradWeights, stride: Int, pool: WorkerPool) {
    let (cin, cout) = (weights.inputChannels, weights.outputChannels)
    let products = transformed + 16 * cin * stride, tiles = PlaneLayout.dense(width: stride, height: 1)
    for xi in 0..<16 {
        pointwiseConvolution(FeatureMap(base: transformed + xi * cin * stride, channels: cin, layout: tiles),
                             weights: weights.products[xi], activation: .none,
                             output: FeatureMap(base: products + xi * cout * stride, channels: cout, layout: tiles), pool: pool)
    }
}

struct WinogradActivated<A: ActivationFunction>: PoolJob {
    let job: WinogradParts

    func run(part: Int, pool: WorkerPool) {
        let g = job.geometry, tiles = job.weights.tiles
        if let transformed = job.wholeMap {
            // The output transform of this part's output channels, from the products after the transformed input.
            let channels = WorkerPool.range(job.output.channels, part: part, of: pool.threadCount)
            guard !channels.isEmpty else { return }
            let stride = g.wholeMapStride, products = transformed + 16 * job.input.channels * stride
            winogradOutputTransform(job, rows: 0..<g.tilesHigh, channels: channels, products: products + channels.lowerBound * stride,
                                    channelStride: stride, xiStride: job.output.channels * stride, A.self)
            return
        }
        let scratch = pool.scratch(part).baseAddress!
        if g.bands >= pool.threadCount {
            let bands = WorkerPool.range(g.bands, part: part, of: pool.threadCount)
            for band in bands { winogradBand(job, band: band, channelTiles: 0..<tiles, scratch: scratch, A.self) }
        } else {
            let channelTiles = WorkerPool.range(tiles, part: part, of: pool.threadCount)
            guard !channelTiles.isEmpty else { return }
            for band in 0..<g.bands { winogradBand(job, band: band, channelTiles: channelTiles, scratch: scratch, A.self) }
        }
    }
}

/// One band of tile rows for the output channel tiles `channelTiles`.
@inline(never)
func winogradBand<A: ActivationFunction>(_ job: WinogradParts, band: Int, channelTiles: Range<Int>,
                                         scratch: UnsafeMutablePointer<Float>, _: A.Type) {
    let g = job.geometry
    let transformed = scratch, products = scratch + 16 * g.transformedStride
    let zeroRow = UnsafeMutablePointer(products + 16 * g.productStride)
    zeroRow.update(repeating: 0, count: g.zeroRowCount)
    let firstRow = band * g.bandRows, rows = firstRow..<min(firstRow + g.bandRows, g.tilesHigh)
    let bandTiles = rows.count * g.tilesWide
    winogradInputTransform(job, rows: rows, channels: 0..<job.input.channels, into: transformed, channelStride: g.bandLanes,
                           xiStride: g.transformedStride, zeroRow: UnsafePointer(zeroRow))
    for tile in channelTiles {
        let channels = min(8, job.output.channels - tile * 8)
        winogradProducts(job, channelTile: tile, tiles: bandTiles, transformed: UnsafePointer(transformed), into: products)
        winogradOutputTransform(job, rows: rows, channels: tile * 8 ..< tile * 8 + channels, products: UnsafePointer(products),
                                channelStride: g.bandLanes, xiStride: g.productStride, A.self)
    }
}

/// Bᵀ·d·B of input channels `channels`' tiles of tile rows `rows`, to `[ξ][channel][tile]`
/// (channels `channelStride` apart, ξ `xiStride` apart).
@inline(never)
func winogradInputTransform(_ job: WinogradParts, rows: Range<Int>, channels: Range<Int>, into transformed: UnsafeMutablePointer<Float>,
                            channelStride stride: Int, xiStride: Int, zeroRow: UnsafePointer<Float>) {
    for c in channels {
        winogradInputPlane(UnsafePointer(job.input.plane(c)), layout: job.input.layout, tilesWide: job.geometry.tilesWide, rows: rows,
                           padTop: job.padTop, padLeft: job.padLeft, into: transformed + c * stride, xiStride: xiStride, zeroRow: zeroRow)
    }
}

/// Bᵀ·d·B of one plane's tiles (`tilesWide` to a tile row) of tile rows `rows`, to `[ξ][tile]`
/// from `transformed` (ξ `xiStride` apart); window rows past the plane's bottom border read `zeroRow`.
@inline(always)
func winogradInputPlane(_ plane: UnsafePointer<Float>, layout inL: PlaneLayout, tilesWide: Int, rows: Range<Int>, padTop: Int,
                        padLeft: Int, into transformed: UnsafeMutablePointer<Float>, xiStride channelStride: Int,
                        zeroRow: UnsafePointer<Float>) {
    // Columns a row of the input holds (its border included), from its first interior column.
    let columnEnd = inL.width + inL.pad, rowEnd = inL.height + inL.pad
    var lane = 0
    for ty in rows {
        let top = 2 * ty - padTop
        @inline(always) func row(_ r: Int) -> UnsafePointer<Float> {
            top + r < rowEnd ? plane + (top + r) * inL.rowStride : zeroRow + inL.pad
        }
        let r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3)
        var tx = 0
        while tx < tilesWide {
            let count = min(lanes, tilesWide - tx)
            let x = 2 * tx - padLeft
            // Columns x + 2i + k of a window row (k = 0 ... 3) for the 16 tiles.
            @inline(always) func columns(_ p: UnsafePointer<Float>) -> (Vector, Vector, Vector, Vector) {
                @inline(always) func at(_ s: Int) -> Vector {
                    let n = columnEnd - s
                    return n >= lanes ? load(p + s) : load(p + s, count: max(n, 0))
                }
                let a = at(x), b = at(x + lanes), a2 = at(x + 2), b2 = at(x + 2 + lanes)
                return (evenLanes(a, b), oddLanes(a, b), evenLanes(a2, b2), oddLanes(a2, b2))
            }
            let (d00, d01, d02, d03) = columns(r0), (d10, d11, d12, d13) = columns(r1)
            let (d20, d21, d22, d23) = columns(r2), (d30, d31, d32, d33) = columns(r3)
            // Bᵀ·d: rows.
            let t00 = d00 - d20, t01 = d01 - d21, t02 = d02 - d22, t03 = d03 - d23
            let t10 = d10 + d20, t11 = d11 + d21, t12 = d12 + d22, t13 = d13 + d23
            let t20 = d20 - d10, t21 = d21 - d11, t22 = d22 - d12, t23 = d23 - d13
            let t30 = d10 - d30, t31 = d11 - d31, t32 = d12 - d32, t33 = d13 - d33
            // (Bᵀ·d)·B: columns; ξ = 4·row + column.
            let out = transformed + lane
            @inline(always) func put(_ xi: Int, _ v: Vector) { store(v, out + xi * channelStride, count: count) }
            put(0, t00 - t02); put(1, t01 + t02); put(2, t02 - t01); put(3, t01 - t03)
            put(4, t10 - t12); put(5, t11 + t12); put(6, t12 - t11); put(7, t11 - t13)
            put(8, t20 - t22); put(9, t21 + t22); put(10, t22 - t21); put(11, t21 - t23)
            put(12, t30 - t32); put(13, t31 + t32); put(14, t32 - t31); put(15, t31 - t33)
            tx += count
            lane += count
        }
    }
}

/// The 16 products of one output channel tile: for each ξ, 8 channels × the band's tiles, summed
/// over input channels, to `[ξ][channel][tile]` (`bandLanes` apart).
@inline(never)
func winogradProducts(_ job: WinogradParts, channelTile: Int, tiles: Int, transformed: UnsafePointer<Float>,
                      into products: UnsafeMutablePointer<Float>) {
    let w = job.weights, cin = w.inputChannels, stride = job.geometry.bandLanes
    let xiStride = job.geometry.transformedStride, productStride = job.geometry.productStride
    let weightOffset = ChannelTilePacking.offset(firstChannel: channelTile * 8, perChannel: cin)
    let step = 8 * packedWeightLanes
    for xi in 0..<16 {
        let weights = UnsafePointer(w.packed[xi].baseAddress + weightOffset), zeros = UnsafePointer(w.zeros.baseAddress)
        let x = transformed + xi * xiStride, out = products + xi * productStride
        var j = 0
        while j + Row48.width <= tiles {
            winogradGemm(Row48.self, weights: weights, step: step, zeros: zeros, x + j, stride: stride, count: cin, into: out + j)
            j += Row48.width
        }
        if j + Row32.width <= roundUp(tiles, toMultipleOf: lanes) {
            winogradGemm(Row32.self, weights: weights, step: step, zeros: zeros, x + j, stride: stride, count: cin, into: out + j)
            j += Row32.width
        }
        if j < tiles {
            winogradGemm(Row16.self, weights: weights, step: step, zeros: zeros, x + j, stride: stride, count: cin, into: out + j)
        }
    }
}

/// 8 channels × one row of tiles: Σ over `count` input channels of weight · transformed value,
/// stored to 8 rows `stride` apart.
@inline(always)
func winogradGemm<Row: PixelRow>(_: Row.Type, weights: UnsafePointer<Float>, step: Int, zeros: UnsafePointer<Float>,
                                 _ x: UnsafePointer<Float>, stride: Int, count: Int, into out: UnsafeMutablePointer<Float>) {
    var acc = Tile8<Row>(bias: zeros)
    var w = weights, x = x
    for _ in 0..<count {
        acc.accumulate(w, Row(x))
        w += step
        x += stride
    }
    acc.forEachRow(8, ActivatedStore<Identity, Row>(base: out, planeStride: stride, o0: 0, o1: lanes, o2: 2 * lanes))
}

/// Aᵀ·m·A + bias of channels `channels` for the tiles of tile rows `rows`, activated, the residual
/// added (raised to the floor), stored to the output (2×2 pixels a tile, cut at its edges); the
/// products of `channels.lowerBound` at `products`, channels `channelStride` apart, ξ `xiStride` apart.
@inline(never)
func winogradOutputTransform<A: ActivationFunction>(_ job: WinogradParts, rows: Range<Int>, channels: Range<Int>,
                                                    products: UnsafePointer<Float>, channelStride stride: Int, xiStride productStride: Int,
                                                    _: A.Type) {
    let residualRow = job.residual?.layout.rowStride ?? 0
    for channel in channels {
        let residualPlane: UnsafePointer<Float>? = if let residual = job.residual { UnsafePointer(residual.plane(channel)) } else { nil }
        winogradOutputPlane(products + (channel - channels.lowerBound) * stride, xiStride: productStride, tilesWide: job.geometry.tilesWide,
                            rows: rows, bias: job.weights.bias.baseAddress[channel], A.self, residual: residualPlane,
                            residualRow: residualRow, floor: job.floor, into: job.output.plane(channel), layout: job.output.layout)
    }
}

/// Aᵀ·m·A + bias of one channel's tiles (`tilesWide` to a tile row) of tile rows `rows`, from
/// `products` (`[ξ][tile]`, ξ `xiStride` apart), activated, the residual (rows `residualRow`
/// apart) added and raised to `floor`, stored to the plane (2×2 pixels a tile, cut at its edges).
@inline(always)
func winogradOutputPlane<A: ActivationFunction>(_ products: UnsafePointer<Float>, xiStride productStride: Int, tilesWide: Int,
                                                rows: Range<Int>, bias: Float, _: A.Type, residual residualPlane: UnsafePointer<Float>?,
                                                residualRow: Int, floor: Float, into plane: UnsafeMutablePointer<Float>,
                                                layout outL: PlaneLayout) {
    var lane = 0
    for ty in rows {
        var tx = 0
        while tx < tilesWide {
            let count = min(lanes, tilesWide - tx)
            let p = products + lane
            // Aᵀ·m: rows.
            let s00 = load(p) + load(p + 4 * productStride) + load(p + 8 * productStride)
            let s01 = load(p + productStride) + load(p + 5 * productStride) + load(p + 9 * productStride)
            let s02 = load(p + 2 * productStride) + load(p + 6 * productStride) + load(p + 10 * productStride)
            let s03 = load(p + 3 * productStride) + load(p + 7 * productStride) + load(p + 11 * productStride)
            let s10 = load(p + 4 * productStride) - load(p + 8 * productStride) - load(p + 12 * productStride)
            let s11 = load(p + 5 * productStride) - load(p + 9 * productStride) - load(p + 13 * productStride)
            let s12 = load(p + 6 * productStride) - load(p + 10 * productStride) - load(p + 14 * productStride)
            let s13 = load(p + 7 * productStride) - load(p + 11 * productStride) - load(p + 15 * productStride)
            // (Aᵀ·m)·A: columns; output rows 2ty and 2ty + 1 of the 16 tiles.
            let x = 2 * tx, columns = min(2 * count, outL.width - x)
            for i in 0..<2 where 2 * ty + i < outL.height {
                let y = 2 * ty + i
                let left = i == 0 ? s00 + s01 + s02 : s10 + s11 + s12
                let right = i == 0 ? s01 - s02 - s03 : s11 - s12 - s13
                let add = residualPlane.map { $0 + y * residualRow + x }
                winogradStore(interleavedLow(left, right), bias: bias, A.self, residual: add, floor: floor,
                              into: plane + y * outL.rowStride + x, count: min(columns, lanes))
                if columns > lanes {
                    winogradStore(interleavedHigh(left, right), bias: bias, A.self, residual: add.map { $0 + lanes },
                                  floor: floor, into: plane + y * outL.rowStride + x + lanes, count: columns - lanes)
                }
            }
            tx += count
            lane += count
        }
    }
}

/// `count` outputs: act(v + bias), plus the residual raised to `floor` when there is one.
@inline(always)
func winogradStore<A: ActivationFunction>(_ v: Vector, bias: Float, _: A.Type, residual: UnsafePointer<Float>?, floor: Float,
                                          into out: UnsafeMutablePointer<Float>, count: Int) {
    var value = A.apply(v + bias)
    if let residual { value = raised(value + load(residual, count: count), to: floor) }
    store(value, out, count: count)
}
