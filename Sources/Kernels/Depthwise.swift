/// Depthwise convolution weights: one K×K filter and one bias per channel.
public final class DepthwiseWeights {
    public let channels: Int
    public let kernelSize: Int
    let weights: FloatBuffer
    let bias: FloatBuffer

    /// `weights` as ONNX's [C, 1, K, K] (row-major), `bias` C values or zero when nil.
    public init(weights: [Float], bias: [Float]?, channels: Int, kernelSize: Int) {
        precondition(channels > 0 && kernelSize > 0, "empty depthwise convolution")
        precondition(weights.count == channels * kernelSize * kernelSize, "depthwise weights: expected \(channels)x\(kernelSize)x\(kernelSize)")
        precondition(bias == nil || bias!.count == channels, "depthwise bias: expected \(channels)")
        self.channels = channels
        self.kernelSize = kernelSize
        self.weights = FloatBuffer(weights)
        self.bias = FloatBuffer(bias ?? [Float](repeating: 0, count: channels))
    }
}

/// Depthwise K×K convolution, stride 1 or 2, with bias, activation and an optional residual
/// added after the activation: `output[c] = act(bias[c] + Σ w[c]·window) + residual[c]`.
///
/// The input is read in place from its padded layout: window row `yo·stride − padTop + ky`,
/// column `xo·stride − padLeft + kx`, where the border supplies the zeros, so TF-SAME
/// asymmetric pads ([0,0,1,1] for 3x3 s2, [1,1,2,2] for 5x5 s2) need no copy. 16 outputs of a
/// row are one vector; stride 2 deinterleaves its input in registers. 3x3 and 5x5 at strides 1
/// and 2 have their own functions (so a profile names them); other sizes take a generic loop.
/// Channels are split between threads; each output is computed identically on either.
///
/// - Precondition: `input.layout.pad` covers the window: `padTop, padLeft ≤ pad`, and the last
///   window row/column lies at most `pad` beyond the interior. `output` and `residual` (any
///   layouts) have the input's channel count and the output size.
public func depthwiseConvolution(
    _ input: FeatureMap, weights: DepthwiseWeights, stride: Int, padTop: Int, padLeft: Int,
    activation: Activation, residual: FeatureMap? = nil, output: FeatureMap, pool: WorkerPool
) {
    let k = weights.kernelSize
    let inL = input.layout, outL = output.layout
    precondition(stride == 1 || stride == 2, "depthwise stride must be 1 or 2")
    precondition(input.channels == weights.channels && output.channels == weights.channels, "depthwise channel mismatch")
    precondition(padTop >= 0 && padLeft >= 0 && padTop <= inL.pad && padLeft <= inL.pad, "depthwise pad exceeds the input border")
    precondition((outL.height - 1) * stride - padTop + k - 1 <= inL.height - 1 + inL.pad
                 && (outL.width - 1) * stride - padLeft + k - 1 <= inL.width - 1 + inL.pad,
                 "depthwise window reads beyond the input border")
    if let residual {
        precondition(residual.channels == output.channels && residual.layout.width == outL.width
                     && residual.layout.height == outL.height, "depthwise residual shape mismatch")
    }
    pool.run { part in
        let channels = WorkerPool.range(weights.channels, part: part, of: pool.threadCount)
        let job = DepthwiseJob(input: input, weights: weights.weights.baseAddress, bias: weights.bias.baseAddress,
                               padTop: padTop, padLeft: padLeft, activation: activation, residual: residual,
                               output: output, channels: channels)
        switch (k, stride) {
        case (3, 1): depthwise3x3Stride1(job)
        case (3, 2): depthwise3x3Stride2(job)
        case (5, 1): depthwise5x5Stride1(job)
        case (5, 2): depthwise5x5Stride2(job)
        default: depthwiseGeneric(job, kernelSize: k, stride: stride)
        }
    }
}

struct DepthwiseJob {
    var input: FeatureMap
    var weights: UnsafePointer<Float>
    var bias: UnsafePointer<Float>
    var padTop: Int
    var padLeft: Int
    var activation: Activation
    var residual: FeatureMap?
    var output: FeatureMap
    var channels: Range<Int>
}

