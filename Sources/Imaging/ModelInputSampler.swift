/// Turns a frame into the segmentation model's input tensor exactly as MediaPipe 0.10.21's
/// `ImageToTensorCalculator` (CPU, OpenCV converter) does.
///
/// MediaPipe stretches the whole frame to the model size (no letterbox) with
/// `cv::warpPerspective(INTER_LINEAR, BORDER_CONSTANT)` from its statically linked OpenCV 4.10,
/// then converts to float with scale 1/255. This type reproduces that bit for bit:
///
/// - **Corner-aligned mapping**: tensor column `u` samples source column `u·W/w` (no half-pixel
///   offset), row `v` samples `v·H/h`.
/// - **1/32-pixel positions**: `s = cvRound(32·u·W/w)` (round half to even, computed in `Double`
///   as OpenCV does), integer position `s >> 5`, fraction `f = s & 31`.
/// - **Integer weights**: `value = Σ p·wx·wy` with `wx ∈ {32 − fx, fx}` and `wy ∈ {32 − fy, fy}`,
///   then `(32·value + 2¹⁴) >> 15` (round half up) gives the 8-bit sample.
/// - **Zero border**: a tap outside the frame reads 0 (only happens when upscaling).
/// - **Float conversion**: `Float(sample) * Float(1/255)`, channels in RGB order whatever the
///   frame's byte order, NHWC (`[h, w, 3]`).
///
/// The tables depend only on the two sizes, so a sampler is built once per frame size and reused;
/// ``sample(_:into:)`` allocates nothing. A value type holding immutable tables, hence `Sendable`.
public struct ModelInputSampler: Sendable {
    public let sourceWidth: Int
    public let sourceHeight: Int
    public let tensorWidth: Int
    public let tensorHeight: Int

    /// Per tensor column: left tap's source column (clamped into the frame so reads stay in
    /// bounds), right tap's source column, and their weights (0 for a tap outside the frame).
    private let columns: [Tap]
    private let rows: [Tap]
    /// Per tensor column, both taps as one adjacent pair (source width ≥ 2): the left pixel's
    /// byte offset and the weights `(wa ×4, wb ×4)` for pixels `x` and `x + 1`. A tap outside the
    /// frame moves its weight to zero (the pair shifts left by one at the right edge).
    private let pairOffsets: [Int]
    private let pairWeights: [SIMD8<Int32>]

    struct Tap: Sendable {
        var first: Int32
        var second: Int32
        var firstWeight: Int32
        var secondWeight: Int32
    }

    /// - Precondition: all sizes positive.
    public init(sourceWidth: Int, sourceHeight: Int, tensorWidth: Int, tensorHeight: Int) {
        precondition(sourceWidth > 0 && sourceHeight > 0 && tensorWidth > 0 && tensorHeight > 0,
                     "sizes must be positive")
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.tensorWidth = tensorWidth
        self.tensorHeight = tensorHeight
        columns = Self.taps(count: tensorWidth, source: sourceWidth)
        rows = Self.taps(count: tensorHeight, source: sourceHeight)
        var offsets: [Int] = [], weights: [SIMD8<Int32>] = []
        if sourceWidth >= 2 {
            for s in Self.fixedPointPositions(count: tensorWidth, source: sourceWidth) {
                let position = s >> 5, fraction = Int32(s & 31)
                // Taps: position (weight 32 − f, position ≥ 0 always) and position + 1 (weight f),
                // each 0 when outside the frame.
                let left: Int, wa: Int32, wb: Int32
                if position + 1 <= sourceWidth - 1 {
                    (left, wa, wb) = (position, 32 - fraction, fraction)
                } else if position == sourceWidth - 1 {
                    (left, wa, wb) = (sourceWidth - 2, 0, 32 - fraction)
                } else {
                    (left, wa, wb) = (sourceWidth - 2, 0, 0)
                }
                offsets.append(4 * left)
                weights.append(SIMD8(wa, wa, wa, wa, wb, wb, wb, wb))
            }
        }
        pairOffsets = offsets
        pairWeights = weights
    }

    /// The 1/32-pixel source position of each destination index, as OpenCV 4.x's warpPerspective
    /// computes it for a pure scaling matrix: `cvRound((d · (S/D)) · 32)`.
    static func fixedPointPositions(count: Int, source: Int) -> [Int] {
        let scale = Double(source) / Double(count)
        return (0..<count).map { d in Int((Double(d) * scale * 32).rounded(.toNearestOrEven)) }
    }

