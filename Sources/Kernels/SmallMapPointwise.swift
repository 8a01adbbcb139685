/// A 1x1 convolution on a map of few pixels, vectorised over output channels instead of pixels:
/// the input planes transposed into the packed left operand of
/// ``packedMatrixMultiply(_:rows:weights:output:function:pool:)`` (a row-major one for fewer than
/// ``packedProductFrom`` pixels), one GEMM by the weights as K×N (input × output channels),
/// then the pixel-major products spread to the output planes with the activation and the
/// residual: `output[o] = act(bias[o] + Σ_i w[o][i]·input[i]) + residual[o]`, and with
/// `rectifiesSum` max(that sum, 0) (a Relu after the residual Add).
///
/// Every output is the bias followed by fused multiply-adds in input-channel order, then the
/// activation and the one addition of the residual, as in
/// ``pointwiseConvolution(_:weights:activation:residual:rectifiesSum:output:pool:)``: the two give the same bits.
///
/// The patches and the products are in the pool's shared scratch
/// (``smallMapPointwiseScratch(pixels:weights:)``).
///
/// - Precondition: `input` is dense with `weights.inner` channels; `output` (any layout, e.g.
///   padded for a following depthwise convolution) and `residual` (any layout) have
///   `weights.columns` channels and the input's width and height. `output` may be `input`
///   itself (all of it is read before anything is written) and `residual` may be `output` itself.
package func smallMapPointwise(
    _ input: FeatureMap, weights: MatrixWeights, activation: Activation, residual: FeatureMap?, rectifiesSum: Bool = false,
    output: FeatureMap, pool: WorkerPool
) {
    precondition(!rectifiesSum || residual != nil, "small-map 1x1: a rectified sum needs a residual")
    let pixels = input.pixels, cin = weights.inner
    precondition(pool.holds(smallMapPointwiseScratch(pixels: pixels, weights: weights)),
                 "small-map 1x1 of \(pixels) pixels, \(cin) → \(weights.columns) channels: pool shared scratch too small")
    let patches = pool.shared.baseAddress!
    let products = patches + smallMapProductsOffset(pixels: pixels, inputChannels: cin)
    precondition(input.layout.isDense && input.channels == cin && output.channels == weights.columns,
                 "small-map 1x1: channel mismatch")
    precondition(output.layout.width == input.layout.width && output.layout.height == input.layout.height,
                 "small-map 1x1: size mismatch")
    if let residual {
        precondition(residual.channels == output.channels && residual.layout.width == input.layout.width
                     && residual.layout.height == input.layout.height, "small-map 1x1 residual shape mismatch")
    }
    smallMapProducts(input, weights: weights, patches: patches, products: products, pool: pool)
    pool.run(SpreadParts(products: products, pixels: pixels, activation: activation, residual: residual,
                         floor: sumFloor(rectifiesSum: rectifiesSum), output: output))
}

/// The pixel-major products (bias plus sums, not activated) of a small-map 1x1 on the dense
/// `input`: its planes transposed into `patches`, then the GEMM into `products` (pixel m's output
/// channel o at `products[m · columns + o]`).
func smallMapProducts(_ input: FeatureMap, weights: MatrixWeights, patches: UnsafeMutablePointer<Float>,
                      products: UnsafeMutablePointer<Float>, pool: WorkerPool) {
    let pixels = input.pixels, cin = weights.inner
    if pixels >= packedProductFrom {
        zeroPackedPadding(patches, rows: pixels, inner: cin)
        pool.run(PackTransposedParts(planes: UnsafePointer(input.base), channels: cin, pixels: pixels, packed: patches))
        packedMatrixMultiply(patches, rows: pixels, weights: weights, output: products, pool: pool)
    } else {
        for m in 0..<pixels {
            for c in 0..<cin { patches[m * cin + c] = input.base[c * pixels + m] }
        }
        matrixMultiply(patches, rows: pixels, weights: weights, output: products, pool: pool)
    }
}