@inline(never) func depthwise3x3Stride1(_ job: DepthwiseJob) { depthwisePlanes(job, k: 3, stride: 1) }
@inline(never) func depthwise3x3Stride2(_ job: DepthwiseJob) { depthwisePlanes(job, k: 3, stride: 2) }
@inline(never) func depthwise5x5Stride1(_ job: DepthwiseJob) { depthwisePlanes(job, k: 5, stride: 1) }
@inline(never) func depthwise5x5Stride2(_ job: DepthwiseJob) { depthwisePlanes(job, k: 5, stride: 2) }
@inline(never) func depthwiseGeneric(_ job: DepthwiseJob, kernelSize: Int, stride: Int) {
    depthwisePlanes(job, k: kernelSize, stride: stride)
}

/// The body shared by the named variants; with `k` and `stride` constant after inlining every
/// loop over the window unrolls.
///
/// A tile is 4 output rows × 16 columns: four independent accumulator chains (one chain of
/// K·K dependent FMAs would be latency-bound at ~8 FLOP/cycle), and each loaded input vector
/// feeds every output row whose window covers it (stride 1: 18 loads for 36 FMAs at 3x3).
/// Maps shorter than 4 rows use 1-row tiles; the last 4-row tile of a taller map is moved up to
/// end at the last row, recomputing a few rows with the same operations (so the same values).
@inline(always)
func depthwisePlanes(_ job: DepthwiseJob, k: Int, stride: Int) {
    let outL = job.output.layout
    let outH = outL.height
    for c in job.channels {
        let plane = DepthwisePlane(job: job, channel: c, k: k)
        if outH >= 4 {
            var yo = 0
            while yo < outH {
                let top = min(yo, outH - 4)
                depthwiseTile4(plane, top: top, k: k, stride: stride)
                yo += 4
            }
        } else {
            for yo in 0..<outH { depthwiseTile1(plane, row: yo, k: k, stride: stride) }
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
    var activation: Activation

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
        activation = job.activation
    }

    @inline(always)
    func finish(_ acc: Vector, row: Int, column: Int, count: Int) {
        var y = activation.apply(acc)
        if let residual { y += load(residual + row * residualRow + column, count: count) }
        store(y, destination + row * destinationRow + column, count: count)
    }

    @inline(always)
    func input(row: Int, column: Int, stride: Int) -> Vector {
        let p = source + row * sourceRow + column
        return stride == 1 ? load(p) : loadEven(p)
    }
}

@inline(always)
func depthwiseTile4(_ plane: DepthwisePlane, top: Int, k: Int, stride: Int) {
    let w = plane.weights
    var xo = 0
    while xo < plane.width {
        let n = min(lanes, plane.width - xo)
        var a0 = Vector(repeating: plane.bias), a1 = a0, a2 = a0, a3 = a0
        for ir in 0..<(3 * stride + k) {
            for kx in 0..<k {
                let x = plane.input(row: top * stride + ir, column: xo * stride + kx, stride: stride)
                if ir < k { a0 = multiplyAdd(a0, w[ir * k + kx], x) }
                if ir >= stride && ir - stride < k { a1 = multiplyAdd(a1, w[(ir - stride) * k + kx], x) }
                if ir >= 2 * stride && ir - 2 * stride < k { a2 = multiplyAdd(a2, w[(ir - 2 * stride) * k + kx], x) }
                if ir >= 3 * stride && ir - 3 * stride < k { a3 = multiplyAdd(a3, w[(ir - 3 * stride) * k + kx], x) }
            }
        }
        plane.finish(a0, row: top, column: xo, count: n)
        plane.finish(a1, row: top + 1, column: xo, count: n)
        plane.finish(a2, row: top + 2, column: xo, count: n)
        plane.finish(a3, row: top + 3, column: xo, count: n)
        xo += lanes
    }
}

@inline(always)
func depthwiseTile1(_ plane: DepthwisePlane, row: Int, k: Int, stride: Int) {
    let w = plane.weights
    var xo = 0
    while xo < plane.width {
        let n = min(lanes, plane.width - xo)
        var a0 = Vector(repeating: plane.bias)
        for ky in 0..<k {
            for kx in 0..<k {
                a0 = multiplyAdd(a0, w[ky * k + kx], plane.input(row: row * stride + ky, column: xo * stride + kx, stride: stride))
            }
        }
        plane.finish(a0, row: row, column: xo, count: n)
        xo += lanes
    }
}
