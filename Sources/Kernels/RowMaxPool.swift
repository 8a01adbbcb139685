/// Max pooling with a 3×3 window and stride 1 or 2 on each axis, of planes of any width (ResNet's,
/// DenseNet's, GoogLeNet's and SqueezeNet's pools on 28×28 to 112×112 maps), in registers: for
/// each output row, 16 input columns at a time, the window's three input rows are combined (a row
/// index outside the plane is clamped to its edge row, which is in the same window and changes no
/// maximum; columns past the plane are −∞), and each output's three columns are taken from two
/// such vectors by in-register shifts (stride 1) or even / odd lane selections (stride 2). Output
/// columns whose window starts left of the plane are computed one by one. Rows of all channels
/// are split between threads.
///
/// The result is ONNX MaxPool's: the largest input in each window, clipped to the input, the
/// same values as `pool2D`'s for every input without NaN (a maximum does not depend on the order
/// it is taken in).
///
/// - Precondition: ``rowMaxPoolFits(inputWidth:inputHeight:outputWidth:outputHeight:kernelHeight:kernelWidth:strideHeight:strideWidth:padTop:padLeft:)``;
///   same channel count; any layouts; `output` does not overlap `input`.
package func rowMaxPool(_ input: FeatureMap, strideHeight: Int, strideWidth: Int, padTop: Int, padLeft: Int,
                        output: FeatureMap, pool: WorkerPool) {
    precondition(rowMaxPoolFits(inputWidth: input.layout.width, inputHeight: input.layout.height, outputWidth: output.layout.width,
                                outputHeight: output.layout.height, kernelHeight: 3, kernelWidth: 3, strideHeight: strideHeight,
                                strideWidth: strideWidth, padTop: padTop, padLeft: padLeft)
                 && output.channels == input.channels, "row max pool: window, strides, pads or channel count it does not take")
    pool.run(RowMaxPoolParts(input: input, output: output, strideHeight: strideHeight, strideWidth: strideWidth,
                             padTop: padTop, padLeft: padLeft))
}

/// Whether ``rowMaxPool(_:strideHeight:strideWidth:padTop:padLeft:output:pool:)`` takes the
/// problem: a 3×3 window, strides 1 or 2, pads of at most 2 before the rows and columns, and
/// every window overlapping the plane (the last output row and column start inside it, so an
/// output size of ceil_mode is taken too).
package func rowMaxPoolFits(inputWidth: Int, inputHeight: Int, outputWidth: Int, outputHeight: Int, kernelHeight: Int,
                            kernelWidth: Int, strideHeight: Int, strideWidth: Int, padTop: Int, padLeft: Int) -> Bool {
    kernelHeight == 3 && kernelWidth == 3 && (1...2).contains(strideHeight) && (1...2).contains(strideWidth)
        && (0...2).contains(padTop) && (0...2).contains(padLeft) && inputWidth >= 1 && inputHeight >= 1
        && outputWidth >= 1 && outputHeight >= 1
        && strideHeight * (outputHeight - 1) - padTop <= inputHeight - 1 && strideWidth * (outputWidth - 1) - padLeft <= inputWidth - 1
}

/// The input width from which ``rowMaxPool(_:strideHeight:strideWidth:padTop:padLeft:output:pool:)``
/// is taken before the small-map max pools: just past a vector (GoogLeNet's 28×28, SqueezeNet's
/// 27×27 and Inception's 17×17 maps; on 14×14 and 7×7 the small-map kernels are faster). On
/// inception_v3's 768×17×17 stride-2 pool the channel-lane kernel, whose gathered block of 64
/// channels (74 KiB) outgrows L1, took 37–39 µs against 31–33 here.
package let rowMaxPoolPreferredWidth = 17

struct RowMaxPoolParts: PoolJob {
    let input: FeatureMap, output: FeatureMap
    let strideHeight: Int, strideWidth: Int, padTop: Int, padLeft: Int

    func run(part: Int, pool: WorkerPool) {
        let outH = output.layout.height
        let rows = WorkerPool.range(output.channels * outH, part: part, of: pool.threadCount)
        guard !rows.isEmpty else { return }
        switch (strideWidth, strideHeight) {
        case (1, 1): rowMaxPoolRows(self, rows, stride: 1, strideHeight: 1)
        case (1, _): rowMaxPoolRows(self, rows, stride: 1, strideHeight: 2)
        case (_, 1): rowMaxPoolRows(self, rows, stride: 2, strideHeight: 1)
        default: rowMaxPoolRows(self, rows, stride: 2, strideHeight: 2)
        }
    }
}

