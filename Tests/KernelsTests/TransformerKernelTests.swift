import Foundation
import Testing
@testable import Kernels

@Suite("erf, GELU, the matrix product's epilogue, row normalisation")
struct TransformerKernelTests {
    @Test("erfVector (onnxruntime's MLAS erf) is within 2 ulp of Foundation's erf over [-5, 5], odd, exactly ±1 from 3.925 on, NaN for NaN, and equal to its scalar twin")
    func erfAccuracy() {
        var arguments: [Float] = stride(from: Float(-5), through: 5, by: 0.000_731).map { $0 }
        arguments += stride(from: Float(-1e-3), through: 1e-3, by: 1e-7).map { $0 }
        let split: Float = 0.921_875, top: Float = 3.925
        arguments += [0, -0.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, 1e-30, split, split.nextUp, split.nextDown,
                      top, top.nextDown, 1e30, .infinity, -.infinity]
        var worst = 0.0
        for start in stride(from: 0, to: arguments.count, by: lanes) {
            var v = Vector()
            let n = min(lanes, arguments.count - start)
            for lane in 0..<n { v[lane] = arguments[start + lane] }
            let e = erfVector(v)
            for lane in 0..<n {
                let x = arguments[start + lane]
                let exact = Foundation.erf(Double(x))
                let ulps = abs(Double(e[lane]) - exact) / Double(max(Float(abs(exact)), .leastNormalMagnitude).ulp)
                worst = max(worst, ulps)
                #expect(ulps <= 2, "erf(\(x)) = \(e[lane]), exact \(exact)")
                #expect(fastErf(-x) == -e[lane] || e[lane] == 0, "erf(−\(x)) = −erf(\(x))")
                #expect(erfLikeOnnxruntime(x).bitPattern == e[lane].bitPattern, "scalar erf(\(x))")
            }
        }
        #expect(worst <= 2)
        #expect(fastErf(-0.0).sign == .minus && fastErf(-0.0) == 0)
        for big: Float in [3.925, 4, 10, 1e30, .infinity] {
            #expect(fastErf(big) == 1 && fastErf(-big) == -1, "erf(±\(big)) is ±1")
        }
        #expect(fastErf(.nan).isNaN && erfLikeOnnxruntime(.nan).isNaN)
        print("erf: worst \(worst) ulp")
    }

    /// (x · (erf(t) + 1)) · 0.5 in Float with Foundation's erf (rounded), t = x/√2 or x · (1/√2).
    static func referenceGelu(_ x: Float, _ argument: GeluArgument) -> Float {
        let t = argument == .dividedBySqrt2 ? x / 1.414_213_54 : x * 0.707_106_769
        return x * (Float(Foundation.erf(Double(t))) + 1) * 0.5
    }

    @Test("gelu is the node chain's arithmetic: within 2 ulp of erf's, in both argument forms, in place, any count")
    func geluMatchesNodes() {
        var random = Random(seed: 7)
        for argument in [GeluArgument.dividedBySqrt2, .timesInverseSqrt2] {
            for count in [1, 15, 16, 17, 33, 1000] {
                let x = random.array(count, scale: 6)
                var y = x
                y.withUnsafeMutableBufferPointer { buffer in
                    gelu(buffer.baseAddress!, argument: argument, output: buffer.baseAddress!, count: count)
                }
                for (input, got) in zip(x, y) {
                    let expected = Self.referenceGelu(input, argument)
                    // erf's 2 ulp, scaled by x/2 (|erf + 1| ≤ 2), and the two roundings after it.
                    let bound = 2 * abs(input) * Float(2).ulp + 2 * max(abs(expected), .leastNormalMagnitude).ulp
                    #expect(abs(got - expected) <= bound, "gelu(\(input)) = \(got), expected \(expected)")
                }
            }
        }
    }

