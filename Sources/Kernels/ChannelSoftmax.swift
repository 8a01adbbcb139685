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

/// Softmax along rows (ONNX Softmax on the last axis: attention weights): `rows` rows of
/// `length` contiguous floats, `output[i] = e^(x[i] − m) / Σ e^(x[j] − m)` with `m` the row's
/// largest input.
///
/// Three passes over each row: the maximum, then e^(x − m) (`expVector`, within 2 ulp) stored to
/// `output` and summed in vector lanes (added up in Double), then a division by the sum. A
/// NaN or +∞ in a row makes its outputs NaN. Rows are split between threads. `output` may be
/// `input`.
package func softmaxAlongRows(_ input: UnsafePointer<Float>, rows: Int, length: Int, output: UnsafeMutablePointer<Float>,
                              pool: WorkerPool) {
    precondition(length > 0, "softmaxAlongRows: empty rows")
    pool.run(RowSoftmaxParts(input: input, rows: rows, length: length, output: output))
}

struct RowSoftmaxParts: PoolJob {
    let input: UnsafePointer<Float>, rows: Int, length: Int, output: UnsafeMutablePointer<Float>

    func run(part: Int, pool: WorkerPool) {
        for row in WorkerPool.range(rows, part: part, of: pool.threadCount) {
            softmaxRow(input + row * length, output + row * length)
        }
    }

    @inline(always)
    func softmaxRow(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>) {
        let n = length
        var largest = Vector(repeating: -.infinity)
        var i = 0
        while i < n {
            let count = min(lanes, n - i)
            let v = load(x + i, count: count).replacing(with: -.infinity, where: laneMask(from: count))
            // A NaN never wins: its e^(x − m) is NaN, which makes the sum and every output NaN.
            largest = largest.replacing(with: v, where: v .> largest)
            i += lanes
        }
        let m = Vector(repeating: largest.max())
        var sum = Vector()
        i = 0
        while i < n {
            let count = min(lanes, n - i)
            let e = expVector(load(x + i, count: count) - m).replacing(with: 0, where: laneMask(from: count))
            store(e, y + i, count: count)
            sum += e
            i += lanes
        }
        let total = Vector(repeating: Float(lanesSum(sum)))
        i = 0
        while i < n {
            let count = min(lanes, n - i)
            store(load(UnsafePointer(y + i), count: count) / total, y + i, count: count)
            i += lanes
        }
    }
}
