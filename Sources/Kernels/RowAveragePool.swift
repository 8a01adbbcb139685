/// Average pooling with a 3×3 window and stride 1 or 2 on each axis, of planes of any width
/// (Inception's `avg_pool2d(x, 3, stride=1, padding=1)` branch pools on 35×35, 17×17 and 8×8
/// maps), in registers as ``rowMaxPool(_:strideHeight:strideWidth:padTop:padLeft:output:pool:)``
/// takes the maximum: for two output rows at a time, 16 input columns at a time, each window's
/// three input rows are added (a row outside the plane is a row of zeros in thread scratch,
/// columns past the plane are 0), and each output's three columns are added from two such
/// vectors by in-register shifts (stride 1) or even / odd lane selections (stride 2), then
/// multiplied by the reciprocal of the count: 1/9 with `countIncludesPad`, else 1/(rows · columns
/// of the window inside the plane), from a table per number of rows written to thread scratch on
/// each call. Rows of all channels are split between threads.
///
/// Every output is the same float as ``pool2D(_:kind:kernelHeight:kernelWidth:strideHeight:strideWidth:padTop:padLeft:output:pool:)``'s
/// reference band kernel computes (up to the sign of a zero sum): the same additions in the same
/// order (the window's rows in order, then its columns in order, an outside row or column adding
/// +0, which leaves a sum unchanged) and the same reciprocal, `1 / Float(count)`.
///
/// - Precondition: ``rowMaxPoolFits(inputWidth:inputHeight:outputWidth:outputHeight:kernelHeight:kernelWidth:strideHeight:strideWidth:padTop:padLeft:)``
///   (the same windows); same channel count; any layouts; `output` does not overlap `input`; the
///   pool's thread scratch holds ``rowAveragePoolScratch(inputWidth:outputWidth:)``.
package func rowAveragePool(_ input: FeatureMap, strideHeight: Int, strideWidth: Int, padTop: Int, padLeft: Int,
                            countIncludesPad: Bool, output: FeatureMap, pool: WorkerPool) {
    precondition(rowMaxPoolFits(inputWidth: input.layout.width, inputHeight: input.layout.height, outputWidth: output.layout.width,
                                outputHeight: output.layout.height, kernelHeight: 3, kernelWidth: 3, strideHeight: strideHeight,
                                strideWidth: strideWidth, padTop: padTop, padLeft: padLeft)
                 && output.channels == input.channels, "row average pool: window, strides, pads or channel count it does not take")
    let scratch = rowAveragePoolScratch(inputWidth: input.layout.width, outputWidth: output.layout.width)
    precondition(pool.holds(scratch), "row average pool: pool scratch holds fewer than \(scratch.perThread) floats a thread")
    pool.run(RowAveragePoolParts(input: input, output: output, strideHeight: strideHeight, strideWidth: strideWidth,
                                 padTop: padTop, padLeft: padLeft, countIncludesPad: countIncludesPad))
}

/// Floats of thread scratch ``rowAveragePool(_:strideHeight:strideWidth:padTop:padLeft:countIncludesPad:output:pool:)``
/// uses: four tables of reciprocal counts (0 to 3 window rows inside the plane) of the output
/// row rounded up to 16, then a row of zeros as wide as the input row rounded up to 16.
package func rowAveragePoolScratch(inputWidth: Int, outputWidth: Int) -> ScratchSize {
    ScratchSize(perThread: 4 * roundUp(outputWidth, toMultipleOf: lanes) + roundUp(inputWidth, toMultipleOf: lanes))
}

struct RowAveragePoolParts: PoolJob {
    let input: FeatureMap, output: FeatureMap
    let strideHeight: Int, strideWidth: Int, padTop: Int, padLeft: Int
    let countIncludesPad: Bool

    /// Floats from one reciprocal table to the next (the output row rounded up to 16).
    var tableWidth: Int { roundUp(output.layout.width, toMultipleOf: lanes) }

    func run(part: Int, pool: WorkerPool) {
        let outH = output.layout.height
        let rows = WorkerPool.range(output.channels * outH, part: part, of: pool.threadCount)
        guard !rows.isEmpty else { return }
        // Scratch holds what the last kernel left: the tables and the zero row are written on every call.
        let scratch = pool.scratch(part).baseAddress!
        let inW = input.layout.width, outW = output.layout.width
        if !countIncludesPad {
            for windowRows in 0...3 {
                for xo in 0..<tableWidth {
                    let start = xo * strideWidth - padLeft
                    let columns = max(min(start + 3, inW) - max(start, 0), 1)
                    scratch[windowRows * tableWidth + xo] = xo < outW ? 1 / (Float(columns) * Float(max(windowRows, 1))) : 0
                }
            }
        }
        (scratch + 4 * tableWidth).update(repeating: 0, count: roundUp(inW, toMultipleOf: lanes))
        switch (strideWidth, strideHeight) {
        case (1, 1): rowAveragePoolRows(self, rows, scratch: scratch, stride: 1, strideHeight: 1)
        case (1, _): rowAveragePoolRows(self, rows, scratch: scratch, stride: 1, strideHeight: 2)
        case (_, 1): rowAveragePoolRows(self, rows, scratch: scratch, stride: 2, strideHeight: 1)
        default: rowAveragePoolRows(self, rows, scratch: scratch, stride: 2, strideHeight: 2)
        }
    }
}

