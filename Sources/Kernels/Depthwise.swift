/// Depthwise convolution weights: one K×K filter and one bias per channel.
package final class DepthwiseWeights {
    package let channels: Int
    package let kernelSize: Int
    let weights: FloatBuffer
    let bias: FloatBuffer

    /// `weights` as ONNX's [C, 1, K, K] (row-major), `bias` C values or zero when nil.
    package init(weights: [Float], bias: [Float]?, channels: Int, kernelSize: Int) {
        precondition(channels > 0 && kernelSize > 0, "empty depthwise convolution")
        precondition(weights.count == channels * kernelSize * kernelSize, "depthwise weights: expected \(channels)x\(kernelSize)x\(kernelSize)")
        precondition(bias == nil || bias!.count == channels, "depthwise bias: expected \(channels)")
        self.channels = channels
        self.kernelSize = kernelSize
        self.weights = FloatBuffer(weights)
        self.bias = FloatBuffer(bias ?? [Float](repeating: 0, count: channels))
    }
}

/// Depthwise K×K convolution, stride 1 or 2, any dilation, with bias, activation and an optional
/// residual added after the activation: `output[c] = act(bias[c] + Σ w[c]·window) + residual[c]`.
///
/// The input is read in place from its padded layout: window row `yo·stride − padTop + ky·dilation`,
/// column `xo·stride − padLeft + kx·dilation`, where the border supplies the zeros, so TF-SAME
/// asymmetric pads ([0,0,1,1] for 3x3 s2, [1,1,2,2] for 5x5 s2) need no copy. 16 outputs of a
/// row are one vector; stride 2 deinterleaves its input in registers. 3x3 and 5x5 at strides 1
/// and 2 and 7x7 at stride 1 have their own functions (so a profile names them), as has the
/// dilated 3x3 at stride 1; other shapes take a generic loop.
/// Channels are split between threads; each output is computed identically on either.
///
/// - Precondition: `input.layout.pad` covers the window: `padTop, padLeft ≤ pad`, and the last
///   window row/column lies at most `pad` beyond the interior. `output` and `residual` (any
///   layouts) have the input's channel count and the output size.
package func depthwiseConvolution(
    _ input: FeatureMap, weights: DepthwiseWeights, stride: Int, dilation: Int = 1, padTop: Int, padLeft: Int,
    activation: Activation, residual: FeatureMap? = nil, output: FeatureMap, pool: WorkerPool
) {
    let outL = output.layout
    precondition(input.channels == weights.channels && output.channels == weights.channels, "depthwise channel mismatch")
    checkWindow(input.layout, outL, kernelSize: weights.kernelSize, stride: stride, dilation: dilation,
                padTop: padTop, padLeft: padLeft, kind: "depthwise")
    if let residual {
        precondition(residual.channels == output.channels && residual.layout.width == outL.width
                     && residual.layout.height == outL.height, "depthwise residual shape mismatch")
    }
    pool.run(DepthwiseParts(input: input, weights: weights, stride: stride, dilation: dilation, padTop: padTop,
                            padLeft: padLeft, activation: activation, residual: residual, output: output))
}

/// The depthwise convolution split over channels between threads.
struct DepthwiseParts: PoolJob {
    let input: FeatureMap, weights: DepthwiseWeights, stride: Int, dilation: Int, padTop: Int, padLeft: Int
    let activation: Activation, residual: FeatureMap?, output: FeatureMap
    func run(part: Int, pool: WorkerPool) {
        let k = weights.kernelSize
        let channels = WorkerPool.range(weights.channels, part: part, of: pool.threadCount)
        let job = DepthwiseJob(input: input, weights: weights.weights.baseAddress, bias: weights.bias.baseAddress,
                               dilation: dilation, padTop: padTop, padLeft: padLeft, activation: activation,
                               residual: residual, output: output, channels: channels)
        switch activation {
        case .none: depthwiseDispatch(job, Identity.self, k: k, stride: stride)
        case .relu: depthwiseDispatch(job, ReLU.self, k: k, stride: stride)
        case .relu6: depthwiseDispatch(job, ReLU6.self, k: k, stride: stride)
        case .hardSwish: depthwiseDispatch(job, HardSwish.self, k: k, stride: stride)
        case .sigmoid: depthwiseDispatch(job, Sigmoid.self, k: k, stride: stride)
        case .silu: depthwiseDispatch(job, SiLU.self, k: k, stride: stride)
        }
    }
}

struct DepthwiseJob {
    var input: FeatureMap
    var weights: UnsafePointer<Float>
    var bias: UnsafePointer<Float>
    var dilation: Int
    var padTop: Int
    var padLeft: Int
    var activation: Activation
    var residual: FeatureMap?
    var output: FeatureMap
    var channels: Range<Int>

