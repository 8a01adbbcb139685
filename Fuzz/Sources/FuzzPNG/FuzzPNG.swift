import PNGCodec

/// libFuzzer entry point: the bytes as a PNG file, decoded as RGBA (`PNG.decode`) and as grey
/// (`PNG.decodeGray`), the two ways the CLI and the SDK read pictures; then the same bytes with
/// every chunk's CRC repaired, decoded again.
///
/// Why the second pass: libpng is the system library, not compiled with coverage, so libFuzzer
/// sees only our wrapper and cannot learn its way past the CRC check; nearly every mutation
/// would stop there. With the CRCs made right, mutations reach IHDR validation, zlib and the
/// row filters.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = try? PNG.decode(bytes)
    _ = try? PNG.decodeGray(bytes)
    let repaired = withRepairedCRCs(bytes)
    if repaired != bytes {
        _ = try? PNG.decode(repaired)
        _ = try? PNG.decodeGray(repaired)
    }
    return 0
}

/// The bytes with the CRC of every complete chunk after the 8-byte signature recomputed.
func withRepairedCRCs(_ bytes: [UInt8]) -> [UInt8] {
    var result = bytes
    var offset = 8
    while offset + 12 <= result.count {
        let length = Int(result[offset]) << 24 | Int(result[offset + 1]) << 16 | Int(result[offset + 2]) << 8 | Int(result[offset + 3])
        let crcAt = offset + 8 + length
        guard length <= 0x7FFF_FFFF, crcAt + 4 <= result.count else { break }
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in result[(offset + 4)..<crcAt] { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        crc ^= 0xFFFF_FFFF
        for k in 0..<4 { result[crcAt + k] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * k)) }
        offset = crcAt + 4
    }
    return result
}

let crcTable: [UInt32] = (0..<256).map { n in
    var c = UInt32(n)
    for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    return c
}
