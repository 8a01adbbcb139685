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
/// **Algorithm, masked blur.** 8-bit inputs × an 8-bit weight make integers below 2¹⁶; each pass
/// is an exact running sum (``boxPass``), rounded after each pass, so the cost is O(1) per pixel
/// whatever the radius. Vertical passes run on 16-pixel-wide column strips (a 64-float vector per
/// row, the strip stays in L2); horizontal passes run on four rows at once, interleaved so one
/// 16-float vector is a pixel of four rows (this vectorises the otherwise serial running sum).
///
/// Borders clamp (the edge pixel repeats) in both.
///
/// **Allocation.** Buffers are allocated on the first frame of a size and reused: a steady stream
/// of same-sized frames allocates nothing. Not `Sendable`: one instance per video stream.
public final class BackgroundBlur {
    /// Pixels per vertical strip.
    static let stripPixels = 16
    typealias StripVector = Lanes64

    private var width = 0
    private var height = 0
    private var paddedWidth = 0
    private var plane: UnsafeMutableRawPointer?   // height × paddedWidth × 4 UInt16 (after the vertical passes)
    private var strips: UnsafeMutableRawPointer?  // 2 × height strip rows (64 floats each)
    private var lines: UnsafeMutableRawPointer?   // 2 × width interleaved pixels (16 floats each)
    private var rowBytes: UnsafeMutablePointer<UInt8>?  // 4 × width × 4 bytes of finished background rows

    /// The radii used by the last call (three box passes).
    public private(set) var lastRadii: [Int] = []
    private var radiiKey = (level: 0, width: 0, height: 0)

    /// The radii for this strength and size, computed once per change (no allocation per frame).
    private func radii(_ strength: BlurStrength, width: Int, height: Int) -> [Int] {
        if radiiKey != (strength.level, width, height) {
            lastRadii = strength.radii(width: width, height: height)
            radiiKey = (strength.level, width, height)
        }
        return lastRadii
    }

    public init() {}

    deinit { release(); releaseBytes() }

    private func release() {
        plane?.deallocate(); strips?.deallocate(); lines?.deallocate(); rowBytes?.deallocate()
        plane = nil; strips = nil; lines = nil; rowBytes = nil
    }

    private func prepare(width: Int, height: Int) {
        guard width != self.width || height != self.height else { return }
        release()
        self.width = width
        self.height = height
        paddedWidth = (width + Self.stripPixels - 1) / Self.stripPixels * Self.stripPixels
        let align = 256
        plane = .allocate(byteCount: height * paddedWidth * 8, alignment: align)
        strips = .allocate(byteCount: 2 * height * MemoryLayout<StripVector>.stride, alignment: align)
        lines = .allocate(byteCount: 2 * width * MemoryLayout<SIMD16<Float>>.stride, alignment: align)
        rowBytes = .allocate(capacity: 16 * width)
    }

    /// Writes the blurred background plate of `frame` into `output` (alpha 255).
    ///
    /// - Parameters:
    ///   - mask: the person mask (1 = person). With a mask the blur averages background pixels only.
    /// - Precondition: sizes match; `output` has `frame`'s pixel format. `output` may be a copy of
    ///   `frame`'s storage (the frame is fully read before any output row is written).
    public func blur(_ frame: Image, strength: BlurStrength = BlurStrength(), excluding mask: Mask? = nil,
                     into output: inout Image) {
        precondition(output.width == frame.width && output.height == frame.height, "output size differs")
        precondition(output.format == frame.format, "output format differs")
        if let mask { precondition(mask.width == frame.width && mask.height == frame.height, "mask size differs") }
        let radii = radii(strength, width: frame.width, height: frame.height)
        guard mask != nil else {
            plainBlur(frame, radii: radii, into: &output)
            return
        }
        prepare(width: frame.width, height: frame.height)
        frame.bytes.withUnsafeBufferPointer { f in
            withOptionalMask(mask) { m in
                verticalStage(f.baseAddress!, stride: frame.bytesPerRow, mask: m, radii: radii)
            }
        }
        let outStride = output.bytesPerRow, w = width
        output.bytes.withUnsafeMutableBufferPointer { o in
            horizontalStage(radii: radii) { y, background in
                (o.baseAddress! + y * outStride).update(from: background, count: 4 * w)
            }
        }
    }