/// Floats of ``smallMapPointwise(_:weights:activation:residual:output:patches:products:pool:)``'s
/// patch matrix.
package func smallMapPatchCount(pixels: Int, inputChannels: Int) -> Int {
    pixels >= packedProductFrom ? packedOperandCount(rows: pixels, inner: inputChannels) : pixels * inputChannels
}

/// Where the products start in the shared scratch: after the patches, at a multiple of 16 floats.
func smallMapProductsOffset(pixels: Int, inputChannels: Int) -> Int {
    (smallMapPatchCount(pixels: pixels, inputChannels: inputChannels) + 15) / 16 * 16
}

/// Pool scratch ``smallMapPointwise(_:weights:activation:residual:output:pool:)`` uses: the
/// patches, then the pixel-major products, in the shared scratch.
package func smallMapPointwiseScratch(pixels: Int, weights: MatrixWeights) -> ScratchSize {
    ScratchSize(shared: smallMapProductsOffset(pixels: pixels, inputChannels: weights.inner) + pixels * weights.columns)
}

/// The pixel-major products to the output planes, output channels split between threads.
struct SpreadParts: PoolJob {
    let products: UnsafeMutablePointer<Float>, pixels: Int, activation: Activation
    let residual: FeatureMap?
    /// The floor of the sum with the residual (``sumFloor(rectifiesSum:)``).
    var floor: Float = -.infinity
    let output: FeatureMap
    func run(part: Int, pool: WorkerPool) {
        let channels = WorkerPool.range(output.channels, part: part, of: pool.threadCount, granularity: lanes)
        switch activation {
        case .none: spreadProducts(self, channels, Identity.self)
        case .relu: spreadProducts(self, channels, ReLU.self)
        case .relu6: spreadProducts(self, channels, ReLU6.self)
        case .hardSwish: spreadProducts(self, channels, HardSwish.self)
        case .sigmoid: spreadProducts(self, channels, Sigmoid.self)
        case .silu: spreadProducts(self, channels, SiLU.self)
        }
    }
}

/// The products of `channels` to their planes. With a wide register file, planes dense or of rows
/// of at least 5 pixels (output and residual, ``ChunkPieces``) and at least 16 pixels, blocks of
/// 16 pixels × 16 channels are transposed in registers
/// (``spreadSquares(_:_:_:)``); otherwise each pixel's channels are stored lane by lane
/// (``spreadLanes(_:_:_:)``). Both apply the activation, then add the residual: the same bits.
@inline(always)
func spreadProducts<A: ActivationFunction>(_ job: SpreadParts, _ channels: Range<Int>, _: A.Type) {
    guard !channels.isEmpty else { return }
    if wideRegisterFile && job.pixels >= lanes && ChunkPieces.fits(job.output.layout)
        && (job.residual.map { ChunkPieces.fits($0.layout) } ?? true) {
        spreadSquares(job, channels, A.self)
    } else {
        spreadLanes(job, channels, A.self)
    }
}

/// Per block of 16 pixels and 16 channels: the pixels' product vectors (rows past the last pixel
/// repeat it, lanes past the last channel are zero), transposed into one vector of 16 pixels per
/// channel, activated, plus the residual, and stored (``ChunkPieces``: one run in a dense plane,
/// a masked store per row touched in a padded one).
@inline(never)
func spreadSquares<A: ActivationFunction>(_ job: SpreadParts, _ channels: Range<Int>, _: A.Type) {
    let output = job.output, cout = output.channels
    var m = 0
    while m < job.pixels {
        let count = min(lanes, job.pixels - m)
        let sink = SquareChunkSink<A>(output: output, residual: job.residual, floor: job.floor, pixel: m, count: count)
        let first = UnsafePointer(job.products + m * cout)
        var c = channels.lowerBound
        while c < channels.upperBound {
            let n = min(lanes, channels.upperBound - c)
            // Whole squares with every bound a constant, so that the loads and the transpose's
            // shuffles stay as written; partial ones out of line.
            if count == lanes && n == lanes {
                spreadSquare(first + c, stride: cout, last: lanes - 1, channels: lanes, sink, channel: c)
            } else {
                spreadPartialSquare(first + c, stride: cout, last: count - 1, channels: n, sink, channel: c)
            }
            c += lanes
        }
        m += lanes
    }
}

