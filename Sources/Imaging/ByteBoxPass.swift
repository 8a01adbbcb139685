/// One two-dimensional box pass over 8-bit RGBA/BGRA pixels, as `cv2.blur` does it: the exact
/// integer sum of the `(2r+1)²` neighbours (edge clamp), divided by `(2r+1)²` and rounded once.
/// Three of these make the plain (unmasked) background blur.
///
/// **How it runs (streaming, O(1) per pixel in `r`).** Rows are produced four at a time:
/// 1. *Vertical*: running column sums (`UInt16` lanes, since `255·(2r+1) ≤ 65025`), vectorised
///    across the row: `sum += row(y+r+1) − row(y−r)`, for the four rows in registers. The sums of
///    the four rows go interleaved into a small ring (one `SIMD16<Float>` per x = that pixel's four
///    channels in four consecutive rows).
/// 2. *Horizontal*: a running sum along the ring, a vector running sum over four rows at once (no
///    serial dependency per channel); sums stay below `255·255² < 2²⁴`, exact in `Float`.
///    `sum · (1/(2r+1)²)` rounded (ties cannot occur: `(2r+1)²` is odd) gives the byte.
/// The vertical step runs `r + 1` pixels ahead of the horizontal one in chunks of ``chunk`` pixels,
/// so the ring (≤ 32 KiB) stays in L1; the column sums (`8·w` bytes) stay in L2 and the source rows
/// `y+r+1` and `y−r` are streamed.
struct ByteBoxPass {
    /// `4 · paddedWidth` `UInt16` column sums (`paddedWidth` a multiple of 4).
    let columnSums: UnsafeMutablePointer<UInt16>
    /// A ring of ``ringCapacity`` interleaved 4-row pixels (entry `x & mask`), 32 KiB: stays in L1.
    let lines: UnsafeMutablePointer<SIMD16<Float>>

    /// Blurs the colour channels of `source` (rows `sourceStride` bytes apart) into `destination`
    /// (rows `destinationStride` apart); the destination's alpha bytes are 255 (the blurred alpha is
    /// never used, and a constant keeps the byte packing one instruction).
    /// - Precondition: `destination` does not overlap `source`; `r ≥ 0`.
    @inline(never)
    func run(source: UnsafePointer<UInt8>, sourceStride: Int,
             destination: UnsafeMutablePointer<UInt8>, destinationStride: Int,
             width w: Int, height h: Int, radius r: Int) {
        seedColumnSums(source: source, sourceStride: sourceStride, width: w, height: h, radius: r)
        let ringMask = Self.ringMask(radius: r)
        let k = 2 * r + 1
        let scale = SIMD16<Float>(repeating: 1 / Float(k * k))
        var y0 = 0
        while y0 < h {
            var vertical = VerticalStep(columnSums: columnSums, lines: UnsafeMutableRawPointer(lines), ringMask: ringMask,
                                        source: source, sourceStride: sourceStride, width: w, height: h, radius: r, firstRow: y0)
            let rows = OutputRows(destination: destination, stride: destinationStride, height: h, firstRow: y0, scale: scale)
            Self.horizontalStep(&vertical, into: rows, width: w, radius: r)
            y0 += 4
        }
    }

    /// Column sums of the first row: `(r + 1)·row(0) + row(1) + … + row(r)`, rows clamped.
    @inline(always)
    private func seedColumnSums(source: UnsafePointer<UInt8>, sourceStride: Int, width w: Int, height h: Int, radius r: Int) {
        let lanes = 4 * w
        for i in 0..<lanes { columnSums[i] = UInt16(r + 1) &* UInt16(source[i]) }
        if r > 0 {
            for k in 1...r {
                let row = source + min(k, h - 1) * sourceStride
                for i in 0..<lanes { columnSums[i] &+= UInt16(row[i]) }
            }
        }
    }

    /// The mask of the smallest power-of-two ring that holds every x between `x − r` and the
    /// furthest produced pixel (≤ `x + r + chunk + 4`).
    /// - Precondition: that ring fits in ``ringCapacity``.
    @inline(always)
    private static func ringMask(radius r: Int) -> Int {
        var ringSize = 16
        while ringSize < 2 * r + chunk + 8 { ringSize *= 2 }
        precondition(ringSize <= ringCapacity, "radius too large for the ring")
        return ringSize - 1
    }

