import Foundation
import Imaging
import PNGCodec
import Testing

/// PNG: an empty file, something that is not a PNG, a file cut in its header or its
/// data, a bad CRC, zero or absurd dimensions are each a thrown `PNGError` with a one-line message.
/// Every malformed file is made here from Fixtures/images/astronaut_on_coffee_320x240.png.
@Suite("Bad PNG files are thrown errors")
struct PNGInputTests {
    static let good = fixtureBytes("Fixtures/images/astronaut_on_coffee_320x240.png")

    /// Offsets of the first IDAT chunk's length field and the IEND chunk.
    static var firstIDAT: Int { chunkOffset("IDAT") }
    static func chunkOffset(_ type: String) -> Int {
        var offset = 8
        while offset + 8 <= good.count {
            let length = Int(good[offset]) << 24 | Int(good[offset + 1]) << 16 | Int(good[offset + 2]) << 8 | Int(good[offset + 3])
            if String(decoding: good[(offset + 4)..<(offset + 8)], as: UTF8.self) == type { return offset }
            offset += 12 + length
        }
        fatalError("no \(type) chunk in the fixture")
    }

    /// The good file with IHDR's fields rewritten and its CRC recomputed, so only the values are wrong.
    static func withHeader(width: UInt32? = nil, height: UInt32? = nil, bitDepth: UInt8? = nil, colourType: UInt8? = nil) -> [UInt8] {
        var bytes = good
        func put(_ value: UInt32, at offset: Int) {
            for k in 0..<4 { bytes[offset + k] = UInt8(truncatingIfNeeded: value >> (24 - 8 * k)) }
        }
        // Signature (8), IHDR length (4), "IHDR" (4): width at 16, height at 20, depth 24, colour 25.
        if let width { put(width, at: 16) }
        if let height { put(height, at: 20) }
        if let bitDepth { bytes[24] = bitDepth }
        if let colourType { bytes[25] = colourType }
        put(CRC32.checksum(bytes[12..<29]), at: 29)
        return bytes
    }

    static let rows: [BadInput] = [
        BadInput(name: "empty file", bytes: { [] }, says: "empty"),
        BadInput(name: "not a PNG (a .npy file)", bytes: { fixtureBytes("Fixtures/ops/relu/input_0.npy") }, says: "PNG error"),
        BadInput(name: "not a PNG (text)", bytes: { Array("hello, world\n".utf8) }, says: "PNG error"),
        BadInput(name: "the signature alone", bytes: { Array(good.prefix(8)) }, says: "PNG error"),
        BadInput(name: "cut inside the signature", bytes: { Array(good.prefix(5)) }, says: "PNG error"),
        BadInput(name: "cut inside IHDR", bytes: { Array(good.prefix(20)) }, says: "PNG error"),
        BadInput(name: "cut right after IHDR", bytes: { Array(good.prefix(33)) }, says: "PNG error"),
        BadInput(name: "cut inside the first IDAT's header", bytes: { Array(good.prefix(firstIDAT + 6)) }, says: "PNG error"),
        BadInput(name: "cut in the middle of the image data", bytes: { Array(good.prefix(good.count / 2)) }, says: "PNG error"),
        BadInput(name: "cut 100 bytes before the end", bytes: { Array(good.dropLast(100)) }, says: "PNG error"),
        BadInput(name: "bad CRC on IHDR", bytes: { var b = good; b[29] ^= 0x55; return b }, says: "CRC"),
        BadInput(name: "bad CRC on the first IDAT", bytes: {
            var b = good
            let offset = firstIDAT
            let length = Int(b[offset]) << 24 | Int(b[offset + 1]) << 16 | Int(b[offset + 2]) << 8 | Int(b[offset + 3])
            b[offset + 8 + length] ^= 0x55
            return b
        }, says: "CRC"),
        BadInput(name: "a flipped byte inside the compressed data", bytes: {
            // Fix up the CRC so zlib, not the CRC check, meets the damage.
            var b = good
            let offset = firstIDAT
            let length = Int(b[offset]) << 24 | Int(b[offset + 1]) << 16 | Int(b[offset + 2]) << 8 | Int(b[offset + 3])
            b[offset + 8 + 2] ^= 0xFF
            let crc = CRC32.checksum(b[(offset + 4)..<(offset + 8 + length)])
            for k in 0..<4 { b[offset + 8 + length + k] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * k)) }
            return b
        }, says: "PNG error"),
        BadInput(name: "zero width", bytes: { withHeader(width: 0) }, says: "PNG error"),
        BadInput(name: "zero height", bytes: { withHeader(height: 0) }, says: "PNG error"),
        BadInput(name: "width 2^31 - 1", bytes: { withHeader(width: 0x7FFF_FFFF) }, says: ""),
        BadInput(name: "width 2^32 - 1 (over PNG's own limit)", bytes: { withHeader(width: 0xFFFF_FFFF) }, says: "PNG error"),
        BadInput(name: "1,000,000 x 1,000,000", bytes: { withHeader(width: 1_000_000, height: 1_000_000) }, says: ""),
        BadInput(name: "20,000 x 1 (one side over the limit)", bytes: { withHeader(width: 20_000, height: 1) }, says: "exceeds the limits"),
        BadInput(name: "16,384 x 16,384 (sides allowed, pixel count not)", bytes: { withHeader(width: 16_384, height: 16_384) }, says: "exceeds the limits"),
        BadInput(name: "bit depth 3 (not a PNG bit depth)", bytes: { withHeader(bitDepth: 3) }, says: "PNG error"),
        BadInput(name: "colour type 5 (does not exist)", bytes: { withHeader(colourType: 5) }, says: "PNG error"),
    ]

    @Test("a malformed PNG is a PNGError with a one-line message", arguments: rows)
    func malformedPNG(_ row: BadInput) {
        let bytes = row.bytes()
        for decode in [{ _ = try PNG.decode(bytes) }, { _ = try PNG.decodeGray(bytes) }] as [() throws -> Void] {
            #expect(throws: PNGError.self) { try decode() }
            do {
                try decode()
            } catch {
                let text = String(describing: error)
                #expect(isClearMessage(text), "\(text)")
                #expect(row.says.isEmpty || text.lowercased().contains(row.says.lowercased()), "\(text)")
            }
        }
    }

    @Test("the good file cut at 48 offsets spread up to its IEND chunk is a PNGError")
    func cutAtManyOffsets() {
        let end = Self.chunkOffset("IEND")
        for k in 0..<48 {
            let length = k * (end - 1) / 47
            let cut = Array(Self.good.prefix(length))
            #expect(throws: PNGError.self, "cut at \(length) of \(Self.good.count)") { _ = try PNG.decode(cut) }
        }
    }

    @Test("a file cut inside its IEND chunk still decodes: every pixel was there (libpng stops after the image data)")
    func cutInsideIEND() throws {
        let image = try PNG.decode(Array(Self.good.dropLast(1)))
        #expect(image == (try PNG.decode(Self.good)))
    }

    @Test("the good file decodes (control for the rows above)")
    func goodFile() throws {
        let image = try PNG.decode(Self.good)
        #expect(image.width == 320 && image.height == 240)
    }

    @Test("a missing PNG file is a PNGError naming the path")
    func missingFile() {
        let path = "/nonexistent/dir/background.png"
        #expect {
            _ = try PNG.read(contentsOfFile: path)
        } throws: { error in
            String(describing: error).contains(path)
        }
    }
}

/// CRC-32 (ISO 3309, as PNG chunks use), to rewrite a chunk so only the field under test is wrong.
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