    var narrowStores: NarrowStores { NarrowStores(output: output, input: input, residual: residual) }
}

/// Where a kernel that stores an output plane's rows in increasing order, one thread per plane,
/// may store a whole vector at a row's last column block instead of its first lanes only.
///
/// - Dense planes narrower than a vector: row `r` (column 0) whole when its 16 lanes stay in the
///   plane (`r·W + 16 ≤ H·W`), when the output overlaps nothing it reads (the lanes past the row
///   hold values of no element and are overwritten when the rows after it are stored).
/// - Padded planes: every row's last block whole with the lanes past the interior zero (they fall
///   on the row's right border and the next row's left border, which stay zero).
struct NarrowStores {
    /// Rows below this store whole vectors (dense planes narrower than a vector).
    var wholeRows = 0
    /// Whether partial blocks are stored whole with zero lanes past the interior (padded planes).
    var zeroesBorder = false

    init(output: FeatureMap, input: FeatureMap, residual: FeatureMap?) {
        let l = output.layout
        guard !input.overlaps(output) && !(residual?.overlaps(output) ?? false) else { return }
        if l.isDense {
            if l.width < lanes && l.width * l.height >= lanes { wholeRows = (l.width * l.height - lanes) / l.width + 1 }
        } else {
            zeroesBorder = l.pad >= 1
        }
    }
}

/// The lanes at and past `count` (`0 ... 16`): one broadcast and one compare against a constant.
///
/// The shape matters: the same comparison with a global `let` of the lane indices and a scalar
/// right-hand side (`indices .>= Int32(count)`) compiles to a `swift_once` call, overflow checks
/// and a 16-step scalar loop building the mask lane by lane.
@inline(__always)
func laneMask(from count: Int) -> SIMDMask<SIMD16<Int32>> {
    SIMD16<Int32>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
        .>= SIMD16<Int32>(repeating: Int32(truncatingIfNeeded: count))
}

// One function per window and stride (so a profile names them), each specialised per activation.
@inline(never) func depthwise3x3Stride1<A: ActivationFunction>(_ job: DepthwiseJob, _: A.Type) {
    depthwisePlanes(job, A.self, k: 3, stride: 1)
}
@inline(never) func depthwise3x3Stride2<A: ActivationFunction>(_ job: DepthwiseJob, _: A.Type) {
    depthwisePlanes(job, A.self, k: 3, stride: 2)
}
@inline(never) func depthwise5x5Stride1<A: ActivationFunction>(_ job: DepthwiseJob, _: A.Type) {
    depthwisePlanes(job, A.self, k: 5, stride: 1)
}
@inline(never) func depthwise5x5Stride2<A: ActivationFunction>(_ job: DepthwiseJob, _: A.Type) {
    depthwisePlanes(job, A.self, k: 5, stride: 2)
}
@inline(never) func depthwise7x7Stride1<A: ActivationFunction>(_ job: DepthwiseJob, _: A.Type) {
    depthwisePlanes(job, A.self, k: 7, stride: 1)
}
@inline(never) func depthwise3x3Dilated<A: ActivationFunction>(_ job: DepthwiseJob, _: A.Type) {
    depthwisePlanes(job, A.self, k: 3, stride: 1, dilation: job.dilation)
}
@inline(never) func depthwiseGeneric(_ job: DepthwiseJob, kernelSize: Int, stride: Int) {
    depthwisePlanesGeneric(job, k: kernelSize, stride: stride)
}

@inline(always)
func depthwiseDispatch<A: ActivationFunction>(_ job: DepthwiseJob, _: A.Type, k: Int, stride: Int) {
    switch (k, stride) {
    case (3, 1) where job.dilation > 1: depthwise3x3Dilated(job, A.self)
    case _ where job.dilation > 1: depthwiseGeneric(job, kernelSize: k, stride: stride)
    case (3, 1): depthwise3x3Stride1(job, A.self)
    case (3, 2): depthwise3x3Stride2(job, A.self)
    case (5, 1): depthwise5x5Stride1(job, A.self)
    case (5, 2): depthwise5x5Stride2(job, A.self)
    case (7, 1): depthwise7x7Stride1(job, A.self)
    default: depthwiseGeneric(job, kernelSize: k, stride: stride)
    }
}

