/// Resizes a float mask (the model's `h x w` output) to the frame size exactly as
/// `cv::resize(src, dst, Size(W, H), 0, 0, INTER_LINEAR)` does for `CV_32F`, which is what
/// MediaPipe's `TensorsToSegmentationCalculator` calls.
///
/// OpenCV's recipe, reproduced step by step:
/// - `scale = 1 / (Double(W) / Double(w))`; per destination column
///   `f = Float((Double(x) + 0.5) * scale - 0.5)`, `sx = floor(f)`, `f -= sx` (in `Float`).
/// - Edge clamping: `sx < 0` gives `sx = 0, f = 0`; `sx >= w - 1` gives `sx = w - 1, f = 0` (and
///   the column is a plain copy of `src[w - 1]`).
/// - Rows: the same formula, but the two source rows are clamped into `[0, h - 1]` separately
///   and the weights are kept (`(1 - f)·row(sy) + f·row(sy + 1)`, both rows clamped).
/// - Horizontal `s0·a0 + s1·a1`, then vertical `r0·b0 + r1·b1`, each as two multiplies and an
///   add in `Float` (no fused multiply-add: OpenCV's vector path may fuse the vertical step, which
///   changes the last bit of a few values; see `Fixtures/imaging/README.md`).
///
/// Build one per (mask size, frame size) and reuse it: ``upsample(_:into:)`` allocates nothing.
/// Not `Sendable`: it owns two scratch rows.
package final class MaskUpsampler {
    package let sourceWidth: Int
    package let sourceHeight: Int
    package let targetWidth: Int
    package let targetHeight: Int

    private let columnIndex: UnsafeMutablePointer<Int32>
    /// Per destination column, the weights of `src[sx]` and `src[sx + 1]`, each with 16 floats
    /// of padding at the end (a run's last vector step may read past its last column).
    private let leftWeights: UnsafeMutablePointer<Float>
    private let rightWeights: UnsafeMutablePointer<Float>
    private let columnIsCopy: Int                              // first column index >= xmax
    /// The interpolated columns `0..<columnIsCopy` grouped by source column: `sx` is
    /// non-decreasing in `x`, so each source interval `[sx, sx + 1]` covers one run of columns.
    private let runs: [ColumnRun]
    private let rowIndex: [Int]
    private let rowWeights: [Float]                            // pairs (b0, b1)
    private let rowBuffers: UnsafeMutablePointer<Float>        // two horizontally resized rows
    private let rowStride: Int
    private var bufferedRows: (Int, Int) = (-1, -1)

    /// - Precondition: all sizes positive.
    package init(sourceWidth: Int, sourceHeight: Int, targetWidth: Int, targetHeight: Int) {
        precondition(sourceWidth > 0 && sourceHeight > 0 && targetWidth > 0 && targetHeight > 0,
                     "sizes must be positive")
        // The same check and stores as ModelInputSampler's initialiser: the two are mirror images
        // (frame → tensor, mask → frame) that share their size fields and nothing else.
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.targetWidth = targetWidth
        self.targetHeight = targetHeight

        columnIndex = .allocate(capacity: targetWidth)
        leftWeights = .allocate(capacity: targetWidth + 16)
        rightWeights = .allocate(capacity: targetWidth + 16)
        leftWeights.initialize(repeating: 0, count: targetWidth + 16)
        rightWeights.initialize(repeating: 0, count: targetWidth + 16)
        let scaleX = 1.0 / (Double(targetWidth) / Double(sourceWidth))
        var xmax = targetWidth
        for x in 0..<targetWidth {
            var f = Float((Double(x) + 0.5) * scaleX - 0.5)
            var sx = Int(f.rounded(.down))
            f -= Float(sx)
            if sx < 0 { f = 0; sx = 0 }
            if sx + 1 >= sourceWidth {
                xmax = min(xmax, x)
                if sx >= sourceWidth - 1 { f = 0; sx = sourceWidth - 1 }
            }
            columnIndex[x] = Int32(sx)
            leftWeights[x] = 1 - f
            rightWeights[x] = f
        }
        columnIsCopy = xmax
        var runs: [ColumnRun] = []
        for x in 0..<xmax {
            if let last = runs.last, last.source == Int(columnIndex[x]) {
                runs[runs.count - 1].count += 1
            } else {
                runs.append(ColumnRun(source: Int(columnIndex[x]), start: x, count: 1))
            }
        }
        self.runs = runs

        let scaleY = 1.0 / (Double(targetHeight) / Double(sourceHeight))
        var rows: [Int] = [], weights: [Float] = []
        for y in 0..<targetHeight {
            var f = Float((Double(y) + 0.5) * scaleY - 0.5)
            let sy = Int(f.rounded(.down))
            f -= Float(sy)
            rows.append(sy)
            weights.append(1 - f)
            weights.append(f)
        }
        rowIndex = rows
        rowWeights = weights
        // Two rows, each padded by 16 floats (a run's last vector store may pass the row's end).
        rowStride = targetWidth + 16
        rowBuffers = .allocate(capacity: 2 * rowStride)
    }

    deinit {
        columnIndex.deallocate()
        leftWeights.deallocate()
        rightWeights.deallocate()
        rowBuffers.deallocate()
    }

    struct ColumnRun {
        var source: Int
        var start: Int
        var count: Int
    }

    /// Upsamples a mask into a frame-sized one.
    ///
    /// - Precondition: `source` holds `sourceWidth * sourceHeight` floats and `target`
    ///   `targetWidth * targetHeight`.
    package func upsample(_ source: UnsafeBufferPointer<Float>, into target: UnsafeMutableBufferPointer<Float>) {
        precondition(source.count >= sourceWidth * sourceHeight, "source mask too small")
        precondition(target.count >= targetWidth * targetHeight, "target mask too small")
        let src = source.baseAddress!, dst = target.baseAddress!
        let width = targetWidth
        bufferedRows = (-1, -1)
        var slots = (rowBuffers, rowBuffers + rowStride)
        for y in 0..<targetHeight {
            let sy = rowIndex[y]
            let r0 = min(max(sy, 0), sourceHeight - 1), r1 = min(max(sy + 1, 0), sourceHeight - 1)
            // Reuse a row already resized for the previous output row.
            if bufferedRows.0 != r0 {
                if bufferedRows.1 == r0 {
                    slots = (slots.1, slots.0)
                    bufferedRows = (r0, bufferedRows.0)
                } else {
                    resizeRow(src + r0 * sourceWidth, into: slots.0)
                    bufferedRows.0 = r0
                }
            }
            if bufferedRows.1 != r1 {
                resizeRow(src + r1 * sourceWidth, into: slots.1)
                bufferedRows.1 = r1
            }
            let b0 = rowWeights[2 * y], b1 = rowWeights[2 * y + 1]
            let top = slots.0, bottom = slots.1, out = dst + y * width
            for x in 0..<width {
                let p = top[x] * b0
                let q = bottom[x] * b1
                out[x] = p + q
            }
        }
    }

    /// Convenience over ``upsample(_:into:)`` for `Mask` values.
    ///
    /// - Precondition: the sizes match the upsampler's.
    package func upsample(_ source: Mask, into target: inout Mask) {
        precondition(source.width == sourceWidth && source.height == sourceHeight, "source mask size differs")
        precondition(target.width == targetWidth && target.height == targetHeight, "target mask size differs")
        source.values.withUnsafeBufferPointer { s in
            target.values.withUnsafeMutableBufferPointer { t in upsample(s, into: t) }
        }
    }

    /// One source row resized horizontally: per run of destination columns sharing `sx`, both
    /// source values are broadcast and 16 columns computed at once (`s0·a0 + s1·a1`, two
    /// multiplies and an add per lane, exactly the per-column formula). A run's vector step may
    /// write past the run; the next run, or the copied columns after the last, overwrite that.
    private func resizeRow(_ row: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>) {
        runs.withUnsafeBufferPointer { runs in
            for run in runs {
                let s0 = SIMD16<Float>(repeating: row[run.source]), s1 = SIMD16<Float>(repeating: row[run.source + 1])
                var x = run.start
                let end = run.start + run.count
                repeat {
                    let a0 = UnsafeRawPointer(leftWeights + x).loadUnaligned(as: SIMD16<Float>.self)
                    let a1 = UnsafeRawPointer(rightWeights + x).loadUnaligned(as: SIMD16<Float>.self)
                    let p = s0 * a0
                    let q = s1 * a1
                    UnsafeMutableRawPointer(out + x).storeBytes(of: p + q, as: SIMD16<Float>.self)
                    x += 16
                } while x < end
            }
        }
        for x in columnIsCopy..<targetWidth {
            out[x] = row[Int(columnIndex[x])]
        }
    }
}