    /// Horizontal running sum over the ring (four rows at once), edge clamp, for one group of four
    /// rows; `vertical` fills the ring `r + 1` pixels ahead, a chunk at a time.
    @inline(always)
    private static func horizontalStep(_ vertical: inout VerticalStep, into rows: OutputRows, width w: Int, radius r: Int) {
        let linesRaw = vertical.lines, ringMask = vertical.ringMask
        let last = w - 1
        @inline(__always) func line(_ x: Int) -> SIMD16<Float> { (linesRaw + 64 &* (x & ringMask)).load(as: SIMD16<Float>.self) }
        vertical.produce(upTo: r + 1)
        var sum = line(0) * Float(r + 1)
        if r > 0 { for j in 1...r { sum += line(min(j, last)) } }
        var x = 0
        while x < w {
            let chunkEnd = min(x + chunk, w)
            vertical.produce(upTo: chunkEnd + r + 1)
            while x + 4 <= chunkEnd {
                let s0 = sum
                sum += line(min(x &+ r &+ 1, last)) - line(max(x &- r, 0))
                let s1 = sum
                sum += line(min(x &+ r &+ 2, last)) - line(max(x &+ 1 &- r, 0))
                let s2 = sum
                sum += line(min(x &+ r &+ 3, last)) - line(max(x &+ 2 &- r, 0))
                let s3 = sum
                sum += line(min(x &+ r &+ 4, last)) - line(max(x &+ 3 &- r, 0))
                rows.store4(x, s0, s1, s2, s3)
                x += 4
            }
            while x < chunkEnd {
                rows.store(x, sum)
                sum += line(min(x &+ r &+ 1, last)) - line(max(x &- r, 0))
                x += 1
            }
        }
    }

    /// Output pixels per horizontal chunk (the vertical step runs `r + 1` pixels ahead).
    static let chunk = 64
    /// Ring entries `lines` must hold: enough for `2·127 + chunk + 8` (radii are capped at 127).
    static let ringCapacity = 512

    /// 16 bytes → 16 `UInt16` lanes.
    @inline(__always) static func widened(_ p: UnsafeRawPointer) -> SIMD16<UInt16> {
        let b = p.assumingMemoryBound(to: UInt8.self)
        return SIMD16<UInt16>(UInt16(b[0]), UInt16(b[1]), UInt16(b[2]), UInt16(b[3]), UInt16(b[4]), UInt16(b[5]),
                              UInt16(b[6]), UInt16(b[7]), UInt16(b[8]), UInt16(b[9]), UInt16(b[10]), UInt16(b[11]),
                              UInt16(b[12]), UInt16(b[13]), UInt16(b[14]), UInt16(b[15]))
    }

    /// 16 `UInt16` lanes → 16 floats.
    @inline(__always) static func floats(_ v: SIMD16<UInt16>) -> SIMD16<Float> {
        SIMD16<Float>(Float(v[0]), Float(v[1]), Float(v[2]), Float(v[3]), Float(v[4]), Float(v[5]), Float(v[6]), Float(v[7]),
                      Float(v[8]), Float(v[9]), Float(v[10]), Float(v[11]), Float(v[12]), Float(v[13]), Float(v[14]), Float(v[15]))
    }
}

/// The vertical step of ``ByteBoxPass`` for one group of four rows, run ahead of the horizontal
/// step in chunks (a struct rather than a closure over a `var`, which debug builds box on the heap).
private struct VerticalStep {
    let columnSums: UnsafeMutablePointer<UInt16>
    let lines: UnsafeMutableRawPointer
    let ringMask: Int
    let width: Int
    /// Source rows added to / subtracted from the column sums after each of the four rows.
    let add: (UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafePointer<UInt8>)
    let sub: (UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafePointer<UInt8>)
    /// Pixels whose four column sums are in the ring.
    var produced = 0

