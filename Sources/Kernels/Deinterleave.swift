/// Channel-interleaved pixels (NHWC, batch 1: `input[(y·W + x)·C + c]`) to the planes of an
/// NCHW feature map of any layout, e.g. straight into the zero-bordered input of the stem
/// convolution (the model's NHWC→NCHW `Transpose` and the stem's pad copy in one pass).
///
/// Each element is a plain copy. With AVX-512, on planes dense or of rows of 5 pixels or more,
/// 16 pixels × 16 channels at a time transposed in registers (as the products of the small-map
/// kernels are spread, `spreadSquares`; channels split between threads), three channels by
/// their own shuffles; otherwise rows are split between threads and copied lane by lane.
/// - Precondition: `input` holds `output.channels · height · width` floats.
@inline(never)
package func deinterleaveChannels(_ input: UnsafePointer<Float>, output: FeatureMap, pool: WorkerPool) {
    if wideRegisterFile && output.channels != 3 && output.pixels >= lanes && ChunkPieces.fits(output.layout) {
        pool.run(SpreadParts(products: UnsafeMutablePointer(mutating: input), pixels: output.pixels, activation: .none,
                             residual: nil, output: output))
    } else {
        pool.run(DeinterleaveParts(input: input, output: output))
    }
}

struct DeinterleaveParts: PoolJob {
    let input: UnsafePointer<Float>, output: FeatureMap
    func run(part: Int, pool: WorkerPool) {
        let c = output.channels, w = output.layout.width
        for y in WorkerPool.range(output.layout.height, part: part, of: pool.threadCount) {
            let row = input + y * w * c
            if c == 3 {
                deinterleaveRow3(row, output.plane(0) + y * output.layout.rowStride,
                                 output.plane(1) + y * output.layout.rowStride,
                                 output.plane(2) + y * output.layout.rowStride, width: w)
            } else {
                for ch in 0..<c {
                    let dst = output.plane(ch) + y * output.layout.rowStride
                    for x in 0..<w { dst[x] = row[x * c + ch] }
                }
            }
        }
    }
}

/// One row of RGB-interleaved pixels to three planes: with AVX-512, 16 pixels at a time from
/// three whole loads (each plane's vector two `vpermt2ps`), the rest one pixel at a time.
@inline(never)
func deinterleaveRow3(_ row: UnsafePointer<Float>, _ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>,
                      _ b: UnsafeMutablePointer<Float>, width: Int) {
    var x = 0
    var p = row
    if wideRegisterFile {
        while x + lanes <= width {
            // `+ 0` keeps the loads whole (see `loadEven`): lane reads straight from memory
            // become gathers.
            let u = load(p) + 0, v = load(p + 16) + 0, w = load(p + 32) + 0
            store(Vector(u[0], u[3], u[6], u[9], u[12], u[15], v[2], v[5], v[8], v[11], v[14], w[1], w[4], w[7], w[10], w[13]), r + x)
            store(Vector(u[1], u[4], u[7], u[10], u[13], v[0], v[3], v[6], v[9], v[12], v[15], w[2], w[5], w[8], w[11], w[14]), g + x)
            store(Vector(u[2], u[5], u[8], u[11], u[14], v[1], v[4], v[7], v[10], v[13], w[0], w[3], w[6], w[9], w[12], w[15]), b + x)
            p += 3 * lanes
            x += lanes
        }
    }
    while x < width {
        r[x] = p[0]; g[x] = p[1]; b[x] = p[2]
        p += 3
        x += 1
    }
}

/// The planes of an NCHW feature map (batch 1, any layout) to channel-interleaved pixels (NHWC:
/// `output[(y·W + x)·C + c]`), the inverse of `deinterleaveChannels`.
///
/// Each element is a plain copy. With AVX-512, on planes dense or of rows of 5 pixels or more,
/// 16 pixels × 16 channels at a time: the channels' runs of pixels loaded (``ChunkPieces``),
/// transposed in registers, each pixel's channels stored as one run; runs of 16 pixels split
/// between threads. Otherwise rows are split between threads, 16 pixels of every channel at a
/// time so that the block written stays in L1.
/// - Precondition: `output` has room for `input.channels · height · width` floats and does not
///   overlap `input`.
@inline(never)
package func interleaveChannels(_ input: FeatureMap, output: UnsafeMutablePointer<Float>, pool: WorkerPool) {
    if wideRegisterFile && input.pixels >= lanes && ChunkPieces.fits(input.layout) {
        pool.run(InterleaveSquaresParts(input: input, output: output))
    } else {
        pool.run(InterleaveParts(input: input, output: output))
    }
}

