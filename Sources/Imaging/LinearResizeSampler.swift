/// Frame → model tensor exactly as OpenCV's `cv2.resize` computes an 8-bit image with
/// `INTER_LINEAR` (``InputSampling/halfPixel``), or with `INTER_AREA` when an axis is upscaled
/// (``InputSampling/area``); measured bit for bit against opencv-python 5.0.0.
///
/// Per axis, with `S` the source size, `D` the tensor size and `scale = 1 / (D / S)` in `Double`:
///
/// - **Position** of tensor index `d`: half-pixel `f = Float((d + 0.5)·scale − 0.5)`, `s = ⌊f⌋`,
///   `f −= s`; area `s = ⌊d·scale⌋`, `f = Float((d + 1) − (s + 1)·D/S)`, `f = f ≤ 0 ? 0 : f − ⌊f⌋`.
///   Columns: `s < 0` becomes `s = 0, f = 0`, `s ≥ S − 1` becomes `s = S − 1, f = 0`; rows read
///   `clamp(s, 0, H − 1)` and `clamp(s + 1, 0, H − 1)` with their weights as they are.
/// - **Weights**: `a0 = cvRound((1 − f)·2048)`, `a1 = cvRound(f·2048)` (round half to even, in
///   `Float`), the same for rows (`b0`, `b1`).
/// - **Horizontal**: `D = p[s]·a0 + p[s + 1]·a1` per channel (an integer ≤ 255·2048).
/// - **Vertical**, OpenCV's vector rounding (which it uses for every column):
///   `v = (((D0 >> 4)·b0 >> 16) + ((D1 >> 4)·b1 >> 16) + 2) >> 2`, clamped to 0…255.
///
/// The sample is `Float(v) · Float(1/255)`, RGB, NHWC. At an exact 2× downscale OpenCV switches
/// `INTER_LINEAR` to its `INTER_AREA` box; the two give the same integers there, so this covers it.
///
/// Tables are built once per frame size; the two horizontally resized rows a tensor row reads
/// are kept, so ``sample(_:into:)`` allocates nothing. Not thread-safe (its row buffers).
package final class LinearResizeSampler {
    /// Where a tensor index reads the frame.
    package enum Positions: Sendable {
        /// `(d + 0.5)·S/D − 0.5` (INTER_LINEAR).
        case halfPixel
        /// INTER_AREA's bilinear positions for an axis that grows.
        case area
    }

    package let sourceWidth: Int
    package let sourceHeight: Int
    package let tensorWidth: Int
    package let tensorHeight: Int

    /// Per tensor column: the byte offsets of the two taps' pixels in a row, and their weights.
    private let leftOffsets: [Int], rightOffsets: [Int]
    private let leftWeights: [Int32], rightWeights: [Int32]
    /// Per tensor row: the two source rows and their weights.
    private let topRows: [Int], bottomRows: [Int]
    private let topWeights: [Int32], bottomWeights: [Int32]
    /// Two horizontally resized rows (`3·tensorWidth` integers each) and the source rows they hold.
    private let rowBuffers: UnsafeMutablePointer<Int32>
    private var bufferedRows: (Int, Int) = (-1, -1)

    /// - Precondition: all sizes positive.
    package init(sourceWidth: Int, sourceHeight: Int, tensorWidth: Int, tensorHeight: Int, positions: Positions) {
        precondition(sourceWidth > 0 && sourceHeight > 0 && tensorWidth > 0 && tensorHeight > 0, "sizes must be positive")
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.tensorWidth = tensorWidth
        self.tensorHeight = tensorHeight
        let columns = Self.taps(count: tensorWidth, source: sourceWidth, positions: positions)
        var left: [Int] = [], right: [Int] = [], a0: [Int32] = [], a1: [Int32] = []
        for (s, f) in columns {
            // Columns clamp the position into the frame with a zero fraction.
            let (index, fraction) = s < 0 ? (0, Float(0)) : s >= sourceWidth - 1 ? (sourceWidth - 1, Float(0)) : (s, f)
            left.append(4 * index)
            right.append(4 * min(index + 1, sourceWidth - 1))
            a0.append(Self.weight(1 - fraction))
            a1.append(Self.weight(fraction))
        }
        (leftOffsets, rightOffsets, leftWeights, rightWeights) = (left, right, a0, a1)
        let rows = Self.taps(count: tensorHeight, source: sourceHeight, positions: positions)
        topRows = rows.map { min(max($0.index, 0), sourceHeight - 1) }
        bottomRows = rows.map { min(max($0.index + 1, 0), sourceHeight - 1) }
        topWeights = rows.map { Self.weight(1 - $0.fraction) }
        bottomWeights = rows.map { Self.weight($0.fraction) }
        rowBuffers = .allocate(capacity: 2 * 3 * tensorWidth)
        rowBuffers.initialize(repeating: 0, count: 2 * 3 * tensorWidth)
    }

    deinit { rowBuffers.deallocate() }

    /// OpenCV's `saturate_cast<short>(c·2048)` of a `Float` weight: round half to even.
    private static func weight(_ c: Float) -> Int32 { Int32((c * 2048).rounded(.toNearestOrEven)) }

    /// The integer position and fraction of each tensor index, before any clamping.
    private static func taps(count: Int, source: Int, positions: Positions) -> [(index: Int, fraction: Float)] {
        let inverse = Double(count) / Double(source), scale = 1 / inverse
        return (0..<count).map { d in
            switch positions {
            case .halfPixel:
                let f = Float((Double(d) + 0.5) * scale - 0.5)
                let s = f.rounded(.down)
                return (Int(s), f - s)
            case .area:
                let s = Int((Double(d) * scale).rounded(.down))
                var f = Float(Double(d + 1) - Double(s + 1) * inverse)
                f = f <= 0 ? 0 : f - f.rounded(.down)
                return (s, f)
            }
        }
    }

    package func sample(_ image: Image, into tensor: UnsafeMutableBufferPointer<Float>) {
        precondition(image.width == sourceWidth && image.height == sourceHeight, "frame size differs from the sampler's")
        precondition(tensor.count >= tensorHeight * tensorWidth * 3, "tensor buffer too small")
        let offsets = image.format.channelOffsets
        let channels = (offsets.red, offsets.green, offsets.blue)
        let rowCount = 3 * tensorWidth, scale = Float(1.0 / 255.0)
        bufferedRows = (-1, -1)
        var slots = (rowBuffers, rowBuffers + rowCount)
        image.bytes.withUnsafeBufferPointer { pixels in
            let base = pixels.baseAddress!
            for v in 0..<tensorHeight {
                let r0 = topRows[v], r1 = bottomRows[v]
                if bufferedRows.0 != r0 {
                    if bufferedRows.1 == r0 {
                        slots = (slots.1, slots.0)
                        bufferedRows = (r0, bufferedRows.0)
                    } else {
                        resizeRow(base + r0 * image.bytesPerRow, channels: channels, into: slots.0)
                        bufferedRows.0 = r0
                    }
                }
                if bufferedRows.1 != r1 {
                    resizeRow(base + r1 * image.bytesPerRow, channels: channels, into: slots.1)
                    bufferedRows.1 = r1
                }
                let b0 = topWeights[v], b1 = bottomWeights[v]
                let top = slots.0, bottom = slots.1, out = tensor.baseAddress! + v * rowCount
                for i in 0..<rowCount {
                    let value = ((((top[i] &>> 4) &* b0) &>> 16) &+ (((bottom[i] &>> 4) &* b1) &>> 16) &+ 2) &>> 2
                    out[i] = Float(min(max(value, 0), 255)) * scale
                }
            }
        }
    }

    /// One frame row resized horizontally: `p[s]·a0 + p[s + 1]·a1` per tensor column and channel, RGB.
    private func resizeRow(_ row: UnsafePointer<UInt8>, channels: (Int, Int, Int), into out: UnsafeMutablePointer<Int32>) {
        for u in 0..<tensorWidth {
            let left = row + leftOffsets[u], right = row + rightOffsets[u]
            let a0 = leftWeights[u], a1 = rightWeights[u]
            out[3 * u] = Int32(left[channels.0]) &* a0 &+ Int32(right[channels.0]) &* a1
            out[3 * u + 1] = Int32(left[channels.1]) &* a0 &+ Int32(right[channels.1]) &* a1
            out[3 * u + 2] = Int32(left[channels.2]) &* a0 &+ Int32(right[channels.2]) &* a1
        }
    }
}