/// The body shared by the named variants; with `k` and `stride` constant after inlining every
/// loop over the window unrolls.
///
/// A tile is 4 output rows × 16 columns: four independent accumulator chains (one chain of
/// K·K dependent FMAs is latency-bound at ~8 FLOP/cycle). Each FMA takes its input straight
/// from memory (stride 1) or from a register deinterleave (stride 2).
/// Maps of 2 or 3 rows use 2-row tiles (two chains), of 1 row 1-row tiles; the last tile of a
/// taller map is moved up to end at the last row, recomputing a few rows with the same operations
/// (so the same values). With 16 XMM registers (``narrowRegisterFile``) the tile is 2 rows (8
/// accumulators), the same way round. A 7x7 at stride 1 on maps of 7 rows or more runs in strips
/// of 7 or 8 rows with 32 vector registers (``depthwiseStrips(_:_:height:k:rows:)``).
@inline(always)
func depthwisePlanes<A: ActivationFunction>(_ job: DepthwiseJob, _: A.Type, k: Int, stride: Int, dilation: Int = 1) {
    let outH = job.output.layout.height
    let stripRows = depthwiseStripRows(height: outH)
    for c in job.channels {
        let plane = DepthwisePlane(job: job, channel: c, k: k)
        if wideRegisterFile && k == 7 && stride == 1 && dilation == 1 && outH >= stripRows {
            if stripRows == 7 {
                depthwiseStrips(plane, A.self, height: outH, k: k, rows: 7)
            } else {
                depthwiseStrips(plane, A.self, height: outH, k: k, rows: 8)
            }
        } else if outH >= 2 && (narrowRegisterFile || outH < 4) {
            depthwiseRows(plane, A.self, DepthwiseRows2.self, height: outH, k: k, stride: stride, dilation: dilation)
        } else if !narrowRegisterFile && outH >= 4 {
            depthwiseRows(plane, A.self, DepthwiseRows4.self, height: outH, k: k, stride: stride, dilation: dilation)
        } else {
            depthwiseRows(plane, A.self, DepthwiseRows1.self, height: outH, k: k, stride: stride, dilation: dilation)
        }
    }
}

/// Any window, stride and dilation, activation by switch: the fallback for shapes without a
/// function of their own.
func depthwisePlanesGeneric(_ job: DepthwiseJob, k: Int, stride: Int) {
    let d = job.dilation
    for c in job.channels {
        let plane = DepthwisePlane(job: job, channel: c, k: k)
        let w = plane.weights
        for yo in 0..<job.output.layout.height {
            var xo = 0
            while xo < plane.width {
                let n = min(lanes, plane.width - xo)
                var acc = Vector(repeating: plane.bias)
                for ky in 0..<k {
                    for kx in 0..<k {
                        acc = multiplyAdd(acc, w[ky * k + kx],
                                          plane.input(row: yo * stride + ky * d, column: xo * stride + kx * d, stride: stride))
                    }
                }
                plane.finish(job.activation.apply(acc), row: yo, column: xo, count: n)
                xo += lanes
            }
        }
    }
}

/// One channel's pointers and strides.
struct DepthwisePlane {
    var source: UnsafePointer<Float>   // input pixel (−padTop, −padLeft)
    var sourceRow: Int
    var destination: UnsafeMutablePointer<Float>
    var destinationRow: Int
    var residual: UnsafePointer<Float>?
    var residualRow: Int
    var weights: UnsafePointer<Float>
    var bias: Float
    var width: Int
    /// How a vector narrower than the row end is stored (``NarrowStores``).
    var narrow: NarrowStores

    @inline(always)
    init(job: DepthwiseJob, channel c: Int, k: Int) {
        source = UnsafePointer(job.input.plane(c)) - job.padTop * job.input.layout.rowStride - job.padLeft
        sourceRow = job.input.layout.rowStride
        destination = job.output.plane(c)
        destinationRow = job.output.layout.rowStride
        residual = job.residual.map { UnsafePointer($0.plane(c)) }
        residualRow = job.residual?.layout.rowStride ?? 0
        weights = job.weights + c * k * k
        bias = job.bias[c]
        width = job.output.layout.width
        narrow = job.narrowStores
    }

    /// Adds the residual (if any) to the activated `y` and stores it: `count` lanes, or the whole
    /// vector where ``NarrowStores`` allows it.
    @inline(always)
    func finish(_ activated: Vector, row: Int, column: Int, count: Int) {
        var y = activated
        if row < narrow.wholeRows {
            // Dense rows narrower than a vector, stored in increasing row order by this thread:
            // the lanes past the row land on the rows after it, which are stored later.
            if let residual { y += load(residual + row * residualRow + column) }
            store(y, destination + row * destinationRow + column)
        } else if narrow.zeroesBorder {
            // A padded output: the lanes past the interior land on its zero border (this row's
            // right, the next row's left), which no kernel writes, and are stored as zero.
            if let residual { y += load(residual + row * residualRow + column, count: count) }
            store(y.replacing(with: 0, where: laneMask(from: count)), destination + row * destinationRow + column)
        } else {
            if let residual { y += load(residual + row * residualRow + column, count: count) }
            store(y, destination + row * destinationRow + column, count: count)
        }
    }

