/// ONNX PRelu on an NCHW map: `output = x < 0 ? x · slope : x`, with `slope[c]` for channel `c`
/// when `slopeIsPerChannel`, else `slope[0]` for every element (LeakyRelu is the latter).
///
/// Rows of all channels are split between threads; each element is one compare and one
/// multiply, identical on any thread count. A NaN input stays NaN.
/// - Precondition: `output` has the input's channel count, width and height; any layouts.
///   `slope` holds `input.channels` floats (or 1 when not per channel). `output` may be
///   `input` itself (same base and layout); no other overlap.
@inline(never)
package func parametricReLU(_ input: FeatureMap, slope: UnsafePointer<Float>, slopeIsPerChannel: Bool,
                           output: FeatureMap, pool: WorkerPool) {
    requireSameShape(input, output, "parametricReLU")
    pool.run(ParametricReLUParts(input: input, output: output, slope: slope, perChannel: slopeIsPerChannel))
}

struct ParametricReLUParts: PoolJob, ChannelSpanOperation {
    let input: FeatureMap, output: FeatureMap
    let slope: UnsafePointer<Float>, perChannel: Bool

    func run(part: Int, pool: WorkerPool) {
        let rows = WorkerPool.range(input.channels * input.layout.height, part: part, of: pool.threadCount)
        forEachChannelSpan(input, output, rows: rows, self)
    }

    @inline(always)
    func run(channel: Int, _ source: UnsafePointer<Float>, _ destination: UnsafeMutablePointer<Float>, count: Int) {
        let s = slope[perChannel ? channel : 0]
        var i = 0
        while i + lanes <= count {
            let x = load(source + i)
            store(x.replacing(with: x * s, where: x .< 0), destination + i)
            i += lanes
        }
        if i < count {
            let n = count - i
            let x = load(source + i, count: n)
            store(x.replacing(with: x * s, where: x .< 0), destination + i, count: n)
        }
    }
}

/// ONNX Clip: `output[i] = min(max(input[i], lower), upper)` over `count` consecutive floats
/// (pass `-.infinity` / `.infinity` for a missing bound).
///
/// As ONNX (and numpy.clip) define it, `lower > upper` gives `upper` everywhere. A NaN input
/// stays NaN (both comparisons are false for it); a NaN bound is ignored (that side is not
/// clamped). `output` may be `input`.
@inline(never)
package func clamp(_ input: UnsafePointer<Float>, lower: Float, upper: Float, output: UnsafeMutablePointer<Float>, count: Int) {
    mapVectors(input, output, count: count) { clampVector($0, lower: lower, upper: upper) }
}

/// Two selects (one `vmaxps`/`vminps`-class operation each); `pointwiseMin`/`pointwiseMax` and
/// `clamped` are scalar loops on this toolchain.
@inline(always)
func clampVector(_ x: Vector, lower: Float, upper: Float) -> Vector {
    let low = x.replacing(with: lower, where: x .< lower)
    return low.replacing(with: upper, where: low .> upper)
}

/// ONNX HardSigmoid of `count` values: max(0, min(1, alpha·x + beta)) with the reference's
/// roundings (``hardSigmoidVector(_:alpha:beta:)``: the product, then the sum; NaN gives 1).
package func hardSigmoid(_ input: UnsafePointer<Float>, alpha: Float, beta: Float, output: UnsafeMutablePointer<Float>, count: Int) {
    mapVectors(input, output, count: count) { hardSigmoidVector($0, alpha: alpha, beta: beta) }
}
