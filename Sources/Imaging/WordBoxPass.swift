/// One two-dimensional box pass over 16-bit-per-channel pixels (four `UInt16` lanes per pixel):
/// the mask-weighted blur's premultiplied planes `(c·w, c·w, c·w, 255·w)`, `w = round(255·(1 − m))`,
/// so every lane is an integer ≤ 65025.
///
/// The same streaming design as ``ByteBoxPass`` (rows four at a time, vertical column sums run
/// ahead of a horizontal running sum through a small L1 ring), with wider integers: column sums
/// are `UInt32` (≤ 255·65025), the horizontal sums `UInt32` lanes (≤ 255²·65025 < 2³²), all exact.
/// What happens to each finished 2-D sum is the ``WordBoxSink``'s business: the first two passes
/// divide by `(2r+1)²` and round once (exactly, see ``WordPlaneSink``); the last one normalises
/// colour by weight and composites.
struct WordBoxPass {
    /// `4 · width` (rounded up to 16) `UInt32` column sums.
    let columnSums: UnsafeMutablePointer<UInt32>
    /// A ring of ``ByteBoxPass/ringCapacity`` 64-byte entries (one pixel × four rows × four lanes).
    let lines: UnsafeMutableRawPointer

    /// Runs the pass over `source` (rows `sourceStride` `UInt16`s apart, four lanes per pixel) and
    /// hands every 2-D sum to `sink`, four rows at a time.
    /// - Precondition: `r ≥ 0`, `2r + 1 ≤ 255`.
    @inline(__always)
    func run<S: WordBoxSink>(source: UnsafePointer<UInt16>, sourceStride: Int, width w: Int, height h: Int,
                             radius r: Int, sink: inout S) {
        let lanes = 4 * w
        for i in 0..<lanes { columnSums[i] = UInt32(r + 1) &* UInt32(source[i]) }
        if r > 0 {
            for k in 1...r {
                let row = source + min(k, h - 1) * sourceStride
                for i in 0..<lanes { columnSums[i] &+= UInt32(row[i]) }
            }
        }
        var ringSize = 16
        while ringSize < 2 * r + ByteBoxPass.chunk + 8 { ringSize *= 2 }
        precondition(ringSize <= ByteBoxPass.ringCapacity, "radius too large for the ring")
        let ringMask = ringSize - 1
        let linesRaw = lines
        let last = w - 1
        var y0 = 0
        while y0 < h {
            let add0 = source + min(y0 + r + 1, h - 1) * sourceStride, sub0 = source + min(max(y0 - r, 0), h - 1) * sourceStride
            let add1 = source + min(y0 + r + 2, h - 1) * sourceStride, sub1 = source + min(max(y0 + 1 - r, 0), h - 1) * sourceStride
            let add2 = source + min(y0 + r + 3, h - 1) * sourceStride, sub2 = source + min(max(y0 + 2 - r, 0), h - 1) * sourceStride
            let add3 = source + min(y0 + r + 4, h - 1) * sourceStride, sub3 = source + min(max(y0 + 3 - r, 0), h - 1) * sourceStride
            var vertical = WordVerticalStep(columnSums: columnSums, lines: linesRaw, ringMask: ringMask, width: w,
                                            add: (add0, add1, add2, add3), sub: (sub0, sub1, sub2, sub3))
            @inline(__always) func line(_ x: Int) -> SIMD16<UInt32> {
                (linesRaw + 64 &* (x & ringMask)).load(as: SIMD16<UInt32>.self)
            }
            sink.beginRows(y0)
            vertical.produce(upTo: r + 1)
            var sum = line(0) &* UInt32(r + 1)
            if r > 0 { for j in 1...r { sum &+= line(min(j, last)) } }
            var x = 0
            while x < w {
                let chunkEnd = min(x + ByteBoxPass.chunk, w)
                vertical.produce(upTo: chunkEnd + r + 1)
                while x + 4 <= chunkEnd {
                    let s0 = sum
                    sum &+= line(min(x &+ r &+ 1, last)) &- line(max(x &- r, 0))
                    let s1 = sum
                    sum &+= line(min(x &+ r &+ 2, last)) &- line(max(x &+ 1 &- r, 0))
                    let s2 = sum
                    sum &+= line(min(x &+ r &+ 3, last)) &- line(max(x &+ 2 &- r, 0))
                    let s3 = sum
                    sum &+= line(min(x &+ r &+ 4, last)) &- line(max(x &+ 3 &- r, 0))
                    sink.emit4(x, s0, s1, s2, s3)
                    x += 4
                }
                while x < chunkEnd {
                    sink.emit(x, sum)
                    sum &+= line(min(x &+ r &+ 1, last)) &- line(max(x &- r, 0))
                    x += 1
                }
            }
            sink.endRows(y0, count: min(4, h - y0))
            y0 += 4
        }
    }

