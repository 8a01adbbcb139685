/// Weights of a 2×2 stride-2 transposed convolution (no overlap: each input pixel writes one
/// 2×2 output block).
public final class TransposedConvolutionWeights {
    public let inputChannels: Int
    public let outputChannels: Int
    let weights: FloatBuffer   // [in][out][2][2]
    let bias: FloatBuffer

    /// `weights` as ONNX ConvTranspose's [Cin, Cout, 2, 2] (row-major); bias zero when nil.
    public init(weights: [Float], bias: [Float]?, inputChannels: Int, outputChannels: Int) {
        precondition(inputChannels > 0 && outputChannels > 0, "empty transposed convolution")
        precondition(weights.count == inputChannels * outputChannels * 4, "transposed convolution weights: wrong size")
        precondition(bias == nil || bias!.count == outputChannels, "transposed convolution bias: wrong size")
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        self.weights = FloatBuffer(weights)
        self.bias = FloatBuffer(bias ?? [Float](repeating: 0, count: outputChannels))
    }
}

/// 2×2 stride-2 transposed convolution with bias and activation (`.sigmoid` for the mask):
/// `output[o][2i+dy][2j+dx] = act(bias[o] + Σ_c w[c][o][dy][dx]·input[c][i][j])`.
///
/// Even and odd output columns are accumulated in two vectors and interleaved in registers.
/// Input rows are split between threads.
/// - Precondition: `output` is 2W×2H with `weights.outputChannels` channels; any layouts.
@inline(never)
public func transposedConvolution2x2(_ input: FeatureMap, weights: TransposedConvolutionWeights,
                                     activation: Activation, output: FeatureMap, pool: WorkerPool) {
    let inW = input.layout.width, inH = input.layout.height
    precondition(input.channels == weights.inputChannels && output.channels == weights.outputChannels
                 && output.layout.width == 2 * inW && output.layout.height == 2 * inH,
                 "transposed convolution shape mismatch")
    pool.run(TransposedConvolutionParts(input: input, weights: weights, activation: activation, output: output))
}

/// The transposed convolution split over input rows between threads.
struct TransposedConvolutionParts: PoolJob {
    let input: FeatureMap, weights: TransposedConvolutionWeights, activation: Activation, output: FeatureMap
    func run(part: Int, pool: WorkerPool) {
        let inW = input.layout.width, inH = input.layout.height
        let cin = weights.inputChannels, cout = weights.outputChannels
        let w = UnsafePointer(weights.weights.baseAddress)
        for i in WorkerPool.range(inH, part: part, of: pool.threadCount) {
            for o in 0..<cout {
                let b = weights.bias.baseAddress[o]
                let out0 = output.plane(o) + 2 * i * output.layout.rowStride
                let out1 = out0 + output.layout.rowStride
                var j = 0
                while j < inW {
                    let n = min(lanes, inW - j)
                    // Both output rows (dy) and both columns (dx) of the 2x2 blocks from one load
                    // of each input vector.
                    var e0 = Vector(repeating: b), o0 = e0, e1 = e0, o1 = e0
                    var wc = w + o * 4
                    var x = UnsafePointer(input.plane(0) + i * input.layout.rowStride + j)
                    for _ in 0..<cin {
                        let v = load(x, count: n)
                        e0 = multiplyAdd(e0, wc[0], v)
                        o0 = multiplyAdd(o0, wc[1], v)
                        e1 = multiplyAdd(e1, wc[2], v)
                        o1 = multiplyAdd(o1, wc[3], v)
                        wc += cout * 4
                        x += input.layout.planeStride
                    }
                    let (low0, high0) = interleave(activation.apply(e0), activation.apply(o0))
                    let (low1, high1) = interleave(activation.apply(e1), activation.apply(o1))
                    store(low0, out0 + 2 * j, count: 2 * n)
                    store(low1, out1 + 2 * j, count: 2 * n)
                    if n > lanes / 2 {
                        store(high0, out0 + 2 * j + lanes, count: 2 * n - lanes)
                        store(high1, out1 + 2 * j + lanes, count: 2 * n - lanes)
                    }
                    j += lanes
                }
            }
        }
    }
}
