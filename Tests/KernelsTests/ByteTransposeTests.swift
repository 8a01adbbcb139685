import Testing
@testable import Kernels

@Suite("Byte transposes of the small-map quantized products: every byte where the scalar transpose puts it")
struct ByteTransposeTests {
    @Test("rows × columns around the 16 × 16 block (1, 15, 16, 17, primes, into the thousands), strides past the matrix, with and without the sign flip; nothing outside the target written")
    func sweep() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt8 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        let sizes = [1, 2, 7, 15, 16, 17, 31, 33, 36, 64, 97, 144]
        var cases: [(rows: Int, columns: Int)] = []
        for rows in sizes { for columns in sizes { cases.append((rows, columns)) } }
        cases += [(1000, 9), (9, 1000), (2048, 3), (3, 1031), (576, 36), (960, 9)]
        for (index, (rows, columns)) in cases.enumerated() {
            let sourceStride = columns + index % 3 * 5, targetStride = rows + index % 4 * 3
            let flip: UInt8 = index % 2 == 0 ? 0 : 0x80
            let source = (0..<(rows * sourceStride)).map { _ in next() }
            let sentinel: UInt8 = 0xA5
            var target = [UInt8](repeating: sentinel, count: columns * targetStride + 64)
            source.withUnsafeBufferPointer { s in
                target.withUnsafeMutableBufferPointer { t in
                    transposeBytes(s.baseAddress!, sourceStride: sourceStride, rows: rows, columns: columns,
                                   t.baseAddress!, targetStride: targetStride, flip: flip)
                }
            }
            var wrong = 0
            for c in 0..<columns {
                for r in 0..<rows where target[c * targetStride + r] != source[r * sourceStride + c] ^ flip { wrong += 1 }
                for r in rows..<targetStride where target[c * targetStride + r] != sentinel { wrong += 1 }
            }
            for i in (columns * targetStride)..<target.count where target[i] != sentinel { wrong += 1 }
            #expect(wrong == 0, "\(rows) x \(columns), strides \(sourceStride) / \(targetStride), flip \(flip): \(wrong) bytes wrong")
        }
    }
}