    @Test("matrixMultiply with a function applies it to every stored output: equal to the product, then the function, on 1 and 2 threads")
    func productEpilogue() {
        for (m, k, n) in [(1, 5, 7), (3, 16, 33), (9, 96, 384), (13, 7, 129), (5, 64, 2)] {
            var random = Random(seed: UInt64(m * 100 + n))
            let a = random.array(m * k), b = random.array(k * n, scale: 0.5), bias = random.array(n)
            let weights = MatrixWeights(values: b, bias: bias, inner: k, columns: n)
            for function in [VectorFunction.gelu(.dividedBySqrt2), .activation(.relu), .erf] {
                for threads in [1, 2] {
                    var plain = [Float](repeating: .nan, count: m * n), fused = plain
                    a.withUnsafeBufferPointer { source in
                        let pool = WorkerPool(threads: threads)
                        plain.withUnsafeMutableBufferPointer { p in
                            matrixMultiply(source.baseAddress!, rows: m, weights: weights, output: p.baseAddress!, pool: pool)
                            apply(function, p.baseAddress!, output: p.baseAddress!, count: m * n)
                        }
                        fused.withUnsafeMutableBufferPointer { p in
                            matrixMultiply(source.baseAddress!, rows: m, weights: weights, output: p.baseAddress!,
                                           function: function, pool: pool)
                        }
                    }
                    #expect(fused == plain, "\(m)x\(k)x\(n) \(function) on \(threads) thread(s)")
                }
            }
        }
    }

    @Test("layerNormalize is ((x − mean) / √(variance + ε)) · scale + bias per row, within a few ulp, any row length, in place, 1 and 2 threads")
    func rowNormalization() {
        for (rows, columns) in [(1, 1), (3, 15), (2, 16), (5, 17), (4, 31), (4, 32), (3, 33), (7, 96), (2, 768), (1, 1000), (2, 3001)] {
            var random = Random(seed: UInt64(rows * 10_000 + columns))
            // An offset far from 0: the variance is then a small difference, as in real activations.
            let x = random.array(rows * columns, scale: 2).map { $0 + 3 }
            let scale = random.array(columns), bias = random.array(columns)
            var expected = [Double](repeating: 0, count: rows * columns)
            for r in 0..<rows {
                let row = x[(r * columns)..<((r + 1) * columns)].map(Double.init)
                let mean = row.reduce(0, +) / Double(columns)
                let variance = row.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(columns)
                for c in 0..<columns {
                    expected[r * columns + c] = (row[c] - mean) / (variance + 1e-5).squareRoot() * Double(scale[c]) + Double(bias[c])
                }
            }
            for threads in [1, 2] {
                for withBias in [true, false] {
                    var y = x
                    scale.withUnsafeBufferPointer { s in
                        bias.withUnsafeBufferPointer { b in
                            y.withUnsafeMutableBufferPointer { p in
                                layerNormalize(p.baseAddress!, rows: rows, columns: columns, scale: s.baseAddress!,
                                               bias: withBias ? b.baseAddress! : nil, epsilon: 1e-5, output: p.baseAddress!,
                                               pool: WorkerPool(threads: threads))
                            }
                        }
                    }
                    for i in 0..<(rows * columns) {
                        let want = expected[i] - (withBias ? 0 : Double(bias[i % columns]))
                        // A few ulp of the normalised value (up to ~4 standard deviations), scaled.
                        let bound = 8 * Double(Float(4).ulp) * Double(abs(scale[i % columns])) + 2 * Double(Float(abs(want)).ulp)
                        #expect(abs(Double(y[i]) - want) <= bound, "\(rows)x\(columns) [\(i)]: \(y[i]), expected \(want)")
                    }
                }
            }
        }
    }

    @Test("batchedMatrixMultiply equals matrixMultiply of each batch with its operand packed once, bit for bit: odd shapes, broadcast operands, fewer batches than threads")
    func batchedProduct() {
        for (batches, m, k, n) in [(1, 1, 1, 1), (1, 17, 64, 17), (3, 5, 7, 33), (12, 49, 32, 49), (2, 4, 96, 200), (5, 1, 3, 129)] {
            var random = Random(seed: UInt64(batches * 1000 + m * 10 + n))
            let a = random.array(batches * m * k), b = random.array(k * n * batches, scale: 0.5)
            // Every other batch reads the first B (a broadcast operand).
            let offsets = MatrixBatches(a: (0..<batches).map { $0 * m * k }, b: (0..<batches).map { $0 % 2 == 0 ? 0 : $0 * k * n },
                                        output: (0..<batches).map { $0 * m * n })
            var expected = [Float](repeating: .nan, count: batches * m * n)
            for batch in 0..<batches {
                let weights = MatrixWeights(values: Array(b[offsets.b[batch]..<(offsets.b[batch] + k * n)]), bias: nil, inner: k, columns: n)
                a.withUnsafeBufferPointer { source in
                    expected.withUnsafeMutableBufferPointer { p in
                        matrixMultiply(source.baseAddress! + offsets.a[batch], rows: m, weights: weights,
                                       output: p.baseAddress! + offsets.output[batch], pool: WorkerPool(threads: 1))
                    }
                }
            }
            for threads in [1, 2] {
                var output = [Float](repeating: .nan, count: batches * m * n)
                let pool = WorkerPool(threads: threads)
                pool.reserve(batchedMatrixScratch(inner: k, columns: n))
                a.withUnsafeBufferPointer { x in
                    b.withUnsafeBufferPointer { y in
                        output.withUnsafeMutableBufferPointer { p in
                            batchedMatrixMultiply(x.baseAddress!, y.baseAddress!, output: p.baseAddress!, batches: offsets, rows: m,
                                                  inner: k, columns: n, pool: pool)
                        }
                    }
                }
                #expect(output == expected, "\(batches) × \(m)x\(k)x\(n) on \(threads) thread(s)")
            }
        }
    }