struct InterleaveSquaresParts: PoolJob {
    let input: FeatureMap, output: UnsafeMutablePointer<Float>
    func run(part: Int, pool: WorkerPool) {
        let c = input.channels
        let pixels = WorkerPool.range(input.pixels, part: part, of: pool.threadCount, granularity: lanes)
        var m = pixels.lowerBound
        while m < pixels.upperBound {
            let count = min(lanes, pixels.upperBound - m)
            let pieces = ChunkPieces(input.layout, pixel: m, count: count)
            var first = 0
            while first < c {
                let n = min(lanes, c - first)
                // Whole squares with every bound a constant, partial ones out of line.
                if count == lanes && n == lanes {
                    interleaveSquare(input, pieces, channel: first, channels: lanes, pixels: lanes,
                                     into: output + m * c + first, stride: c)
                } else {
                    interleavePartialSquare(input, pieces, channel: first, channels: n, pixels: count,
                                            into: output + m * c + first, stride: c)
                }
                first += lanes
            }
            m += count
        }
    }
}

@inline(never)
func interleavePartialSquare(_ input: FeatureMap, _ pieces: ChunkPieces, channel c: Int, channels n: Int, pixels count: Int,
                             into output: UnsafeMutablePointer<Float>, stride: Int) {
    interleaveSquare(input, pieces, channel: c, channels: n, pixels: count, into: output, stride: stride)
}

/// Channels `c ..< c + n` of the run of `count` pixels `pieces` reads: pixel j's channels to
/// `output + j · stride`, `n` floats.
@inline(always)
func interleaveSquare(_ input: FeatureMap, _ pieces: ChunkPieces, channel c: Int, channels n: Int, pixels count: Int,
                      into output: UnsafeMutablePointer<Float>, stride: Int) {
    let plane = input.layout.planeStride, base = UnsafePointer(input.base + c * plane)
    @inline(always) func run(_ i: Int) -> Vector { i < n ? pieces.load(base + i * plane) : Vector() }
    var square = Square16()
    square.r0 = run(0); square.r1 = run(1); square.r2 = run(2); square.r3 = run(3)
    square.r4 = run(4); square.r5 = run(5); square.r6 = run(6); square.r7 = run(7)
    square.r8 = run(8); square.r9 = run(9); square.r10 = run(10); square.r11 = run(11)
    square.r12 = run(12); square.r13 = run(13); square.r14 = run(14); square.r15 = run(15)
    square.transpose()
    @inline(always) func put(_ v: Vector, _ j: Int) {
        guard j < count else { return }
        if n == lanes { store(v, output + j * stride) } else { store(v, output + j * stride, count: n) }
    }
    put(square.r0, 0); put(square.r1, 1); put(square.r2, 2); put(square.r3, 3)
    put(square.r4, 4); put(square.r5, 5); put(square.r6, 6); put(square.r7, 7)
    put(square.r8, 8); put(square.r9, 9); put(square.r10, 10); put(square.r11, 11)
    put(square.r12, 12); put(square.r13, 13); put(square.r14, 14); put(square.r15, 15)
}

struct InterleaveParts: PoolJob {
    let input: FeatureMap, output: UnsafeMutablePointer<Float>
    func run(part: Int, pool: WorkerPool) {
        let c = input.channels, w = input.layout.width
        for y in WorkerPool.range(input.layout.height, part: part, of: pool.threadCount) {
            let row = output + y * w * c
            var x0 = 0
            while x0 < w {
                let count = min(16, w - x0)
                for ch in 0..<c {
                    let source = input.plane(ch) + y * input.layout.rowStride + x0
                    var destination = row + x0 * c + ch
                    for x in 0..<count {
                        destination.pointee = source[x]
                        destination += c
                    }
                }
                x0 += 16
            }
        }
    }
}
