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

/// The body shared by the named variants; with `k` and `stride` constant after inlining the
/// window loops unroll.
@inline(__always)
func depthwisePlanes(_ job: DepthwiseJob, k: Int, stride: Int) {
    let inL = job.input.layout, outL = job.output.layout
    let inRow = inL.rowStride, outRow = outL.rowStride
    let outW = outL.width, outH = outL.height
    for c in job.channels {
        let src = UnsafePointer(job.input.plane(c))
        let dst = job.output.plane(c)
        let res = job.residual.map { UnsafePointer($0.plane(c)) }
        let resRow = job.residual?.layout.rowStride ?? 0
        let w = job.weights + c * k * k
        let b = job.bias[c]
        for yo in 0..<outH {
            let rowBase = src + (yo * stride - job.padTop) * inRow - job.padLeft
            var xo = 0
            while xo < outW {
                let n = min(lanes, outW - xo)
                var acc = Vector(repeating: b)
                for ky in 0..<k {
                    let r = rowBase + ky * inRow + xo * stride
                    for kx in 0..<k {
                        let x = stride == 1 ? load(r + kx) : loadEven(r + kx)
                        acc = multiplyAdd(acc, w[ky * k + kx], x)
                    }
                }
                acc = job.activation.apply(acc)
                if let res {
                    acc += load(res + yo * resRow + xo, count: n)
                }
                store(acc, dst + yo * outRow + xo, count: n)
                xo += lanes
            }
        }
    }
}