    /// 16 `UInt16` lanes → 16 `UInt32` lanes.
    @inline(__always) static func widened(_ p: UnsafePointer<UInt16>) -> SIMD16<UInt32> {
        let v = UnsafeRawPointer(p).loadUnaligned(as: SIMD16<UInt16>.self)
        return SIMD16<UInt32>(UInt32(v[0]), UInt32(v[1]), UInt32(v[2]), UInt32(v[3]), UInt32(v[4]), UInt32(v[5]),
                              UInt32(v[6]), UInt32(v[7]), UInt32(v[8]), UInt32(v[9]), UInt32(v[10]), UInt32(v[11]),
                              UInt32(v[12]), UInt32(v[13]), UInt32(v[14]), UInt32(v[15]))
    }

    /// 16 `UInt32` lanes (each < 2³²) → 16 floats (rounded to 24 bits).
    @inline(__always) static func floats(_ v: SIMD16<UInt32>) -> SIMD16<Float> {
        SIMD16<Float>(Float(v[0]), Float(v[1]), Float(v[2]), Float(v[3]), Float(v[4]), Float(v[5]), Float(v[6]), Float(v[7]),
                      Float(v[8]), Float(v[9]), Float(v[10]), Float(v[11]), Float(v[12]), Float(v[13]), Float(v[14]), Float(v[15]))
    }
}

/// Receives the 2-D box sums of ``WordBoxPass``: a `SIMD16<UInt32>` per x holding that pixel's four
/// lanes in four consecutive rows (row `y0 + k` in lanes `4k…4k+3`; rows past the end hold
/// meaningless values and must not be stored).
protocol WordBoxSink {
    mutating func beginRows(_ y0: Int)
    mutating func emit(_ x: Int, _ sum: SIMD16<UInt32>)
    mutating func emit4(_ x: Int, _ s0: SIMD16<UInt32>, _ s1: SIMD16<UInt32>, _ s2: SIMD16<UInt32>, _ s3: SIMD16<UInt32>)
    mutating func endRows(_ y0: Int, count: Int)
}

/// Writes `round(sum / (2r+1)²)` (exact: a float estimate corrected by the integer remainder; ties
/// cannot occur since `(2r+1)²` is odd) into a `UInt16` plane.
struct WordPlaneSink: WordBoxSink {
    let destination: UnsafeMutablePointer<UInt16>
    /// `UInt16`s between rows.
    let stride: Int
    let height: Int
    let area: Int32
    let inverseArea: SIMD16<Float>
    private var rows: (UnsafeMutablePointer<UInt16>, UnsafeMutablePointer<UInt16>, UnsafeMutablePointer<UInt16>,
                       UnsafeMutablePointer<UInt16>)

    init(destination: UnsafeMutablePointer<UInt16>, stride: Int, height: Int, radius r: Int) {
        self.destination = destination
        self.stride = stride
        self.height = height
        area = Int32((2 * r + 1) * (2 * r + 1))
        inverseArea = SIMD16(repeating: 1 / Float(area))
        rows = (destination, destination, destination, destination)
    }

    @inline(__always) mutating func beginRows(_ y0: Int) {
        let h = height
        // Rows past the end alias the last row and are written first, so the real row wins.
        rows = (destination + y0 * stride, destination + min(y0 + 1, h - 1) * stride,
                destination + min(y0 + 2, h - 1) * stride, destination + min(y0 + 3, h - 1) * stride)
    }

