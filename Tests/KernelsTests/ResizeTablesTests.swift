import AllocationCounter
import Foundation
import Testing
@testable import Kernels

@Suite("Table-driven bilinear and nearest resize")
struct ResizeTablesTests {
    /// ONNX Resize linear, half_pixel: source coordinate (o + 0.5)/scale − 0.5 clamped to the input.
    static func halfPixel(input: Int, output: Int) -> (first: [Int], second: [Int], weight: [Float]) {
        var first: [Int] = [], second: [Int] = [], weight: [Float] = []
        for o in 0..<output {
            let x = min(max((Double(o) + 0.5) * Double(input) / Double(output) - 0.5, 0), Double(input - 1))
            let i0 = Int(x.rounded(.down))
            first.append(i0)
            second.append(min(i0 + 1, input - 1))
            weight.append(Float(x - Double(i0)))
        }
        return (first, second, weight)
    }

    /// Any indices in range, in any order, with weights in [0, 1].
    static func scrambled(input: Int, output: Int, random: inout Random) -> (first: [Int], second: [Int], weight: [Float]) {
        func index() -> Int { min(Int((random.next() + 1) / 2 * Float(input)), input - 1) }
        return ((0..<output).map { _ in index() }, (0..<output).map { _ in index() }, (0..<output).map { _ in (random.next() + 1) / 2 })
    }

    /// Output sizes per input size: up, down, ×2, to 1.
    static func outputSizes(_ size: Int) -> [Int] { Array(Set([1, 2 * size, 3 * size + 2, max(size / 2, 1), size + 9])).sorted() }

    @Test("resizeBilinear is upper + (lower − upper)·wy of the horizontal blends, for half-pixel and scrambled tables, any layouts")
    func bilinear() {
        var random = Random(seed: 77)
        for (c, h, w) in oddShapes {
            for (inPad, outPad) in layoutPairs {
                for (outH, outW) in zip(Self.outputSizes(h), Self.outputSizes(w).reversed()) {
                    let x = random.array(c * h * w, scale: 3)
                    for scrambled in [false, true] {
                        let rowTable = scrambled ? Self.scrambled(input: h, output: outH, random: &random) : Self.halfPixel(input: h, output: outH)
                        let columnTable = scrambled ? Self.scrambled(input: w, output: outW, random: &random) : Self.halfPixel(input: w, output: outW)
                        let rows = ResizeAxis(first: rowTable.first, second: rowTable.second, weight: rowTable.weight)
                        let columns = ResizeAxis(first: columnTable.first, second: columnTable.second, weight: columnTable.weight)
                        let what = "bilinear \(c)x\(h)x\(w) -> \(outH)x\(outW) pad \(inPad)->\(outPad) scrambled \(scrambled)"
                        let input = makeMap(x, channels: c, layout: .padded(width: w, height: h, pad: inPad))
                        let got = runOnBothPools(input, outputChannels: c, outputHeight: outH, outputWidth: outW,
                                                 outputPad: outPad, what) { i, o, pool in
                            resizeBilinear(i, rows: rows, columns: columns, output: o, pool: pool)
                        }
                        var expected: [Expected] = []
                        for ch in 0..<c {
                            func p(_ y: Int, _ x0: Int) -> Float { x[(ch * h + y) * w + x0] }
                            for yo in 0..<outH {
                                let top = rowTable.first[yo], bottom = rowTable.second[yo], wy = rowTable.weight[yo]
                                for xo in 0..<outW {
                                    let l = columnTable.first[xo], r = columnTable.second[xo], wx = columnTable.weight[xo]
                                    let upper: Float = p(top, l) + (p(top, r) - p(top, l)) * wx
                                    let lower: Float = p(bottom, l) + (p(bottom, r) - p(bottom, l)) * wx
                                    let out: Float = upper + (lower - upper) * wy
                                    let magnitude = abs(p(top, l)) + abs(p(top, r)) + abs(p(bottom, l)) + abs(p(bottom, r))
                                    expected.append(Expected(value: Double(out), scale: Double(magnitude)))
                                }
                            }
                        }
                        // Fusing each a + b·c saves a rounding or two of values ≤ the taps' magnitude.
                        expectClose(got, expected, tolerance: 1e-6, what)
                    }
                }
            }
        }
    }

