/// Frame → model tensor as PyTorch's `interpolate(mode="bilinear", align_corners=True)` computes
/// it on the frame as floats (``InputSampling/alignCorners``).
///
/// Per axis, with `S` the source size and `D` the tensor size: `scale = Float(S − 1) / Float(D − 1)`
/// (0 when `D` is 1), position `x = scale · Float(d)`, `i0 = ⌊x⌋`, `i1 = i0 + 1` unless `i0` is the
/// last pixel, `λ1 = min(max(x − i0, 0), 1)`, `λ0 = 1 − λ1`. The sample is
/// `(λ0ʸ·(λ0ˣ·p00 + λ1ˣ·p01) + λ1ʸ·(λ0ˣ·p10 + λ1ˣ·p11)) · Float(1/255)`, RGB, NHWC: within a few
/// float roundings of PyTorch's value for the frame divided by 255, and not rounded to a level.
///
/// A value type of immutable tables (built once per frame size); ``sample(_:into:)`` allocates
/// nothing.
package struct AlignCornersSampler: Sendable {
    package let sourceWidth: Int
    package let sourceHeight: Int
    package let tensorWidth: Int
    package let tensorHeight: Int

    /// Per tensor index: the two source indices and their weights.
    struct Tap: Sendable {
        var first: Int
        var second: Int
        var firstWeight: Float
        var secondWeight: Float
    }

    private let columns: [Tap]
    private let rows: [Tap]

    /// - Precondition: all sizes positive.
    package init(sourceWidth: Int, sourceHeight: Int, tensorWidth: Int, tensorHeight: Int) {
        precondition(sourceWidth > 0 && sourceHeight > 0 && tensorWidth > 0 && tensorHeight > 0, "sizes must be positive")
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.tensorWidth = tensorWidth
        self.tensorHeight = tensorHeight
        columns = Self.taps(count: tensorWidth, source: sourceWidth)
        rows = Self.taps(count: tensorHeight, source: sourceHeight)
    }

    static func taps(count: Int, source: Int) -> [Tap] {
        let scale = count > 1 ? Float(source - 1) / Float(count - 1) : 0
        return (0..<count).map { d in
            let x = scale * Float(d)
            let first = min(Int(x), source - 1)
            let second = first + (first < source - 1 ? 1 : 0)
            let lambda = min(max(x - Float(first), 0), 1)
            return Tap(first: first, second: second, firstWeight: 1 - lambda, secondWeight: lambda)
        }
    }

    package func sample(_ image: Image, into tensor: UnsafeMutableBufferPointer<Float>) {
        precondition(image.width == sourceWidth && image.height == sourceHeight, "frame size differs from the sampler's")
        precondition(tensor.count >= tensorHeight * tensorWidth * 3, "tensor buffer too small")
        let offsets = image.format.channelOffsets
        let channels = SIMD3<Int>(offsets.red, offsets.green, offsets.blue)
        let scale = Float(1.0 / 255.0), stride = image.bytesPerRow
        image.bytes.withUnsafeBufferPointer { pixels in
            let base = pixels.baseAddress!
            for v in 0..<tensorHeight {
                let row = rows[v]
                let top = base + row.first * stride, bottom = base + row.second * stride
                for u in 0..<tensorWidth {
                    let column = columns[u]
                    let x0 = 4 * column.first, x1 = 4 * column.second
                    let o = tensor.baseAddress! + 3 * (v * tensorWidth + u)
                    for c in 0..<3 {
                        let k = channels[c]
                        let upper = column.firstWeight * Float(top[x0 + k]) + column.secondWeight * Float(top[x1 + k])
                        let lower = column.firstWeight * Float(bottom[x0 + k]) + column.secondWeight * Float(bottom[x1 + k])
                        o[c] = (row.firstWeight * upper + row.secondWeight * lower) * scale
                    }
                }
            }
        }
    }
}
