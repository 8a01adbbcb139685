/// Puts the person over a background: `out = a·person + (1 − a)·background`, where the coverage
/// `a = edge.coverage(mask)` (see ``EdgeRamp``).
///
/// One fused pass over the frame, 16 pixels at a time, in `Float`: each byte is
/// `round((person − background)·a + background)` (ties to even), exact at `a = 0` and `a = 1`. The alpha byte of the output is 255. Channel order is irrelevant
/// (person and background must share it). The output may be the person frame itself.
public enum Compositor {
    /// Composites into `output` (which may be `person`'s storage when called through
    /// ``composite(over:background:mask:edge:)``).
    ///
    /// - Precondition: the three images and the mask have the same size; person and background
    ///   the same pixel format.
    public static func composite(person: Image, background: Image, mask: Mask, edge: EdgeRamp = .standard,
                                 into output: inout Image) {
        checkSizes(person, background, mask)
        precondition(output.width == person.width && output.height == person.height, "output size differs")
        precondition(output.format == person.format, "output format differs")
        let width = person.width
        person.bytes.withUnsafeBufferPointer { p in
            background.bytes.withUnsafeBufferPointer { b in
                mask.values.withUnsafeBufferPointer { m in
                    output.bytes.withUnsafeMutableBufferPointer { o in
                        for y in 0..<person.height {
                            blendRow(person: p.baseAddress! + y * person.bytesPerRow,
                                     background: b.baseAddress! + y * background.bytesPerRow,
                                     mask: m.baseAddress! + y * width,
                                     output: o.baseAddress! + y * output.bytesPerRow,
                                     width: width, edge: edge)
                        }
                    }
                }
            }
        }
    }

    /// Composites in place: `frame` (the person) becomes the composite.
    public static func composite(over frame: inout Image, background: Image, mask: Mask, edge: EdgeRamp = .standard) {
        checkSizes(frame, background, mask)
        let width = frame.width, stride = frame.bytesPerRow
        background.bytes.withUnsafeBufferPointer { b in
            mask.values.withUnsafeBufferPointer { m in
                frame.bytes.withUnsafeMutableBufferPointer { f in
                    for y in 0..<frame.height {
                        let row = f.baseAddress! + y * stride
                        blendRow(person: UnsafePointer(row),
                                 background: b.baseAddress! + y * background.bytesPerRow,
                                 mask: m.baseAddress! + y * width,
                                 output: row, width: width, edge: edge)
                    }
                }
            }
        }
    }

    /// Composites with a byte coverage (see ``CoverageMask`` for its rounding rule): each byte is
    /// exactly `b + round((p − b) · a / 255)`, alpha 255. Runs of 16 pixels that are all 0 or all
    /// 255 are plain copies (or nothing, in place).
    ///
    /// - Precondition: as ``composite(person:background:mask:edge:into:)``.
    public static func composite(person: Image, background: Image, coverage: CoverageMask, into output: inout Image) {
        checkSizes(person, background, width: coverage.width, height: coverage.height)
        precondition(output.width == person.width && output.height == person.height, "output size differs")
        precondition(output.format == person.format, "output format differs")
        let width = person.width
        person.bytes.withUnsafeBufferPointer { p in
            background.bytes.withUnsafeBufferPointer { b in
                coverage.values.withUnsafeBufferPointer { c in
                    output.bytes.withUnsafeMutableBufferPointer { o in
                        for y in 0..<person.height {
                            blendRow(person: p.baseAddress! + y * person.bytesPerRow,
                                     background: b.baseAddress! + y * background.bytesPerRow,
                                     coverage: c.baseAddress! + y * width,
                                     output: o.baseAddress! + y * output.bytesPerRow, width: width)
                        }
                    }
                }
            }
        }
    }