    /// The step for rows `firstRow…firstRow + 3`. Rows past the end (the last group of four may
    /// run over) only produce values that are never stored, but their rows are clamped too, so no
    /// read leaves the image (found by ASan).
    @inline(always)
    init(columnSums: UnsafeMutablePointer<UInt16>, lines: UnsafeMutableRawPointer, ringMask: Int,
         source: UnsafePointer<UInt8>, sourceStride: Int, width w: Int, height h: Int, radius r: Int, firstRow y0: Int) {
        (self.columnSums, self.lines, self.ringMask, self.width) = (columnSums, lines, ringMask, w)
        @inline(__always) func row(_ y: Int) -> UnsafePointer<UInt8> { source + min(max(y, 0), h - 1) * sourceStride }
        add = (row(y0 + r + 1), row(y0 + r + 2), row(y0 + r + 3), row(y0 + r + 4))
        sub = (row(y0 - r), row(y0 + 1 - r), row(y0 + 2 - r), row(y0 + 3 - r))
    }

    /// Column sums for pixels `produced..<wanted` (rounded up to 4, at most the width) go into the
    /// ring (slot = row) and advance by four rows. Lanes of rows past the end get meaningless
    /// (never stored) values.
    @inline(__always) mutating func produce(upTo wanted: Int) {
        let w = width, ringMask = ringMask, linesRaw = lines, columnSums = columnSums
        let (add0, add1, add2, add3) = add, (sub0, sub1, sub2, sub3) = sub
        let target = min((wanted + 3) & ~3, w)
        var produced = self.produced
        while produced + 4 <= target {
            let i = 4 * produced
            let sums = UnsafeMutableRawPointer(columnSums + i)
            var c = sums.loadUnaligned(as: SIMD16<UInt16>.self)
            let p0 = 64 * (produced & ringMask), p1 = 64 * ((produced + 1) & ringMask)
            let p2 = 64 * ((produced + 2) & ringMask), p3 = 64 * ((produced + 3) & ringMask)
            let f0 = ByteBoxPass.floats(c)
            c = c &+ ByteBoxPass.widened(UnsafeRawPointer(add0 + i)) &- ByteBoxPass.widened(UnsafeRawPointer(sub0 + i))
            let f1 = ByteBoxPass.floats(c)
            c = c &+ ByteBoxPass.widened(UnsafeRawPointer(add1 + i)) &- ByteBoxPass.widened(UnsafeRawPointer(sub1 + i))
            let f2 = ByteBoxPass.floats(c)
            c = c &+ ByteBoxPass.widened(UnsafeRawPointer(add2 + i)) &- ByteBoxPass.widened(UnsafeRawPointer(sub2 + i))
            let f3 = ByteBoxPass.floats(c)
            c = c &+ ByteBoxPass.widened(UnsafeRawPointer(add3 + i)) &- ByteBoxPass.widened(UnsafeRawPointer(sub3 + i))
            // A 4×4 transpose of 16-byte blocks: each ring entry (one pixel, four rows) is written whole.
            @inline(__always) func entry(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ c: SIMD4<Float>, _ d: SIMD4<Float>) -> SIMD16<Float> {
                SIMD16(lowHalf: SIMD8(lowHalf: a, highHalf: b), highHalf: SIMD8(lowHalf: c, highHalf: d))
            }
            (linesRaw + p0).storeBytes(of: entry(f0.lowHalf.lowHalf, f1.lowHalf.lowHalf, f2.lowHalf.lowHalf, f3.lowHalf.lowHalf),
                                       as: SIMD16<Float>.self)
            (linesRaw + p1).storeBytes(of: entry(f0.lowHalf.highHalf, f1.lowHalf.highHalf, f2.lowHalf.highHalf, f3.lowHalf.highHalf),
                                       as: SIMD16<Float>.self)
            (linesRaw + p2).storeBytes(of: entry(f0.highHalf.lowHalf, f1.highHalf.lowHalf, f2.highHalf.lowHalf, f3.highHalf.lowHalf),
                                       as: SIMD16<Float>.self)
            (linesRaw + p3).storeBytes(of: entry(f0.highHalf.highHalf, f1.highHalf.highHalf, f2.highHalf.highHalf, f3.highHalf.highHalf),
                                       as: SIMD16<Float>.self)
            sums.storeBytes(of: c, as: SIMD16<UInt16>.self)
            produced += 4
        }
        while produced < target {
            let line = linesRaw + 64 * (produced & ringMask)
            for lane in 0..<4 {
                let i = 4 * produced + lane
                var c = columnSums[i]
                (line + 4 * lane).storeBytes(of: Float(c), as: Float.self)
                c = c &+ UInt16(add0[i]) &- UInt16(sub0[i])
                (line + 16 + 4 * lane).storeBytes(of: Float(c), as: Float.self)
                c = c &+ UInt16(add1[i]) &- UInt16(sub1[i])
                (line + 32 + 4 * lane).storeBytes(of: Float(c), as: Float.self)
                c = c &+ UInt16(add2[i]) &- UInt16(sub2[i])
                (line + 48 + 4 * lane).storeBytes(of: Float(c), as: Float.self)
                columnSums[i] = c &+ UInt16(add3[i]) &- UInt16(sub3[i])
            }
            produced += 1
        }
        self.produced = produced
    }
}