    /// ``finish(_:row:column:count:)`` of a whole vector.
    @inline(always)
    func finishFull(_ activated: Vector, row: Int, column: Int) {
        var y = activated
        if let residual { y += load(residual + row * residualRow + column) }
        store(y, destination + row * destinationRow + column)
    }

    @inline(always)
    func input(row: Int, column: Int, stride: Int) -> Vector {
        let p = source + row * sourceRow + column
        return stride == 1 ? load(p) : loadEven(p)
    }
}

/// All output rows of one plane in tiles of `T.rows` rows; the last tile of a taller plane is
/// moved up to end at the last row.
@inline(always)
func depthwiseRows<A: ActivationFunction, T: DepthwiseRowTile>(
    _ plane: DepthwisePlane, _: A.Type, _: T.Type, height: Int, k: Int, stride: Int, dilation: Int
) {
    var yo = 0
    while yo < height {
        depthwiseTile(plane, A.self, T.self, top: min(yo, height - T.rows), k: k, stride: stride, dilation: dilation)
        yo += T.rows
    }
}

/// `T.rows` output rows × 16 columns at a time, each output bias + multiply-adds in (ky, kx)
/// order, its input straight from memory (stride 1) or from a register deinterleave (stride 2).
@inline(always)
func depthwiseTile<A: ActivationFunction, T: DepthwiseRowTile>(
    _ plane: DepthwisePlane, _: A.Type, _: T.Type, top: Int, k: Int, stride: Int, dilation: Int
) {
    let w = plane.weights
    let rowStep = stride * plane.sourceRow
    var xo = 0
    if T.rows == 4 && wideRegisterFile {
        // Two full vectors per row: eight independent chains, and stores with no lane count.
        while xo + 2 * lanes <= plane.width {
            var acc = DepthwiseRows4x2(bias: plane.bias)
            let origin = plane.source + top * rowStep + xo * stride
            if dilation == 1 && (k == 3 || k == 5 || k == 7) {
                // Each input row loaded once per window row, its taps made by shuffles: a 64-byte
                // load off a 64-byte boundary reads two cache lines.
                let row = plane.sourceRow
                for ky in 0..<k {
                    let taps = w + ky * k
                    depthwiseRowTaps(&acc.a0, &acc.b0, origin + ky * row, taps, k: k, stride: stride)
                    depthwiseRowTaps(&acc.a1, &acc.b1, origin + ky * row + rowStep, taps, k: k, stride: stride)
                    depthwiseRowTaps(&acc.a2, &acc.b2, origin + ky * row + 2 * rowStep, taps, k: k, stride: stride)
                    depthwiseRowTaps(&acc.a3, &acc.b3, origin + ky * row + 3 * rowStep, taps, k: k, stride: stride)
                }
            } else {
                for ky in 0..<k {
                    for kx in 0..<k {
                        acc.accumulate(w[ky * k + kx], origin + ky * dilation * plane.sourceRow + kx * dilation,
                                       rowStep: rowStep, stride: stride)
                    }
                }
            }
            acc.finish(A.self, plane, top: top, column: xo)
            xo += 2 * lanes
        }
        // A last full vector: the same loads-once-per-row scheme on four chains.
        if dilation == 1 && (k == 3 || k == 5 || k == 7) && xo + lanes <= plane.width {
            var acc = DepthwiseRows4(bias: plane.bias)
            let origin = plane.source + top * rowStep + xo * stride
            let row = plane.sourceRow
            for ky in 0..<k {
                let taps = w + ky * k
                depthwiseRowTaps(&acc.a0, origin + ky * row, taps, k: k, stride: stride)
                depthwiseRowTaps(&acc.a1, origin + ky * row + rowStep, taps, k: k, stride: stride)
                depthwiseRowTaps(&acc.a2, origin + ky * row + 2 * rowStep, taps, k: k, stride: stride)
                depthwiseRowTaps(&acc.a3, origin + ky * row + 3 * rowStep, taps, k: k, stride: stride)
            }
            plane.finishFull(A.apply(acc.a0), row: top, column: xo)
            plane.finishFull(A.apply(acc.a1), row: top + 1, column: xo)
            plane.finishFull(A.apply(acc.a2), row: top + 2, column: xo)
            plane.finishFull(A.apply(acc.a3), row: top + 3, column: xo)
            xo += lanes
        }
    }
    if T.rows == 4 && wideRegisterFile && dilation == 1 && (stride == 2 ? k == 3 || k == 5 : k == 5 || k == 7)
        && xo < plane.width && plane.width - xo < lanes {
        // The row's last outputs (fewer than a vector): each input row the tile's four output rows
        // read is loaded (and at stride 2 deinterleaved) once, not once per tap and output row
        // (a 3x3 at stride 1 reads its taps from memory faster).
        depthwiseTail(plane, A.self, top: top, column: xo, k: k, stride: stride)
        return
    }
    while xo < plane.width {
        let n = min(lanes, plane.width - xo)
        var acc = T(bias: plane.bias)
        let origin = plane.source + top * rowStep + xo * stride
        for ky in 0..<k {
            for kx in 0..<k {
                acc.accumulate(w[ky * k + kx], origin + ky * dilation * plane.sourceRow + kx * dilation,
                               rowStep: rowStep, stride: stride)
            }
        }
        acc.finish(A.self, plane, top: top, column: xo, count: n)
        xo += lanes
    }
}

