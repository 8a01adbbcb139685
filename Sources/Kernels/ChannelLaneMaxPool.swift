/// Max pooling of small maps vectorised over channels (SqueezeNet's and GoogLeNet's 3x3 pools on
/// maps up to 35×35), as ``smallMapDepthwise(_:weights:stride:dilation:padTop:padLeft:activation:residual:output:pool:)``
/// runs a depthwise convolution: per block of 64 channels, the input planes gathered pixel-major
/// (16 × 16 transposes in registers where the planes are dense) into the thread's scratch; each
/// output pixel the maximum of its window's input pixels in (ky, kx) order, 16 channels per vector
/// (four chains), staged pixel-major and moved to its planes. Channels are split between threads
/// in blocks of 16.
///
/// The result is ONNX MaxPool's: the largest input in each window, clipped to the input (−∞ for
/// a window with none), the same values as `pool2D`'s for every input without NaN.
///
/// - Precondition: ``channelLaneMaxPoolFits(inputWidth:inputHeight:outputWidth:outputHeight:)``;
///   the pool holds ``smallMapDepthwiseScratch(inputWidth:inputHeight:outputWidth:outputHeight:)``;
///   same channel count; `output` does not overlap `input`.
package func channelLaneMaxPool(_ input: FeatureMap, kernelHeight: Int, kernelWidth: Int, strideHeight: Int, strideWidth: Int,
                                padTop: Int, padLeft: Int, output: FeatureMap, pool: WorkerPool) {
    precondition(kernelHeight >= 1 && kernelWidth >= 1 && strideHeight >= 1 && strideWidth >= 1 && padTop >= 0 && padLeft >= 0
                 && output.channels == input.channels, "channel-lane max pool: bad window or channel count")
    precondition(pool.holds(smallMapDepthwiseScratch(inputWidth: input.layout.width, inputHeight: input.layout.height,
                                                     outputWidth: output.layout.width, outputHeight: output.layout.height)),
                 "channel-lane max pool on \(input.layout.width)x\(input.layout.height): pool scratch too small")
    pool.run(ChannelLaneMaxPoolParts(input: input, output: output, kernelHeight: kernelHeight, kernelWidth: kernelWidth,
                                     strideHeight: strideHeight, strideWidth: strideWidth, padTop: padTop, padLeft: padLeft))
}

/// Whether ``channelLaneMaxPool(_:kernelHeight:kernelWidth:strideHeight:strideWidth:padTop:padLeft:output:pool:)``
/// takes a max pool: output rows of at most 17 and input planes of at most 1296 pixels (36 × 36),
/// where gathering the channels costs less than vectors of a plane's few row pixels.
package func channelLaneMaxPoolFits(inputWidth: Int, inputHeight: Int, outputWidth: Int, outputHeight: Int) -> Bool {
    outputWidth <= 17 && inputWidth * inputHeight <= 1296
}

struct ChannelLaneMaxPoolParts: PoolJob {
    let input: FeatureMap, output: FeatureMap
    let kernelHeight: Int, kernelWidth: Int, strideHeight: Int, strideWidth: Int, padTop: Int, padLeft: Int

    func run(part: Int, pool: WorkerPool) {
        let channels = WorkerPool.range(input.channels, part: part, of: pool.threadCount, granularity: lanes)
        guard !channels.isEmpty else { return }
        channelLaneMaxPoolChannels(self, channels, pool.scratch(part).baseAddress!)
    }
}

@inline(never)
func channelLaneMaxPoolChannels(_ job: ChannelLaneMaxPoolParts, _ channels: Range<Int>, _ scratch: UnsafeMutablePointer<Float>) {
    let inL = job.input.layout, outL = job.output.layout
    let (inW, inH, outW, outH) = (inL.width, inL.height, outL.width, outL.height)
    let block = smallMapDepthwiseBlock
    let gathered = scratch, staged = scratch + smallMapStagedRows(inW * inH) * block
    let none = Vector(repeating: -.infinity)
    var c0 = channels.lowerBound
    while c0 < channels.upperBound {
        let n = min(block, channels.upperBound - c0)
        gatherChannels(job.input, channel: c0, count: n, into: gathered)
        var out = staged
        for yo in 0..<outH {
            let rows = PixelWindow.taps(yo, size: inH, k: job.kernelHeight, s: job.strideHeight, d: 1, pad: job.padTop)
            for xo in 0..<outW {
                let columns = PixelWindow.taps(xo, size: inW, k: job.kernelWidth, s: job.strideWidth, d: 1, pad: job.padLeft)
                var a0 = none, a1 = none, a2 = none, a3 = none
                var inputRow = UnsafePointer(gathered)
                    + ((yo * job.strideHeight - job.padTop + rows.lowerBound) * inW + xo * job.strideWidth - job.padLeft
                       + columns.lowerBound) * block
                for _ in rows {
                    var x = inputRow
                    for _ in columns {
                        a0 = MaxReduction.combine(a0, load(x))
                        a1 = MaxReduction.combine(a1, load(x + lanes))
                        a2 = MaxReduction.combine(a2, load(x + 2 * lanes))
                        a3 = MaxReduction.combine(a3, load(x + 3 * lanes))
                        x += block
                    }
                    inputRow += inW * block
                }
                store(a0, out); store(a1, out + lanes); store(a2, out + 2 * lanes); store(a3, out + 3 * lanes)
                out += block
            }
        }
        scatterChannels(staged, count: n, output: job.output, residual: nil, channel: c0)
        c0 += block
    }
}
