/// Puts the person over a background: `out = a·person + (1 − a)·background`, where the coverage
/// `a = edge.coverage(mask)` (see ``EdgeRamp``).
///
/// One fused pass over the frame, 16 pixels at a time, in `Float`: each byte is
/// `round((person − background)·a + background)` (ties to even), exact at `a = 0` and `a = 1`. The alpha byte of the output is 255. Channel order is irrelevant
/// (person and background must share it). The output may be the person frame itself.
package enum Compositor {
    /// Composites into `output` (which may be `person`'s storage when called through
    /// ``composite(over:background:mask:edge:)``).
    ///
    /// - Precondition: the three images and the mask have the same size; person and background
    ///   the same pixel format.
    package static func composite(person: Image, background: Image, mask: Mask, edge: EdgeRamp = .standard,
                                 into output: inout Image) {
        check(person, background, coverageWidth: mask.width, coverageHeight: mask.height, output: output)
        mask.values.withUnsafeBufferPointer { m in
            composite(person: person, background: background, into: &output, MaskCoverage(mask: m.baseAddress!, edge: edge))
        }
    }

    /// Composites in place: `frame` (the person) becomes the composite.
    package static func composite(over frame: inout Image, background: Image, mask: Mask, edge: EdgeRamp = .standard) {
        check(frame, background, coverageWidth: mask.width, coverageHeight: mask.height, output: frame)
        mask.values.withUnsafeBufferPointer { m in
            composite(person: nil, background: background, into: &frame, MaskCoverage(mask: m.baseAddress!, edge: edge))
        }
    }

    /// Composites with a byte coverage (see ``CoverageMask`` for its rounding rule): each byte is
    /// exactly `b + round((p − b) · a / 255)`, alpha 255. Runs of 16 pixels that are all 0 or all
    /// 255 are plain copies (or nothing, in place).
    ///
    /// - Precondition: as ``composite(person:background:mask:edge:into:)``.
    package static func composite(person: Image, background: Image, coverage: CoverageMask, into output: inout Image) {
        check(person, background, coverageWidth: coverage.width, coverageHeight: coverage.height, output: output)
        coverage.values.withUnsafeBufferPointer { c in
            composite(person: person, background: background, into: &output, ByteCoverage(values: c.baseAddress!))
        }
    }

    /// Composites in place with a byte coverage: `frame` (the person) becomes the composite.
    package static func composite(over frame: inout Image, background: Image, coverage: CoverageMask) {
        check(frame, background, coverageWidth: coverage.width, coverageHeight: coverage.height, output: frame)
        coverage.values.withUnsafeBufferPointer { c in
            composite(person: nil, background: background, into: &frame, ByteCoverage(values: c.baseAddress!))
        }
    }

    /// Every row through ``blendRow(person:background:output:width:_:)``; with no `person`, in place
    /// (the output holds the person). `coverage` is the coverage of row 0.
    @inline(never)
    static func composite<Coverage: RowCoverage>(person: Image?, background: Image, into output: inout Image,
                                                 _ coverage: Coverage) {
        let width = output.width
        forEachRow(person: person, background: background, output: &output) { p, b, o, y in
            blendRow(person: p, background: b, output: o, width: width, coverage.advanced(by: y * width))
        }
    }

    private static func check(_ person: Image, _ background: Image, coverageWidth: Int, coverageHeight: Int, output: Image) {
        precondition(background.width == person.width && background.height == person.height, "background size differs")
        precondition(coverageWidth == person.width && coverageHeight == person.height, "mask size differs")
        precondition(background.format == person.format, "background pixel format differs")
        precondition(output.width == person.width && output.height == person.height, "output size differs")
        precondition(output.format == person.format, "output format differs")
    }

    /// Calls `body(person, background, output, y)` with the start of each row `y`; with no
    /// `person`, the output (which then holds the person) is both.
    @inline(__always)
    private static func forEachRow(
        person: Image?, background: Image, output: inout Image,
        _ body: (UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafeMutablePointer<UInt8>, Int) -> Void
    ) {
        let height = output.height, outputStride = output.bytesPerRow, backgroundStride = background.bytesPerRow
        background.bytes.withUnsafeBufferPointer { b in
            output.bytes.withUnsafeMutableBufferPointer { o in
                guard let person else {
                    for y in 0..<height {
                        let row = o.baseAddress! + y * outputStride
                        body(UnsafePointer(row), b.baseAddress! + y * backgroundStride, row, y)
                    }
                    return
                }
                person.bytes.withUnsafeBufferPointer { p in
                    for y in 0..<height {
                        body(p.baseAddress! + y * person.bytesPerRow, b.baseAddress! + y * backgroundStride,
                             o.baseAddress! + y * outputStride, y)
                    }
                }
            }
        }
    }

    /// The row blend both coverage forms share, 16 pixels at a time.
    ///
    /// Skip-spans: where all 16 coverages of a group are 0 the group is a copy of the background,
    /// where all are 1 a copy of the person (nothing to do in place, unless an alpha byte is not
    /// 255); both are exactly what the blend gives there (`(p − b)·0 + b = b`, `(p − b)·1 + b = p`
    /// in integers). The pixels after the last whole group go through the form's scalar blend.
    @inline(__always)
    static func blendRow<Coverage: RowCoverage>(person: UnsafePointer<UInt8>, background: UnsafePointer<UInt8>,
                                                output: UnsafeMutablePointer<UInt8>, width: Int, _ coverage: Coverage) {
        var x = 0
        let inPlace = UnsafePointer(output) == person
        while x + 16 <= width {
            let p = person + 4 * x, b = background + 4 * x, o = output + 4 * x
            var a = SIMD16<Float>()
            switch coverage.group(at: x, weights: &a) {
            case .background:
                opaqueCopy64(from: b, to: o)
            case .person:
                if inPlace { makeOpaque64(o) } else { opaqueCopy64(from: p, to: o) }
            case .blend:
                blendQuarter(p, b, o, FastConvert.spread(a, quarter: 0))
                blendQuarter(p + 16, b + 16, o + 16, FastConvert.spread(a, quarter: 1))
                blendQuarter(p + 32, b + 32, o + 32, FastConvert.spread(a, quarter: 2))
                blendQuarter(p + 48, b + 48, o + 48, FastConvert.spread(a, quarter: 3))
            }
            x += 16
        }
        while x < width {
            coverage.blendPixel(at: x, person: person, background: background, output: output)
            output[4 * x + 3] = 255
            x += 1
        }
    }

    /// Blends four pixels (16 bytes) with per-byte coverage `w`; their alpha bytes become 255.
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
        let rounded = targetHasFMA
            ? SIMD16<Float>(repeating: 12_582_912).addingProduct(d, w)
            : d * w + 12_582_912
        let bytes = FastConvert.lowBytes(unsafeBitCast(rounded, to: SIMD16<Int32>.self))
            &+ UnsafeRawPointer(background).loadUnaligned(as: SIMD16<UInt8>.self)
        // The alpha set as the high byte of each 32-bit pixel: replacing the alpha byte lanes
        // instead lets the compiler drop those lanes, which splits every 16-lane operation into
        // an 8- and a 4-lane one.
        UnsafeMutableRawPointer(output).storeBytes(of: unsafeBitCast(bytes, to: SIMD4<UInt32>.self) | 0xFF00_0000,
                                                   as: SIMD4<UInt32>.self)
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
        // `any(.!=)`, not `!=`: SIMD's `!=` compiles to a 16-step scalar loop through the stack,
        // which took half the composite's time in the pipeline (one call per edge group).
        if any(opaque .!= v) { raw.storeBytes(of: opaque, as: SIMD16<UInt32>.self) }
    }
}