/// The accumulators of a depthwise tile: one vector per output row, rows `rowStep` input
/// floats apart (four independent chains hide the multiply-add latency; 2 with
/// ``narrowRegisterFile``, 8 XMM accumulators).
protocol DepthwiseRowTile {
    static var rows: Int { get }
    init(bias: Float)
    mutating func accumulate(_ weight: Float, _ p: UnsafePointer<Float>, rowStep: Int, stride: Int)
    func finish<A: ActivationFunction>(_: A.Type, _ plane: DepthwisePlane, top: Int, column: Int, count: Int)
}

@inline(always)
func depthwiseInput(_ p: UnsafePointer<Float>, stride: Int) -> Vector {
    stride == 1 ? load(p) : loadEven(p)
}

struct DepthwiseRows4: DepthwiseRowTile {
    var a0, a1, a2, a3: Vector
    static var rows: Int { 4 }
    @inline(always) init(bias: Float) { a0 = Vector(repeating: bias); a1 = a0; a2 = a0; a3 = a0 }
    @inline(always) mutating func accumulate(_ weight: Float, _ p: UnsafePointer<Float>, rowStep: Int, stride: Int) {
        a0 = multiplyAdd(a0, weight, depthwiseInput(p, stride: stride))
        a1 = multiplyAdd(a1, weight, depthwiseInput(p + rowStep, stride: stride))
        a2 = multiplyAdd(a2, weight, depthwiseInput(p + 2 * rowStep, stride: stride))
        a3 = multiplyAdd(a3, weight, depthwiseInput(p + 3 * rowStep, stride: stride))
    }
    @inline(always) func finish<A: ActivationFunction>(_: A.Type, _ plane: DepthwisePlane, top: Int, column: Int, count: Int) {
        plane.finish(A.apply(a0), row: top, column: column, count: count)
        plane.finish(A.apply(a1), row: top + 1, column: column, count: count)
        plane.finish(A.apply(a2), row: top + 2, column: column, count: count)
        plane.finish(A.apply(a3), row: top + 3, column: column, count: count)
    }
}

/// One window row's `k` taps (weights `taps`, `k` 3, 5 or 7) of two adjacent output vectors `a` and
/// `b` whose window row starts at `p`: `a[j] += Σ taps[kx]·p[j·stride + kx]` in `kx` order, `b`
/// the same 16 outputs on. The row is loaded once (3 vectors at stride 1, 5 at stride 2) and each
/// tap's input made from those by shuffles.
@inline(always)
func depthwiseRowTaps(_ a: inout Vector, _ b: inout Vector, _ p: UnsafePointer<Float>, _ taps: UnsafePointer<Float>,
                      k: Int, stride: Int) {
    if stride == 1 {
        let v0 = load(p), v1 = load(p + lanes), v2 = load(p + 2 * lanes)
        for kx in 0..<k {
            a = multiplyAdd(a, taps[kx], shifted(v0, v1, by: kx))
            b = multiplyAdd(b, taps[kx], shifted(v1, v2, by: kx))
        }
    } else {
        let v0 = load(p), v1 = load(p + lanes), v2 = load(p + 2 * lanes), v3 = load(p + 3 * lanes)
        let v4 = load(p + 4 * lanes)
        // Even and odd columns of a's 32 inputs, of b's, and the first of the 16 after them.
        let e0 = evenLanes(v0, v1), o0 = oddLanes(v0, v1), e1 = evenLanes(v2, v3), o1 = oddLanes(v2, v3)
        let e2 = evenLanes(v4, v4), o2 = oddLanes(v4, v4)
        for kx in 0..<k {
            // Tap kx reads columns 2j + kx: the even (kx even) or odd columns, kx / 2 on.
            let (x, y, z) = kx % 2 == 0 ? (e0, e1, e2) : (o0, o1, o2)
            a = multiplyAdd(a, taps[kx], shifted(x, y, by: kx / 2))
            b = multiplyAdd(b, taps[kx], shifted(y, z, by: kx / 2))
        }
    }
}

