/// Average pooling of small maps vectorised over channels (Inception's 3x3 branch pools on its
/// 8×8 maps, whose rows fill half of a plane's vectors), as
/// ``channelLaneMaxPool(_:kernelHeight:kernelWidth:strideHeight:strideWidth:padTop:padLeft:output:pool:)``
/// takes the maximum: per block of 64 channels, the input planes gathered pixel-major into the
/// thread's scratch; each output pixel the sum of its window's input pixels, 16 channels per
/// vector, each column's rows added in order and the columns added in order, times the reciprocal
/// of the count (the whole window with `countIncludesPad`, else the pixels inside); staged
/// pixel-major and moved to its planes. Channels are split between threads in blocks of 16.
///
/// Every output is the same float as ``bandPool2D(_:kind:kernelHeight:kernelWidth:strideHeight:strideWidth:padTop:padLeft:output:pool:)``'s
/// (up to the sign of a zero sum): the band kernel adds the same terms in the same order (a column
/// or row outside the plane adds +0 there, which changes no sum) and multiplies by the same
/// `1 / Float(count)`.
///
/// - Precondition: ``channelLaneMaxPoolFits(inputWidth:inputHeight:outputWidth:outputHeight:)``;
///   the pool holds ``smallMapDepthwiseScratch(inputWidth:inputHeight:outputWidth:outputHeight:)``;
///   kernel sizes and strides ≥ 1, pads ≥ 0; same channel count; `output` does not overlap `input`.
package func channelLaneAveragePool(_ input: FeatureMap, kernelHeight: Int, kernelWidth: Int, strideHeight: Int, strideWidth: Int,
                                    padTop: Int, padLeft: Int, countIncludesPad: Bool, output: FeatureMap, pool: WorkerPool) {
    precondition(kernelHeight >= 1 && kernelWidth >= 1 && strideHeight >= 1 && strideWidth >= 1 && padTop >= 0 && padLeft >= 0
                 && output.channels == input.channels, "channel-lane average pool: bad window or channel count")
    precondition(pool.holds(smallMapDepthwiseScratch(inputWidth: input.layout.width, inputHeight: input.layout.height,
                                                     outputWidth: output.layout.width, outputHeight: output.layout.height)),
                 "channel-lane average pool on \(input.layout.width)x\(input.layout.height): pool scratch too small")
    pool.run(ChannelLaneAveragePoolParts(input: input, output: output, kernelHeight: kernelHeight, kernelWidth: kernelWidth,
                                         strideHeight: strideHeight, strideWidth: strideWidth, padTop: padTop, padLeft: padLeft,
                                         countIncludesPad: countIncludesPad))
}

/// Whether ``channelLaneAveragePool(_:kernelHeight:kernelWidth:strideHeight:strideWidth:padTop:padLeft:countIncludesPad:output:pool:)``
/// is taken for an average pool (it runs any that ``channelLaneMaxPoolFits(inputWidth:inputHeight:outputWidth:outputHeight:)``):
/// input planes of at most 96 pixels, whose gathered and staged blocks of 64 channels (24 KiB each
/// at most) stay in a core's L1 together. Measured in inception_v3: its 8×8 pools took 44–50 µs
/// against 67–75 on the row kernel, its 17×17 pools (74 KiB blocks) 95–120 against 75–80.
package func channelLaneAveragePoolPreferred(inputWidth: Int, inputHeight: Int, outputWidth: Int, outputHeight: Int) -> Bool {
    inputWidth * inputHeight <= 96
        && channelLaneMaxPoolFits(inputWidth: inputWidth, inputHeight: inputHeight, outputWidth: outputWidth, outputHeight: outputHeight)
}

struct ChannelLaneAveragePoolParts: PoolJob {
    let input: FeatureMap, output: FeatureMap
    let kernelHeight: Int, kernelWidth: Int, strideHeight: Int, strideWidth: Int, padTop: Int, padLeft: Int
    let countIncludesPad: Bool

    func run(part: Int, pool: WorkerPool) {
        let channels = WorkerPool.range(input.channels, part: part, of: pool.threadCount, granularity: lanes)
        guard !channels.isEmpty else { return }
        channelLaneAveragePoolChannels(self, channels, pool.scratch(part).baseAddress!)
    }
}

@inline(never)
func channelLaneAveragePoolChannels(_ job: ChannelLaneAveragePoolParts, _ channels: Range<Int>,
                                    _ scratch: UnsafeMutablePointer<Float>) {
    let inL = job.input.layout, outL = job.output.layout
    let (inW, inH, outW, outH) = (inL.width, inL.height, outL.width, outL.height)
    let block = smallMapDepthwiseBlock
    let gathered = scratch, staged = scratch + smallMapStagedRows(inW * inH) * block
    let zero = Vector(repeating: 0), rowStep = inW * block
    var c0 = channels.lowerBound
    while c0 < channels.upperBound {
        let n = min(block, channels.upperBound - c0)
        gatherChannels(job.input, channel: c0, count: n, into: gathered)
        var out = staged
        for yo in 0..<outH {
            let rows = PixelWindow.taps(yo, size: inH, k: job.kernelHeight, s: job.strideHeight, d: 1, pad: job.padTop)
            for xo in 0..<outW {
                let columns = PixelWindow.taps(xo, size: inW, k: job.kernelWidth, s: job.strideWidth, d: 1, pad: job.padLeft)
                var a0 = zero, a1 = zero, a2 = zero, a3 = zero
                var column = UnsafePointer(gathered)
                    + ((yo * job.strideHeight - job.padTop + rows.lowerBound) * inW + xo * job.strideWidth - job.padLeft
                       + columns.lowerBound) * block
                for _ in columns {
                    // The column's rows in order, then onto the columns before it.
                    if !rows.isEmpty {
                        var s0 = load(column), s1 = load(column + lanes), s2 = load(column + 2 * lanes), s3 = load(column + 3 * lanes)
                        var x = column + rowStep
                        for _ in 1..<rows.count {
                            s0 += load(x); s1 += load(x + lanes); s2 += load(x + 2 * lanes); s3 += load(x + 3 * lanes)
                            x += rowStep
                        }
                        a0 += s0; a1 += s1; a2 += s2; a3 += s3
                    }
                    column += block
                }
                let count = job.countIncludesPad ? Float(job.kernelHeight * job.kernelWidth)
                    : Float(max(columns.count, 1)) * Float(max(rows.count, 1))
                let reciprocal = Vector(repeating: 1 / count)
                store(a0 * reciprocal, out); store(a1 * reciprocal, out + lanes)
                store(a2 * reciprocal, out + 2 * lanes); store(a3 * reciprocal, out + 3 * lanes)
                out += block
            }
        }
        scatterChannels(staged, count: n, output: job.output, residual: nil, channel: c0)
        c0 += block
    }
}
