/// One two-dimensional box pass over 16-bit-per-channel pixels (four `UInt16` lanes per pixel), a
/// row at a time (``advance(to:input:sink:)``): the mask-weighted blur's premultiplied planes `(c·w, c·w, c·w, 255·w)`,
/// `w = round(255·(1 − m))`, so every lane is an integer ≤ 65025. All sums are exact integers.
///
/// **How it runs (O(1) per pixel in `r`, no transposes).** For each output row `y`:
/// 1. *Horizontal*, over the `UInt32` column sums `V` of row `y` (each the exact sum of the
///    `2r+1` rows around `y`, edge clamp), four pixels (16 lanes) per step: the differences
///    `D[x] = V[x+r] − V[x−r−1]` (loads from `V` widened by `r+1` copies of the edge pixel on each
///    side, so no clamping in the loop), an inclusive prefix over the four pixels (two lane shifts
///    and adds), plus the running total carried as a broadcast vector, give the four box sums
///    `Σ V[x−r…x+r]` in row order, ready for the ``RowBoxSink`` (≤ 255²·65025 < 2³², exact).
/// 2. *Vertical*: `V += row(y+r+1) − row(y−r)` (rows clamped), vectorised across the row.
/// The column sums (`16·(w + 2r + 6)` bytes) stay in L1/L2; each input row is read twice
/// (added, and `2r+1` rows later subtracted), so an input needs to keep only its last `2r + 2`
/// rows: the masked blur chains pack → pass → pass → pass through such rings
/// (``PremultipliedRows``), never writing a frame-sized intermediate plane.
struct RowBoxPass {
    /// Column sums with margins: ``columnCapacity(width:)`` `UInt32`s, 64-byte aligned.
    let columnSums: UnsafeMutablePointer<UInt32>
    let width: Int
    let height: Int
    let radius: Int

    /// Pixels before `V[0]` in ``columnSums``: the left margin (≤ 128 for radii ≤ 127) plus the
    /// overshoot of four-pixel stores.
    static let leftMargin = 132

    /// `UInt32`s ``columnSums`` must hold for a row of `width` pixels (radii are capped at 127).
    static func columnCapacity(width: Int) -> Int { 4 * (leftMargin + width + 128 + 8) }

    /// - Precondition: `0 ≤ radius ≤ 127`.
    init(columnSums: UnsafeMutablePointer<UInt32>, width: Int, height: Int, radius: Int) {
        precondition(radius >= 0 && radius <= 127, "radius out of range")
        self.columnSums = columnSums
        self.width = width
        self.height = height
        self.radius = radius
    }

    /// `V[0]`.
    private var v: UnsafeMutablePointer<UInt32> { columnSums + 4 * Self.leftMargin }

    /// Brings the column sums to row `y` (from row `y − 1`'s, or from scratch at `y = 0`) and hands
    /// row `y`'s 2-D box sums to `sink`. Rows are requested from `input` in increasing order of
    /// their newest row: `min(y + r, h − 1)`, then the row `2r + 1` above it (so an input that
    /// keeps its last `2r + 2` rows suffices). Input rows may be read up to 12 lanes past their end.
    @inline(__always)
    func advance<I: PremultipliedRows, S: RowBoxSink>(to y: Int, input: inout I, sink: inout S) {
        let w = width, h = height, r = radius, lanes = 4 * w
        let vRaw = UnsafeMutableRawPointer(v)
        if y == 0 {
            // (r + 1)·row(0) + row(1) + … + row(r), rows clamped.
            let k = SIMD16<UInt32>(repeating: UInt32(r + 1))
            let first = input.row(0)
            var i = 0
            while i < lanes {
                (vRaw + 4 * i).storeBytes(of: Self.widened(first + i) &* k, as: SIMD16<UInt32>.self)
                i += 16
            }
            if r > 0 {
                for row in 1...r {
                    let s = input.row(min(row, h - 1))
                    i = 0
                    while i < lanes {
                        let p = vRaw + 4 * i
                        p.storeBytes(of: p.load(as: SIMD16<UInt32>.self) &+ Self.widened(s + i), as: SIMD16<UInt32>.self)
                        i += 16
                    }
                }
            }
            horizontal(y, sink: &sink)
        } else {
            // Column sums of row y from row y − 1's, updated inside the horizontal loop a chunk
            // ahead of it (so each chunk of `V` is still in L1 when the running sum reads it).
            let add = input.row(min(y + r, h - 1)), sub = input.row(max(y - r - 1, 0))
            horizontal(y, sink: &sink, add: add, sub: sub)
        }
    }

