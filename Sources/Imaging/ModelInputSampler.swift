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
package struct ModelInputSampler: Sendable {
    package let sourceWidth: Int
    package let sourceHeight: Int
    package let tensorWidth: Int
    package let tensorHeight: Int

    /// Per tensor column: left tap's source column (clamped into the frame so reads stay in
    /// bounds), right tap's source column, and their weights (0 for a tap outside the frame).
    private let columns: [Tap]
    private let rows: [Tap]
    /// Per tensor column, both taps as one adjacent pair (source width ≥ 2): the left pixel's
    /// byte offset and the weights `(wa ×4, wb ×4)` for pixels `x` and `x + 1`. A tap outside the
    /// frame moves its weight to zero (the pair shifts left by one at the right edge).
    private let pairOffsets: [Int]
    private let pairWeights: [SIMD8<Int32>]
    /// Per even tensor column `u`, the weights of columns `u` and `u + 1` in the lane order of
    /// ``samplePairs``'s two-column step: `(wa(u) ×4, wa(u+1) ×4, wb(u) ×4, wb(u+1) ×4)`.
    /// 16-bit, so the compiler can prove the products fit 16-bit multiply-adds.
    private let twoColumnWeights: [SIMD16<Int16>]

    struct Tap: Sendable {
        var first: Int32
        var second: Int32
        var firstWeight: Int32
        var secondWeight: Int32
    }

    /// - Precondition: all sizes positive.
    package init(sourceWidth: Int, sourceHeight: Int, tensorWidth: Int, tensorHeight: Int) {
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
        twoColumnWeights = (0..<(weights.count / 2)).map { q in
            let a = weights[2 * q], b = weights[2 * q + 1]
            let (wa0, wa1, wb0, wb1) = (Int16(a[0]), Int16(b[0]), Int16(a[4]), Int16(b[4]))
            return SIMD16(wa0, wa0, wa0, wa0, wa1, wa1, wa1, wa1, wb0, wb0, wb0, wb0, wb1, wb1, wb1, wb1)
        }
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
    package var tensorCount: Int { tensorHeight * tensorWidth * 3 }

    /// Writes the model input for `image` into `tensor` (NHWC RGB float32 in [0, 1]).
    ///
    /// - Precondition: `image` is `sourceWidth x sourceHeight` and `tensor` holds at least
    ///   ``tensorCount`` floats.
    package func sample(_ image: Image, into tensor: UnsafeMutableBufferPointer<Float>) {
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
                        twoColumnWeights.withUnsafeBufferPointer { twoColumn in
                            samplePairs(pixels.baseAddress!, stride: stride, isBGRA: isBGRA, offsets: offsets.baseAddress!,
                                        weights: weights.baseAddress!, twoColumnWeights: twoColumn.baseAddress!, into: out)
                        }
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

    /// The sampling loop with adjacent-pair taps: per output pixel, 8 bytes (two adjacent pixels)
    /// from each of the two rows. Exactly the integers of the per-tap formula (every product and
    /// sum is exact, so the order of the sums does not matter):
    ///
    /// - vertical: `V = top · wy0 + bottom · wy1` per channel of both pixels (≤ 255·32, so it fits
    ///   16 bits);
    /// - horizontal: `Σ = V(x) · wa + V(x + 1) · wb` (≤ 255·32·32 < 2³¹);
    /// - rounding: `(32·Σ + 2¹⁴) >> 15`, which equals `(Σ + 512) >> 10`.
    ///
    /// The main step does four output pixels: two two-column halves, each with its lanes ordered
    /// `(left(u), left(u+1), right(u), right(u+1))` so the horizontal sum is one add of the
    /// vector's halves, then one conversion and one 16-float store (the last 4 floats are
    /// scratch, overwritten by the next step). The masks with `0xFF` and `0x7FFF` change no value;
    /// they tell the compiler the operands fit 16 bits, so it multiplies with 16-bit
    /// multiply-adds instead of 32-bit multiplies. Columns the 16-float store cannot reach go
    /// through the one-pixel path.
    private func samplePairs(_ base: UnsafePointer<UInt8>, stride: Int, isBGRA: Bool,
                             offsets: UnsafePointer<Int>, weights: UnsafePointer<SIMD8<Int32>>,
                             twoColumnWeights: UnsafePointer<SIMD16<Int16>>,
                             into out: UnsafeMutablePointer<Float>) {
        let scale = Float(1.0 / 255.0)
        let lastColumn = tensorWidth - 1
        @inline(__always) func pair(_ p: UnsafePointer<UInt8>) -> SIMD8<Int32> {
            SIMD8<Int32>(Int32(p[0]), Int32(p[1]), Int32(p[2]), Int32(p[3]), Int32(p[4]), Int32(p[5]), Int32(p[6]), Int32(p[7]))
        }
        /// Two pairs as `(a.left, b.left, a.right, b.right)`. Built from 32-bit pixels so the
        /// compiler interleaves them with one dword unpack before widening.
        @inline(__always) func interleaved(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>) -> SIMD16<Int32> {
            let x = UnsafeRawPointer(a).loadUnaligned(as: SIMD2<UInt32>.self), y = UnsafeRawPointer(b).loadUnaligned(as: SIMD2<UInt32>.self)
            let v = unsafeBitCast(SIMD4<UInt32>(x[0], y[0], x[1], y[1]), to: SIMD16<UInt8>.self)
            return SIMD16<Int32>(Int32(v[0]), Int32(v[1]), Int32(v[2]), Int32(v[3]), Int32(v[4]), Int32(v[5]), Int32(v[6]), Int32(v[7]),
                                 Int32(v[8]), Int32(v[9]), Int32(v[10]), Int32(v[11]), Int32(v[12]), Int32(v[13]), Int32(v[14]), Int32(v[15]))
        }
        @inline(__always) func widened(_ w: SIMD16<Int16>) -> SIMD16<Int32> {
            SIMD16<Int32>(Int32(w[0]), Int32(w[1]), Int32(w[2]), Int32(w[3]), Int32(w[4]), Int32(w[5]), Int32(w[6]), Int32(w[7]),
                          Int32(w[8]), Int32(w[9]), Int32(w[10]), Int32(w[11]), Int32(w[12]), Int32(w[13]), Int32(w[14]), Int32(w[15]))
        }
        let fits16 = SIMD16<Int32>(repeating: 0x7FFF)
        for v in 0..<tensorHeight {
            let row = rows[v]
            let top = base + Int(row.first) &* stride
            let bottom = base + Int(row.second) &* stride
            let o = out + v &* tensorWidth &* 3
            let wy0 = SIMD16<Int32>(repeating: row.firstWeight & 0xFF), wy1 = SIMD16<Int32>(repeating: row.secondWeight & 0xFF)
            /// The sums Σ of output pixels u (lanes 0–3) and u + 1 (lanes 4–7), u even.
            @inline(__always) func sums(_ u: Int) -> SIMD8<Int32> {
                let xa = offsets[u], xb = offsets[u &+ 1]
                let vertical = (interleaved(top + xa, top + xb) &* wy0 &+ interleaved(bottom + xa, bottom + xb) &* wy1) & fits16
                let p = vertical &* widened(twoColumnWeights[u &>> 1])
                return p.lowHalf &+ p.highHalf
            }
            /// One output pixel's four channels.
            @inline(__always) func value(_ u: Int) -> SIMD4<Float> {
                let x = offsets[u]
                let p = (pair(top + x) &* wy0.lowHalf &+ pair(bottom + x) &* wy1.lowHalf) &* weights[u]
                let k = ((p.lowHalf &+ p.highHalf) &+ 512) &>> 10
                return SIMD4<Float>(Float(k[0]), Float(k[1]), Float(k[2]), Float(k[3])) * scale
            }
            /// Output pixels u…u+3 (u even), four channels each.
            @inline(__always) func four(_ u: Int) -> SIMD16<Float> {
                let k = (SIMD16<Int32>(lowHalf: sums(u), highHalf: sums(u &+ 2)) &+ 512) &>> 10
                return SIMD16<Float>(Float(k[0]), Float(k[1]), Float(k[2]), Float(k[3]), Float(k[4]), Float(k[5]), Float(k[6]), Float(k[7]),
                                     Float(k[8]), Float(k[9]), Float(k[10]), Float(k[11]), Float(k[12]), Float(k[13]), Float(k[14]), Float(k[15])) * scale
            }
            var u = 0
            // Two copies of the loop so each has one constant permutation (a select between two
            // permutations inside the loop makes the compiler build the vector lane by lane).
            if isBGRA {
                while 3 &* u &+ 16 <= 3 &* tensorWidth {
                    let f = four(u)
                    let packed = SIMD16<Float>(f[2], f[1], f[0], f[6], f[5], f[4], f[10], f[9], f[8], f[14], f[13], f[12], 0, 0, 0, 0)
                    UnsafeMutableRawPointer(o + 3 &* u).storeBytes(of: packed, as: SIMD16<Float>.self)
                    u &+= 4
                }
            } else {
                while 3 &* u &+ 16 <= 3 &* tensorWidth {
                    let f = four(u)
                    let packed = SIMD16<Float>(f[0], f[1], f[2], f[4], f[5], f[6], f[8], f[9], f[10], f[12], f[13], f[14], 0, 0, 0, 0)
                    UnsafeMutableRawPointer(o + 3 &* u).storeBytes(of: packed, as: SIMD16<Float>.self)
                    u &+= 4
                }
            }
            for u in u..<lastColumn {
                // Writes 4 floats; the 4th is overwritten by the next pixel's red.
                let f = value(u)
                UnsafeMutableRawPointer(o + 3 * u).storeBytes(of: isBGRA ? SIMD4(f[2], f[1], f[0], f[3]) : f, as: SIMD4<Float>.self)
            }
            let f = value(lastColumn)
            let (r, b) = isBGRA ? (f[2], f[0]) : (f[0], f[2])
            o[3 * lastColumn] = r; o[3 * lastColumn + 1] = f[1]; o[3 * lastColumn + 2] = b
        }
    }
}
