import Testing
@testable import Kernels

@Suite("Quantized product: int32 sums of zero-point-shifted 8-bit operands with the requantizing epilogue")
struct QuantizedProductTests {
    /// The scalar arithmetic the kernel must equal byte for byte: Σ in int32 wrapping, then
    /// round_half_even(Float(sum) · multiplier) + zero point, saturated (NaN: the zero point).
    static func expected(s: [Int16], v: [Int32], rows: Int, inner: Int, columns: Int, stride: Int, bias: [Int32]?,
                         multipliers: [Float], perColumn: Bool, zeroPoint: Int32, range: ClosedRange<Int32>) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: rows * columns)
        s.withUnsafeBufferPointer { s in
            v.withUnsafeBufferPointer { v in
                for r in 0..<rows {
                    for n in 0..<columns {
                        var sum = bias?[r] ?? 0
                        for k in 0..<inner { sum = sum &+ Int32(s[r * inner + k]) &* v[k * stride + n] }
                        let value = Float(sum) * multipliers[perColumn ? n : r]
                        var q = zeroPoint
                        if !value.isNaN {
                            let shifted = Double(value.rounded(.toNearestOrEven)) + Double(zeroPoint)
                            q = Int32(min(max(shifted, Double(range.lowerBound)), Double(range.upperBound)))
                        }
                        out[r * columns + n] = UInt8(truncatingIfNeeded: q)
                    }
                }
            }
        }
        return out
    }

    /// Runs one case and compares every byte; returns how many outputs saturated at each end.
    static func check(rows: Int, inner: Int, columns: Int, signed: Bool, zeroPoint: Int32, scale: Float, bias: Bool,
                      perColumn: Bool, seed: UInt64, wide: Bool = true,
                      operands: QuantizedOperands = .pairs, panels: Bool = false) -> (low: Int, high: Int) {
        var random = Random(seed: seed)
        // Operands as zero-point-shifted 8-bit values: −255...255 (a uint8 minus its zero point),
        // or −128...127 when `wide` is false; for bytes, one operand 0...255 and the other −128...127.
        func value(unsigned: Bool) -> Int16 {
            let u = (random.next() + 1) / 2  // [0, 1)
            if operands != .pairs { return unsigned ? Int16(Int(u * 256)) : Int16(Int(u * 256) - 128) }
            return wide ? Int16(Int(u * 511) - 255) : Int16(Int(u * 256) - 128)
        }
        let stride = (columns + quantizedTileColumns - 1) / quantizedTileColumns * quantizedTileColumns
        let s = (0..<(rows * inner)).map { _ in value(unsigned: operands == .unsignedRows) }
        var v = [Int32](repeating: 0, count: inner * stride)
        for k in 0..<inner {
            for n in 0..<stride { v[k * stride + n] = n < columns ? Int32(value(unsigned: operands == .unsignedColumns)) : 7 }
        }
        let biases: [Int32]? = bias ? (0..<rows).map { _ in Int32(random.next() * 100_000) } : nil
        let multipliers = (0..<(perColumn ? columns : rows)).map { _ in scale * (1 + random.next() / 2) }
        let range: ClosedRange<Int32> = signed ? -128...127 : 0...255
        let want = expected(s: s, v: v, rows: rows, inner: inner, columns: columns, stride: stride, bias: biases,
                            multipliers: multipliers, perColumn: perColumn, zeroPoint: zeroPoint, range: range)
        // The kernel's layout: k in 16-bit pairs (k even low, odd high) or bytes (k = 4q + i in
        // byte i); K's unused last values 0 in the signed operand, any value in the unsigned one.
        let per = operands.perElement, depth = operands.depth(inner)
        var sPacked = [Int32](repeating: 0, count: rows * depth), vPacked = [Int32](repeating: 0, count: depth * stride)
        /// The word holding values k = per·q … per·q + per − 1 (`value(k)`) of one row or column.
        func pack(_ q: Int, unsigned: Bool, _ value: (Int) -> Int16) -> Int32 {
            var word: UInt32 = 0
            let count = min(inner, per * q + per) - per * q
            for i in 0..<count {
                let value = value(per * q + i)
                word |= per == 2 ? UInt32(UInt16(bitPattern: value)) << (16 * i) : UInt32(UInt8(truncatingIfNeeded: value)) << (8 * i)
            }
            // Unused values of the unsigned operand are arbitrary: 0xFF.
            if unsigned { for i in count..<per { word |= 0xFF << (8 * i) } }
            return Int32(bitPattern: word)
        }
        for r in 0..<rows {
            for q in 0..<depth {
                sPacked[r * depth + q] = pack(q, unsigned: operands == .unsignedRows) { s[r * inner + $0] }
            }
        }
        // V as rows of the stride, or as panels of 64 columns (``QuantizedProduct/panels``).
        let tile = quantizedTileColumns
        func vIndex(_ q: Int, _ n: Int) -> Int { panels ? (n / tile * depth + q) * tile + n % tile : q * stride + n }
        v.withUnsafeBufferPointer { v in
            for q in 0..<depth {
                for n in 0..<stride {
                    vPacked[vIndex(q, n)] = pack(q, unsigned: operands == .unsignedColumns) { Int16(v[$0 * stride + n]) }
                }
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
                                s: sp.baseAddress!, rows: rows, depth: depth, operands: operands, v: vp.baseAddress!, columns: columns,
                                columnStride: stride, bias: bias ? bp.baseAddress! : nil, output: op.baseAddress!,
                                outputStride: columns, multipliers: mp.baseAddress!, perColumn: perColumn,
                                zeroPoint: zeroPoint, minimum: range.lowerBound, maximum: range.upperBound, panels: panels,
                                // The epilogue without the NaN test wherever the multipliers allow it, as the kernels' callers say.
                                finiteMultipliers: multipliers.allSatisfy { $0.isFinite })
                            // Two column ranges, as two threads take them.
                            let half = (columns + 2 * quantizedTileColumns - 1) / (2 * quantizedTileColumns) * quantizedTileColumns
                            quantizedProduct(product, columns: 0..<min(half, columns))
                            quantizedProduct(product, columns: min(half, columns)..<columns)
                        }
                    }
                }
            }
        }
        let label = "\(operands)\(panels ? " panels" : "") \(rows)x\(inner)x\(columns) signed \(signed) zero \(zeroPoint) scale \(scale) bias \(bias) perColumn \(perColumn)"
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

    @Test("bytes (u8 × s8, either operand unsigned) equal the scalar sums byte for byte: rows and columns around the 6 × 64 tile, inner sizes around multiples of 4, into the thousands, primes")
    func byteSweep() {
        var seed: UInt64 = 5000
        for operands in [QuantizedOperands.unsignedColumns, .unsignedRows] {
            for rows in [1, 2, 5, 6, 7, 12, 13] {
                for columns in [1, 16, 63, 64, 65, 129] {
                    for inner in [1, 3, 4, 5, 8, 9, 27, 97] {
                        seed += 1
                        _ = Self.check(rows: rows, inner: inner, columns: columns, signed: seed % 2 == 0,
                                       zeroPoint: seed % 2 == 0 ? [-128, 0, 127][Int(seed % 3)] : [0, 128, 255][Int(seed % 3)],
                                       scale: 1 / Float(inner * 4000), bias: seed % 3 != 0, perColumn: seed % 4 == 1,
                                       seed: seed, operands: operands)
                    }
                }
            }
            // All products at the extremes (255 · −128 in every lane: no saturation across the
            // four-product sum), and inner sizes into the thousands where sums pass 2^24.
            for (rows, inner, columns) in [(6, 2304, 64), (5, 1021, 67), (3, 4099, 17), (1, 6007, 130), (7, 4608, 65)] {
                seed += 1
                _ = Self.check(rows: rows, inner: inner, columns: columns, signed: false, zeroPoint: 128,
                               scale: 1 / Float(inner * 3000), bias: true, perColumn: operands == .unsignedRows, seed: seed,
                               operands: operands)
            }
        }
    }

    @Test("bytes with a last tile of 1 to 33 columns (one or two vectors computed, or four) equal the scalar sums byte for byte: columns past 64 and 128 by 1, 15, 16, 17, 31, 32, 33, a 14x14 map's 196, rows around the tile, V as rows of the stride and as panels")
    func narrowTailSweep() {
        var seed: UInt64 = 7000
        for columns in [65, 79, 80, 81, 95, 96, 97, 129, 145, 160, 161, 196, 1, 16, 17, 32, 33] {
            for rows in [1, 5, 6, 7, 13] {
                for inner in [1, 4, 9, 97] {
                    seed += 1
                    _ = Self.check(rows: rows, inner: inner, columns: columns, signed: seed % 2 == 0,
                                   zeroPoint: seed % 2 == 0 ? [-128, 0, 127][Int(seed % 3)] : [0, 128, 255][Int(seed % 3)],
                                   scale: 1 / Float(inner * 4000), bias: seed % 3 != 0, perColumn: seed % 4 == 1,
                                   seed: seed, operands: .unsignedColumns, panels: seed % 5 == 0)
                }
            }
        }
        for (rows, inner, columns) in [(6, 2304, 196), (7, 1021, 81), (13, 4099, 97)] {
            seed += 1
            _ = Self.check(rows: rows, inner: inner, columns: columns, signed: false, zeroPoint: 128,
                           scale: 1 / Float(inner * 3000), bias: true, perColumn: false, seed: seed, operands: .unsignedColumns)
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

    @Test("a small map's pixels as rows (7 to 65: several tiles, each row count its own tile) equal the scalar sums byte for byte: columns around 32 and 64, inner sizes around multiples of 4 into the thousands, every packing")
    func pixelRowsSweep() {
        var seed: UInt64 = 9000
        for operands in [QuantizedOperands.pairs, .unsignedColumns, .unsignedRows] {
            for rows in [7, 9, 12, 13, 24, 25, 37, 49, 64, 65] {
                for columns in [1, 31, 32, 33, 64, 97] {
                    for inner in [1, 4, 9, 31] {
                        seed += 1
                        _ = Self.check(rows: rows, inner: inner, columns: columns, signed: seed % 2 == 0,
                                       zeroPoint: seed % 2 == 0 ? [-128, 0, 127][Int(seed % 3)] : [0, 128, 255][Int(seed % 3)],
                                       scale: 1 / Float(inner * 4000), bias: seed % 3 != 0, perColumn: seed % 4 == 1,
                                       seed: seed, operands: operands)
                    }
                }
            }
            for (rows, inner, columns) in [(9, 4608, 129), (25, 2304, 96), (11, 1021, 67)] {
                seed += 1
                _ = Self.check(rows: rows, inner: inner, columns: columns, signed: false, zeroPoint: 128,
                               scale: 1 / Float(inner * 3000), bias: true, perColumn: operands == .unsignedRows, seed: seed,
                               operands: operands)
            }
        }
    }

    @Test("V as panels of 64 columns (the transposed weights of small maps, a matrix product's constant B) equals the scalar sums byte for byte: rows around the tile, columns around 64 and its multiples, inner sizes around multiples of 4 into the thousands, every packing")
    func panelSweep() {
        var seed: UInt64 = 12000
        for operands in [QuantizedOperands.pairs, .unsignedColumns, .unsignedRows] {
            for rows in [1, 5, 6, 7, 9, 13, 25] {
                for columns in [1, 63, 64, 65, 128, 130, 193] {
                    for inner in [1, 4, 5, 9, 31] {
                        seed += 1
                        _ = Self.check(rows: rows, inner: inner, columns: columns, signed: seed % 2 == 0,
                                       zeroPoint: seed % 2 == 0 ? [-128, 0, 127][Int(seed % 3)] : [0, 128, 255][Int(seed % 3)],
                                       scale: 1 / Float(inner * 4000), bias: seed % 3 != 0, perColumn: seed % 4 == 1,
                                       seed: seed, operands: operands, panels: true)
                    }
                }
            }
            for (rows, inner, columns) in [(9, 4608, 513), (25, 2304, 256), (1, 2048, 1000), (11, 1021, 67)] {
                seed += 1
                _ = Self.check(rows: rows, inner: inner, columns: columns, signed: false, zeroPoint: 128,
                               scale: 1 / Float(inner * 3000), bias: true, perColumn: operands == .unsignedRows, seed: seed,
                               operands: operands, panels: true)
            }
        }
    }

    @Test("a NaN or infinite multiplier: NaN gives the zero point, infinity saturates, as the reference; finite multipliers whose products overflow saturate")
    func nonFinite() {
        _ = Self.check(rows: 2, inner: 3, columns: 20, signed: false, zeroPoint: 128, scale: .infinity, bias: false,
                       perColumn: false, seed: 9)
        _ = Self.check(rows: 2, inner: 3, columns: 20, signed: true, zeroPoint: 0, scale: .nan, bias: false,
                       perColumn: true, seed: 10)
        // Finite multipliers whose products overflow to ±infinity (the epilogue without the NaN test).
        for operands in [QuantizedOperands.pairs, .unsignedColumns, .unsignedRows] {
            _ = Self.check(rows: 7, inner: 9, columns: 70, signed: false, zeroPoint: 128, scale: 1e38, bias: true,
                           perColumn: false, seed: 11, operands: operands)
            _ = Self.check(rows: 7, inner: 9, columns: 70, signed: true, zeroPoint: -5, scale: 1e38, bias: false,
                           perColumn: true, seed: 12, operands: operands, panels: true)
        }
    }
}
