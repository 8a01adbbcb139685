import TargetFeatures

// Bilinear resizing of uint8 / int8 planes with onnxruntime's arithmetic (the reference is
// `ByteResize` in Inference): per output, with the source rows `top`, `bottom` and columns
// `left`, `right` of its row and column tables and their weights, the float32 sum, in this order,
// of (dx2·dy2)·x[top][left] + (dx1·dy2)·x[top][right] + (dx2·dy1)·x[bottom][left] +
// (dx1·dy1)·x[bottom][right], each product and sum rounded on its own (no fused multiply-add),
// truncated toward zero to the byte. 16 outputs of a row at a time where their source columns lie
// within 16 of the block's first: those 16 bytes of each source row converted to floats once and
// gathered by `vpermps`; the same operations per output as one at a time, so the same bytes.

/// A bilinear resize's tables: per output row and column, the two source indices and the
/// weights (`firstWeight` weighs the first index: dy2 / dx2; `secondWeight` the second: dy1 /
/// dx1), and the 16-column blocks that run as vectors.
package struct ByteBilinearTables: Sendable {
    let rowFirst: [Int], rowSecond: [Int], rowFirstWeight: [Float], rowSecondWeight: [Float]
    let columnFirst: [Int], columnSecond: [Int], columnFirstWeight: [Float], columnSecondWeight: [Float]
    /// Per whole block of 16 output columns: the first source column it reads, or −1 where its
    /// sources span more than 16 columns (those, and a row's last columns past the whole
    /// blocks, run one at a time).
    let blockBase: [Int]
    /// Per block, 16 lanes: the first and second source columns minus the block's base.
    let blockFirst: [Int32], blockSecond: [Int32]

    /// `rows*` and `columns*`: the tables of the output's rows and columns (indices within the
    /// input's height and width).
    package init(rowFirst: [Int], rowSecond: [Int], rowFirstWeight: [Float], rowSecondWeight: [Float],
                 columnFirst: [Int], columnSecond: [Int], columnFirstWeight: [Float], columnSecondWeight: [Float]) {
        self.rowFirst = rowFirst; self.rowSecond = rowSecond
        self.rowFirstWeight = rowFirstWeight; self.rowSecondWeight = rowSecondWeight
        self.columnFirst = columnFirst; self.columnSecond = columnSecond
        self.columnFirstWeight = columnFirstWeight; self.columnSecondWeight = columnSecondWeight
        let blocks = columnFirst.count / lanes
        var bases = [Int](repeating: -1, count: blocks)
        var first = [Int32](repeating: 0, count: blocks * lanes), second = first
        for b in 0..<blocks {
            let range = b * lanes..<(b + 1) * lanes
            let base = min(columnFirst[range].min()!, columnSecond[range].min()!)
            guard max(columnFirst[range].max()!, columnSecond[range].max()!) - base < lanes else { continue }
            bases[b] = base
            for i in range {
                first[i] = Int32(columnFirst[i] - base)
                second[i] = Int32(columnSecond[i] - base)
            }
        }
        blockBase = bases; blockFirst = first; blockSecond = second
    }
}

/// Resizes `planes` planes of `inputHeight` × `inputWidth` bytes (`signed`: int8, else uint8) at
/// `x` into the planes at `y` whose sizes the tables give.
package func byteBilinearResize(_ x: UnsafeRawPointer, _ y: UnsafeMutablePointer<UInt8>, signed: Bool, planes: Int,
                                inputHeight: Int, inputWidth: Int, _ t: ByteBilinearTables) {
    let outH = t.rowFirst.count, outW = t.columnFirst.count
    let bytes = x.assumingMemoryBound(to: UInt8.self)
    @inline(__always) func float(_ p: UnsafePointer<UInt8>, _ i: Int) -> Float {
        signed ? Float(Int8(bitPattern: p[i])) : Float(p[i])
    }
    @inline(__always) func floats(_ p: UnsafePointer<UInt8>, _ count: Int) -> Vector {
        let v = count >= lanes ? UnsafeRawPointer(p).loadUnaligned(as: SIMD16<UInt8>.self) : vbg_load_bytes16(p, Int32(count))
        return signed ? vbg_dequantize_i8(unsafeBitCast(v, to: SIMD16<Int8>.self), 0, 1) : vbg_dequantize_u8(v, 0, 1)
    }
    t.blockFirst.withUnsafeBufferPointer { blockFirst in
        t.blockSecond.withUnsafeBufferPointer { blockSecond in
            t.columnFirstWeight.withUnsafeBufferPointer { columnFirstWeight in
                t.columnSecondWeight.withUnsafeBufferPointer { columnSecondWeight in
                    @inline(__always) func load<T>(_ p: UnsafeBufferPointer<T>, _ block: Int, as: SIMD16<T>.Type) -> SIMD16<T> {
                        UnsafeRawPointer(p.baseAddress! + block * lanes).loadUnaligned(as: SIMD16<T>.self)
                    }
                    for plane in 0..<planes {
                        let source = bytes + plane * inputHeight * inputWidth, out = y + plane * outH * outW
                        for oh in 0..<outH {
                            let top = source + t.rowFirst[oh] * inputWidth, bottom = source + t.rowSecond[oh] * inputWidth
                            let dy1 = t.rowSecondWeight[oh], dy2 = t.rowFirstWeight[oh]
                            let line = out + oh * outW
                            @inline(__always) func scalar(_ ow: Int) {
                                let left = t.columnFirst[ow], right = t.columnSecond[ow]
                                let dx1 = t.columnSecondWeight[ow], dx2 = t.columnFirstWeight[ow]
                                var sum = (dx2 * dy2) * float(top, left)
                                sum += (dx1 * dy2) * float(top, right)
                                sum += (dx2 * dy1) * float(bottom, left)
                                sum += (dx1 * dy1) * float(bottom, right)
                                line[ow] = UInt8(truncatingIfNeeded: Int32(sum.rounded(.towardZero)))
                            }
                            var ow = 0
                            for block in 0..<t.blockBase.count {
                                let base = t.blockBase[block]
                                if base >= 0 {
                                    let count = min(lanes, inputWidth - base)
                                    let topRow = floats(top + base, count), bottomRow = floats(bottom + base, count)
                                    let first = load(blockFirst, block, as: SIMD16<Int32>.self)
                                    let second = load(blockSecond, block, as: SIMD16<Int32>.self)
                                    let dx2 = load(columnFirstWeight, block, as: SIMD16<Float>.self)
                                    let dx1 = load(columnSecondWeight, block, as: SIMD16<Float>.self)
                                    var sum = (dx2 * dy2) * vbg_permute_floats(topRow, first)
                                    sum += (dx1 * dy2) * vbg_permute_floats(topRow, second)
                                    sum += (dx2 * dy1) * vbg_permute_floats(bottomRow, first)
                                    sum += (dx1 * dy1) * vbg_permute_floats(bottomRow, second)
                                    UnsafeMutableRawPointer(line + ow).storeBytes(of: vbg_truncated_bytes(sum), as: SIMD16<UInt8>.self)
                                    ow += lanes
                                    continue
                                }
                                while ow < (block + 1) * lanes { scalar(ow); ow += 1 }
                            }
                            while ow < outW { scalar(ow); ow += 1 }

                        }
                    }
                }
            }
        }
    }
}