    /// `round(sum / area)` per lane.
    @inline(__always) func quotient(_ sum: SIMD16<UInt32>) -> SIMD16<Int32> {
        let q = FastConvert.roundedInt32(WordBoxPass.floats(sum) * inverseArea)
        // The estimate is within one of the exact result: correct it with the remainder.
        let twiceRemainder = (unsafeBitCast(sum, to: SIMD16<Int32>.self) &- q &* area) &* 2
        let k = SIMD16<Int32>(repeating: area)
        return q &- ((k &- twiceRemainder) &>> 31) &+ ((twiceRemainder &+ k) &>> 31)
    }

    /// The low 16 bits of each lane.
    @inline(__always) static func halves(_ q: SIMD16<Int32>) -> SIMD16<UInt16> {
        SIMD16<UInt16>(UInt16(truncatingIfNeeded: q[0]), UInt16(truncatingIfNeeded: q[1]), UInt16(truncatingIfNeeded: q[2]),
                       UInt16(truncatingIfNeeded: q[3]), UInt16(truncatingIfNeeded: q[4]), UInt16(truncatingIfNeeded: q[5]),
                       UInt16(truncatingIfNeeded: q[6]), UInt16(truncatingIfNeeded: q[7]), UInt16(truncatingIfNeeded: q[8]),
                       UInt16(truncatingIfNeeded: q[9]), UInt16(truncatingIfNeeded: q[10]), UInt16(truncatingIfNeeded: q[11]),
                       UInt16(truncatingIfNeeded: q[12]), UInt16(truncatingIfNeeded: q[13]), UInt16(truncatingIfNeeded: q[14]),
                       UInt16(truncatingIfNeeded: q[15]))
    }

    @inline(__always) mutating func emit(_ x: Int, _ sum: SIMD16<UInt32>) {
        let q = unsafeBitCast(Self.halves(quotient(sum)), to: SIMD4<UInt64>.self)
        UnsafeMutableRawPointer(rows.3 + 4 * x).storeBytes(of: q[3], as: UInt64.self)
        UnsafeMutableRawPointer(rows.2 + 4 * x).storeBytes(of: q[2], as: UInt64.self)
        UnsafeMutableRawPointer(rows.1 + 4 * x).storeBytes(of: q[1], as: UInt64.self)
        UnsafeMutableRawPointer(rows.0 + 4 * x).storeBytes(of: q[0], as: UInt64.self)
    }

    /// Four consecutive x: a 4×4 transpose of 128-bit blocks (one pixel of one row each) gives
    /// each row's four pixels in one vector, narrowed and stored whole (32 bytes).
    @inline(__always) mutating func emit4(_ x: Int, _ s0: SIMD16<UInt32>, _ s1: SIMD16<UInt32>,
                                          _ s2: SIMD16<UInt32>, _ s3: SIMD16<UInt32>) {
        let q0 = quotient(s0), q1 = quotient(s1), q2 = quotient(s2), q3 = quotient(s3)
        @inline(__always) func row(_ a: SIMD4<Int32>, _ b: SIMD4<Int32>, _ c: SIMD4<Int32>, _ d: SIMD4<Int32>) -> SIMD16<UInt16> {
            Self.halves(SIMD16(lowHalf: SIMD8(lowHalf: a, highHalf: b), highHalf: SIMD8(lowHalf: c, highHalf: d)))
        }
        UnsafeMutableRawPointer(rows.3 + 4 * x).storeBytes(
            of: row(q0.highHalf.highHalf, q1.highHalf.highHalf, q2.highHalf.highHalf, q3.highHalf.highHalf), as: SIMD16<UInt16>.self)
        UnsafeMutableRawPointer(rows.2 + 4 * x).storeBytes(
            of: row(q0.highHalf.lowHalf, q1.highHalf.lowHalf, q2.highHalf.lowHalf, q3.highHalf.lowHalf), as: SIMD16<UInt16>.self)
        UnsafeMutableRawPointer(rows.1 + 4 * x).storeBytes(
            of: row(q0.lowHalf.highHalf, q1.lowHalf.highHalf, q2.lowHalf.highHalf, q3.lowHalf.highHalf), as: SIMD16<UInt16>.self)
        UnsafeMutableRawPointer(rows.0 + 4 * x).storeBytes(
            of: row(q0.lowHalf.lowHalf, q1.lowHalf.lowHalf, q2.lowHalf.lowHalf, q3.lowHalf.lowHalf), as: SIMD16<UInt16>.self)
    }