    private static func taps(count: Int, source: Int) -> [Tap] {
        fixedPointPositions(count: count, source: source).map { s in
            let position = s >> 5, fraction = s & 31
            func inside(_ i: Int) -> Bool { i >= 0 && i < source }
            let first = position, second = position + 1
            return Tap(first: Int32(min(max(first, 0), source - 1)),
                       second: Int32(min(max(second, 0), source - 1)),
                       firstWeight: inside(first) ? Int32(32 - fraction) : 0,
                       secondWeight: inside(second) ? Int32(fraction) : 0)
        }
    }

    @inline(__always) static func pixel(_ p: UnsafePointer<UInt8>) -> SIMD4<Int32> {
        SIMD4<Int32>(Int32(p[0]), Int32(p[1]), Int32(p[2]), Int32(p[3]))
    }

    /// The number of floats ``sample(_:into:)`` writes: `tensorHeight * tensorWidth * 3`.
    public var tensorCount: Int { tensorHeight * tensorWidth * 3 }

    /// Writes the model input for `image` into `tensor` (NHWC RGB float32 in [0, 1]).
    ///
    /// - Precondition: `image` is `sourceWidth x sourceHeight` and `tensor` holds at least
    ///   ``tensorCount`` floats.
    public func sample(_ image: Image, into tensor: UnsafeMutableBufferPointer<Float>) {
        precondition(image.width == sourceWidth && image.height == sourceHeight, "frame size differs from the sampler's")
        precondition(tensor.count >= tensorCount, "tensor buffer too small")
        let isBGRA = image.format == .bgra8
        let stride = image.bytesPerRow
        let out = tensor.baseAddress!
        let scale = SIMD4<Float>(repeating: Float(1.0 / 255.0))
        if sourceWidth >= 2 {
            image.bytes.withUnsafeBufferPointer { pixels in
                pairOffsets.withUnsafeBufferPointer { offsets in
                    pairWeights.withUnsafeBufferPointer { weights in
                        samplePairs(pixels.baseAddress!, stride: stride, isBGRA: isBGRA,
                                    offsets: offsets.baseAddress!, weights: weights.baseAddress!, into: out)
                    }
                }
            }
            return
        }
        image.bytes.withUnsafeBufferPointer { pixels in
            columns.withUnsafeBufferPointer { columns in
                let base = pixels.baseAddress!
                let lastColumn = tensorWidth - 1
                for v in 0..<tensorHeight {
                    let row = rows[v]
                    let top = base + Int(row.first) * stride
                    let bottom = base + Int(row.second) * stride
                    let wy0 = SIMD4<Int32>(repeating: row.firstWeight), wy1 = SIMD4<Int32>(repeating: row.secondWeight)
                    let o = out + v * tensorWidth * 3
                    for u in 0..<tensorWidth {
                        let column = columns[u]
                        let x0 = Int(column.first) &* 4, x1 = Int(column.second) &* 4
                        let wx0 = SIMD4<Int32>(repeating: column.firstWeight), wx1 = SIMD4<Int32>(repeating: column.secondWeight)
                        // All four channels at once; exact integers (≤ 255·32·32·32 < 2³¹).
                        let h0 = Self.pixel(top + x0) &* wx0 &+ Self.pixel(top + x1) &* wx1
                        let h1 = Self.pixel(bottom + x0) &* wx0 &+ Self.pixel(bottom + x1) &* wx1
                        let value = (((h0 &* wy0 &+ h1 &* wy1) &* 32) &+ 16384) &>> 15
                        var f = SIMD4<Float>(Float(value[0]), Float(value[1]), Float(value[2]), Float(value[3])) * scale
                        if isBGRA { f = SIMD4(f[2], f[1], f[0], f[3]) }
                        if u < lastColumn {
                            // Writes 4 floats; the 4th is overwritten by the next pixel's red.
                            UnsafeMutableRawPointer(o + 3 * u).storeBytes(of: f, as: SIMD4<Float>.self)
                        } else {
                            o[3 * u] = f[0]; o[3 * u + 1] = f[1]; o[3 * u + 2] = f[2]
                        }
                    }
                }
            }
        }
    }

