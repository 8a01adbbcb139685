/// Frame → model tensor exactly as OpenCV's `cv2.resize(INTER_AREA)` shrinks an 8-bit image
/// (``InputSampling/area`` when neither axis grows); measured bit for bit against
/// opencv-python 5.0.0.
///
/// - **Whole factors** (`W = kx·w` and `H = ky·h`): the sum `Σ` of the `kx × ky` box of each
///   channel; `(Σ + 2) >> 2` for 2 × 2 boxes, otherwise `cvRound(Float(Σ) · Float(1 / (kx·ky)))`
///   (round half to even).
/// - **Otherwise**, per axis with `scale = S/D` (`Double`): tensor index `d` covers
///   `[d·scale, d·scale + scale)`; with `cell = min(scale, S − d·scale)`, `s1 = ⌈d·scale⌉` and
///   `s2 = ⌊d·scale + scale⌋` (`s2 ≤ S − 1`, `s1 ≤ s2`), the source pixels and their `Float` weights
///   are `s1 − 1` with `(s1 − d·scale)/cell` when that exceeds 10⁻³, each of `s1 ..< s2` with
///   `1/cell`, and `s2` with `min(d·scale + scale − s2, 1, cell)/cell` when `d·scale + scale − s2`
///   exceeds 10⁻³. Each source row is summed horizontally in `Float` in that order,
///   `row = Σ p·α`, and the rows of a tensor row are summed in order, `sum = Σ β·row`; the sample
///   is `cvRound(sum)` clamped to 0…255.
///
/// The sample is `Float(v) · Float(1/255)`, RGB, NHWC. Tables and the two row buffers are made
/// once per frame size; ``sample(_:into:)`` allocates nothing. Not thread-safe (its row buffers).
package final class AreaResizeSampler {
    package let sourceWidth: Int
    package let sourceHeight: Int
    package let tensorWidth: Int
    package let tensorHeight: Int

    /// One source pixel's share of a tensor pixel along one axis.
    struct Share {
        var tensor: Int
        var source: Int
        var weight: Float
    }

    /// Whole factors `(kx, ky)` when both axes shrink by one, else nil.
    private let factors: (x: Int, y: Int)?
    private let columnShares: [Share]
    /// Row shares, grouped by tensor row: `rowShares[rowStarts[v] ..< rowStarts[v + 1]]`.
    private let rowShares: [Share]
    private let rowStarts: [Int]
    /// A horizontally summed source row and the running vertical sum, `3·tensorWidth` floats each.
    private let rowSum: UnsafeMutablePointer<Float>
    private let columnSum: UnsafeMutablePointer<Float>

    /// - Precondition: all sizes positive, the tensor no larger than the frame on either axis.
    package init(sourceWidth: Int, sourceHeight: Int, tensorWidth: Int, tensorHeight: Int) {
        precondition(sourceWidth > 0 && sourceHeight > 0 && tensorWidth > 0 && tensorHeight > 0, "sizes must be positive")
        precondition(tensorWidth <= sourceWidth && tensorHeight <= sourceHeight, "INTER_AREA's box filter only shrinks")
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.tensorWidth = tensorWidth
        self.tensorHeight = tensorHeight
        factors = sourceWidth % tensorWidth == 0 && sourceHeight % tensorHeight == 0
            ? (sourceWidth / tensorWidth, sourceHeight / tensorHeight) : nil
        columnShares = Self.shares(count: tensorWidth, source: sourceWidth)
        let rows = Self.shares(count: tensorHeight, source: sourceHeight)
        rowShares = rows
        var starts = [Int](repeating: rows.count, count: tensorHeight + 1)
        for (index, share) in rows.enumerated().reversed() { starts[share.tensor] = index }
        rowStarts = starts
        rowSum = .allocate(capacity: 3 * tensorWidth)
        rowSum.initialize(repeating: 0, count: 3 * tensorWidth)
        columnSum = .allocate(capacity: 3 * tensorWidth)
        columnSum.initialize(repeating: 0, count: 3 * tensorWidth)
    }

    deinit {
        rowSum.deallocate()
        columnSum.deallocate()
    }

    /// OpenCV's `computeResizeAreaTab`: the source pixels each tensor index covers, in order.
    static func shares(count: Int, source: Int) -> [Share] {
        let scale = Double(source) / Double(count)
        var shares: [Share] = []
        for d in 0..<count {
            let start = Double(d) * scale, end = start + scale
            let cell = min(scale, Double(source) - start)
            var s2 = Int(end.rounded(.down))
            s2 = min(s2, source - 1)
            let s1 = min(Int(start.rounded(.up)), s2)
            if Double(s1) - start > 1e-3 { shares.append(Share(tensor: d, source: s1 - 1, weight: Float((Double(s1) - start) / cell))) }
            for s in s1..<s2 { shares.append(Share(tensor: d, source: s, weight: Float(1.0 / cell))) }
            if end - Double(s2) > 1e-3 {
                shares.append(Share(tensor: d, source: s2, weight: Float(min(min(end - Double(s2), 1), cell) / cell)))
            }
        }
        return shares
    }

    package func sample(_ image: Image, into tensor: UnsafeMutableBufferPointer<Float>) {
        precondition(image.width == sourceWidth && image.height == sourceHeight, "frame size differs from the sampler's")
        precondition(tensor.count >= tensorHeight * tensorWidth * 3, "tensor buffer too small")
        let offsets = image.format.channelOffsets
        let channels = (offsets.red, offsets.green, offsets.blue)
        image.bytes.withUnsafeBufferPointer { pixels in
            if let factors {
                sampleWholeFactors(pixels.baseAddress!, stride: image.bytesPerRow, channels: channels, factors: factors, into: tensor.baseAddress!)
            } else {
                sampleShares(pixels.baseAddress!, stride: image.bytesPerRow, channels: channels, into: tensor.baseAddress!)
            }
        }
    }

    private func sampleWholeFactors(_ base: UnsafePointer<UInt8>, stride: Int, channels: (Int, Int, Int),
                                    factors: (x: Int, y: Int), into out: UnsafeMutablePointer<Float>) {
        let levels = Float(1.0 / 255.0), scale = Float(1) / Float(factors.x * factors.y)
        let halves = factors.x == 2 && factors.y == 2
        for v in 0..<tensorHeight {
            for u in 0..<tensorWidth {
                var sums: (Int, Int, Int) = (0, 0, 0)
                for y in (v * factors.y)..<((v + 1) * factors.y) {
                    let row = base + y * stride
                    for x in (u * factors.x)..<((u + 1) * factors.x) {
                        let p = row + 4 * x
                        sums.0 += Int(p[channels.0]); sums.1 += Int(p[channels.1]); sums.2 += Int(p[channels.2])
                    }
                }
                func level(_ sum: Int) -> Float {
                    let value = halves ? (sum + 2) >> 2 : Int((Float(sum) * scale).rounded(.toNearestOrEven))
                    return Float(min(max(value, 0), 255)) * levels
                }
                let o = out + 3 * (v * tensorWidth + u)
                o[0] = level(sums.0); o[1] = level(sums.1); o[2] = level(sums.2)
            }
        }
    }

    private func sampleShares(_ base: UnsafePointer<UInt8>, stride: Int, channels: (Int, Int, Int),
                              into out: UnsafeMutablePointer<Float>) {
        let count = 3 * tensorWidth, levels = Float(1.0 / 255.0)
        columnShares.withUnsafeBufferPointer { columns in
            for v in 0..<tensorHeight {
                for j in rowStarts[v]..<rowStarts[v + 1] {
                    let row = base + rowShares[j].source * stride, beta = rowShares[j].weight
                    rowSum.update(repeating: 0, count: count)
                    for share in columns {
                        let p = row + 4 * share.source, o = rowSum + 3 * share.tensor, alpha = share.weight
                        o[0] = o[0] + Float(p[channels.0]) * alpha
                        o[1] = o[1] + Float(p[channels.1]) * alpha
                        o[2] = o[2] + Float(p[channels.2]) * alpha
                    }
                    if j == rowStarts[v] {
                        for i in 0..<count { columnSum[i] = beta * rowSum[i] }
                    } else {
                        for i in 0..<count { columnSum[i] = columnSum[i] + beta * rowSum[i] }
                    }
                }
                let o = out + v * count
                for i in 0..<count {
                    let value = Int(columnSum[i].rounded(.toNearestOrEven))
                    o[i] = Float(min(max(value, 0), 255)) * levels
                }
            }
        }
    }
}
