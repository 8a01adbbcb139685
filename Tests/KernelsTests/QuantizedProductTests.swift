import Testing
@testable import Kernels

@Suite("Quantized product: int32 sums of zero-point-shifted 8-bit operands with the requantizing epilogue")
struct QuantizedProductTests {
    /// The scalar arithmetic the kernel must equal byte for byte: Σ in int32 wrapping, then
    /// round_half_even(Float(sum) · multiplier) + zero point, saturated (NaN: the zero point).
    static func expected(s: [Int16], v: [Int32], rows: Int, inner: Int, columns: Int, stride: Int, bias: [Int32]?,
                         multipliers: [Float], perColumn: Bool, zeroPoint: Int32, range: ClosedRange<Int32>) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: rows * columns)
        for r in 0..<rows {
            for n in 0..<columns {
                var sum = bias?[r] ?? 0
                for k in 0..<inner { sum = sum &+ Int32(s[r * inner + k]) &* Int32(v[k * stride + n]) }
                let value = Float(sum) * multipliers[perColumn ? n : r]
                var q = zeroPoint
                if !value.isNaN {
                    let shifted = Double(value.rounded(.toNearestOrEven)) + Double(zeroPoint)
                    q = Int32(min(max(shifted, Double(range.lowerBound)), Double(range.upperBound)))
                }
                out[r * columns + n] = UInt8(truncatingIfNeeded: q)
            }
        }
        return out
    }

    /// Runs one case and compares every byte; returns how many outputs saturated at each end.
    static func check(rows: Int, inner: Int, columns: Int, signed: Bool, zeroPoint: Int32, scale: Float, bias: Bool,
                      perColumn: Bool, seed: UInt64, wide: Bool = true) -> (low: Int, high: Int) {
        var random = Random(seed: seed)
        // Operands as zero-point-shifted 8-bit values: −255...255 (a uint8 minus its zero point),
        // or −128...127 when `wide` is false.
        func value() -> Int16 {
            let u = (random.next() + 1) / 2  // [0, 1)
            return wide ? Int16(Int(u * 511) - 255) : Int16(Int(u * 256) - 128)
        }
        let stride = (columns + quantizedTileColumns - 1) / quantizedTileColumns * quantizedTileColumns
        let s = (0..<(rows * inner)).map { _ in value() }
        var v = [Int32](repeating: 0, count: inner * stride)
        for k in 0..<inner { for n in 0..<stride { v[k * stride + n] = n < columns ? Int32(value()) : 7 } }
        let biases: [Int32]? = bias ? (0..<rows).map { _ in Int32(random.next() * 100_000) } : nil
        let multipliers = (0..<(perColumn ? columns : rows)).map { _ in scale * (1 + random.next() / 2) }
        let range: ClosedRange<Int32> = signed ? -128...127 : 0...255
        let want = expected(s: s, v: v, rows: rows, inner: inner, columns: columns, stride: stride, bias: biases,
                            multipliers: multipliers, perColumn: perColumn, zeroPoint: zeroPoint, range: range)
        // The kernel's layout: k in 16-bit pairs (k even low, odd high; an odd K's last high half 0).
        let pairs = quantizedPairs(inner)
        var sPacked = [Int32](repeating: 0, count: rows * pairs), vPacked = [Int32](repeating: 0, count: pairs * stride)
        func pair(_ low: Int16, _ high: Int16) -> Int32 { Int32(bitPattern: UInt32(UInt16(bitPattern: low)) | UInt32(UInt16(bitPattern: high)) << 16) }
        for r in 0..<rows {
            for p in 0..<pairs { sPacked[r * pairs + p] = pair(s[r * inner + 2 * p], 2 * p + 1 < inner ? s[r * inner + 2 * p + 1] : 0) }
        }
        for p in 0..<pairs {
            for n in 0..<stride {
                vPacked[p * stride + n] = pair(Int16(v[2 * p * stride + n]), 2 * p + 1 < inner ? Int16(v[(2 * p + 1) * stride + n]) : 0)
            }
        }
        var got = [UInt8](repeating: 0xA5, count: rows * columns)
        let biasStorage = biases ?? []
        sPacked.withUnsafeBufferPointer { sp in
            vPacked.withUnsafeBufferPointer { vp in
                multipliers.withUnsafeBufferPointer { mp in
                    biasStorage.withUnsafeBufferPointer { bp in
                        got.withUnsafeMutableBufferPointer { op in
                            let product = QuantizedProduct(
                                s: sp.baseAddress!, rows: rows, pairs: pairs, v: vp.baseAddress!, columns: columns,
                                columnStride: stride, bias: bias ? bp.baseAddress! : nil, output: op.baseAddress!,
                                outputStride: columns, multipliers: mp.baseAddress!, perColumn: perColumn,
                                zeroPoint: zeroPoint, minimum: range.lowerBound, maximum: range.upperBound)
                            // Two column ranges, as two threads take them.
                            let half = (columns + 2 * quantizedTileColumns - 1) / (2 * quantizedTileColumns) * quantizedTileColumns
                            quantizedProduct(product, columns: 0..<min(half, columns))
                            quantizedProduct(product, columns: min(half, columns)..<columns)
                        }
                    }
                }
            }
        }
        let label = "\(rows)x\(inner)x\(columns) signed \(signed) zero \(zeroPoint) scale \(scale) bias \(bias) perColumn \(perColumn)"
        let wrong = zip(got, want).filter { $0 != $1 }.count
        #expect(wrong == 0, "\(label): \(wrong) of \(want.count) bytes differ")
        let lowByte = UInt8(truncatingIfNeeded: range.lowerBound), highByte = UInt8(truncatingIfNeeded: range.upperBound)
        return (want.filter { $0 == lowByte }.count, want.filter { $0 == highByte }.count)
    }

    @Test("equals the scalar sums and requantization byte for byte: rows and columns around the 6 × 64 tile, odd and even inner sizes into the thousands")
    func sweep() {
        var seed: UInt64 = 1
        for rows in [1, 3, 4, 5, 6, 7, 8, 11, 12, 13] {
            for columns in [1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 193] {
                for inner in [1, 2, 9, 31, 97] {
                    seed += 1
                    _ = Self.check(rows: rows, inner: inner, columns: columns, signed: seed % 2 == 0,
                                   zeroPoint: seed % 2 == 0 ? [-128, 0, 127][Int(seed % 3)] : [0, 128, 255][Int(seed % 3)],
                                   scale: 1 / Float(inner * 4000), bias: seed % 3 != 0, perColumn: seed % 4 == 1, seed: seed)
                }
            }
        }
        // Inner sizes into the thousands (and primes) on a few shapes: sums past 2^24, where
        // Float(sum) itself rounds.
        for (rows, inner, columns) in [(5, 1021, 67), (4, 2048, 64), (3, 4099, 17), (1, 6007, 130)] {
            seed += 1
            _ = Self.check(rows: rows, inner: inner, columns: columns, signed: false, zeroPoint: 128,
                           scale: 1 / Float(inner * 3000), bias: true, perColumn: false, seed: seed)
        }
    }

    @Test("saturates at both ends of uint8 and int8, for zero points 0, 128, 255 (uint8) and −128, 0, 127 (int8)")
    func saturation() {
        for signed in [false, true] {
            for zeroPoint: Int32 in signed ? [-128, 0, 127] : [0, 128, 255] {
                // A large multiplier sends most sums past the range; both signs occur.
                let counts = Self.check(rows: 6, inner: 33, columns: 70, signed: signed, zeroPoint: zeroPoint, scale: 0.01,
                                        bias: false, perColumn: true, seed: UInt64(zeroPoint + 300))
                // With the zero point at an end, that end is also where 0 lands; the far end must saturate.
                if zeroPoint != (signed ? 127 : 255) { #expect(counts.high > 0, "zero \(zeroPoint): nothing saturated high") }
                if zeroPoint != (signed ? -128 : 0) { #expect(counts.low > 0, "zero \(zeroPoint): nothing saturated low") }
            }
        }
    }

    @Test("a NaN or infinite multiplier: NaN gives the zero point, infinity saturates, as the reference")
    func nonFinite() {
        _ = Self.check(rows: 2, inner: 3, columns: 20, signed: false, zeroPoint: 128, scale: .infinity, bias: false,
                       perColumn: false, seed: 9)
        _ = Self.check(rows: 2, inner: 3, columns: 20, signed: true, zeroPoint: 0, scale: .nan, bias: false,
                       perColumn: true, seed: 10)
    }
}