/// ``depthwiseRowTaps(_:_:_:_:k:stride:)`` for one output vector `a` (2 vectors loaded at stride
/// 1, 3 at stride 2).
@inline(always)
func depthwiseRowTaps(_ a: inout Vector, _ p: UnsafePointer<Float>, _ taps: UnsafePointer<Float>, k: Int, stride: Int) {
    if stride == 1 {
        let v0 = load(p), v1 = load(p + lanes)
        for kx in 0..<k { a = multiplyAdd(a, taps[kx], shifted(v0, v1, by: kx)) }
    } else {
        let v0 = load(p), v1 = load(p + lanes), v2 = load(p + 2 * lanes)
        let e0 = evenLanes(v0, v1), o0 = oddLanes(v0, v1), e1 = evenLanes(v2, v2), o1 = oddLanes(v2, v2)
        for kx in 0..<k {
            let (x, y) = kx % 2 == 0 ? (e0, e1) : (o0, o1)
            a = multiplyAdd(a, taps[kx], shifted(x, y, by: kx / 2))
        }
    }
}

/// Four output rows × the last `plane.width − column` (< 16) columns of a K×K depthwise
/// convolution at stride 1 (K 5 or 7) or 2 (K 3 or 5), no dilation: the (T − 1)·stride + K
/// input rows the tile reads are each loaded once (whole vectors: the lanes past the columns the
/// outputs read feed only lanes past the row's outputs, which are not kept; at stride 2 split into
/// even and odd columns), and every output row takes its taps from the rows in (ky, kx) order: the
/// same multiply-adds as ``DepthwiseRows4``. The rows run as straight-line code (``unrolled(_:_:)``).
@inline(always)
func depthwiseTail<A: ActivationFunction>(_ plane: DepthwisePlane, _: A.Type, top: Int, column: Int, k: Int, stride: Int) {
    let n = plane.width - column
    let w = plane.weights, row = plane.sourceRow
    let origin = plane.source + stride * (top * row + column)
    // At stride 2 the last output's taps reach past the row's first 32 columns only for 15 outputs
    // of a 5x5 (its shifted even columns then take one lane of the third vector).
    let third = stride == 2 && stride * (n - 1) + k > 2 * lanes
    var rows = DepthwiseTailRows(acc: DepthwiseRows4(bias: plane.bias), origin: origin, row: row, weights: w,
                                 k: k, stride: stride, third: third)
    unrolled(stride * 3 + k, &rows)
    let acc = rows.acc
    acc.finish(A.self, plane, top: top, column: column, count: n)
}

/// The input rows of ``depthwiseTail(_:_:top:column:k:stride:)``: input row `r` of the tile
/// loaded once and its taps added to each of the four output rows that read it.
struct DepthwiseTailRows: UnrolledSteps {
    var acc: DepthwiseRows4
    let origin: UnsafePointer<Float>, row: Int, weights: UnsafePointer<Float>
    let k: Int, stride: Int, third: Bool

    @inline(always) mutating func step(_ r: Int) {
        let p = origin + r * row
        let v0 = load(p), v1 = load(p + lanes)
        let v2 = third ? load(p + 2 * lanes) : v1
        // Tap kx's inputs: at stride 1 the row from column kx on; at stride 2 the even (kx even)
        // or odd columns, kx / 2 on.
        let e0 = stride == 1 ? v0 : evenLanes(v0, v1), o0 = stride == 1 ? v0 : oddLanes(v0, v1)
        let e1 = stride == 1 ? v1 : third ? evenLanes(v2, v2) : e0, o1 = stride == 1 ? v1 : third ? oddLanes(v2, v2) : o0
        let k = k, stride = stride, w = weights
        @inline(always) func taps(_ a: inout Vector, ky: Int) {
            guard ky >= 0 && ky < k else { return }
            for kx in 0..<k {
                let input = stride == 1 ? shifted(v0, v1, by: kx) : kx % 2 == 0 ? shifted(e0, e1, by: kx / 2) : shifted(o0, o1, by: kx / 2)
                a = multiplyAdd(a, w[ky * k + kx], input)
            }
        }
        taps(&acc.a0, ky: r)
        taps(&acc.a1, ky: r - stride)
        taps(&acc.a2, ky: r - 2 * stride)
        taps(&acc.a3, ky: r - 3 * stride)
    }
}