/// The coverage of 16 pixels: all background, all person, or a blend with per-pixel weights.
enum CoverageGroup {
    case background
    case person
    case blend
}

/// Where a row's coverage comes from, for ``Compositor``'s shared row blend.
protocol RowCoverage {
    /// The coverage of pixels `x..<x + 16`; for `.blend`, their weights in [0, 1] are in `weights`.
    /// (An out parameter, not an enum payload: a 64-byte payload went through memory and made the
    /// float form 10–30 % slower.)
    func group(at x: Int, weights: inout SIMD16<Float>) -> CoverageGroup
    /// Pixel `x`'s three colour bytes blended with this form's own rounding (the alpha is the caller's).
    func blendPixel(at x: Int, person: UnsafePointer<UInt8>, background: UnsafePointer<UInt8>, output: UnsafeMutablePointer<UInt8>)
    /// The coverage starting `pixels` further on (row `y` of a plane is `advanced(by: y · width)`).
    func advanced(by pixels: Int) -> Self
}

/// A row of byte coverage (``CoverageMask``).
///
/// The weights are `Float(a) · (1/255)`: `(p − b)·w` is within 255·2⁻²² of `(p − b)·a/255`, whose
/// distance to a half-integer is at least 1/510, so the rounding in `blendQuarter` is exactly
/// `round((p − b)·a/255)`.
struct ByteCoverage: RowCoverage {
    let values: UnsafePointer<UInt8>

