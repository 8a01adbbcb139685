/// Blurs a frame's background with three box passes (≈ Gaussian, see ``BlurStrength``), optionally
/// weighted by the person mask so the person does not bleed into the blurred background.
///
/// **Mask weighting (no halo).** With a mask, the background plate is
/// `blur(frame · (1 − m)) / blur(1 − m)`: each output pixel averages only background pixels, so a
/// blurred shoulder does not smear a bright rim around the person. Computed in one 4-channel blur
/// (the alpha channel carries the weight). Where a neighbourhood holds no background at all (deep
/// inside the person) the plate is black; the composite covers it with the person.
///
/// **Algorithm, plain blur (no mask).** Three 2-D box passes on 8-bit pixels (``ByteBoxPass``),
/// each the exact integer sum of the `(2r+1)²` neighbours rounded once to a byte — what three
/// `cv2.blur` calls compute — streamed four rows at a time, O(1) per pixel whatever the radius.
///
/// **Algorithm, masked blur.** 8-bit colour × an 8-bit weight make integers ≤ 65025 (`UInt16`
/// planes); three 2-D box passes (``RowBoxPass``, a row at a time) with exact `UInt32` sums,
/// the first two rounded once to `UInt16` (within 0.5117), the last one normalising colour by
/// weight and handing rows to the compositor.
///
/// Borders clamp (the edge pixel repeats) in both.
///
/// **Allocation.** Buffers are allocated on the first frame of a size and reused: a steady stream
/// of same-sized frames allocates nothing. Not `Sendable`: one instance per video stream.
///
/// The two entry points are the plate (``blur(_:strength:excluding:into:)``, which with no mask is
/// the plain blur) and the pipeline's fused blur and blend (``blurBackground(of:mask:coverage:strength:)``).
package final class BackgroundBlur {
    /// The masked blur's buffers, for frames `wordWidth` wide.
    private var wordWidth = 0
    /// Three rings of premultiplied rows (packed, pass 1, pass 2).
    private var wordPlanes = AlignedBuffer<UInt16>(count: 0)
    /// The three passes' column sums (with margins).
    private var wordColumnSums = AlignedBuffer<UInt32>(count: 0)
    /// 4 × 4·width bytes of finished background rows.
    private var rowBytes = AlignedBuffer<UInt8>(count: 0)

    /// The radii used by the last call (three box passes).
    package private(set) var lastRadii: [Int] = []
    private var radiiKey = (level: 0, width: 0, height: 0)

    /// The radii for this strength and size, computed once per change (no allocation per frame).
    private func radii(_ strength: BlurStrength, width: Int, height: Int) -> [Int] {
        if radiiKey != (strength.level, width, height) {
            lastRadii = strength.radii(width: width, height: height)
            radiiKey = (strength.level, width, height)
        }
        return lastRadii
    }

    package init() {}

    /// The masked blur's rings depend on the width only (a row at a time, `ringRows` rows).
    private func prepareWords(width: Int) {
        guard wordWidth != width else { return }
        wordWidth = width
        wordPlanes = AlignedBuffer(count: 3 * Self.ringStride(width: width))
        wordColumnSums = AlignedBuffer(count: 3 * RowBoxPass.columnCapacity(width: width))
        rowBytes = AlignedBuffer(count: 16 * width)
    }

    /// Rows a ring of premultiplied rows holds: `2r + 2` for the largest radius (127).
    static let ringRows = 256

    /// `UInt16`s of one ring (rows of `4·width` lanes, plus 16 lanes read past the last row).
    private static func ringStride(width: Int) -> Int { (ringRows * 4 * width + 16 + 31) / 32 * 32 }

    /// Writes the blurred background plate of `frame` into `output` (alpha 255).
    ///
    /// - Parameters:
    ///   - mask: the person mask (1 = person). With a mask the blur averages background pixels only.
    /// - Precondition: sizes match; `output` has `frame`'s pixel format. `output` may be a copy of
    ///   `frame`'s storage (the frame is fully read before any output row is written).
    package func blur(_ frame: Image, strength: BlurStrength = BlurStrength(), excluding mask: Mask? = nil,
                     into output: inout Image) {
        precondition(output.width == frame.width && output.height == frame.height, "output size differs")
        precondition(output.format == frame.format, "output format differs")
        if let mask { precondition(mask.width == frame.width && mask.height == frame.height, "mask size differs") }
        let radii = radii(strength, width: frame.width, height: frame.height)
        guard mask != nil else {
            plainBlur(frame, radii: radii, into: &output)
            return
        }
        prepareWords(width: frame.width)
        let outStride = output.bytesPerRow
        // The frame is read up to 2r + 2 rows ahead of the rows written, so `output` must not be
        // the frame's storage: work from a copy of the frame when it is (copy-on-write).
        let source = frame
        source.bytes.withUnsafeBufferPointer { f in
            mask!.values.withUnsafeBufferPointer { m in
                output.bytes.withUnsafeMutableBufferPointer { o in
                    maskedPasses(frame: f.baseAddress!, stride: frame.bytesPerRow, mask: m.baseAddress!,
                                 width: frame.width, height: frame.height, radii: radii, finish: CopyRows(output: o.baseAddress!, stride: outStride, width: frame.width))
                }
            }
        }
    }

    /// Blurs the background of `frame` in place and keeps the person sharp: the mask-weighted
    /// plate, blended row by row with a byte coverage (see ``CoverageMask``; each byte then exactly
    /// `b + round((p − b)·a/255)`, ``Compositor``'s blend). The plate uses the float mask for its
    /// weights.
    ///
    /// - Precondition: `mask` and `coverage` have the frame's size; `coverage` is made from `mask`.
    package func blurBackground(of frame: inout Image, mask: Mask, coverage: CoverageMask,
                               strength: BlurStrength = BlurStrength()) {
        let stride = frame.bytesPerRow
        frame.bytes.withUnsafeMutableBufferPointer { f in
            // Row y is composited in place only after pass 3 has produced it, which needs the
            // frame's rows up to y + r1 + r2 + r3 + 3 packed, and rows above y are never read again.
            blurBackground(UnsafePointer(f.baseAddress!), stride: stride, into: f.baseAddress!, stride: stride,
                           width: frame.width, height: frame.height, mask: mask, coverage: coverage, strength: strength)
        }
    }

    /// The same as ``blurBackground(of:mask:coverage:strength:)`` with the result in `output` and
    /// `frame` unchanged (no copy of the frame first).
    ///
    /// - Precondition: `output` has `frame`'s size and pixel format and does not share its storage;
    ///   `mask` and `coverage` have the frame's size; `coverage` is made from `mask`.
    package func blurBackground(of frame: Image, mask: Mask, coverage: CoverageMask, strength: BlurStrength = BlurStrength(),
                               into output: inout Image) {
        precondition(output.width == frame.width && output.height == frame.height && output.format == frame.format,
                     "output size or format differs")
        let outputStride = output.bytesPerRow
        frame.bytes.withUnsafeBufferPointer { f in
            output.bytes.withUnsafeMutableBufferPointer { o in
                blurBackground(f.baseAddress!, stride: frame.bytesPerRow, into: o.baseAddress!, stride: outputStride,
                               width: frame.width, height: frame.height, mask: mask, coverage: coverage, strength: strength)
            }
        }
    }

    /// Reads the frame's rows from `source` and writes row y of the result to `destination` once
    /// pass 3 has produced it; `destination` may be `source`.
    private func blurBackground(_ source: UnsafePointer<UInt8>, stride: Int, into destination: UnsafeMutablePointer<UInt8>,
                                stride destinationStride: Int, width w: Int, height h: Int, mask: Mask,
                                coverage: CoverageMask, strength: BlurStrength) {
        precondition(mask.width == w && mask.height == h, "mask size differs")
        precondition(coverage.width == w && coverage.height == h, "coverage size differs")
        let radii = radii(strength, width: w, height: h)
        prepareWords(width: w)
        mask.values.withUnsafeBufferPointer { m in
            coverage.values.withUnsafeBufferPointer { c in
                maskedPasses(frame: source, stride: stride, mask: m.baseAddress!, width: w, height: h, radii: radii,
                             finish: CompositeRows(person: source, personStride: stride, output: destination,
                                                   stride: destinationStride, coverage: ByteCoverage(values: c.baseAddress!),
                                                   width: w))
            }
        }
    }

    // MARK: - Plain blur: three 8-bit 2-D box passes (ByteBoxPass), frame → A → B → output

    /// The plain blur's buffers, for frames of `byteSize`.
    private var byteSize = (width: 0, height: 0)
    /// Planes A and B, 4·width·height bytes each.
    private var bytePlanes = AlignedBuffer<UInt8>(count: 0)
    /// Column sums of 4·width lanes, rounded up to 16.
    private var byteColumnSums = AlignedBuffer<UInt16>(count: 0)
    /// The ring of ``ByteBoxPass``.
    private var byteLines = AlignedBuffer<SIMD16<Float>>(count: ByteBoxPass.ringCapacity)

    private func prepareBytes(width: Int, height: Int) {
        guard byteSize != (width, height) else { return }
        byteSize = (width, height)
        bytePlanes = AlignedBuffer(count: 2 * 4 * width * height)
        byteColumnSums = AlignedBuffer(count: (4 * width + 15) / 16 * 16)
    }

    /// Three 2-D box passes, each the exact integer box sum rounded once to a byte (what three
    /// `cv2.blur` calls compute); alpha 255.
    private func plainBlur(_ frame: Image, radii: [Int], into output: inout Image) {
        let w = frame.width, h = frame.height
        prepareBytes(width: w, height: h)
        let pass = ByteBoxPass(columnSums: byteColumnSums.baseAddress, lines: byteLines.baseAddress)
        let a = bytePlanes.baseAddress, b = a + 4 * w * h
        frame.bytes.withUnsafeBufferPointer { f in
            pass.run(source: f.baseAddress!, sourceStride: frame.bytesPerRow, destination: a, destinationStride: 4 * w,
                     width: w, height: h, radius: radii[0])
        }
        pass.run(source: a, sourceStride: 4 * w, destination: b, destinationStride: 4 * w,
                 width: w, height: h, radius: radii[1])
        let outStride = output.bytesPerRow
        output.bytes.withUnsafeMutableBufferPointer { o in
            pass.run(source: b, sourceStride: 4 * w, destination: o.baseAddress!, destinationStride: outStride,
                     width: w, height: h, radius: radii[2])
        }
    }

    // MARK: - Masked blur: pack, three 16-bit 2-D box passes (RowBoxPass), normalise + hand rows out

    /// The three passes streamed: packed rows → pass 1 → pass 2 (each output kept in a ring of
    /// `2r + 2` rows of the next pass's radius) → pass 3, which normalises into `finish` row by row.
    private func maskedPasses<F: BlurRowConsumer>(frame: UnsafePointer<UInt8>, stride: Int, mask: UnsafePointer<Float>,
                                                  width w: Int, height h: Int, radii: [Int], finish: F) {
        let ring = Self.ringStride(width: w), columns = RowBoxPass.columnCapacity(width: w)
        let planes = wordPlanes.baseAddress, sums = wordColumnSums.baseAddress
        let packed = PackedRows(frame: frame, stride: stride, mask: mask, width: w,
                                ring: planes, ringRows: 2 * radii[0] + 2)
        let first = BoxPassRows(input: packed,
                                pass: RowBoxPass(columnSums: sums, width: w, height: h, radius: radii[0]),
                                sink: RowPlaneSink(destination: planes + ring, stride: 4 * w, ringRows: 2 * radii[1] + 2,
                                                   radius: radii[0]))
        var second = BoxPassRows(input: first,
                                 pass: RowBoxPass(columnSums: sums + columns, width: w, height: h, radius: radii[1]),
                                 sink: RowPlaneSink(destination: planes + 2 * ring, stride: 4 * w, ringRows: 2 * radii[2] + 2,
                                                    radius: radii[1]))
        var last = RowNormalisingSink(scratch: rowBytes.baseAddress, finish: finish)
        Self.run(RowBoxPass(columnSums: sums + 2 * columns, width: w, height: h, radius: radii[2]),
                 input: &second, sink: &last)
    }

    @inline(never)
    private static func run<I: PremultipliedRows, S: RowBoxSink>(_ pass: RowBoxPass, input: inout I, sink: inout S) {
        for y in 0..<pass.height { pass.advance(to: y, input: &input, sink: &sink) }
    }

    /// The background weight `round(255·(1 − m))`, m clamped into [0, 1].
    @inline(__always) static func weight(_ m: Float) -> Float {
        ((1 - min(max(m, 0), 1)) * 255).rounded(.toNearestOrEven)
    }

    @inline(__always) static func weights(_ m: SIMD16<Float>) -> SIMD16<Float> {
        var c = m.replacing(with: 0, where: m .< 0)
        c = c.replacing(with: 1, where: c .> 1)
        return FastConvert.roundedToInteger((1 - c) * 255)
    }
}