/// The four destination rows of one group of ``ByteBoxPass``, where the horizontal step stores
/// its rounded sums. Rows past the end alias the last row and are written first, so the real row
/// wins.
private struct OutputRows {
    let o0, o1, o2, o3: UnsafeMutablePointer<UInt8>
    /// `1/(2r+1)²` in every lane.
    let scale: SIMD16<Float>

    @inline(always)
    init(destination: UnsafeMutablePointer<UInt8>, stride: Int, height h: Int, firstRow y0: Int, scale: SIMD16<Float>) {
        o0 = destination + y0 * stride
        o1 = destination + min(y0 + 1, h - 1) * stride
        o2 = destination + min(y0 + 2, h - 1) * stride
        o3 = destination + min(y0 + 3, h - 1) * stride
        self.scale = scale
    }

    /// Pixel `x` of the four rows (alpha 255).
    @inline(always) func store(_ x: Int, _ sum: SIMD16<Float>) {
        let bytes = FastConvert.lowBytes(FastConvert.roundedInt32(sum * scale))
        let words = unsafeBitCast(bytes, to: SIMD4<UInt32>.self) | 0xFF00_0000
        UnsafeMutableRawPointer(o3 + 4 * x).storeBytes(of: words[3], as: UInt32.self)
        UnsafeMutableRawPointer(o2 + 4 * x).storeBytes(of: words[2], as: UInt32.self)
        UnsafeMutableRawPointer(o1 + 4 * x).storeBytes(of: words[1], as: UInt32.self)
        UnsafeMutableRawPointer(o0 + 4 * x).storeBytes(of: words[0], as: UInt32.self)
    }

    /// Pixels `x…x+3` of the four rows: a 4×4 transpose of 32-bit pixels turns them into 16
    /// contiguous bytes per row (four stores instead of sixteen).
    @inline(always) func store4(_ x: Int, _ s0: SIMD16<Float>, _ s1: SIMD16<Float>, _ s2: SIMD16<Float>, _ s3: SIMD16<Float>) {
        @inline(__always) func words(_ s: SIMD16<Float>) -> SIMD4<UInt32> {
            unsafeBitCast(FastConvert.lowBytes(FastConvert.roundedInt32(s * scale)), to: SIMD4<UInt32>.self)
        }
        let z = SIMD16<UInt32>(lowHalf: SIMD8(lowHalf: words(s0), highHalf: words(s1)),
                               highHalf: SIMD8(lowHalf: words(s2), highHalf: words(s3))) | 0xFF00_0000
        @inline(__always) func row(_ j: Int) -> SIMD4<UInt32> { SIMD4(z[j], z[j + 4], z[j + 8], z[j + 12]) }
        UnsafeMutableRawPointer(o3 + 4 * x).storeBytes(of: row(3), as: SIMD4<UInt32>.self)
        UnsafeMutableRawPointer(o2 + 4 * x).storeBytes(of: row(2), as: SIMD4<UInt32>.self)
        UnsafeMutableRawPointer(o1 + 4 * x).storeBytes(of: row(1), as: SIMD4<UInt32>.self)
        UnsafeMutableRawPointer(o0 + 4 * x).storeBytes(of: row(0), as: SIMD4<UInt32>.self)
    }
}
