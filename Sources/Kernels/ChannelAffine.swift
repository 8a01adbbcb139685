/// A per-channel affine map and an activation, `output[c][p] = f(input[c][p] · scale[c] + shift[c])`
/// (an inference BatchNormalization folded to scale and shift, or a Mul + Add by per-channel
/// constants; `f` the activation after it, the identity by default).
///
/// One fused multiply-add per element where the target has FMA (`VBG_ARCH` x86-64-v3 and up),
/// a multiply then an add in the portable build, then `activation` on the rounded sum (as the
/// separate nodes compute it). Rows of all channels are split between threads; every element is
/// computed the same way on any thread count.
/// - Precondition: `output` has the input's channel count, width and height; any layouts.
///   `scale` and `shift` hold `input.channels` floats. `output` may be `input` itself (same
///   base and layout); no other overlap.
@inline(never)
package func channelAffine(_ input: FeatureMap, scale: UnsafePointer<Float>, shift: UnsafePointer<Float>,
                          activation: Activation = .none, output: FeatureMap, pool: WorkerPool) {
    requireSameShape(input, output, "channelAffine")
    switch activation {
    case .none: pool.run(ChannelAffineParts<Identity>(input: input, output: output, scale: scale, shift: shift))
    case .relu: pool.run(ChannelAffineParts<ReLU>(input: input, output: output, scale: scale, shift: shift))
    case .relu6: pool.run(ChannelAffineParts<ReLU6>(input: input, output: output, scale: scale, shift: shift))
    case .hardSwish: pool.run(ChannelAffineParts<HardSwish>(input: input, output: output, scale: scale, shift: shift))
    case .sigmoid: pool.run(ChannelAffineParts<Sigmoid>(input: input, output: output, scale: scale, shift: shift))
    case .silu: pool.run(ChannelAffineParts<SiLU>(input: input, output: output, scale: scale, shift: shift))
    }
}

struct ChannelAffineParts<Function: ActivationFunction>: PoolJob, ChannelSpanOperation {
    let input: FeatureMap, output: FeatureMap
    let scale: UnsafePointer<Float>, shift: UnsafePointer<Float>

    func run(part: Int, pool: WorkerPool) {
        let rows = WorkerPool.range(input.channels * input.layout.height, part: part, of: pool.threadCount)
        forEachChannelSpan(input, output, rows: rows, self)
    }

    @inline(always)
    func run(channel: Int, _ source: UnsafePointer<Float>, _ destination: UnsafeMutablePointer<Float>, count: Int) {
        let s = scale[channel], b = Vector(repeating: shift[channel])
        var i = 0
        while i + lanes <= count {
            store(Function.apply(multiplyAdd(b, s, load(source + i))), destination + i)
            i += lanes
        }
        if i < count {
            let n = count - i
            store(Function.apply(multiplyAdd(b, s, load(source + i, count: n))), destination + i, count: n)
        }
    }
}
