import TargetFeatures

// Byte matrix transposes for the small-map quantized products (`QuantizedProduct.swift`): the
// input planes to pixels × channels before the patches, and the product's pixels × channels
// result back to planes. Blocks of 16 × 16 bytes (`vbg_transpose_block16`): 16 rows loaded
// (masked at the matrix's edge) and joined in registers, two `vpermi2b` and a byte blend per 64
// bytes of the transpose, its 16-byte columns stored (masked at the edge).

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
    var r0 = 0
    while r0 < rows {
        let rowCount = min(16, rows - r0)
        var c0 = 0
        while c0 < columns {
            vbg_transpose_block16(source + r0 * sourceStride + c0, sourceStride, Int32(rowCount), Int32(min(16, columns - c0)),
                                  target + c0 * targetStride + r0, targetStride, flip)
            c0 += 16
        }
        r0 += 16
    }
}
