import Foundation
import Imaging
import PNGCodec
import TestSupport
import Testing

@Suite("PNG through libpng's simplified API")
struct PNGTests {
    static func file(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Fixtures.url("imaging/png/" + name)))
    }

    /// The RGBA the fixture script's colour files hold at (x, y) (see Fixtures/imaging/README.md).
    static func colour(_ x: Int, _ y: Int, alpha: Bool) -> [UInt8] {
        [UInt8(x * 50), UInt8(y * 100), UInt8(200 - x * 40), alpha ? UInt8(255 - x * 50) : 255]
    }

    static func grey(_ x: Int, _ y: Int) -> UInt8 { UInt8(x * 55 + y * 10) }

    static func pixel(_ image: Image, _ x: Int, _ y: Int) -> [UInt8] {
        Array(image.bytes[(y * image.bytesPerRow + 4 * x)..<(y * image.bytesPerRow + 4 * x + 4)])
    }

    @Test("RGB and RGBA, 8 and 16 bits, and palette+tRNS decode to the RGBA the file holds",
          arguments: [("rgb8.png", false), ("rgb16.png", false), ("rgba8.png", true), ("rgba16.png", true),
                      ("palette8.png", true)])
    func colourTypes(_ c: (String, Bool)) throws {
        let image = try PNG.decode(Self.file(c.0))
        #expect(image.width == 5 && image.height == 3 && image.format == .rgba8)
        for y in 0..<3 { for x in 0..<5 {
            #expect(Self.pixel(image, x, y) == (c.0 == "palette8.png" ? [UInt8(x * 50), 100, UInt8(200 - x * 40), UInt8(255 - x * 50)]
                                                                     : Self.colour(x, y, alpha: c.1)), "(\(x), \(y))")
        } }
    }

    @Test("grey and grey+alpha, 8 and 16 bits, decode to RGBA with r = g = b",
          arguments: [("gray8.png", false), ("gray16.png", false), ("gray_alpha8.png", true), ("gray_alpha16.png", true)])
    func greyTypes(_ c: (String, Bool)) throws {
        let image = try PNG.decode(Self.file(c.0))
        for y in 0..<3 { for x in 0..<5 {
            let g = Self.grey(x, y)
            #expect(Self.pixel(image, x, y) == [g, g, g, c.1 ? UInt8(255 - x * 50) : 255], "(\(x), \(y))")
        } }
    }

    @Test("grey files decode to gray8 unchanged; 1-bit grey expands to 0 / 255")
    func greyOutput() throws {
        let g8 = try PNG.decodeGray(Self.file("gray8.png"))
        #expect(g8.bytes == (0..<3).flatMap { y in (0..<5).map { x in Self.grey(x, y) } })
        let g16 = try PNG.decodeGray(Self.file("gray16.png"))
        #expect(g16.bytes == g8.bytes)
        let g1 = try PNG.decodeGray(Self.file("gray1.png"))
        #expect(g1.bytes == Array(repeating: [0, 255, 0, 255, 0], count: 3).flatMap { $0 })
    }

    @Test("RGBA and BGRA images round-trip through encode/decode; gray8 too")
    func roundTrip() throws {
        let bytes = (0..<(4 * 7 * 5)).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let rgba = Image(width: 7, height: 5, format: .rgba8, bytes: bytes)
        #expect(try PNG.decode(PNG.encode(rgba)) == rgba)
        // BGRA with padded rows comes back as the same colours in RGBA order.
        var padded = [UInt8](repeating: 0, count: 32 * 5)
        for y in 0..<5 { for x in 0..<7 {
            let s = 4 * (y * 7 + x), d = y * 32 + 4 * x
            padded[d] = bytes[s + 2]; padded[d + 1] = bytes[s + 1]; padded[d + 2] = bytes[s]; padded[d + 3] = bytes[s + 3]
        } }
        let bgra = Image(width: 7, height: 5, format: .bgra8, bytesPerRow: 32, bytes: padded)
        #expect(try PNG.decode(PNG.encode(bgra)) == rgba)
        let grey = GrayImage(width: 3, height: 2, bytes: [0, 1, 2, 128, 254, 255])
        #expect(try PNG.decodeGray(PNG.encode(grey)) == grey)
    }

    @Test("files written from RGBA and from padded BGRA rows read back as the same RGBA; grey too")
    func fileRoundTrip() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("png-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bytes = (0..<(4 * 7 * 5)).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let rgba = Image(width: 7, height: 5, format: .rgba8, bytes: bytes)
        var padded = [UInt8](repeating: 0, count: 32 * 5)
        for y in 0..<5 { for x in 0..<7 {
            let s = 4 * (y * 7 + x), d = y * 32 + 4 * x
            padded[d] = bytes[s + 2]; padded[d + 1] = bytes[s + 1]; padded[d + 2] = bytes[s]; padded[d + 3] = bytes[s + 3]
        } }
        let bgra = Image(width: 7, height: 5, format: .bgra8, bytesPerRow: 32, bytes: padded)
        let path = directory.appendingPathComponent("out.png").path
        for image in [rgba, bgra] {
            try PNG.write(image, toFile: path)
            #expect(try PNG.read(contentsOfFile: path) == rgba)
        }
        let grey = GrayImage(width: 3, height: 2, bytes: [0, 1, 2, 128, 254, 255])
        try PNG.write(grey, toFile: path)
        #expect(try PNG.readGray(contentsOfFile: path) == grey)
    }

    @Test("broken files throw libpng's message", arguments: ["bad_crc.png", "truncated.png", "not_png.png", "empty.png"])
    func brokenFiles(_ name: String) throws {
        do {
            _ = try PNG.decode(Self.file(name))
            Issue.record("\(name) decoded without error")
        } catch let error as PNGError {
            guard case .libpng(let message) = error else { Issue.record("unexpected \(error)"); return }
            #expect(!message.isEmpty)
        }
    }

    @Test("a bad CRC names the CRC; not-a-PNG says so")
    func messages() throws {
        #expect(throws: PNGError.self) { try PNG.decode(Self.file("bad_crc.png")) }
        do { _ = try PNG.decode(Self.file("bad_crc.png")) } catch { #expect("\(error)".lowercased().contains("crc")) }
        do { _ = try PNG.decode(Self.file("not_png.png")) } catch { #expect("\(error)".lowercased().contains("png")) }
    }

    @Test("absurd dimensions are rejected before any pixel buffer is allocated")
    func hugeDimensions() throws {
        #expect(throws: PNGError.tooLarge(width: 100_000, height: 100_000)) { try PNG.decode(Self.file("huge_dimensions.png")) }
    }

    @Test("writing is atomic: a file appears complete, and a failed write leaves nothing")
    func atomicWrite() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("png-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let image = Image(width: 4, height: 3, filledWith: (10, 20, 30, 255))
        let path = directory.appendingPathComponent("out.png").path
        try PNG.write(image, toFile: path)
        #expect(try PNG.read(contentsOfFile: path) == image)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.png"])
        let missing = directory.appendingPathComponent("no/such/dir/out.png").path
        #expect(throws: PNGError.self) { try PNG.write(image, toFile: missing) }
        #expect(throws: PNGError.self) { try PNG.read(contentsOfFile: missing) }
    }
}