@inline(never)
func spreadPartialSquare<A: ActivationFunction>(_ source: UnsafePointer<Float>, stride: Int, last: Int, channels n: Int,
                                                 _ sink: SquareChunkSink<A>, channel c: Int) {
    spreadSquare(source, stride: stride, last: last, channels: n, sink, channel: c)
}

/// One square: pixel rows `0 ... last` at `source`, `stride` floats apart (rows past `last`
/// repeat it), their first `n` channels (lanes past them zero), to channels `c ..< c + n`.
@inline(always)
func spreadSquare<A: ActivationFunction>(_ source: UnsafePointer<Float>, stride: Int, last: Int, channels n: Int,
                                         _ sink: SquareChunkSink<A>, channel c: Int) {
    @inline(always) func row(_ i: Int) -> Vector {
        let p = source + min(i, last) * stride
        return n == lanes ? load(p) : load(p, count: n)
    }
    var square = Square16()
    square.r0 = row(0); square.r1 = row(1); square.r2 = row(2); square.r3 = row(3)
    square.r4 = row(4); square.r5 = row(5); square.r6 = row(6); square.r7 = row(7)
    square.r8 = row(8); square.r9 = row(9); square.r10 = row(10); square.r11 = row(11)
    square.r12 = row(12); square.r13 = row(13); square.r14 = row(14); square.r15 = row(15)
    square.transpose()
    sink.put(square.r0, channel: c)
    if n > 1 { sink.put(square.r1, channel: c + 1) }
    if n > 2 { sink.put(square.r2, channel: c + 2) }
    if n > 3 { sink.put(square.r3, channel: c + 3) }
    if n > 4 { sink.put(square.r4, channel: c + 4) }
    if n > 5 { sink.put(square.r5, channel: c + 5) }
    if n > 6 { sink.put(square.r6, channel: c + 6) }
    if n > 7 { sink.put(square.r7, channel: c + 7) }
    if n > 8 { sink.put(square.r8, channel: c + 8) }
    if n > 9 { sink.put(square.r9, channel: c + 9) }
    if n > 10 { sink.put(square.r10, channel: c + 10) }
    if n > 11 { sink.put(square.r11, channel: c + 11) }
    if n > 12 { sink.put(square.r12, channel: c + 12) }
    if n > 13 { sink.put(square.r13, channel: c + 13) }
    if n > 14 { sink.put(square.r14, channel: c + 14) }
    if n > 15 { sink.put(square.r15, channel: c + 15) }
}

/// Where one channel's vector of a block of up to 16 consecutive pixels goes: activated, plus
/// the residual's same pixels, into the output's plane (``ChunkPieces`` in each layout).
struct SquareChunkSink<A: ActivationFunction> {
    let destination: UnsafeMutablePointer<Float>, plane: Int, pieces: ChunkPieces
    let residual: UnsafePointer<Float>?, residualPlane: Int, residualPieces: ChunkPieces, floor: Float

    /// - Precondition: `output` and `residual` have layouts ``ChunkPieces/fits(_:)`` takes.
    @inline(always) init(output: FeatureMap, residual: FeatureMap?, floor: Float, pixel: Int, count: Int) {
        self.floor = floor
        destination = output.base
        plane = output.layout.planeStride
        pieces = ChunkPieces(output.layout, pixel: pixel, count: count)
        self.residual = residual.map { UnsafePointer($0.base) }
        residualPlane = residual?.layout.planeStride ?? 0
        residualPieces = residual.map { ChunkPieces($0.layout, pixel: pixel, count: count) } ?? pieces
    }

