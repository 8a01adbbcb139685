/// Bilinear ×2 upsampling with half-pixel centres, as ONNX `Resize` (mode linear,
/// coordinate_transformation_mode half_pixel) and TFLite RESIZE_BILINEAR (half_pixel_centers):
/// output pixel `o` samples input coordinate `(o + 0.5)/2 − 0.5` clamped to `[0, size − 1]`,
/// so the first and last output rows/columns copy the edge and the others weigh two input
/// pixels 0.25 / 0.75.
///
/// Per output row: one vertical blend into scratch (with the edge pixel repeated on both
/// sides), then the horizontal blend, interleaving even and odd outputs in registers.
/// - Precondition: `output` is 2W×2H with the input's channel count; any layouts. The pool's
///   scratch holds ``resizeBilinear2xScratch(inputWidth:)``.
@inline(never)
package func resizeBilinear2x(_ input: FeatureMap, output: FeatureMap, pool: WorkerPool) {
    let inW = input.layout.width, inH = input.layout.height
    precondition(output.channels == input.channels && output.layout.width == 2 * inW
                 && output.layout.height == 2 * inH, "resize ×2 shape mismatch")
    precondition(pool.holds(resizeBilinear2xScratch(inputWidth: inW)), "resize ×2 of width \(inW): pool scratch too small")
    pool.run(ResizeParts(input: input, output: output))
}

/// Floats of thread scratch ``resizeBilinear2x(_:output:pool:)`` uses for an input `inputWidth`
/// wide: the vertically blended row with the edge pixel repeated on both sides, and the lanes of
/// the whole-vector loads past its end.
package func resizeBilinear2xScratch(inputWidth: Int) -> ScratchSize {
    ScratchSize(perThread: inputWidth + 2 * lanes + 2)
}

/// The ×2 resize split over channels between threads.
struct ResizeParts: PoolJob {
    let input: FeatureMap, output: FeatureMap
    func run(part: Int, pool: WorkerPool) {
        let inW = input.layout.width, inH = input.layout.height
        let scratch = pool.scratch(part).baseAddress!
        for c in WorkerPool.range(input.channels, part: part, of: pool.threadCount) {
            let src = UnsafePointer(input.plane(c)), dst = output.plane(c)
            for yo in 0..<(2 * inH) {
                // Rows and weight of the vertical blend (exact in float: multiples of 0.25).
                let yIn = max(0, Float(yo) * 0.5 - 0.25)
                let y0 = min(Int(yIn), inH - 1), y1 = min(y0 + 1, inH - 1)
                let dy = y0 == y1 ? 0 : yIn - Float(y0)
                let r0 = src + y0 * input.layout.rowStride, r1 = src + y1 * input.layout.rowStride
                let row = scratch + 1
                var x = 0
                while x < inW {
                    let n = min(lanes, inW - x)
                    let a = load(r0 + x, count: n)
                    let v = dy == 0 ? a : multiplyAdd(a * (1 - dy), dy, load(r1 + x, count: n))
                    store(v, row + x, count: n)
                    x += lanes
                }
                scratch[0] = row[0]
                row[inW] = row[inW - 1]
                let out = dst + yo * output.layout.rowStride
                var i = 0
                while i < inW {
                    let n = min(lanes, inW - i)
                    let left = load(scratch + i), centre = load(scratch + i + 1), right = load(scratch + i + 2)
                    let even = multiplyAdd(left * 0.25, 0.75, centre)
                    let odd = multiplyAdd(right * 0.25, 0.75, centre)
                    let (low, high) = interleave(even, odd)
                    store(low, out + 2 * i, count: 2 * n)
                    if n > lanes / 2 { store(high, out + 2 * i + lanes, count: 2 * n - lanes) }
                    i += lanes
                }
            }
        }
    }
}
