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
                for dy in 0..<2 {
                    let out = output.plane(o) + (2 * i + dy) * output.layout.rowStride
                    var j = 0
                    while j < inW {
                        let n = min(lanes, inW - j)
                        var even = Vector(repeating: b), odd = even
                        for c in 0..<cin {
                            let x = load(UnsafePointer(input.plane(c) + i * input.layout.rowStride + j), count: n)
                            let wc = w + ((c * cout + o) * 2 + dy) * 2
                            even = multiplyAdd(even, wc[0], x)
                            odd = multiplyAdd(odd, wc[1], x)
                        }
                        let (low, high) = interleave(activation.apply(even), activation.apply(odd))
                        store(low, out + 2 * j, count: 2 * n)
                        if n > lanes / 2 { store(high, out + 2 * j + lanes, count: 2 * n - lanes) }
                        j += lanes
                    }
                }
            }
        }
    }
}