    /// The sampling loop with adjacent-pair taps: per output pixel, 8 bytes (two pixels) from each
    /// of the two rows, one 8-lane integer multiply-add per row, the two halves summed. Exactly
    /// the same integers as the per-tap formula (every product and sum is exact).
    private func samplePairs(_ base: UnsafePointer<UInt8>, stride: Int, isBGRA: Bool,
                             offsets: UnsafePointer<Int>, weights: UnsafePointer<SIMD8<Int32>>,
                             into out: UnsafeMutablePointer<Float>) {
        let scale = SIMD4<Float>(repeating: Float(1.0 / 255.0))
        let lastColumn = tensorWidth - 1
        @inline(__always) func pair(_ p: UnsafePointer<UInt8>) -> SIMD8<Int32> {
            SIMD8<Int32>(Int32(p[0]), Int32(p[1]), Int32(p[2]), Int32(p[3]), Int32(p[4]), Int32(p[5]), Int32(p[6]), Int32(p[7]))
        }
        for v in 0..<tensorHeight {
            let row = rows[v]
            let top = base + Int(row.first) * stride
            let bottom = base + Int(row.second) * stride
            let wy0 = SIMD8<Int32>(repeating: row.firstWeight), wy1 = SIMD8<Int32>(repeating: row.secondWeight)
            let o = out + v * tensorWidth * 3
            @inline(__always) func value(_ u: Int) -> SIMD4<Float> {
                let x = offsets[u]
                // Vertical first: every product is an exact integer, so the order does not matter.
                let p = (pair(top + x) &* wy0 &+ pair(bottom + x) &* wy1) &* weights[u]
                let sum = p.lowHalf &+ p.highHalf
                let value = ((sum &* 32) &+ 16384) &>> 15
                return SIMD4<Float>(Float(value[0]), Float(value[1]), Float(value[2]), Float(value[3])) * scale
            }
            @inline(__always) func bytes16(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>) -> SIMD16<Int32> {
                SIMD16<Int32>(Int32(a[0]), Int32(a[1]), Int32(a[2]), Int32(a[3]), Int32(a[4]), Int32(a[5]), Int32(a[6]), Int32(a[7]),
                              Int32(b[0]), Int32(b[1]), Int32(b[2]), Int32(b[3]), Int32(b[4]), Int32(b[5]), Int32(b[6]), Int32(b[7]))
            }
            let wy0x2 = SIMD16<Int32>(repeating: row.firstWeight), wy1x2 = SIMD16<Int32>(repeating: row.secondWeight)
            /// Two output pixels in one 16-lane step.
            @inline(__always) func values(_ u: Int) -> SIMD8<Float> {
                let xa = offsets[u], xb = offsets[u + 1]
                let weights = SIMD16<Int32>(lowHalf: weights[u], highHalf: weights[u + 1])
                let p = (bytes16(top + xa, top + xb) &* wy0x2 &+ bytes16(bottom + xa, bottom + xb) &* wy1x2) &* weights
                let sum = SIMD8<Int32>(lowHalf: p.lowHalf.lowHalf &+ p.lowHalf.highHalf,
                                       highHalf: p.highHalf.lowHalf &+ p.highHalf.highHalf)
                let value = ((sum &* 32) &+ 16384) &>> 15
                return SIMD8<Float>(Float(value[0]), Float(value[1]), Float(value[2]), Float(value[3]),
                                    Float(value[4]), Float(value[5]), Float(value[6]), Float(value[7])) * SIMD8(repeating: Float(1.0 / 255.0))
            }
            var u = 0
            // Pairs while both pixels' 4-float stores stay inside the row (the last pixel writes 3).
            if isBGRA {
                while u + 1 < lastColumn {
                    let f = values(u)
                    UnsafeMutableRawPointer(o + 3 * u).storeBytes(of: SIMD4(f[2], f[1], f[0], f[3]), as: SIMD4<Float>.self)
                    UnsafeMutableRawPointer(o + 3 * u + 3).storeBytes(of: SIMD4(f[6], f[5], f[4], f[7]), as: SIMD4<Float>.self)
                    u += 2
                }
            } else {
                while u + 1 < lastColumn {
                    let f = values(u)
                    UnsafeMutableRawPointer(o + 3 * u).storeBytes(of: f.lowHalf, as: SIMD4<Float>.self)
                    UnsafeMutableRawPointer(o + 3 * u + 3).storeBytes(of: f.highHalf, as: SIMD4<Float>.self)
                    u += 2
                }
            }
            if isBGRA {
                for u in u..<lastColumn {
                    let f = value(u)
                    UnsafeMutableRawPointer(o + 3 * u).storeBytes(of: SIMD4(f[2], f[1], f[0], f[3]), as: SIMD4<Float>.self)
                }
            } else {
                for u in u..<lastColumn {
                    // Writes 4 floats; the 4th is overwritten by the next pixel's red.
                    UnsafeMutableRawPointer(o + 3 * u).storeBytes(of: value(u), as: SIMD4<Float>.self)
                }
            }
            let f = value(lastColumn)
            let (r, b) = isBGRA ? (f[2], f[0]) : (f[0], f[2])
            o[3 * lastColumn] = r; o[3 * lastColumn + 1] = f[1]; o[3 * lastColumn + 2] = b
        }
    }
}