/// The pack step as a ring of rows: row `y` = `(c·w, c·w, c·w, 255·w)` per pixel,
/// `w = round(255·(1 − m))` (integers ≤ 65025), made when first asked for.
private struct PackedRows: PremultipliedRows {
    let frame: UnsafePointer<UInt8>
    let stride: Int
    let mask: UnsafePointer<Float>
    let width: Int
    let ring: UnsafeMutablePointer<UInt16>
    let ringRows: Int
    /// Rows packed so far.
    var produced = 0

    @inline(__always) mutating func row(_ y: Int) -> UnsafePointer<UInt16> {
        while produced <= y {
            Self.pack(frame + produced * stride, mask: mask + produced * width, width: width,
                      into: ring + (produced % ringRows) * 4 * width)
            produced += 1
        }
        return UnsafePointer(ring + (y % ringRows) * 4 * width)
    }

    /// `(0, 0, 0, 255)` per pixel, out of the optimiser's sight (see ``pack(_:mask:width:into:)``).
    @inline(never) static func opaqueAlphaLanes() -> SIMD16<UInt16> {
        SIMD16(0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255)
    }

    /// Four pixels: `(c·w, c·w, c·w, 255·w)`.
    @inline(__always)
    static func packQuarter(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt16>, _ weights: SIMD16<UInt16>,
                            _ alpha: SIMD16<UInt16>) {
        let v = (ByteBoxPass.widened(UnsafeRawPointer(src)) | alpha) &* weights
        UnsafeMutableRawPointer(dst).storeBytes(of: v, as: SIMD16<UInt16>.self)
    }