    /// Blurs the background of `frame` in place and keeps the person sharp: the mask-weighted
    /// plate, then ``Compositor``'s blend with the same `edge`, fused row by row.
    ///
    /// - Precondition: `mask` has the frame's size.
    public func blurBackground(of frame: inout Image, mask: Mask, strength: BlurStrength = BlurStrength(),
                               edge: EdgeRamp = .standard) {
        precondition(mask.width == frame.width && mask.height == frame.height, "mask size differs")
        let radii = radii(strength, width: frame.width, height: frame.height)
        prepare(width: frame.width, height: frame.height)
        let stride = frame.bytesPerRow, w = width
        mask.values.withUnsafeBufferPointer { m in
            frame.bytes.withUnsafeMutableBufferPointer { f in
                verticalStage(UnsafePointer(f.baseAddress!), stride: stride, mask: m.baseAddress!, radii: radii)
                horizontalStage(radii: radii) { y, background in
                    let row = f.baseAddress! + y * stride
                    Compositor.blendRow(person: UnsafePointer(row), background: UnsafePointer(background),
                                        mask: m.baseAddress! + y * w, output: row, width: w, edge: edge)
                }
            }
        }
    }

    // MARK: - Plain blur: three 8-bit 2-D box passes (ByteBoxPass), frame → A → B → output

    private var byteSize = (width: 0, height: 0)
    private var bytePlanes: UnsafeMutablePointer<UInt8>?          // 2 × 4·width·height
    private var byteColumnSums: UnsafeMutablePointer<UInt16>?     // 4·width rounded up to 16
    private var byteLines: UnsafeMutablePointer<SIMD16<Float>>?   // the ring of ByteBoxPass

    private func prepareBytes(width: Int, height: Int) {
        guard byteSize != (width, height) else { return }
        releaseBytes()
        byteSize = (width, height)
        bytePlanes = .allocate(capacity: 2 * 4 * width * height)
        byteColumnSums = .allocate(capacity: (4 * width + 15) / 16 * 16)
        byteLines = .allocate(capacity: ByteBoxPass.ringCapacity)
        byteLines!.initialize(repeating: .zero, count: ByteBoxPass.ringCapacity)
    }

    private func releaseBytes() {
        bytePlanes?.deallocate(); byteColumnSums?.deallocate(); byteLines?.deallocate()
        bytePlanes = nil; byteColumnSums = nil; byteLines = nil
    }

