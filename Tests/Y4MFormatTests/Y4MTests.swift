#if canImport(Glibc)
import Glibc
#endif
import Imaging
import Testing
import Y4MFormat

@Suite("YUV4MPEG2 streams: headers, frames, truncation, BT.601 conversion")
struct Y4MTests {
    /// A pipe for one test. `body` writes to the write end and calls `closeWrite()` when done (the
    /// reader sees the end of the stream only then); both ends are closed afterwards if still open.
    /// Each end is closed exactly once: tests run in parallel, and closing a number twice can close
    /// another test's descriptor that was given the same number in between (which once made the pipe
    /// round trip below fail with "Bad file descriptor").
    static func withPipe<R>(_ body: (_ read: Int32, _ write: Int32, _ closeWrite: () -> Void) throws -> R) rethrows -> R {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0)
        var writeEndOpen = true
        defer {
            close(fds[0])
            if writeEndOpen { close(fds[1]) }
        }
        return try body(fds[0], fds[1], {
            if writeEndOpen { close(fds[1]) }
            writeEndOpen = false
        })
    }

    static func write(_ bytes: [UInt8], to fd: Int32) {
        bytes.withUnsafeBytes { _ = Glibc.write(fd, $0.baseAddress!, $0.count) }
    }

    static func frame(_ w: Int, _ h: Int, seed: Int) -> Image {
        var image = Image(width: w, height: h)
        for i in 0..<(w * h) {
            image.bytes[4 * i] = UInt8((i * 7 + seed * 31) % 256)
            image.bytes[4 * i + 1] = UInt8((i * 3 + seed) % 256)
            image.bytes[4 * i + 2] = UInt8((255 - i * 5 % 256 + seed) % 256)
        }
        return image
    }

    @Test("headers parse size, rate, aspect and chroma; the writer's header reads back equal")
    func headers() throws {
        let h = try Y4MHeader(parsing: "YUV4MPEG2 W640 H480 F30000:1001 Ip A1:1 C420mpeg2 XYSCSS=420MPEG2")
        #expect(h.width == 640 && h.height == 480 && h.frameRate == (30000, 1001) && h.chroma == .c420mpeg2)
        #expect(h.comments == ["YSCSS=420MPEG2"])
        #expect(h.frameByteCount == 640 * 480 * 3 / 2)
        #expect(try Y4MHeader(parsing: String(h.line.dropLast())) == h)
        let defaulted = try Y4MHeader(parsing: "YUV4MPEG2 W3 H3")
        #expect(defaulted.chroma == .c420jpeg && defaulted.chromaSize == (2, 2))
    }

    @Test("malformed and unsupported headers give clear errors", arguments: [
        ("YUV4MPEG2 H480 F30:1", Y4MError.malformedHeader("missing width (W)")),
        ("YUV4MPEG2 W640 F30:1", .malformedHeader("missing height (H)")),
        ("YUV4MPEG2 W640 H480 Q7", .malformedHeader("unknown token 'Q7'")),
        ("YUV4MPEG2 Wabc H480", .malformedHeader("bad width 'abc'")),
        ("YUV4MPEG2 W640 H480 F30", .malformedHeader("bad frame rate '30' (want N:D)")),
        ("YUV4MPEG2 W640 H480 C422", .unsupported("colour space C422 (supported: C420jpeg, C420paldv, C420mpeg2, C420, C444)")),
        ("YUV4MPEG2 W640 H480 Cmono", .unsupported("colour space Cmono (supported: C420jpeg, C420paldv, C420mpeg2, C420, C444)")),
        ("YUV4MPEG2 W640 H480 It", .unsupported("interlacing 't' (only progressive, Ip, is supported)")),
        ("YUV4MPEG W640 H480", .malformedHeader("does not start with YUV4MPEG2")),
    ])
    func badHeaders(_ c: (String, Y4MError)) {
        #expect(throws: c.1) { try Y4MHeader(parsing: c.0) }
    }

    @Test("BT.601 limited range: Y 16 is black, Y 235 is white, U/V 128 grey; white→Y 235, black→Y 16")
    func conversionAnchors() {
        let header = Y4MHeader(width: 2, height: 1, chroma: .c444)
        var image = Image(width: 2, height: 1)
        let planes: [UInt8] = [16, 235, 128, 128, 128, 128]
        planes.withUnsafeBufferPointer { YUVConversion.toImage(planes: $0.baseAddress!, header: header, into: &image) }
        #expect(image.bytes == [0, 0, 0, 255, 255, 255, 255, 255])
        var back = [UInt8](repeating: 0, count: 6)
        back.withUnsafeMutableBufferPointer { YUVConversion.toPlanes(image, header: header, into: $0.baseAddress!) }
        #expect(back == planes)
    }

    @Test("4:4:4 round trip stays within 2 levels; 4:2:0 of 2x2-flat colour blocks too", arguments: [Y4MChroma.c444, .c420jpeg])
    func roundTrip(_ chroma: Y4MChroma) throws {
        let w = 10, h = 6
        var image = Self.frame(w, h, seed: 3)
        if chroma.isSubsampled {  // make each 2x2 block one colour
            for y in 0..<h { for x in 0..<w { for c in 0..<3 { image.bytes[4 * (y * w + x) + c] = image.bytes[4 * ((y & ~1) * w + (x & ~1)) + c] } } }
        }
        let header = Y4MHeader(width: w, height: h, chroma: chroma)
        var planes = [UInt8](repeating: 0, count: header.frameByteCount)
        planes.withUnsafeMutableBufferPointer { YUVConversion.toPlanes(image, header: header, into: $0.baseAddress!) }
        var back = Image(width: w, height: h, format: .bgra8)
        planes.withUnsafeBufferPointer { YUVConversion.toImage(planes: $0.baseAddress!, header: header, into: &back) }
        var worst = 0
        for i in 0..<(w * h) {
            worst = max(worst, abs(Int(image.bytes[4 * i]) - Int(back.bytes[4 * i + 2])),
                        abs(Int(image.bytes[4 * i + 1]) - Int(back.bytes[4 * i + 1])),
                        abs(Int(image.bytes[4 * i + 2]) - Int(back.bytes[4 * i])))
        }
        // Saturated colours can fall outside what limited-range YUV round-trips; these do not.
        #expect(worst <= 3, "max |Δ| \(worst)")
    }

    @Test("frames written to a pipe read back with size, rate and frame count kept (odd size, 4:2:0)")
    func pipeRoundTrip() throws {
        try Self.withPipe { r, w, closeWrite in
            let header = Y4MHeader(width: 7, height: 5, frameRate: (25, 1), chroma: .c420jpeg)
            let writer = try Y4MWriter(fileDescriptor: w, header: header)
            for seed in 0..<3 { try writer.write(Self.frame(7, 5, seed: seed)) }
            closeWrite()
            let reader = try Y4MReader(fileDescriptor: r)
            #expect(reader.header == header)
            var frame = Image(width: 7, height: 5)
            var count = 0
            while try reader.readFrame(into: &frame) { count += 1 }
            #expect(count == 3)
        }
    }

    @Test("a frame cut short throws after every complete frame was returned")
    func truncated() throws {
        try Self.withPipe { r, w, closeWrite in
            let header = Y4MHeader(width: 4, height: 4, chroma: .c420jpeg)
            var bytes = Array(header.line.utf8)
            for _ in 0..<2 { bytes += Array("FRAME\n".utf8) + [UInt8](repeating: 128, count: header.frameByteCount) }
            bytes += Array("FRAME\n".utf8) + [UInt8](repeating: 128, count: 10)
            Self.write(bytes, to: w)
            closeWrite()
            let reader = try Y4MReader(fileDescriptor: r)
            var frame = Image(width: 4, height: 4)
            #expect(try reader.readFrame(into: &frame))
            #expect(try reader.readFrame(into: &frame))
            #expect(throws: Y4MError.truncatedFrame(index: 2, expected: 24, received: 10)) { try reader.readFrame(into: &frame) }
        }
    }

    @Test("a bad FRAME marker, an empty stream and garbage are errors, not crashes")
    func garbage() throws {
        try Self.withPipe { r, w, closeWrite in
            Self.write(Array("YUV4MPEG2 W2 H2 C444\nFRAMX\n".utf8) + [UInt8](repeating: 0, count: 12), to: w)
            closeWrite()
            let reader = try Y4MReader(fileDescriptor: r)
            var frame = Image(width: 2, height: 2)
            #expect(throws: Y4MError.self) { try reader.readFrame(into: &frame) }
        }
        try Self.withPipe { r, w, closeWrite in
            closeWrite()
            #expect(throws: Y4MError.malformedHeader("empty stream")) { try Y4MReader(fileDescriptor: r) }
        }
        try Self.withPipe { r, w, closeWrite in
            Self.write([UInt8](repeating: 0x41, count: 5000), to: w)
            closeWrite()
            #expect(throws: Y4MError.self) { try Y4MReader(fileDescriptor: r) }
        }
    }
}