    /// `V[from ..< to] += add − sub` (pixels; `to` a multiple of 4, lanes past the row land in the
    /// right margin, which is rewritten afterwards). Returns `to`.
    @inline(__always)
    private static func update(_ vRaw: UnsafeMutableRawPointer, add: UnsafePointer<UInt16>, sub: UnsafePointer<UInt16>,
                               from: Int, to: Int) -> Int {
        var i = 4 * from
        let end = 4 * to
        while i < end {
            let p = vRaw + 4 * i
            p.storeBytes(of: p.load(as: SIMD16<UInt32>.self) &+ widened(add + i) &- widened(sub + i), as: SIMD16<UInt32>.self)
            i += 16
        }
        return to
    }

    /// `V[w … w+r+3] = V[w−1]`, four pixels per store (also overwrites the lanes past the row that
    /// the vertical step computed from neighbouring memory).
    @inline(__always)
    private func fillRightMargin() {
        let w = width, v = self.v
        let lastPixel = UnsafeRawPointer(v + 4 * (w - 1)).load(as: SIMD4<UInt32>.self)
        let lastFour = SIMD16(lowHalf: SIMD8(lowHalf: lastPixel, highHalf: lastPixel),
                              highHalf: SIMD8(lowHalf: lastPixel, highHalf: lastPixel))
        var k = 0
        while k < radius + 4 { (UnsafeMutableRawPointer(v) + 16 * (w + k)).storeBytes(of: lastFour, as: SIMD16<UInt32>.self); k += 4 }
    }