    @inline(never)
    static func pack(_ src: UnsafePointer<UInt8>, mask m: UnsafePointer<Float>, width w: Int, into dst: UnsafeMutablePointer<UInt16>) {
        // The alpha lane becomes 255 (then × w) by OR-ing 255 into it (a byte OR 255 is 255), with a
        // value the optimiser cannot see: a visible constant lane mask compiled to masked byte
        // loads and word permutes.
        let alpha = opaqueAlphaLanes()
        var x = 0
        while x + 16 <= w {
            // The weights as 16-bit integers, then one 16-bit multiply per lane (≤ 255·255).
            let wf = FastConvert.roundedInt32(BackgroundBlur.weights(UnsafeRawPointer(m + x).loadUnaligned(as: SIMD16<Float>.self)))
            let weights = SIMD16<UInt16>(UInt16(truncatingIfNeeded: wf[0]), UInt16(truncatingIfNeeded: wf[1]),
                                         UInt16(truncatingIfNeeded: wf[2]), UInt16(truncatingIfNeeded: wf[3]),
                                         UInt16(truncatingIfNeeded: wf[4]), UInt16(truncatingIfNeeded: wf[5]),
                                         UInt16(truncatingIfNeeded: wf[6]), UInt16(truncatingIfNeeded: wf[7]),
                                         UInt16(truncatingIfNeeded: wf[8]), UInt16(truncatingIfNeeded: wf[9]),
                                         UInt16(truncatingIfNeeded: wf[10]), UInt16(truncatingIfNeeded: wf[11]),
                                         UInt16(truncatingIfNeeded: wf[12]), UInt16(truncatingIfNeeded: wf[13]),
                                         UInt16(truncatingIfNeeded: wf[14]), UInt16(truncatingIfNeeded: wf[15]))
            // (A static helper, not a local function: one capturing the `var x` is boxed on the
            // heap in debug builds.)
            Self.packQuarter(src + 4 * x, dst + 4 * x, FastConvert.spread(weights, quarter: 0), alpha)
            Self.packQuarter(src + 4 * (x + 4), dst + 4 * (x + 4), FastConvert.spread(weights, quarter: 1), alpha)
            Self.packQuarter(src + 4 * (x + 8), dst + 4 * (x + 8), FastConvert.spread(weights, quarter: 2), alpha)
            Self.packQuarter(src + 4 * (x + 12), dst + 4 * (x + 12), FastConvert.spread(weights, quarter: 3), alpha)
            x += 16
        }
        while x < w {
            let weight = BackgroundBlur.weight(m[x])
            for c in 0..<3 { dst[4 * x + c] = UInt16(Float(src[4 * x + c]) * weight) }
            dst[4 * x + 3] = UInt16(255 * weight)
            x += 1
        }
    }
}

/// Background rows copied to an output image.
private struct CopyRows: BlurRowConsumer {
    let output: UnsafeMutablePointer<UInt8>
    let stride: Int
    let width: Int
    mutating func consume(_ y: Int, _ row: UnsafePointer<UInt8>) {
        (output + y * stride).update(from: row, count: 4 * width)
    }
}

/// Background rows blended under the person, in place (``Compositor``'s blend, with a byte
/// coverage or the float mask through an edge ramp).
private struct CompositeRows<Coverage: RowCoverage>: BlurRowConsumer {
    /// The frame's rows (the person), `personStride` bytes apart; may be `output`.
    let person: UnsafePointer<UInt8>
    let personStride: Int
    let output: UnsafeMutablePointer<UInt8>
    let stride: Int
    /// The coverage of row 0.
    let coverage: Coverage
    let width: Int
    mutating func consume(_ y: Int, _ row: UnsafePointer<UInt8>) {
        Compositor.blendRow(person: person + y * personStride, background: row, output: output + y * stride, width: width,
                            coverage.advanced(by: y * width))
    }
}