    @Test("resizeNearest gathers input[rows[y]][columns[x]]: x/2 (the duplicating path), x/3, down, scrambled; any layouts")
    func nearest() {
        var random = Random(seed: 78)
        for (c, h, w) in oddShapes {
            for (inPad, outPad) in layoutPairs {
                let x = random.array(c * h * w)
                let tables: [(String, [Int], [Int])] = [
                    ("x2", (0..<(2 * h)).map { $0 / 2 }, (0..<(2 * w)).map { $0 / 2 }),
                    ("x2 odd width", (0..<(2 * h - 1)).map { $0 / 2 }, (0..<(2 * w - 1)).map { $0 / 2 }),
                    ("x3", (0..<(3 * h)).map { $0 / 3 }, (0..<(3 * w)).map { $0 / 3 }),
                    ("down", (0..<max(h / 2, 1)).map { min(2 * $0 + 1, h - 1) }, (0..<max(w / 3, 1)).map { 3 * $0 }),
                    ("scrambled", (0..<(h + 5)).map { _ in min(Int((random.next() + 1) / 2 * Float(h)), h - 1) },
                     (0..<(w + 17)).map { _ in min(Int((random.next() + 1) / 2 * Float(w)), w - 1) }),
                ]
                for (name, rows, columns) in tables {
                    let what = "nearest \(name) \(c)x\(h)x\(w) pad \(inPad)->\(outPad)"
                    let input = makeMap(x, channels: c, layout: .padded(width: w, height: h, pad: inPad))
                    let got = runOnBothPools(input, outputChannels: c, outputHeight: rows.count, outputWidth: columns.count,
                                             outputPad: outPad, what) { i, o, pool in
                        resizeNearest(i, rows: rows, columns: columns, output: o, pool: pool)
                    }
                    var expected: [Float] = []
                    for ch in 0..<c {
                        for y in rows { for column in columns { expected.append(x[(ch * h + y) * w + column]) } }
                    }
                    #expect(got == expected, "\(what)")
                }
            }
        }
    }

    @Test("resizeBilinear and resizeNearest allocate nothing per call on 1 and 2 threads",
          .enabled(if: vbg_allocation_counting_is_active() == 1))
    func noAllocation() {
        let c = 3, h = 17, w = 19
        var random = Random(seed: 5)
        let input = makeMap(random.array(c * h * w), channels: c, layout: .padded(width: w, height: h, pad: 1))
        let output = FeatureMapStorage(channels: c, layout: .dense(width: 53, height: 41))
        let rowTable = Self.halfPixel(input: h, output: 41), columnTable = Self.halfPixel(input: w, output: 53)
        let rows = ResizeAxis(first: rowTable.first, second: rowTable.second, weight: rowTable.weight)
        let columns = ResizeAxis(first: columnTable.first, second: columnTable.second, weight: columnTable.weight)
        let nearestRows = (0..<41).map { $0 * h / 41 }, nearestColumns = (0..<53).map { $0 * w / 53 }
        let doubled = FeatureMapStorage(channels: c, layout: .dense(width: 2 * w, height: 2 * h))
        let doubleRows = (0..<(2 * h)).map { $0 / 2 }, doubleColumns = (0..<(2 * w)).map { $0 / 2 }
        for threads in [1, 2] {
            let pool = WorkerPool(threads: threads)
            let kernels: [(String, () -> Void)] = [
                ("resizeBilinear", { resizeBilinear(input.map, rows: rows, columns: columns, output: output.map, pool: pool) }),
                ("resizeNearest", { resizeNearest(input.map, rows: nearestRows, columns: nearestColumns, output: output.map, pool: pool) }),
                ("resizeNearest x2", { resizeNearest(input.map, rows: doubleRows, columns: doubleColumns, output: doubled.map, pool: pool) }),
            ]
            for (name, kernel) in kernels {
                kernel()
                let n = allocations { for _ in 0..<10 { kernel() } }
                #expect(n == 0, "\(name) on \(threads) thread(s): \(n) allocations in 10 calls")
            }
        }
    }
}