    @inline(__always) mutating func endRows(_ y0: Int, count: Int) {}
}

/// The last pass: colour sum · 255 / weight sum (the `(2r+1)²` cancels), rounded to a byte, alpha
/// 255, into four rows of `scratch` (`4·width` bytes each); `finish(y, row)` gets each finished row.
struct NormalisingSink<Finish: WordRowConsumer>: WordBoxSink {
    let scratch: UnsafeMutablePointer<UInt8>
    let width: Int
    var finish: Finish

    @inline(__always) mutating func beginRows(_ y0: Int) {}

    /// Four background pixels (one per row) as bytes.
    @inline(__always) func words(_ s: SIMD16<UInt32>) -> SIMD4<UInt32> {
        let v = WordBoxPass.floats(s)
        let weight = SIMD16<Float>(v[3], v[3], v[3], v[3], v[7], v[7], v[7], v[7],
                                   v[11], v[11], v[11], v[11], v[15], v[15], v[15], v[15])
        // Colour sum ≤ 255 · weight sum (c·w ≤ 255·w before blurring; sums and rounding are
        // monotone), so the result is in [0, 255] with no clamp. + 0.5 keeps an all-person
        // neighbourhood (weight 0, colour 0) at 0 without a branch; the weight sum of any
        // neighbourhood with background is ≥ 255, so this moves a result by < 0.5/255 of a level.
        let c = v * (255 / (weight + 0.5))
        return unsafeBitCast(FastConvert.lowBytes(FastConvert.roundedInt32(c)), to: SIMD4<UInt32>.self) | 0xFF00_0000
    }

    @inline(__always) mutating func emit(_ x: Int, _ sum: SIMD16<UInt32>) {
        let z = words(sum), w = width
        for k in 0..<4 { UnsafeMutableRawPointer(scratch + 4 * (k * w + x)).storeBytes(of: z[k], as: UInt32.self) }
    }

    @inline(__always) mutating func emit4(_ x: Int, _ s0: SIMD16<UInt32>, _ s1: SIMD16<UInt32>,
                                          _ s2: SIMD16<UInt32>, _ s3: SIMD16<UInt32>) {
        let z = SIMD16<UInt32>(lowHalf: SIMD8(lowHalf: words(s0), highHalf: words(s1)),
                               highHalf: SIMD8(lowHalf: words(s2), highHalf: words(s3)))
        let w = width
        @inline(__always) func row(_ j: Int) -> SIMD4<UInt32> { SIMD4(z[j], z[j + 4], z[j + 8], z[j + 12]) }
        UnsafeMutableRawPointer(scratch + 4 * x).storeBytes(of: row(0), as: SIMD4<UInt32>.self)
        UnsafeMutableRawPointer(scratch + 4 * (w + x)).storeBytes(of: row(1), as: SIMD4<UInt32>.self)
        UnsafeMutableRawPointer(scratch + 4 * (2 * w + x)).storeBytes(of: row(2), as: SIMD4<UInt32>.self)
        UnsafeMutableRawPointer(scratch + 4 * (3 * w + x)).storeBytes(of: row(3), as: SIMD4<UInt32>.self)
    }

    @inline(__always) mutating func endRows(_ y0: Int, count: Int) {
        for k in 0..<count { finish.consume(y0 + k, UnsafePointer(scratch + 4 * width * k)) }
    }
}

/// What happens to a finished background row (`4·width` bytes) of the masked blur.
protocol WordRowConsumer {
    mutating func consume(_ y: Int, _ row: UnsafePointer<UInt8>)
}