/// Output rows of a strip of ``depthwiseStrips(_:_:height:k:rows:)`` on a map `height` rows
/// high: 8, or 7 where that leaves no rows computed twice and 8 would (28, 14, 35 rows…).
func depthwiseStripRows(height: Int) -> Int { height % 8 != 0 && height % 7 == 0 ? 7 : 8 }

/// One plane of a 7x7 depthwise convolution at stride 1, no dilation, on a map at least `rows`
/// (7 or 8) rows high, with 32 vector registers: strips of `rows` output rows × 16 columns, the
/// `rows + 6` input rows a strip reads each loaded once (two vectors) and each tap's shifted input
/// made once per input row and shared by every output row that reads it (up to 7). Every output
/// is the bias then its taps in (ky, kx) order, as ``DepthwiseRows4``; the last strip is moved up
/// to end at the last row, recomputing rows with the same operations.
@inline(always)
func depthwiseStrips<A: ActivationFunction>(_ plane: DepthwisePlane, _: A.Type, height: Int, k: Int, rows: Int) {
    var top = 0
    while top < height {
        let first = min(top, height - rows)
        var xo = 0
        while xo < plane.width {
            var strip = DepthwiseStripRows(bias: plane.bias, origin: plane.source + first * plane.sourceRow + xo,
                                           row: plane.sourceRow, weights: plane.weights, k: k, rows: rows)
            unrolled(rows + k - 1, &strip)
            strip.finish(A.self, plane, top: first, column: xo)
            xo += lanes
        }
        top += rows
    }
}

/// The accumulators and input rows of one strip of ``depthwiseStrips(_:_:height:k:rows:)``: `a`i
/// output row i's 16 columns; step r loads input row r of the strip (two vectors: the lanes past
/// the columns the outputs read feed only lanes past the row's outputs, which are not kept) and
/// adds its taps to each output row i with 0 ≤ r − i < k.
struct DepthwiseStripRows: UnrolledSteps {
    var a0, a1, a2, a3, a4, a5, a6, a7: Vector
    let origin: UnsafePointer<Float>, row: Int, weights: UnsafePointer<Float>
    let k: Int, rows: Int

    @inline(always)
    init(bias: Float, origin: UnsafePointer<Float>, row: Int, weights: UnsafePointer<Float>, k: Int, rows: Int) {
        a0 = Vector(repeating: bias)
        (a1, a2, a3, a4, a5, a6, a7) = (a0, a0, a0, a0, a0, a0, a0)
        self.origin = origin
        self.row = row
        self.weights = weights
        self.k = k
        self.rows = rows
    }

    @inline(always) mutating func step(_ r: Int) {
        let p = origin + r * row
        let v0 = load(p), v1 = load(p + lanes)
        let k = k, rows = rows, w = weights
        for kx in 0..<k {
            let x = shifted(v0, v1, by: kx)
            @inline(always) func tap(_ a: inout Vector, _ i: Int) {
                let ky = r - i
                guard i < rows && ky >= 0 && ky < k else { return }
                a = multiplyAdd(a, w[ky * k + kx], x)
            }
            tap(&a0, 0); tap(&a1, 1); tap(&a2, 2); tap(&a3, 3); tap(&a4, 4); tap(&a5, 5); tap(&a6, 6); tap(&a7, 7)
        }
    }

    /// The strip's rows activated and stored (``DepthwisePlane/finish(_:row:column:count:)``): 16
    /// columns from `column`, cut at the row's end.
    @inline(always) func finish<A: ActivationFunction>(_: A.Type, _ plane: DepthwisePlane, top: Int, column: Int) {
        let n = plane.width - column
        @inline(always) func put(_ a: Vector, _ i: Int) {
            guard i < rows else { return }
            if n >= lanes {
                plane.finishFull(A.apply(a), row: top + i, column: column)
            } else {
                plane.finish(A.apply(a), row: top + i, column: column, count: n)
            }
        }
        put(a0, 0); put(a1, 1); put(a2, 2); put(a3, 3); put(a4, 4); put(a5, 5); put(a6, 6); put(a7, 7)
    }
}

/// A body run for indices 0, 1, 2, … by ``unrolled(_:_:)``.
protocol UnrolledSteps {
    mutating func step(_ index: Int)
}