/// Output rows `rows` (counted over all channels), two at a time (their windows share one or
/// two input rows), with the strides literals.
@inline(never)
func rowAveragePoolRows(_ job: RowAveragePoolParts, _ rows: Range<Int>, scratch: UnsafeMutablePointer<Float>, stride: Int,
                        strideHeight: Int) {
    let inL = job.input.layout, outL = job.output.layout
    let (inW, inH, outW, outH) = (inL.width, inL.height, outL.width, outL.height)
    let zero = Vector(repeating: 0), ninth = Vector(repeating: 1 / Float(9))
    let tables = UnsafePointer(scratch), tableWidth = job.tableWidth
    let zeroRow = UnsafePointer(scratch + 4 * tableWidth)
    for c in (rows.lowerBound / outH)...((rows.upperBound - 1) / outH) {
        let plane = UnsafePointer(job.input.plane(c)), outPlane = job.output.plane(c)
        /// Input row `r`, or the zero row outside the plane.
        @inline(always) func row(_ r: Int) -> UnsafePointer<Float> { r >= 0 && r < inH ? plane + r * inL.rowStride : zeroRow }
        /// The reciprocal table of the window whose rows start at `top`.
        @inline(always) func table(_ top: Int) -> UnsafePointer<Float> {
            tables + (min(top + 3, inH) - max(top, 0)) * tableWidth
        }
        var yo = max(rows.lowerBound - c * outH, 0)
        let last = min(rows.upperBound - c * outH, outH)
        while yo < last {
            let pair = yo + 1 < last
            let top = strideHeight * yo - job.padTop
            // The second row's window is the first's moved down by the stride (the same rows
            // again when there is no second row: its stores are skipped).
            let down = pair ? strideHeight : 0
            let a0 = row(top), a1 = row(top + 1), a2 = row(top + 2)
            // The second window's first row (b0) is a1 or a2 at strides 1 and 2.
            let b1 = row(top + down + 1), b2 = row(top + down + 2)
            let countsA = table(top), countsB = table(top + down)
            let outA = outPlane + yo * outL.rowStride, outB = outA + (pair ? outL.rowStride : 0)
            /// Each window's rows' sum at columns `x ..< x + 16`, in row order, 0 past the plane (`x ≥ 0`).
            @inline(always) func columns(_ x: Int) -> (Vector, Vector) {
                if x &+ lanes <= inW {
                    if strideHeight == 1 {
                        // b0, b1 are a1, a2.
                        let r1 = load(a1 + x), r2 = load(a2 + x)
                        return (load(a0 + x) + r1 + r2, r1 + r2 + load(b2 + x))
                    }
                    // b0 is a2.
                    let r2 = load(a2 + x)
                    return (load(a0 + x) + load(a1 + x) + r2, r2 + load(b1 + x) + load(b2 + x))
                }
                if x >= inW { return (zero, zero) }
                let n = inW &- x
                if strideHeight == 1 {
                    let r1 = load(a1 + x, count: n), r2 = load(a2 + x, count: n)
                    return (load(a0 + x, count: n) + r1 + r2, r1 + r2 + load(b2 + x, count: n))
                }
                let r2 = load(a2 + x, count: n)
                return (load(a0 + x, count: n) + load(a1 + x, count: n) + r2, r2 + load(b1 + x, count: n) + load(b2 + x, count: n))
            }
            // The first block starts `padLeft` columns left of the plane: its first lanes are 0.
            var xo = 0, x = -job.padLeft
            var (u0, v0) = columns(0)
            if job.padLeft > 0 { (u0, v0) = (behind(u0, zero, count: job.padLeft), behind(v0, zero, count: job.padLeft)) }
            while xo < outW {
                let (u1, v1) = columns(x &+ lanes)
                var sumA: Vector, sumB: Vector
                if stride == 1 {
                    sumA = u0 + shifted(u0, u1, by: 1) + shifted(u0, u1, by: 2)
                    sumB = v0 + shifted(v0, v1, by: 1) + shifted(v0, v1, by: 2)
                    (u0, v0) = (u1, v1)
                } else {
                    let (u2, v2) = columns(x &+ 2 &* lanes)
                    let evenA = evenLanes(u0, u1), evenB = evenLanes(v0, v1)
                    sumA = evenA + oddLanes(u0, u1) + shifted(evenA, u2, by: 1)
                    sumB = evenB + oddLanes(v0, v1) + shifted(evenB, v2, by: 1)
                    (u0, v0) = (u2, v2)
                }
                if job.countIncludesPad {
                    sumA *= ninth
                    sumB *= ninth
                } else {
                    sumA *= load(countsA + xo)
                    sumB *= load(countsB + xo)
                }
                let count = min(lanes, outW &- xo)
                store(sumA, outA + xo, count: count)
                if pair { store(sumB, outB + xo, count: count) }
                xo &+= lanes
                x &+= stride &* lanes
            }
            yo += pair ? 2 : 1
        }
    }
}