    @inline(__always) func advanced(by pixels: Int) -> ByteCoverage { ByteCoverage(values: values + pixels) }

    @inline(__always) func group(at x: Int, weights: inout SIMD16<Float>) -> CoverageGroup {
        let raw = UnsafeRawPointer(values + x)
        let low = raw.loadUnaligned(as: UInt64.self), high = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        if low | high == 0 { return .background }
        if low & high == ~0 { return .person }
        weights = FastConvert.floats(raw) * (1 / 255)
        return .blend
    }

    @inline(__always) func blendPixel(at x: Int, person: UnsafePointer<UInt8>, background: UnsafePointer<UInt8>,
                                      output: UnsafeMutablePointer<UInt8>) {
        let a = Int(values[x])
        for c in 0..<3 {
            let f = Int(person[4 * x + c]), b = Int(background[4 * x + c])
            // round(d·a/255) for a signed product, no ties: floor((2·d·a + 255) / 510).
            let t = 2 * (f - b) * a + 255
            output[4 * x + c] = UInt8(b + (t >= 0 ? t / 510 : -((-t + 509) / 510)))
        }
    }
}

/// A row of the float mask, through an ``EdgeRamp``. Groups wholly outside the ramp are
/// recognised before the smoothstep, so it is only evaluated on the edge.
struct MaskCoverage: RowCoverage {
    let mask: UnsafePointer<Float>
    let edge: EdgeRamp

    @inline(__always) func advanced(by pixels: Int) -> MaskCoverage { MaskCoverage(mask: mask + pixels, edge: edge) }

    @inline(__always) func group(at x: Int, weights: inout SIMD16<Float>) -> CoverageGroup {
        let t = edge.ramp(UnsafeRawPointer(mask + x).loadUnaligned(as: SIMD16<Float>.self))
        if all(t .<= 0) { return .background }
        if all(t .>= 1) { return .person }
        // No test of the weights for all 0 or all 1 here: the ramp tests above catch every such
        // group but the odd one whose smoothstep rounds to exactly 0 or 1, which the blend gets
        // exactly right anyway (`round((p − b)·0) + b = b`, `round(p − b) + b = p`). The test
        // itself (SIMD `==`) compiled to a 16-step scalar loop.
        weights = edge.coverage(ramp: t)
        return .blend
    }

    @inline(__always) func blendPixel(at x: Int, person: UnsafePointer<UInt8>, background: UnsafePointer<UInt8>,
                                      output: UnsafeMutablePointer<UInt8>) {
        let w = edge.coverage(mask[x])
        for c in 0..<3 {
            let f = Float(person[4 * x + c]), b = Float(background[4 * x + c])
            output[4 * x + c] = UInt8(((f - b) * w + b).rounded(.toNearestOrEven))
        }
    }
}