    @Test("softmaxAlongRows: within a few ulp of the exact softmax, rows of 1 to 1000, large logits, −∞ entries, NaN rows, in place, 1 and 2 threads")
    func rowSoftmax() {
        for (rows, length) in [(1, 1), (3, 15), (2, 16), (5, 17), (4, 49), (2, 1000)] {
            var random = Random(seed: UInt64(rows * 7 + length))
            var x = random.array(rows * length, scale: 30)
            x[0] = 800
            if length > 2 { x[length - 1] = -.infinity }
            var expected = [Double](repeating: 0, count: rows * length)
            for r in 0..<rows {
                // x − m rounded to float, as the kernel and the reference compute it.
                let row = x[(r * length)..<((r + 1) * length)]
                let m = row.max()!
                let e = row.map { Foundation.exp(Double($0 - m)) }
                let sum = e.reduce(0, +)
                for i in 0..<length { expected[r * length + i] = e[i] / sum }
            }
            for threads in [1, 2] {
                var y = x
                y.withUnsafeMutableBufferPointer { p in
                    softmaxAlongRows(p.baseAddress!, rows: rows, length: length, output: p.baseAddress!, pool: WorkerPool(threads: threads))
                }
                // exp's 2 ulp and the division's half, plus the float sum's roundings in each lane
                // (length / 16 additions of positive terms), relative; a subnormal's absolute ulp.
                let relative = 3 * 0x1p-23 + Double(length / 16 + 1) * 0x1p-24
                for i in 0..<(rows * length) {
                    let bound = expected[i] * relative + Double(Float.leastNonzeroMagnitude)
                    #expect(abs(Double(y[i]) - expected[i]) <= bound, "\(rows)x\(length) [\(i)]: \(y[i]), expected \(expected[i])")
                }
            }
        }
        var nan: [Float] = [1, .nan, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]
        nan.withUnsafeMutableBufferPointer { p in
            softmaxAlongRows(p.baseAddress!, rows: 1, length: 18, output: p.baseAddress!, pool: WorkerPool(threads: 1))
        }
        #expect(nan.allSatisfy { $0.isNaN }, "a NaN makes its row NaN")
    }

    @Test("transposeMatrices swaps the last two axes exactly: blocks of 16 ± 1, one matrix or many, 1 and 2 threads")
    func matrixTranspose() {
        for (count, rows, columns) in [(1, 1, 1), (1, 17, 33), (3, 16, 16), (12, 49, 32), (2, 5, 100), (1, 64, 15)] {
            var random = Random(seed: UInt64(count * 100 + rows + columns))
            let x = random.array(count * rows * columns)
            for threads in [1, 2] {
                var y = [Float](repeating: .nan, count: x.count)
                x.withUnsafeBufferPointer { source in
                    y.withUnsafeMutableBufferPointer { p in
                        transposeMatrices(source.baseAddress!, count: count, rows: rows, columns: columns, output: p.baseAddress!,
                                          pool: WorkerPool(threads: threads))
                    }
                }
                let expected = (0..<count).flatMap { b in
                    (0..<columns).flatMap { j in (0..<rows).map { i in x[(b * rows + i) * columns + j] } }
                }
                #expect(y == expected, "\(count) × \(rows)x\(columns) on \(threads) thread(s)")
            }
        }
    }
}