    @inline(always) func put(_ v: Vector, channel: Int) {
        var y = A.apply(v)
        if let residual { y = raised(y + residualPieces.load(residual + channel &* residualPlane), to: floor) }
        pieces.store(y, destination + channel &* plane)
    }
}

/// Per pixel, the activation of 16 channels' products at a time, written back over them, then
/// each lane (plus its residual) stored to its plane.
@inline(never)
func spreadLanes<A: ActivationFunction>(_ job: SpreadParts, _ channels: Range<Int>, _: A.Type) {
    let output = job.output, cout = output.channels
    let width = output.layout.width
    let outPlane = output.layout.planeStride, outRow = output.layout.rowStride
    let outBase = output.base + output.layout.origin
    var y = 0, x = 0
    for m in 0..<job.pixels {
        let row = job.products + m * cout
        let at = y * outRow + x
        // A pass of its own: applied to a vector whose lanes are then stored one by one, an
        // inlined activation (SiLU's exponential) is scalarised lane by lane.
        if A.self != Identity.self {
            var c = channels.lowerBound
            while c < channels.upperBound {
                let n = min(lanes, channels.upperBound - c)
                store(A.apply(n == lanes ? load(row + c) : load(row + c, count: n)), row + c, count: n)
                c += lanes
            }
        }
        var c = channels.lowerBound
        while c < channels.upperBound {
            let n = min(lanes, channels.upperBound - c)
            let v = n == lanes ? load(row + c) : load(row + c, count: n)
            var destination = outBase + c * outPlane + at
            if let residual = job.residual {
                let resPlane = residual.layout.planeStride
                var source = UnsafePointer(residual.base + residual.layout.origin + c * resPlane
                                           + y * residual.layout.rowStride + x)
                for lane in 0..<n {
                    let sum = v[lane] + source.pointee
                    destination.pointee = sum < job.floor ? job.floor : sum
                    destination += outPlane
                    source += resPlane
                }
            } else {
                for lane in 0..<n {
                    destination.pointee = v[lane]
                    destination += outPlane
                }
            }
            c += lanes
        }
        x += 1
        if x == width { x = 0; y += 1 }
    }
}

/// `channels` planes of `pixels` floats as a packed left operand (``packedOperandOffset(row:k:inner:)``):
/// row m, column c is pixel m of plane c. Each panel's row of 12 pixels is one contiguous run of
/// its plane; rows past `pixels` in the last panel are left as they are
/// (``zeroPackedPadding(_:rows:inner:)`` makes them zero).
package func packTransposed(_ planes: UnsafePointer<Float>, channels: Int, pixels: Int, into packed: UnsafeMutablePointer<Float>) {
    packTransposed(planes, channels: channels, pixels: pixels, panels: 0..<(pixels + packedRows - 1) / packedRows, into: packed)
}

/// ``packTransposed(_:channels:pixels:into:)``'s row panels split between threads.
struct PackTransposedParts: PoolJob {
    let planes: UnsafePointer<Float>, channels: Int, pixels: Int, packed: UnsafeMutablePointer<Float>
    func run(part: Int, pool: WorkerPool) {
        let panels = WorkerPool.range((pixels + packedRows - 1) / packedRows, part: part, of: pool.threadCount)
        packTransposed(planes, channels: channels, pixels: pixels, panels: panels, into: packed)
    }
}

/// The row panels `panels` of ``packTransposed(_:channels:pixels:into:)``.
func packTransposed(_ planes: UnsafePointer<Float>, channels: Int, pixels: Int, panels: Range<Int>,
                    into packed: UnsafeMutablePointer<Float>) {
    var first = panels.lowerBound * packedRows
    while first < min(pixels, panels.upperBound * packedRows) {
        let count = min(packedRows, pixels - first)
        var destination = packed + first * channels
        var source = planes + first
        for _ in 0..<channels {
            copyRow(source, destination, count: count)
            destination += packedRows
            source += pixels
        }
        first += packedRows
    }
}