    /// Composites in place with a byte coverage: `frame` (the person) becomes the composite.
    public static func composite(over frame: inout Image, background: Image, coverage: CoverageMask) {
        checkSizes(frame, background, width: coverage.width, height: coverage.height)
        let width = frame.width, stride = frame.bytesPerRow
        background.bytes.withUnsafeBufferPointer { b in
            coverage.values.withUnsafeBufferPointer { c in
                frame.bytes.withUnsafeMutableBufferPointer { f in
                    for y in 0..<frame.height {
                        let row = f.baseAddress! + y * stride
                        blendRow(person: UnsafePointer(row), background: b.baseAddress! + y * background.bytesPerRow,
                                 coverage: c.baseAddress! + y * width, output: row, width: width)
                    }
                }
            }
        }
    }

    private static func checkSizes(_ person: Image, _ background: Image, width: Int, height: Int) {
        precondition(background.width == person.width && background.height == person.height, "background size differs")
        precondition(width == person.width && height == person.height, "coverage size differs")
        precondition(background.format == person.format, "background pixel format differs")
    }

    /// Blends one row with byte coverage. `person` and `output` may be the same memory.
    ///
    /// `blendQuarter` with `w = Float(a) · (1/255)`: `(p − b)·w` is within 255·2⁻²² of
    /// `(p − b)·a/255`, whose distance to a half-integer is at least 1/510, so the rounding is
    /// exactly `round((p − b)·a/255)`.
    @inline(never)
    static func blendRow(person: UnsafePointer<UInt8>, background: UnsafePointer<UInt8>, coverage: UnsafePointer<UInt8>,
                         output: UnsafeMutablePointer<UInt8>, width: Int) {
        var x = 0
        let inPlace = UnsafePointer(output) == person
        while x + 16 <= width {
            let raw = UnsafeRawPointer(coverage + x)
            let low = raw.loadUnaligned(as: UInt64.self), high = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            let p = person + 4 * x, b = background + 4 * x, o = output + 4 * x
            if low | high == 0 {
                opaqueCopy64(from: b, to: o)
            } else if low & high == ~0 {
                if inPlace { makeOpaque64(o) } else { opaqueCopy64(from: p, to: o) }
            } else {
                let a = FastConvert.floats(raw) * (1 / 255)
                blendQuarter(p, b, o, FastConvert.spread(a, quarter: 0))
                blendQuarter(p + 16, b + 16, o + 16, FastConvert.spread(a, quarter: 1))
                blendQuarter(p + 32, b + 32, o + 32, FastConvert.spread(a, quarter: 2))
                blendQuarter(p + 48, b + 48, o + 48, FastConvert.spread(a, quarter: 3))
                makeOpaque64(o)
            }
            x += 16
        }
        while x < width {
            let a = Int(coverage[x])
            for c in 0..<3 {
                let f = Int(person[4 * x + c]), b = Int(background[4 * x + c])
                // round(d·a/255) for a signed product, no ties: floor((2·d·a + 255) / 510).
                let t = 2 * (f - b) * a + 255
                output[4 * x + c] = UInt8(b + (t >= 0 ? t / 510 : -((-t + 509) / 510)))
            }
            output[4 * x + 3] = 255
            x += 1
        }
    }

    private static func checkSizes(_ person: Image, _ background: Image, _ mask: Mask) {
        precondition(background.width == person.width && background.height == person.height, "background size differs")
        precondition(mask.width == person.width && mask.height == person.height, "mask size differs")
        precondition(background.format == person.format, "background pixel format differs")
    }

    /// Blends four pixels (16 bytes) with per-byte coverage `w` (the alpha bytes are set by the
    /// caller, once per 16 pixels).
    ///
    /// `round((p − b)·w) + b` in integer lanes: the difference is converted once, and the product
    /// is rounded by adding 1.5·2²³ (one fused multiply-add where available), after which the low
    /// bits of the float *are* the rounded integer, so `b` is added to them as an integer. Equal to
    /// `round((p − b)·w + b)` except that an exact tie may round the other way (still within ½).
    @inline(__always)
    static func blendQuarter(_ person: UnsafePointer<UInt8>, _ background: UnsafePointer<UInt8>,
                             _ output: UnsafeMutablePointer<UInt8>, _ w: SIMD16<Float>) {
        let fg = FastConvert.int32s(person), bg = FastConvert.int32s(background)
        let d = FastConvert.floats(fg &- bg)
        #if VBG_FMA
        let rounded = SIMD16<Float>(repeating: 12_582_912).addingProduct(d, w)
        #else
        let rounded = d * w + 12_582_912
        #endif
        // The alpha byte is set by the caller afterwards: forcing it here lets the compiler drop
        // the alpha lanes, which splits every 16-lane operation into an 8- and a 4-lane one.
        let bytes = FastConvert.lowBytes(unsafeBitCast(rounded, to: SIMD16<Int32>.self))
            &+ UnsafeRawPointer(background).loadUnaligned(as: SIMD16<UInt8>.self)
        UnsafeMutableRawPointer(output).storeBytes(of: bytes, as: SIMD16<UInt8>.self)
    }