@Suite("YUV ↔ RGB equals the documented fixed-point formula byte for byte")
struct YUVConversionTests {
    @Test("every byte, 4:2:0 and 4:4:4, RGBA and BGRA, widths around the 16-pixel blocks", arguments: [
        (Y4MChroma.c420jpeg, 50), (.c420jpeg, 33), (.c444, 50), (.c444, 17), (.c420, 16),
    ])
    func exact(_ c: (Y4MChroma, Int)) {
        let (chroma, w) = c
        let h = 4
        let header = Y4MHeader(width: w, height: h, chroma: chroma)
        var state: UInt32 = 12345
        let planes: [UInt8] = (0..<header.frameByteCount).map { _ in
            state = state &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: state >> 16)
        }
        var rgba = Image(width: w, height: h), bgra = Image(width: w, height: h, format: .bgra8)
        planes.withUnsafeBufferPointer { YUVConversion.toImage(planes: $0.baseAddress!, header: header, into: &rgba) }
        planes.withUnsafeBufferPointer { YUVConversion.toImage(planes: $0.baseAddress!, header: header, into: &bgra) }
        let (cw, ch) = header.chromaSize
        let s = chroma.isSubsampled ? 1 : 0
        func clamp(_ v: Int) -> UInt8 { UInt8(min(max(v, 0), 255)) }
        for y in 0..<h { for x in 0..<w {
            let yy = Int(planes[y * w + x]) - 16
            let u = Int(planes[w * h + (y >> s) * cw + (x >> s)]) - 128
            let v = Int(planes[w * h + cw * ch + (y >> s) * cw + (x >> s)]) - 128
            let r = clamp((298 * yy + 409 * v + 128) >> 8), g = clamp((298 * yy - 100 * u - 208 * v + 128) >> 8)
            let b = clamp((298 * yy + 516 * u + 128) >> 8)
            let i = 4 * (y * w + x)
            #expect(Array(rgba.bytes[i..<(i + 4)]) == [r, g, b, 255], "(\(x), \(y))")
            #expect(Array(bgra.bytes[i..<(i + 4)]) == [b, g, r, 255], "(\(x), \(y))")
        } }
    }

    @Test("RGB → YUV: every plane byte equals the documented formula (4:2:0 block means, odd sizes, RGBA and BGRA)",
          arguments: [(Y4MChroma.c420jpeg, 50, 5), (.c420jpeg, 33, 4), (.c420, 16, 3), (.c444, 17, 2), (.c420jpeg, 1, 1)])
    func exactToPlanes(_ c: (Y4MChroma, Int, Int)) {
        let (chroma, w, h) = c
        let header = Y4MHeader(width: w, height: h, chroma: chroma)
        var state: UInt32 = 777
        let bytes: [UInt8] = (0..<(4 * w * h)).map { _ in
            state = state &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: state >> 16)
        }
        let (cw, ch) = header.chromaSize
        for format in [PixelFormat.rgba8, .bgra8] {
            let image = Image(width: w, height: h, format: format, bytes: bytes)
            var planes = [UInt8](repeating: 0, count: header.frameByteCount)
            planes.withUnsafeMutableBufferPointer { YUVConversion.toPlanes(image, header: header, into: $0.baseAddress!) }
            let (ro, go, bo) = format.channelOffsets
            func at(_ x: Int, _ y: Int, _ o: Int) -> Int { Int(bytes[4 * (y * w + x) + o]) }
            for y in 0..<h { for x in 0..<w {
                let luma = ((66 * at(x, y, ro) + 129 * at(x, y, go) + 25 * at(x, y, bo) + 128) >> 8) + 16
                #expect(Int(planes[y * w + x]) == luma, "Y (\(x), \(y)) \(format)")
            } }
            let s = chroma.isSubsampled ? 1 : 0
            for cy in 0..<ch { for cx in 0..<cw {
                func mean(_ o: Int) -> Int {
                    if s == 0 { return at(cx, cy, o) }
                    let x0 = 2 * cx, x1 = min(2 * cx + 1, w - 1), y0 = 2 * cy, y1 = min(2 * cy + 1, h - 1)
                    return (at(x0, y0, o) + at(x1, y0, o) + at(x0, y1, o) + at(x1, y1, o) + 2) >> 2
                }
                let r = mean(ro), g = mean(go), b = mean(bo)
                let u = ((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128, v = ((112 * r - 94 * g - 18 * b + 128) >> 8) + 128
                #expect(Int(planes[w * h + cy * cw + cx]) == u, "U (\(cx), \(cy)) \(format)")
                #expect(Int(planes[w * h + cw * ch + cy * cw + cx]) == v, "V (\(cx), \(cy)) \(format)")
            } }
        }
    }
}