/// The vertical step of ``WordBoxPass`` for one group of four rows (as ``ByteBoxPass``'s).
private struct WordVerticalStep {
    let columnSums: UnsafeMutablePointer<UInt32>
    let lines: UnsafeMutableRawPointer
    let ringMask: Int
    let width: Int
    let add: (UnsafePointer<UInt16>, UnsafePointer<UInt16>, UnsafePointer<UInt16>, UnsafePointer<UInt16>)
    let sub: (UnsafePointer<UInt16>, UnsafePointer<UInt16>, UnsafePointer<UInt16>, UnsafePointer<UInt16>)
    var produced = 0

    @inline(__always) mutating func produce(upTo wanted: Int) {
        let w = width, ringMask = ringMask, linesRaw = lines, columnSums = columnSums
        let (add0, add1, add2, add3) = add, (sub0, sub1, sub2, sub3) = sub
        let target = min((wanted + 3) & ~3, w)
        var produced = self.produced
        while produced + 4 <= target {
            let i = 4 * produced
            let sums = UnsafeMutableRawPointer(columnSums + i)
            var c = sums.loadUnaligned(as: SIMD16<UInt32>.self)
            let p0 = 64 * (produced & ringMask), p1 = 64 * ((produced + 1) & ringMask)
            let p2 = 64 * ((produced + 2) & ringMask), p3 = 64 * ((produced + 3) & ringMask)
            let f0 = c
            c = c &+ WordBoxPass.widened(add0 + i) &- WordBoxPass.widened(sub0 + i)
            let f1 = c
            c = c &+ WordBoxPass.widened(add1 + i) &- WordBoxPass.widened(sub1 + i)
            let f2 = c
            c = c &+ WordBoxPass.widened(add2 + i) &- WordBoxPass.widened(sub2 + i)
            let f3 = c
            c = c &+ WordBoxPass.widened(add3 + i) &- WordBoxPass.widened(sub3 + i)
            @inline(__always) func entry(_ a: SIMD4<UInt32>, _ b: SIMD4<UInt32>, _ c: SIMD4<UInt32>,
                                         _ d: SIMD4<UInt32>) -> SIMD16<UInt32> {
                SIMD16(lowHalf: SIMD8(lowHalf: a, highHalf: b), highHalf: SIMD8(lowHalf: c, highHalf: d))
            }
            (linesRaw + p0).storeBytes(of: entry(f0.lowHalf.lowHalf, f1.lowHalf.lowHalf, f2.lowHalf.lowHalf, f3.lowHalf.lowHalf),
                                       as: SIMD16<UInt32>.self)
            (linesRaw + p1).storeBytes(of: entry(f0.lowHalf.highHalf, f1.lowHalf.highHalf, f2.lowHalf.highHalf, f3.lowHalf.highHalf),
                                       as: SIMD16<UInt32>.self)
            (linesRaw + p2).storeBytes(of: entry(f0.highHalf.lowHalf, f1.highHalf.lowHalf, f2.highHalf.lowHalf, f3.highHalf.lowHalf),
                                       as: SIMD16<UInt32>.self)
            (linesRaw + p3).storeBytes(of: entry(f0.highHalf.highHalf, f1.highHalf.highHalf, f2.highHalf.highHalf, f3.highHalf.highHalf),
                                       as: SIMD16<UInt32>.self)
            sums.storeBytes(of: c, as: SIMD16<UInt32>.self)
            produced += 4
        }
        while produced < target {
            let line = linesRaw + 64 * (produced & ringMask)
            for lane in 0..<4 {
                let i = 4 * produced + lane
                var c = columnSums[i]
                (line + 4 * lane).storeBytes(of: c, as: UInt32.self)
                c = c &+ UInt32(add0[i]) &- UInt32(sub0[i])
                (line + 16 + 4 * lane).storeBytes(of: c, as: UInt32.self)
                c = c &+ UInt32(add1[i]) &- UInt32(sub1[i])
                (line + 32 + 4 * lane).storeBytes(of: c, as: UInt32.self)
                c = c &+ UInt32(add2[i]) &- UInt32(sub2[i])
                (line + 48 + 4 * lane).storeBytes(of: c, as: UInt32.self)
                columnSums[i] = c &+ UInt32(add3[i]) &- UInt32(sub3[i])
            }
            produced += 1
        }
        self.produced = produced
    }
}