    /// Three 2-D box passes, each the exact integer box sum rounded once to a byte (what three
    /// `cv2.blur` calls compute); alpha 255.
    private func plainBlur(_ frame: Image, radii: [Int], into output: inout Image) {
        let w = frame.width, h = frame.height
        prepareBytes(width: w, height: h)
        let pass = ByteBoxPass(columnSums: byteColumnSums!, lines: byteLines!)
        let a = bytePlanes!, b = a + 4 * w * h
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

    private func withOptionalMask<R>(_ mask: Mask?, _ body: (UnsafePointer<Float>?) -> R) -> R {
        guard let mask else { return body(nil) }
        return mask.values.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    // MARK: - Vertical stage: pack + three passes per 16-pixel strip, into `plane`

    private func verticalStage(_ frame: UnsafePointer<UInt8>, stride: Int, mask: UnsafePointer<Float>?, radii: [Int]) {
        let h = height, w = width
        let s1 = strips!.assumingMemoryBound(to: StripVector.self)
        let s2 = s1 + h
        let planeValues = plane!.assumingMemoryBound(to: UInt16.self)
        let planeStride = paddedWidth / Self.stripPixels
        // Alpha becomes 255 by arithmetic (v·(1,1,1,0) + (0,0,0,255)): masks compile badly here.
        let colourLanes = SIMD16<Float>(1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0)
        let alphaLanes = SIMD16<Float>(0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255)
        for strip in 0..<planeStride {
            let x0 = strip * Self.stripPixels
            // Pack: colour × weight, weight × 255 in the alpha lane; integers ≤ 65025.
            if x0 + Self.stripPixels <= w {
                for y in 0..<h {
                    let p = UnsafeRawPointer(frame + y * stride + 4 * x0)
                    @inline(__always) func load(_ k: Int) -> SIMD16<Float> {
                        FastConvert.floats(p + 16 * k) * colourLanes + alphaLanes
                    }
                    if let mask {
                        let m = Self.weights(UnsafeRawPointer(mask + y * w + x0).loadUnaligned(as: SIMD16<Float>.self))
                        s1[y] = Lanes64(load(0) * FastConvert.spread(m, quarter: 0), load(1) * FastConvert.spread(m, quarter: 1),
                                        load(2) * FastConvert.spread(m, quarter: 2), load(3) * FastConvert.spread(m, quarter: 3))
                    } else {
                        s1[y] = Lanes64(load(0) * 255, load(1) * 255, load(2) * 255, load(3) * 255)
                    }
                }
            } else {
                for y in 0..<h {
                    var v = Lanes64.zero
                    withUnsafeMutableBytes(of: &v) { raw in
                        let lanes = raw.bindMemory(to: Float.self)
                        for i in 0..<Self.stripPixels {
                            let x = min(x0 + i, w - 1)
                            let p = frame + y * stride + 4 * x
                            let weight: Float
                            if let mask { weight = Self.weight(mask[y * w + x]) } else { weight = 255 }
                            lanes[4 * i] = Float(p[0]) * weight
                            lanes[4 * i + 1] = Float(p[1]) * weight
                            lanes[4 * i + 2] = Float(p[2]) * weight
                            lanes[4 * i + 3] = 255 * weight
                        }
                    }
                    s1[y] = v
                }
            }
            boxPass(s1, srcStride: 1, s2, dstStride: 1, count: h, radius: radii[0])
            boxPass(s2, srcStride: 1, s1, dstStride: 1, count: h, radius: radii[1])
            boxPass(s1, srcStride: 1, s2, dstStride: 1, count: h, radius: radii[2])
            // The sums are integers ≤ 65025: stored exactly as UInt16 (half the traffic of Float).
            let row0 = planeValues + 4 * x0, rowStride = 4 * paddedWidth
            for y in 0..<h {
                let v = s2[y], p = row0 + y * rowStride
                FastConvert.storeLowHalves(FastConvert.roundedInt32(v.a), to: p)
                FastConvert.storeLowHalves(FastConvert.roundedInt32(v.b), to: p + 16)
                FastConvert.storeLowHalves(FastConvert.roundedInt32(v.c), to: p + 32)
                FastConvert.storeLowHalves(FastConvert.roundedInt32(v.d), to: p + 48)
            }
        }
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


    // MARK: - Horizontal stage: four rows at a time, three passes, normalise, hand rows out

    /// Runs the horizontal passes over `plane` and calls `emit(y, row)` with each finished
    /// background row (`4 * width` bytes, alpha 255), top to bottom.
    private func horizontalStage(radii: [Int], emit: (Int, UnsafePointer<UInt8>) -> Void) {
        let h = height, w = width
        let t1 = lines!.assumingMemoryBound(to: SIMD16<Float>.self)
        let t2 = t1 + w
        let planeValues = plane!.assumingMemoryBound(to: UInt16.self)
        let rowStride = 4 * paddedWidth
        let rowBytes = rowBytes!
        let opaque = SIMD16<UInt8>(0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255)
        var y0 = 0
        while y0 < h {
            let r0 = planeValues + min(y0, h - 1) * rowStride
            let r1 = planeValues + min(y0 + 1, h - 1) * rowStride
            let r2 = planeValues + min(y0 + 2, h - 1) * rowStride
            let r3 = planeValues + min(y0 + 3, h - 1) * rowStride
            for x in 0..<w {
                t1[x] = FastConvert.floats(r0 + 4 * x, r1 + 4 * x, r2 + 4 * x, r3 + 4 * x)
            }
            boxPass(t1, srcStride: 1, t2, dstStride: 1, count: w, radius: radii[0])
            boxPass(t2, srcStride: 1, t1, dstStride: 1, count: w, radius: radii[1])
            boxPass(t1, srcStride: 1, t2, dstStride: 1, count: w, radius: radii[2])
            // Normalise: colour sum / weight sum · 255 (the alpha lane becomes 255).
            let o0 = rowBytes, o1 = rowBytes + 4 * w, o2 = rowBytes + 8 * w, o3 = rowBytes + 12 * w
            for x in 0..<w {
                let v = t2[x]
                let weight = SIMD16<Float>(v[3], v[3], v[3], v[3], v[7], v[7], v[7], v[7],
                                           v[11], v[11], v[11], v[11], v[15], v[15], v[15], v[15])
                // Colour sum ≤ weight sum holds before blurring (c·w ≤ 255·w) and every pass keeps
                // it (sums and rounding are monotone), so the result is in [0, 255) with no clamp.
                // + 0.5 keeps an all-person neighbourhood (weight 0, colour 0) at 0 without a branch;
                // it changes a full-weight result by < 0.002 of a level.
                let c = v * (255 / (weight + 0.5))
                let bytes = FastConvert.lowBytes(FastConvert.roundedInt32(c)) | opaque
                UnsafeMutableRawPointer(o0 + 4 * x).storeBytes(of: bytes.lowHalf.lowHalf, as: SIMD4<UInt8>.self)
                UnsafeMutableRawPointer(o1 + 4 * x).storeBytes(of: bytes.lowHalf.highHalf, as: SIMD4<UInt8>.self)
                UnsafeMutableRawPointer(o2 + 4 * x).storeBytes(of: bytes.highHalf.lowHalf, as: SIMD4<UInt8>.self)
                UnsafeMutableRawPointer(o3 + 4 * x).storeBytes(of: bytes.highHalf.highHalf, as: SIMD4<UInt8>.self)
            }
            for k in 0..<min(4, h - y0) {
                emit(y0 + k, rowBytes + 4 * w * k)
            }
            y0 += 4
        }
    }
}