    /// Row `y`'s box sums from the column sums (see the type's documentation). With `add`/`sub`,
    /// the column sums are first brought to row `y` (`V += add − sub`), a chunk ahead of the
    /// running sum.
    @inline(__always)
    private func horizontal<S: RowBoxSink>(_ y: Int, sink: inout S, add: UnsafePointer<UInt16>? = nil,
                                           sub: UnsafePointer<UInt16>? = nil) {
        let w = width, r = radius
        let margin = r + 1                     // pixels of edge copies on each side
        let v = self.v
        let vRaw = UnsafeMutableRawPointer(v)
        let paddedWidth = (w + 3) & ~3
        // Pixels of V final for row y: the running sum at x reads up to V[x + r + 3].
        var updated = paddedWidth
        if let add, let sub {
            updated = Self.update(vRaw, add: add, sub: sub, from: 0, to: min(paddedWidth, (r + 7) & ~3))
        }
        var rightFilled = false
        if updated >= w { fillRightMargin(); rightFilled = true }
        // Edge copies on the left: V[−r−1 … −1] = V[0], four pixels per store (the margin has
        // room for the overshoot).
        let first = UnsafeRawPointer(v).load(as: SIMD4<UInt32>.self)
        let firstFour = SIMD16(lowHalf: SIMD8(lowHalf: first, highHalf: first), highHalf: SIMD8(lowHalf: first, highHalf: first))
        var k = 4
        while k < margin + 4 { (vRaw - 16 * k).storeBytes(of: firstFour, as: SIMD16<UInt32>.self); k += 4 }
        // The box sum just left of x = 0: Σ V[−r−1 … r−1] = (r+1)·V[0] + V[0] + … + V[r−1].
        var fours = firstFour &* UInt32(margin / 4)
        var start = first &* UInt32(margin % 4)
        k = 0
        while k + 4 <= r { fours &+= UnsafeRawPointer(v + 4 * k).load(as: SIMD16<UInt32>.self); k += 4 }
        while k < r { start &+= UnsafeRawPointer(v + 4 * k).load(as: SIMD4<UInt32>.self); k += 1 }
        start &+= fours.lowHalf.lowHalf &+ fours.lowHalf.highHalf &+ fours.highHalf.lowHalf &+ fours.highHalf.highHalf
        var carry = SIMD16<UInt32>(lowHalf: SIMD8(lowHalf: start, highHalf: start), highHalf: SIMD8(lowHalf: start, highHalf: start))
        sink.beginRow(y)
        let ahead = UnsafeRawPointer(v + 4 * r), behind = UnsafeRawPointer(v - 4 * (r + 1))
        var x = 0
        while x < w {
            let chunkEnd = min(x + 64, w)
            if updated < paddedWidth, let add, let sub {
                updated = Self.update(vRaw, add: add, sub: sub, from: updated, to: min(paddedWidth, (chunkEnd + r + 7) & ~3))
                if updated >= w && !rightFilled { fillRightMargin(); rightFilled = true }
            }
            while x < chunkEnd {
                var d = ahead.loadUnaligned(fromByteOffset: 16 * x, as: SIMD16<UInt32>.self)
                    &- behind.loadUnaligned(fromByteOffset: 16 * x, as: SIMD16<UInt32>.self)
                // Inclusive prefix over the four pixels: shift by one pixel, then by two.
                d &+= SIMD16<UInt32>(0, 0, 0, 0, d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10], d[11])
                d &+= SIMD16<UInt32>(0, 0, 0, 0, 0, 0, 0, 0, d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7])
                let sums = d &+ carry
                carry &+= SIMD16<UInt32>(d[12], d[13], d[14], d[15], d[12], d[13], d[14], d[15],
                                         d[12], d[13], d[14], d[15], d[12], d[13], d[14], d[15])
                if x + 4 <= w { sink.emit(x, sums) } else { sink.emit(x, sums, count: w - x) }
                x += 4
            }
        }
        sink.endRow(y)
    }

    /// 16 `UInt16` lanes → 16 `UInt32` lanes.
    @inline(__always) static func widened(_ p: UnsafePointer<UInt16>) -> SIMD16<UInt32> {
        let v = UnsafeRawPointer(p).loadUnaligned(as: SIMD16<UInt16>.self)
        return SIMD16<UInt32>(UInt32(v[0]), UInt32(v[1]), UInt32(v[2]), UInt32(v[3]), UInt32(v[4]), UInt32(v[5]),
                              UInt32(v[6]), UInt32(v[7]), UInt32(v[8]), UInt32(v[9]), UInt32(v[10]), UInt32(v[11]),
                              UInt32(v[12]), UInt32(v[13]), UInt32(v[14]), UInt32(v[15]))
    }
}

/// Rows of 16-bit premultiplied pixels (four `UInt16` lanes each), produced on demand.
protocol PremultipliedRows {
    /// Row `y` (`0 ≤ y < height`); valid until rows `2r + 2` or more further on are requested.
    mutating func row(_ y: Int) -> UnsafePointer<UInt16>
}

/// A box pass whose output rows are kept in a ring of ``ringRows`` rows and produced when asked
/// for: three passes chained this way stream the frame through without frame-sized planes.
struct BoxPassRows<Input: PremultipliedRows>: PremultipliedRows {
    var input: Input
    let pass: RowBoxPass
    var sink: RowPlaneSink
    private var produced = 0

    init(input: Input, pass: RowBoxPass, sink: RowPlaneSink) {
        self.input = input
        self.pass = pass
        self.sink = sink
    }