/// Output rows `rows` (counted over all channels), two at a time (their windows share one or
/// two input rows), with the strides literals.
@inline(never)
func rowMaxPoolRows(_ job: RowMaxPoolParts, _ rows: Range<Int>, stride: Int, strideHeight: Int) {
    let inL = job.input.layout, outL = job.output.layout
    let (inW, inH, outW, outH) = (inL.width, inL.height, outL.width, outL.height)
    let none = Vector(repeating: -.infinity)
    @inline(always) func larger(_ a: Vector, _ b: Vector) -> Vector { MaxReduction.combine(a, b) }
    for c in (rows.lowerBound / outH)...((rows.upperBound - 1) / outH) {
        let plane = UnsafePointer(job.input.plane(c)), outPlane = job.output.plane(c)
        /// Input row `r` clamped into the plane.
        @inline(always) func row(_ r: Int) -> UnsafePointer<Float> { plane + min(max(r, 0), inH - 1) * inL.rowStride }
        var yo = max(rows.lowerBound - c * outH, 0)
        let last = min(rows.upperBound - c * outH, outH)
        while yo < last {
            let pair = yo + 1 < last
            let top = strideHeight * yo - job.padTop
            // The second row's window is the first's moved down by the stride (the same rows
            // again when there is no second row: its stores are skipped).
            let down = pair ? strideHeight : 0
            let a0 = row(top), a1 = row(top + 1), a2 = row(top + 2)
            let b0 = row(top + down), b1 = row(top + down + 1), b2 = row(top + down + 2)
            let outA = outPlane + yo * outL.rowStride, outB = outA + (pair ? outL.rowStride : 0)
            /// Each window's rows' maximum at columns `x ..< x + 16`, −∞ past the plane (`x ≥ 0`).
            @inline(always) func columns(_ x: Int) -> (Vector, Vector) {
                if x &+ lanes <= inW {
                    let shared = strideHeight == 1 ? larger(load(a1 + x), load(a2 + x)) : load(a2 + x)
                    if strideHeight == 1 {
                        return (larger(load(a0 + x), shared), larger(shared, load(b2 + x)))
                    }
                    return (larger(larger(load(a0 + x), load(a1 + x)), shared), larger(larger(shared, load(b1 + x)), load(b2 + x)))
                }
                if x >= inW { return (none, none) }
                let n = inW &- x
                let outside = laneMask(from: n)
                let a = larger(larger(load(a0 + x, count: n), load(a1 + x, count: n)), load(a2 + x, count: n))
                let b = larger(larger(load(b0 + x, count: n), load(b1 + x, count: n)), load(b2 + x, count: n))
                return (a.replacing(with: none, where: outside), b.replacing(with: none, where: outside))
            }
            // The first block starts `padLeft` columns left of the plane: its first lanes are −∞.
            var xo = 0, x = -job.padLeft
            var (u0, v0) = columns(0)
            if job.padLeft > 0 { (u0, v0) = (behind(u0, none, count: job.padLeft), behind(v0, none, count: job.padLeft)) }
            while xo < outW {
                let (u1, v1) = columns(x &+ lanes)
                let resultA: Vector, resultB: Vector
                if stride == 1 {
                    resultA = larger(larger(u0, shifted(u0, u1, by: 1)), shifted(u0, u1, by: 2))
                    resultB = larger(larger(v0, shifted(v0, v1, by: 1)), shifted(v0, v1, by: 2))
                    (u0, v0) = (u1, v1)
                } else {
                    let (u2, v2) = columns(x &+ 2 &* lanes)
                    let evenA = evenLanes(u0, u1), evenB = evenLanes(v0, v1)
                    resultA = larger(larger(evenA, oddLanes(u0, u1)), shifted(evenA, u2, by: 1))
                    resultB = larger(larger(evenB, oddLanes(v0, v1)), shifted(evenB, v2, by: 1))
                    (u0, v0) = (u2, v2)
                }
                let count = min(lanes, outW &- xo)
                store(resultA, outA + xo, count: count)
                if pair { store(resultB, outB + xo, count: count) }
                xo &+= lanes
                x &+= stride &* lanes
            }
            yo += pair ? 2 : 1
        }
    }
}
