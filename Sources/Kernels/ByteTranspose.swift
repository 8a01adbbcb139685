import TargetFeatures

// Byte matrix transposes for the small-map quantized products (`QuantizedProduct.swift`): the
// input planes to pixels × channels before the patches, and the product's pixels × channels
// result back to planes. Blocks of 16 × 16 bytes: 16 rows loaded (masked at the matrix's edge),
// transposed by `vbg_transpose_bytes16x16` (two `vpermi2b` and a byte blend per 64 bytes), stored
// as 16-byte columns (masked at the edge).

/// The `rows` × `columns` bytes at `source` (row r at `source + r · sourceStride`) transposed into
/// `target` (column c's `rows` bytes at `target + c · targetStride`), each byte XORed with `flip`.
/// Vectors with AVX512-VBMI; elsewhere byte by byte.
package func transposeBytes(_ source: UnsafePointer<UInt8>, sourceStride: Int, rows: Int, columns: Int,
                            _ target: UnsafeMutablePointer<UInt8>, targetStride: Int, flip: UInt8 = 0) {
    guard byteGatherIsFast && VBG_TARGET_AVX512VL != 0 else {
        for r in 0..<rows {
            for c in 0..<columns { target[c * targetStride + r] = source[r * sourceStride + c] ^ flip }
        }
        return
    }
    // The block in, its transpose out (``vbg_transpose_bytes16x16``); the rows past the matrix's
    // last stay zero.
    var buffer = (SIMD64<UInt8>(), SIMD64<UInt8>(), SIMD64<UInt8>(), SIMD64<UInt8>(),
                  SIMD64<UInt8>(), SIMD64<UInt8>(), SIMD64<UInt8>(), SIMD64<UInt8>())
    let flips = SIMD16<UInt8>(repeating: flip)
    withUnsafeMutableBytes(of: &buffer) { raw in
        let block = raw.baseAddress!.assumingMemoryBound(to: UInt8.self), transposed = block + 256
        var r0 = 0
        while r0 < rows {
            let rowCount = min(16, rows - r0)
            if rowCount < 16 { block.update(repeating: 0, count: 256) }
            var c0 = 0
            while c0 < columns {
                let columnCount = min(16, columns - c0)
                for r in 0..<rowCount {
                    let from = source + (r0 + r) * sourceStride + c0
                    let v = columnCount == 16 ? UnsafeRawPointer(from).loadUnaligned(as: SIMD16<UInt8>.self)
                        : vbg_load_bytes16(from, Int32(columnCount))
                    UnsafeMutableRawPointer(block + 16 * r).storeBytes(of: v ^ flips, as: SIMD16<UInt8>.self)
                }
                vbg_transpose_bytes16x16(block, transposed)
                for c in 0..<columnCount {
                    let v = UnsafeRawPointer(transposed + 16 * c).loadUnaligned(as: SIMD16<UInt8>.self)
                    let to = target + (c0 + c) * targetStride + r0
                    if rowCount == 16 { UnsafeMutableRawPointer(to).storeBytes(of: v, as: SIMD16<UInt8>.self) }
                    else { vbg_store_bytes(to, v, Int32(rowCount)) }
                }
                c0 += 16
            }
            r0 += 16
        }
    }
}