    @inline(__always) mutating func row(_ y: Int) -> UnsafePointer<UInt16> {
        while produced <= y {
            pass.advance(to: produced, input: &input, sink: &sink)
            produced += 1
        }
        return UnsafePointer(sink.rowStart(y))
    }
}

/// Receives the 2-D box sums of ``RowBoxPass`` row by row: a `SIMD16<UInt32>` per four pixels
/// `x…x+3` of the row (pixel `x + k` in lanes `4k…4k+3`).
protocol RowBoxSink {
    mutating func beginRow(_ y: Int)
    mutating func emit(_ x: Int, _ sums: SIMD16<UInt32>)
    /// The row's last pixels: only the first `count` (< 4) are real.
    mutating func emit(_ x: Int, _ sums: SIMD16<UInt32>, count: Int)
    mutating func endRow(_ y: Int)
}

/// Writes `sum / (2r+1)²` rounded into a `UInt16` plane (within 0.5 + 0.0117, see ``quotient(_:)``).
struct RowPlaneSink: RowBoxSink {
    let destination: UnsafeMutablePointer<UInt16>
    /// `UInt16`s between rows.
    let stride: Int
    /// Row `y` goes to slot `y % ringRows`.
    let ringRows: Int
    let inverseArea: SIMD16<Float>
    private var row: UnsafeMutablePointer<UInt16>

    init(destination: UnsafeMutablePointer<UInt16>, stride: Int, ringRows: Int, radius r: Int) {
        self.destination = destination
        self.stride = stride
        self.ringRows = ringRows
        inverseArea = SIMD16(repeating: 1 / Float((2 * r + 1) * (2 * r + 1)))
        row = destination
    }

    @inline(__always) func rowStart(_ y: Int) -> UnsafeMutablePointer<UInt16> { destination + (y % ringRows) * stride }

    @inline(__always) mutating func beginRow(_ y: Int) { row = rowStart(y) }

    /// `sum / area` rounded to the nearest integer, as 16-bit lanes, in `Float`: one conversion and
    /// one fused multiply-add with 1.5·2²³ (after which the float's low mantissa bits *are* the
    /// rounded integer, < 2¹⁶). Not always the exact rounding: `Float(sum)` (sum < 2³²) and
    /// `1/area` are each within a relative 2⁻²⁴, so the quotient before rounding is within
    /// 65025·2·2⁻²⁴ ≈ 0.0078 of `sum / area` (0.0117 without FMA, where the product is rounded
    /// too), and the stored value within **0.5 + 0.0117** of it (exact rounding: 0.5). Four
    /// vector instructions where the exact `Double` rounding took eleven.
    @inline(__always) func quotient(_ sum: SIMD16<UInt32>) -> SIMD16<UInt16> {
        let f = SIMD16<Float>(Float(sum[0]), Float(sum[1]), Float(sum[2]), Float(sum[3]), Float(sum[4]), Float(sum[5]),
                              Float(sum[6]), Float(sum[7]), Float(sum[8]), Float(sum[9]), Float(sum[10]), Float(sum[11]),
                              Float(sum[12]), Float(sum[13]), Float(sum[14]), Float(sum[15]))
        let q = targetHasFMA
            ? SIMD16<Float>(repeating: 12_582_912).addingProduct(f, inverseArea)
            : f * inverseArea + 12_582_912
        let v = unsafeBitCast(q, to: SIMD16<UInt32>.self)
        // Lane by lane (one `vpmovdw`; the generic `init(truncatingIfNeeded:)` became shuffles).
        return SIMD16<UInt16>(UInt16(truncatingIfNeeded: v[0]), UInt16(truncatingIfNeeded: v[1]), UInt16(truncatingIfNeeded: v[2]),
                              UInt16(truncatingIfNeeded: v[3]), UInt16(truncatingIfNeeded: v[4]), UInt16(truncatingIfNeeded: v[5]),
                              UInt16(truncatingIfNeeded: v[6]), UInt16(truncatingIfNeeded: v[7]), UInt16(truncatingIfNeeded: v[8]),
                              UInt16(truncatingIfNeeded: v[9]), UInt16(truncatingIfNeeded: v[10]), UInt16(truncatingIfNeeded: v[11]),
                              UInt16(truncatingIfNeeded: v[12]), UInt16(truncatingIfNeeded: v[13]), UInt16(truncatingIfNeeded: v[14]),
                              UInt16(truncatingIfNeeded: v[15]))
    }