    /// 16 pixels copied with their alpha bytes set to 255 (the alpha is set on the way, so no
    /// second pass over the row is needed).
    @inline(__always) static func opaqueCopy64(from source: UnsafePointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(destination).storeBytes(of: UnsafeRawPointer(source).loadUnaligned(as: SIMD16<UInt32>.self) | 0xFF00_0000,
                                                        as: SIMD16<UInt32>.self)
    }

    /// Sets the alpha bytes of 16 pixels to 255, writing only if one of them is not already 255
    /// (camera frames usually are opaque: the in-place person region then stays clean in cache).
    @inline(__always) static func makeOpaque64(_ pixels: UnsafeMutablePointer<UInt8>) {
        let raw = UnsafeMutableRawPointer(pixels)
        let v = raw.loadUnaligned(as: SIMD16<UInt32>.self)
        let opaque = v | 0xFF00_0000
        if opaque != v { raw.storeBytes(of: opaque, as: SIMD16<UInt32>.self) }
    }

    /// Blends one row. `person` and `output` may be the same memory.
    ///
    /// Skip-spans: where all 16 coverages of a group are 0 the group is a copy of the background,
    /// where all are 1 a copy of the person (nothing to do in place); both are exactly what the
    /// blend gives there (`(p − b)·0 + b = b`, `(p − b)·1 + b = p` in integers).
    @inline(never)
    static func blendRow(person: UnsafePointer<UInt8>, background: UnsafePointer<UInt8>, mask: UnsafePointer<Float>,
                         output: UnsafeMutablePointer<UInt8>, width: Int, edge: EdgeRamp) {
        var x = 0
        let inPlace = UnsafePointer(output) == person
        while x + 16 <= width {
            let t = edge.ramp(UnsafeRawPointer(mask + x).loadUnaligned(as: SIMD16<Float>.self))
            let p = person + 4 * x, b = background + 4 * x, o = output + 4 * x
            // Whole groups outside the ramp first: the smoothstep is only evaluated on the edge.
            if all(t .<= 0) {
                opaqueCopy64(from: b, to: o)
                x += 16
                continue
            }
            if all(t .>= 1) {
                if inPlace { makeOpaque64(o) } else { opaqueCopy64(from: p, to: o) }
                x += 16
                continue
            }
            let a = edge.coverage(ramp: t)
            if a == SIMD16<Float>() {
                opaqueCopy64(from: b, to: o)
            } else if a == SIMD16<Float>(repeating: 1) {
                if inPlace { makeOpaque64(o) } else { opaqueCopy64(from: p, to: o) }
            } else {
                blendQuarter(p, b, o, FastConvert.spread(a, quarter: 0))
                blendQuarter(p + 16, b + 16, o + 16, FastConvert.spread(a, quarter: 1))
                blendQuarter(p + 32, b + 32, o + 32, FastConvert.spread(a, quarter: 2))
                blendQuarter(p + 48, b + 48, o + 48, FastConvert.spread(a, quarter: 3))
                makeOpaque64(o)
            }
            x += 16
        }
        while x < width {
            let w = edge.coverage(mask[x])
            for c in 0..<3 {
                let f = Float(person[4 * x + c]), b = Float(background[4 * x + c])
                output[4 * x + c] = UInt8(((f - b) * w + b).rounded(.toNearestOrEven))
            }
            output[4 * x + 3] = 255
            x += 1
        }
    }
}