/// `body.step(0)`, `body.step(1)`, …, `body.step(count − 1)` for `count` up to 16, as
/// straight-line code where `count` is a constant after inlining (the steps' own branches on the
/// index then fold away). A mutable struct, not a closure: a closure that mutates what it captures
/// allocates a box in unoptimised builds.
@inline(always)
func unrolled<Body: UnrolledSteps>(_ count: Int, _ body: inout Body) {
    precondition(count <= 16, "unrolled: at most 16 steps")
    #if DEBUG
    // Unoptimised builds keep every inlined copy's locals in the frame: one copy of the step.
    for index in 0..<count { body.step(index) }
    #else
    if count > 0 { body.step(0) }
    if count > 1 { body.step(1) }
    if count > 2 { body.step(2) }
    if count > 3 { body.step(3) }
    if count > 4 { body.step(4) }
    if count > 5 { body.step(5) }
    if count > 6 { body.step(6) }
    if count > 7 { body.step(7) }
    if count > 8 { body.step(8) }
    if count > 9 { body.step(9) }
    if count > 10 { body.step(10) }
    if count > 11 { body.step(11) }
    if count > 12 { body.step(12) }
    if count > 13 { body.step(13) }
    if count > 14 { body.step(14) }
    if count > 15 { body.step(15) }
    #endif
}

/// Four output rows × two full vectors (32 columns): eight accumulators, the tile of the
/// column runs a ``DepthwiseRows4`` tile would cover in two steps, with the same operations.
struct DepthwiseRows4x2 {
    var a0, a1, a2, a3, b0, b1, b2, b3: Vector
    @inline(always) init(bias: Float) { a0 = Vector(repeating: bias); a1 = a0; a2 = a0; a3 = a0; b0 = a0; b1 = a0; b2 = a0; b3 = a0 }
    @inline(always) mutating func accumulate(_ weight: Float, _ p: UnsafePointer<Float>, rowStep: Int, stride: Int) {
        let q = p + lanes * stride
        a0 = multiplyAdd(a0, weight, depthwiseInput(p, stride: stride))
        b0 = multiplyAdd(b0, weight, depthwiseInput(q, stride: stride))
        a1 = multiplyAdd(a1, weight, depthwiseInput(p + rowStep, stride: stride))
        b1 = multiplyAdd(b1, weight, depthwiseInput(q + rowStep, stride: stride))
        a2 = multiplyAdd(a2, weight, depthwiseInput(p + 2 * rowStep, stride: stride))
        b2 = multiplyAdd(b2, weight, depthwiseInput(q + 2 * rowStep, stride: stride))
        a3 = multiplyAdd(a3, weight, depthwiseInput(p + 3 * rowStep, stride: stride))
        b3 = multiplyAdd(b3, weight, depthwiseInput(q + 3 * rowStep, stride: stride))
    }
    @inline(always) func finish<A: ActivationFunction>(_: A.Type, _ plane: DepthwisePlane, top: Int, column: Int) {
        plane.finishFull(A.apply(a0), row: top, column: column)
        plane.finishFull(A.apply(b0), row: top, column: column + lanes)
        plane.finishFull(A.apply(a1), row: top + 1, column: column)
        plane.finishFull(A.apply(b1), row: top + 1, column: column + lanes)
        plane.finishFull(A.apply(a2), row: top + 2, column: column)
        plane.finishFull(A.apply(b2), row: top + 2, column: column + lanes)
        plane.finishFull(A.apply(a3), row: top + 3, column: column)
        plane.finishFull(A.apply(b3), row: top + 3, column: column + lanes)
    }
}

struct DepthwiseRows2: DepthwiseRowTile {
    var a0, a1: Vector
    static var rows: Int { 2 }
    @inline(always) init(bias: Float) { a0 = Vector(repeating: bias); a1 = a0 }
    @inline(always) mutating func accumulate(_ weight: Float, _ p: UnsafePointer<Float>, rowStep: Int, stride: Int) {
        a0 = multiplyAdd(a0, weight, depthwiseInput(p, stride: stride))
        a1 = multiplyAdd(a1, weight, depthwiseInput(p + rowStep, stride: stride))
    }
    @inline(always) func finish<A: ActivationFunction>(_: A.Type, _ plane: DepthwisePlane, top: Int, column: Int, count: Int) {
        plane.finish(A.apply(a0), row: top, column: column, count: count)
        plane.finish(A.apply(a1), row: top + 1, column: column, count: count)
    }
}

struct DepthwiseRows1: DepthwiseRowTile {
    var a0: Vector
    static var rows: Int { 1 }
    @inline(always) init(bias: Float) { a0 = Vector(repeating: bias) }
    @inline(always) mutating func accumulate(_ weight: Float, _ p: UnsafePointer<Float>, rowStep: Int, stride: Int) {
        a0 = multiplyAdd(a0, weight, depthwiseInput(p, stride: stride))
    }
    @inline(always) func finish<A: ActivationFunction>(_: A.Type, _ plane: DepthwisePlane, top: Int, column: Int, count: Int) {
        plane.finish(A.apply(a0), row: top, column: column, count: count)
    }
}