    @inline(__always) mutating func emit(_ x: Int, _ sums: SIMD16<UInt32>) {
        UnsafeMutableRawPointer(row + 4 * x).storeBytes(of: quotient(sums), as: SIMD16<UInt16>.self)
    }

    @inline(__always) mutating func emit(_ x: Int, _ sums: SIMD16<UInt32>, count: Int) {
        let q = unsafeBitCast(quotient(sums), to: SIMD4<UInt64>.self)
        for k in 0..<count { UnsafeMutableRawPointer(row + 4 * (x + k)).storeBytes(of: q[k], as: UInt64.self) }
    }

    @inline(__always) mutating func endRow(_ y: Int) {}
}

/// The last pass: colour sum · 255 / weight sum (the `(2r+1)²` cancels), rounded to a byte, alpha
/// 255, into a row of `scratch` (`4·width` bytes); `finish(y, row)` gets each finished row.
struct RowNormalisingSink<Finish: BlurRowConsumer>: RowBoxSink {
    let scratch: UnsafeMutablePointer<UInt8>
    var finish: Finish

    @inline(__always) mutating func beginRow(_ y: Int) {}

    /// Four background pixels of one row as bytes (alpha 255).
    @inline(__always) func words(_ s: SIMD16<UInt32>) -> SIMD4<UInt32> {
        let v = SIMD16<Float>(Float(s[0]), Float(s[1]), Float(s[2]), Float(s[3]), Float(s[4]), Float(s[5]),
                              Float(s[6]), Float(s[7]), Float(s[8]), Float(s[9]), Float(s[10]), Float(s[11]),
                              Float(s[12]), Float(s[13]), Float(s[14]), Float(s[15]))
        let weight = SIMD16<Float>(v[3], v[3], v[3], v[3], v[7], v[7], v[7], v[7],
                                   v[11], v[11], v[11], v[11], v[15], v[15], v[15], v[15])
        // Colour sum ≤ 255 · weight sum (c·w ≤ 255·w before blurring; sums and rounding are
        // monotone), so the result is in [0, 255] with no clamp. + 0.5 keeps an all-person
        // neighbourhood (weight 0, colour 0) at 0 without a branch; the weight sum of any
        // neighbourhood with background is ≥ 255, so this moves a result by < 0.5/255 of a level.
        let c = v * (255 / (weight + 0.5))
        return unsafeBitCast(FastConvert.lowBytes(FastConvert.roundedInt32(c)), to: SIMD4<UInt32>.self) | 0xFF00_0000
    }

    @inline(__always) mutating func emit(_ x: Int, _ sums: SIMD16<UInt32>) {
        UnsafeMutableRawPointer(scratch + 4 * x).storeBytes(of: words(sums), as: SIMD4<UInt32>.self)
    }

    @inline(__always) mutating func emit(_ x: Int, _ sums: SIMD16<UInt32>, count: Int) {
        let z = words(sums)
        for k in 0..<count { UnsafeMutableRawPointer(scratch + 4 * (x + k)).storeBytes(of: z[k], as: UInt32.self) }
    }

    @inline(__always) mutating func endRow(_ y: Int) { finish.consume(y, UnsafePointer(scratch)) }
}

/// What happens to a finished background row (`4·width` bytes) of the masked blur.
protocol BlurRowConsumer {
    mutating func consume(_ y: Int, _ row: UnsafePointer<UInt8>)
}
