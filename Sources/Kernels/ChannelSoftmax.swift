/// Softmax across the channels of every pixel (ONNX Softmax on axis 1 of an NCHW map):
/// `output[c][p] = e^(x[c][p] − m) / Σ_c' e^(x[c'][p] − m)` with `m` the pixel's largest input.
///
/// 16 pixels per vector, three passes over the channels of each vector of pixels: the maximum,
/// then e^(x − m) (`expVector`, within 2 ulp) stored to `output` and summed in channel order,
/// then a multiplication by 1/sum (one division per 16 pixels: with a division per channel the
/// divisions took half the time of a 2-channel softmax). The outputs are within about 1e-6 relative of the exact
/// softmax for ≤ 17 channels (the float sum of C terms adds up to C−1 roundings). Large logits do not
/// overflow (every exponent is ≤ 0 and the largest is 1); a channel more than 87.3 below the
/// maximum gives exactly 0. A NaN or +∞ among a pixel's inputs makes all its outputs NaN.
///
/// Pixels are split between threads; each pixel is computed the same way on any thread count.
/// - Precondition: `output` has the input's channel count, width and height; any layouts.
///   `output` must not overlap `input`.
@inline(never)
package func softmaxOverChannels(_ input: FeatureMap, output: FeatureMap, pool: WorkerPool) {
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
    if channels == 2 {
        while i + lanes <= count {
            softmaxPixels2(source + i, sourcePlane, destination + i, destinationPlane, count: lanes)
            i += lanes
        }
    } else {
        while i + lanes <= count {
            softmaxPixels(source + i, sourcePlane, destination + i, destinationPlane, channels: channels, count: lanes)
            i += lanes
        }
    }
    if i < count {
        softmaxTail(source + i, sourcePlane, destination + i, destinationPlane, channels: channels, count: count - i)
    }
}

/// The last `count` < 16 pixels of a span (partial loads and stores, out of line).
@inline(never)
func softmaxTail(_ source: UnsafePointer<Float>, _ sourcePlane: Int, _ destination: UnsafeMutablePointer<Float>,
                 _ destinationPlane: Int, channels: Int, count: Int) {
    softmaxPixels(source, sourcePlane, destination, destinationPlane, channels: channels, count: count)
}

/// 16 pixels (the first `count`): the maximum, then e^(x − max) stored and summed in channel
/// order, then each multiplied by 1/sum.
@inline(always)
func softmaxPixels(_ x: UnsafePointer<Float>, _ sourcePlane: Int, _ y: UnsafeMutablePointer<Float>,
                   _ destinationPlane: Int, channels: Int, count n: Int) {
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
    let reciprocal = 1 / sum
    for c in 0..<channels {
        let p = y + c * destinationPlane
        store(load(UnsafePointer(p), count: n) * reciprocal, p, count: n)
    }
}

/// ``softmaxPixels`` for 2 channels with the exponentials kept in registers: the same
/// operations in the same order, so the same results.
@inline(always)
func softmaxPixels2(_ x: UnsafePointer<Float>, _ sourcePlane: Int, _ y: UnsafeMutablePointer<Float>,
                    _ destinationPlane: Int, count n: Int) {
    let x0 = load(x, count: n), x1 = load(x + sourcePlane, count: n)
    let m = x0.replacing(with: x1, where: x1 .> x0)
    let e0 = expVector(x0 - m), e1 = expVector(x1 - m)
    let reciprocal = 1 / (Vector() + e0 + e1)
    store(e0 * reciprocal, y, count: n)
    store(e1 * reciprocal, y + destinationPlane, count: n)
}
