/// Dense (groups = 1) K×K convolution weights packed for ``convolution(_:weights:stride:padTop:padLeft:activation:output:pool:)``:
/// output channels in tiles of 8, each tile [input channel][ky][kx][8].
public final class ConvolutionWeights {
    public let outputChannels: Int
    public let inputChannels: Int
    public let kernelSize: Int
    let packed: FloatBuffer
    let bias: FloatBuffer

    var tiles: Int { (outputChannels + 7) / 8 }

    /// `weights` as ONNX's [Cout, Cin, K, K] (row-major), `bias` Cout values or zero when nil.
    public init(weights: [Float], bias: [Float]?, outputChannels: Int, inputChannels: Int, kernelSize: Int) {
        let kk = kernelSize * kernelSize
        precondition(outputChannels > 0 && inputChannels > 0 && kernelSize > 0, "empty convolution")
        precondition(weights.count == outputChannels * inputChannels * kk, "convolution weights: wrong size")
        precondition(bias == nil || bias!.count == outputChannels, "convolution bias: expected \(outputChannels)")
        self.outputChannels = outputChannels
        self.inputChannels = inputChannels
        self.kernelSize = kernelSize
        let tiles = (outputChannels + 7) / 8
        packed = FloatBuffer(count: tiles * 8 * inputChannels * kk)
        self.bias = FloatBuffer(count: tiles * 8)
        for o in 0..<outputChannels {
            let tile = o / 8, lane = o % 8
            for i in 0..<inputChannels * kk {
                packed.baseAddress[(tile * inputChannels * kk + i) * 8 + lane] = weights[o * inputChannels * kk + i]
            }
            self.bias.baseAddress[o] = bias?[o] ?? 0
        }
    }
}

/// Dense K×K convolution, stride 1 or 2, with bias and activation; the network's stem
/// (3x3 stride 2, 3→16, hard-swish) has its own function.
///
/// Reads the input in place from its padded layout (as ``depthwiseConvolution(_:weights:stride:padTop:padLeft:activation:residual:output:pool:)``).
/// Register tile: 8 output channels × 32 pixels of one output row; output rows are split
/// between threads. Each output is bias + fused multiply-adds in (input channel, ky, kx) order.
///
/// - Precondition: the input border covers the window (see the depthwise kernel); `output` has
///   `weights.outputChannels` channels.
public func convolution(
    _ input: FeatureMap, weights: ConvolutionWeights, stride: Int, padTop: Int, padLeft: Int,
    activation: Activation, output: FeatureMap, pool: WorkerPool
) {
    let k = weights.kernelSize
    let inL = input.layout, outL = output.layout
    precondition(stride == 1 || stride == 2, "convolution stride must be 1 or 2")
    precondition(input.channels == weights.inputChannels && output.channels == weights.outputChannels, "convolution channel mismatch")
    precondition(padTop >= 0 && padLeft >= 0 && padTop <= inL.pad && padLeft <= inL.pad, "convolution pad exceeds the input border")
    precondition((outL.height - 1) * stride - padTop + k - 1 <= inL.height - 1 + inL.pad
                 && (outL.width - 1) * stride - padLeft + k - 1 <= inL.width - 1 + inL.pad,
                 "convolution window reads beyond the input border")
    pool.run { part in
        let rows = WorkerPool.range(outL.height, part: part, of: pool.threadCount)
        let job = ConvolutionJob(input: input, weights: weights, padTop: padTop, padLeft: padLeft,
                                 activation: activation, output: output, rows: rows)
        if k == 3 && stride == 2 {
            convolution3x3Stride2(job)
        } else {
            convolutionGeneric(job, kernelSize: k, stride: stride)
        }
    }
}

struct ConvolutionJob {
    var input: FeatureMap
    var weights: ConvolutionWeights
    var padTop: Int
    var padLeft: Int
    var activation: Activation
    var output: FeatureMap
    var rows: Range<Int>
}

@inline(never) func convolution3x3Stride2(_ job: ConvolutionJob) { convolutionRows(job, k: 3, stride: 2) }
@inline(never) func convolutionGeneric(_ job: ConvolutionJob, kernelSize: Int, stride: Int) {
    convolutionRows(job, k: kernelSize, stride: stride)
}

extension Row32 {
    @inline(always) init(_ p: UnsafePointer<Float>, stride: Int) {
        if stride == 1 { a = load(p); b = load(p + 16) } else { a = loadEven(p); b = loadEven(p + 32) }
    }
}

extension Row16 {
    @inline(always) init(_ p: UnsafePointer<Float>, stride: Int) {
        a = stride == 1 ? load(p) : loadEven(p)
    }
}

@inline(always)
func convolutionRows(_ job: ConvolutionJob, k: Int, stride: Int) {
    let w = job.weights
    let cin = w.inputChannels, tiles = w.tiles, cout = w.outputChannels
    let inL = job.input.layout, outL = job.output.layout
    let inRow = inL.rowStride, inPlane = inL.planeStride
    let outW = outL.width
    let src = UnsafePointer(job.input.plane(0))
    for yo in job.rows {
        let rowBase = src + (yo * stride - job.padTop) * inRow - job.padLeft
        for tile in 0..<tiles {
            let wTile = UnsafePointer(w.packed.baseAddress + tile * 8 * cin * k * k)
            let bias = UnsafePointer(w.bias.baseAddress + tile * 8)
            let channels = min(8, cout - tile * 8)
            var xo = 0
            while xo + Row32.width <= outW {
                var t = Tile8<Row32>(bias: bias)
                var wp = wTile
                for ci in 0..<cin {
                    for ky in 0..<k {
                        let r = rowBase + ci * inPlane + ky * inRow + xo * stride
                        for kx in 0..<k {
                            t.accumulate(wp, Row32(r + kx, stride: stride))
                            wp += 8
                        }
                    }
                }
                t.forEachRow(channels) { row, value in
                    let dst = job.output.plane(tile * 8 + row) + yo * outL.rowStride + xo
                    store(job.activation.apply(value.a), dst)
                    store(job.activation.apply(value.b), dst + 16)
                }
                xo += Row32.width
            }
            while xo < outW {
                let n = min(lanes, outW - xo)
                var t = Tile8<Row16>(bias: bias)
                var wp = wTile
                for ci in 0..<cin {
                    for ky in 0..<k {
                        let r = rowBase + ci * inPlane + ky * inRow + xo * stride
                        for kx in 0..<k {
                            t.accumulate(wp, Row16(r + kx, stride: stride))
                            wp += 8
                        }
                    }
                }
                t.forEachRow(channels) { row, value in
                    let dst = job.output.plane(tile * 8 + row) + yo * outL.rowStride + xo
                    store(job.activation.apply(value.a), dst, count: n)
                }
                xo += lanes
            }
        }
    }
}
