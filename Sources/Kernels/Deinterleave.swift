/// Channel-interleaved pixels (NHWC, batch 1: `input[(y·W + x)·C + c]`) to the planes of an
/// NCHW feature map of any layout, e.g. straight into the zero-bordered input of the stem
/// convolution (the model's NHWC→NCHW `Transpose` and the stem's pad copy in one pass).
///
/// Rows are split between threads; each element is a plain copy.
/// - Precondition: `input` holds `output.channels · height · width` floats.
@inline(never)
package func deinterleaveChannels(_ input: UnsafePointer<Float>, output: FeatureMap, pool: WorkerPool) {
    pool.run(DeinterleaveParts(input: input, output: output))
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

/// The planes of a dense NCHW feature map (batch 1) to channel-interleaved pixels (NHWC:
/// `output[(y·W + x)·C + c]`), the inverse of `deinterleaveChannels`.
///
/// Rows are split between threads; each element is a plain copy, 16 pixels of every channel at a
/// time so that the block written stays in L1.
/// - Precondition: `output` has room for `input.channels · height · width` floats and does not
///   overlap `input`.
@inline(never)
package func interleaveChannels(_ input: FeatureMap, output: UnsafeMutablePointer<Float>, pool: WorkerPool) {
    pool.run(InterleaveParts(input: input, output: output))
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
