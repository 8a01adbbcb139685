/// Softmax across the channels of every pixel (ONNX Softmax on axis 1 of an NCHW map):
/// `output[c][p] = e^(x[c][p] − m) / Σ_c' e^(x[c'][p] − m)` with `m` the pixel's largest input.
///
/// 16 pixels per vector, three passes over the channels of each vector of pixels: the maximum,
/// then e^(x − m) (`expVector`, within 2 ulp) stored to `output` and summed in channel order,
/// then a division by the sum. The outputs are within about 1e-6 relative of the exact softmax
/// for ≤ 17 channels (the float sum of C terms adds up to C−1 roundings). Large logits do not
/// overflow (every exponent is ≤ 0 and the largest is 1); a channel more than 87.3 below the
/// maximum gives exactly 0. A NaN or +∞ among a pixel's inputs makes all its outputs NaN.
///
/// Pixels are split between threads; each pixel is computed the same way on any thread count.
/// - Precondition: `output` has the input's channel count, width and height; any layouts.
///   `output` must not overlap `input`.
@inline(never)
public func softmaxOverChannels(_ input: FeatureMap, output: FeatureMap, pool: WorkerPool) {
    requireSameShape(input, output, "softmaxOverChannels")
    precondition(input.channels > 0, "softmaxOverChannels: no channels")
    pool.run(SoftmaxParts(input: input, output: output))
}

struct SoftmaxParts: PoolJob {
    let input: FeatureMap, output: FeatureMap

    func run(part: Int, pool: WorkerPool) {
        let inL = input.layout, outL = output.layout
        let source = UnsafePointer(input.plane(0)), destination = output.plane(0)
        if inL.isDense && outL.isDense {
            let pixels = WorkerPool.range(input.pixels, part: part, of: pool.threadCount, granularity: lanes)
            softmaxSpan(source + pixels.lowerBound, inL.planeStride, destination + pixels.lowerBound, outL.planeStride,
                        channels: input.channels, count: pixels.count)
        } else {
            for y in WorkerPool.range(inL.height, part: part, of: pool.threadCount) {
                softmaxSpan(source + y * inL.rowStride, inL.planeStride, destination + y * outL.rowStride, outL.planeStride,
                            channels: input.channels, count: inL.width)
            }
        }
    }
}

/// The softmax of `count` consecutive pixels starting at `source` (channel 0) into
/// `destination`, the other channels `sourcePlane` / `destinationPlane` floats apart.
@inline(never)
func softmaxSpan(_ source: UnsafePointer<Float>, _ sourcePlane: Int, _ destination: UnsafeMutablePointer<Float>,
                 _ destinationPlane: Int, channels: Int, count: Int) {
    var i = 0
    while i < count {
        let n = min(lanes, count - i)
        let x = source + i, y = destination + i
        var m = load(x, count: n)
        for c in 1..<channels {
            let v = load(x + c * sourcePlane, count: n)
            m = m.replacing(with: v, where: v .> m)
        }
        var sum = Vector()
        for c in 0..<channels {
            let e = expVector(load(x + c * sourcePlane, count: n) - m)
            sum += e
            store(e, y + c * destinationPlane, count: n)
        }
        for c in 0..<channels {
            let p = y + c * destinationPlane
            store(load(UnsafePointer(p), count: n) / sum, p, count: n)
        }
        i += lanes
    }
}
