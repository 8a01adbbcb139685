/// Weights of a 2×2 stride-2 transposed convolution (no overlap: each input pixel writes one
/// 2×2 output block).
package final class TransposedConvolutionWeights {
    package let inputChannels: Int
    package let outputChannels: Int
    let weights: FloatBuffer   // [in][out][2][2]
    let bias: FloatBuffer

    /// `weights` as ONNX ConvTranspose's [Cin, Cout, 2, 2] (row-major); bias zero when nil.
    package init(weights: [Float], bias: [Float]?, inputChannels: Int, outputChannels: Int) {
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
package func transposedConvolution2x2(_ input: FeatureMap, weights: TransposedConvolutionWeights,
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
                if narrowRegisterFile {
                    // 16 XMM registers: one output row at a time (2 accumulators, 8 registers).
                    transposedConvolutionRow(input, row: i, weights: w + o * 4, weightStride: cout * 4, bias: b,
                                             activation: activation, output: out0, width: inW)
                    transposedConvolutionRow(input, row: i, weights: w + o * 4 + 2, weightStride: cout * 4, bias: b,
                                             activation: activation, output: out1, width: inW)
                    continue
                }
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

/// One output row (dy fixed) of a 2×2 stride-2 transposed convolution: `weights` points at
/// w[0][o][dy][0], consecutive input channels `weightStride` apart. Each output is the same
/// bias + multiply-adds in input-channel order as the two-row loop computes.
@inline(always)
func transposedConvolutionRow(_ input: FeatureMap, row i: Int, weights: UnsafePointer<Float>, weightStride: Int,
                              bias b: Float, activation: Activation, output: UnsafeMutablePointer<Float>, width inW: Int) {
    var j = 0
    while j < inW {
        let n = min(lanes, inW - j)
        var e = Vector(repeating: b), o = e
        var wc = weights
        var x = UnsafePointer(input.plane(0) + i * input.layout.rowStride + j)
        for _ in 0..<input.channels {
            let v = load(x, count: n)
            e = multiplyAdd(e, wc[0], v)
            o = multiplyAdd(o, wc[1], v)
            wc += weightStride
            x += input.layout.planeStride
        }
        let (low, high) = interleave(activation.apply(e), activation.apply(o))
        store(low, output + 2 * j, count: 2 * n)
        if n > lanes / 2 { store(high, output + 2 * j + lanes, count: 2 * n - lanes) }
        j += lanes
    }
}

/// Transposed-convolution weights as one 1x1 GEMM per window tap: tap (ky, kx) maps the input
/// channels to the output channels with W[i][o][ky][kx].
package final class TapWeights {
    package let inputChannels: Int, outputChannels: Int, kernelHeight: Int, kernelWidth: Int
    let taps: [PointwiseWeights]
    let bias: FloatBuffer

    /// `weights` as ONNX's ConvTranspose [Cin, Cout, kH, kW] (group 1), `bias` Cout values or zero.
    package init(weights: [Float], bias: [Float]?, inputChannels: Int, outputChannels: Int, kernelHeight: Int, kernelWidth: Int) {
        precondition(weights.count == inputChannels * outputChannels * kernelHeight * kernelWidth, "transposed weights: wrong size")
        precondition(bias == nil || bias!.count == outputChannels, "transposed bias: expected \(outputChannels)")
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        self.kernelHeight = kernelHeight
        self.kernelWidth = kernelWidth
        let window = kernelHeight * kernelWidth
        taps = (0..<window).map { t in
            var tap = [Float](repeating: 0, count: outputChannels * inputChannels)
            for o in 0..<outputChannels {
                for i in 0..<inputChannels { tap[o * inputChannels + i] = weights[(i * outputChannels + o) * window + t] }
            }
            return PointwiseWeights(weights: tap, bias: nil, outputChannels: outputChannels, inputChannels: inputChannels)
        }
        self.bias = FloatBuffer(bias ?? [Float](repeating: 0, count: outputChannels))
    }
}

/// ONNX ConvTranspose (group 1) of any window, stride, dilation and padding: the output is the
/// bias, then for each tap (ky, kx) in order the tap's 1x1 GEMM of the input (into `scratch`)
/// added at output (y·strideH − padTop + ky·dilationH, x·strideW − padLeft + kx·dilationW);
/// positions outside the output are dropped.
///
/// - Precondition: `input` dense with `weights.inputChannels` channels; `output` dense. The
///   pool's scratch holds ``transposedConvolutionScratch(_:inputPixels:)`` (each tap's output is
///   in its shared scratch).
package func transposedConvolution(_ input: FeatureMap, weights: TapWeights, strideHeight: Int, strideWidth: Int,
                                  dilationHeight: Int, dilationWidth: Int, padTop: Int, padLeft: Int,
                                  output: FeatureMap, pool: WorkerPool) {
    precondition(input.layout.isDense && output.layout.isDense, "dense maps only")
    precondition(pool.holds(transposedConvolutionScratch(weights, inputPixels: input.pixels)),
                 "transposed convolution of \(weights.inputChannels) input channels: pool scratch too small")
    let scratch = FeatureMap(base: pool.shared.baseAddress!, channels: weights.outputChannels, layout: input.layout)
    let planeSize = output.pixels
    for o in 0..<weights.outputChannels {
        (output.base + o * planeSize).update(repeating: weights.bias.baseAddress[o], count: planeSize)
    }
    for t in 0..<weights.taps.count {
        pointwiseConvolution(input, weights: weights.taps[t], activation: .none, output: scratch, pool: pool)
        let ky = t / weights.kernelWidth, kx = t % weights.kernelWidth
        pool.run(TapScatter(source: scratch, output: output, strideHeight: strideHeight, strideWidth: strideWidth,
                            top: ky * dilationHeight - padTop, left: kx * dilationWidth - padLeft))
    }
}

/// Floats of pool scratch ``transposedConvolution(_:weights:strideHeight:strideWidth:dilationHeight:dilationWidth:padTop:padLeft:output:pool:)``
/// uses: its taps' 1x1 convolutions'.
package func transposedConvolutionScratch(_ weights: TapWeights, inputPixels: Int) -> ScratchSize {
    var size = pointwiseScratch(inputChannels: weights.inputChannels)
    size.shared = weights.outputChannels * inputPixels
    return size
}

/// Adds `source[c][y][x]` to `output[c][y·strideHeight + top][x·strideWidth + left]` where that
/// lies inside the output; channels split between threads.
struct TapScatter: PoolJob {
    let source: FeatureMap, output: FeatureMap, strideHeight: Int, strideWidth: Int, top: Int, left: Int
    func run(part: Int, pool: WorkerPool) {
        let h = source.layout.height, w = source.layout.width, oh = output.layout.height, ow = output.layout.width
        // The input columns whose output column is inside: x·s + left in [0, ow).
        let x0 = max(0, (-left + strideWidth - 1) / strideWidth), x1 = min(w, (ow - left + strideWidth - 1) / strideWidth)
        guard x1 > x0 else { return }
        for c in WorkerPool.range(source.channels, part: part, of: pool.threadCount) {
            let from = UnsafePointer(source.base + c * h * w), to = output.base + c * oh * ow
            for y in 0..<h {
                let oy = y * strideHeight + top
                guard oy >= 0 && oy < oh else { continue }
                let row = from + y * w, target = to + oy * ow + left
                if strideWidth == 1 {
                    var x = x0
                    while x + lanes <= x1 {
                        store(load(target + x) + load(row + x), target + x)
                        x += lanes
                    }
                    while x < x1 { target[x] += row[x]; x += 1 }
                } else {
                    for x in x0..<x1 { target[x * strideWidth] += row[x] }
                }
            }
        }
    }
}
