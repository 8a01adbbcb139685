import Testing
@testable import Kernels

@Suite("Matrix products: GEMM and the transposed convolution by taps")
struct MatrixTests {
    @Test("matrixMultiply is bias + Σ_k a[m][k]·B[k][n] for odd M, K, N (tails of rows and columns), on 1 and 2 threads")
    func gemm() {
        // One row: 1 to 4 panels per row tile and a partial last panel (129, 300); rows fewer
        // than 4 per thread: panels split between threads (2, 7).
        for (m, k, n) in [(1, 1, 1), (3, 5, 7), (4, 16, 32), (5, 17, 33), (9, 64, 2), (2, 3, 50), (13, 1, 16),
                          (1, 37, 300), (1, 5, 129), (1, 64, 128), (2, 9, 200), (7, 3, 97)] {
            var random = Random(seed: UInt64(m * 1000 + k * 10 + n))
            let a = random.array(m * k), b = random.array(k * n, scale: 0.5), bias = random.array(n)
            let weights = MatrixWeights(values: b, bias: bias, inner: k, columns: n)
            var expected: [Expected] = []
            for i in 0..<m {
                for j in 0..<n {
                    var sum = Double(bias[j]), magnitude = abs(sum)
                    for p in 0..<k {
                        let term = Double(a[i * k + p]) * Double(b[p * n + j])
                        sum += term
                        magnitude += abs(term)
                    }
                    expected.append(Expected(value: sum, scale: magnitude))
                }
            }
            var results: [[Float]] = []
            for threads in [1, 2] {
                var output = [Float](repeating: .nan, count: m * n)
                a.withUnsafeBufferPointer { source in
                    output.withUnsafeMutableBufferPointer { destination in
                        matrixMultiply(source.baseAddress!, rows: m, weights: weights, output: destination.baseAddress!,
                                       pool: WorkerPool(threads: threads))
                    }
                }
                results.append(output)
            }
            expectClose(results[0], expected, "\(m)x\(k) · \(k)x\(n)")
            #expect(results[0] == results[1], "\(m)x\(k)x\(n): 1 and 2 threads differ")
        }
    }

    @Test("packedMatrixMultiply equals matrixMultiply bit for bit: rows in panels of 12 (4 to 30 rows), columns over several panels, 1 and 2 threads")
    func packedGemm() {
        for (m, k, n) in [(4, 1, 1), (11, 5, 7), (12, 16, 32), (13, 17, 33), (24, 64, 2), (25, 3, 65), (30, 9, 200), (9, 4608, 40)] {
            var random = Random(seed: UInt64(m * 7919 + k * 31 + n))
            let a = random.array(m * k), b = random.array(k * n, scale: 0.5), bias = random.array(n)
            let weights = MatrixWeights(values: b, bias: bias, inner: k, columns: n)
            var packed = [Float](repeating: 0, count: packedOperandCount(rows: m, inner: k))
            for i in 0..<m {
                for p in 0..<k { packed[packedOperandOffset(row: i, k: p, inner: k)] = a[i * k + p] }
            }
            var unpacked = [Float](repeating: .nan, count: m * n)
            a.withUnsafeBufferPointer { source in
                unpacked.withUnsafeMutableBufferPointer { destination in
                    matrixMultiply(source.baseAddress!, rows: m, weights: weights, output: destination.baseAddress!,
                                   pool: WorkerPool(threads: 1))
                }
            }
            for threads in [1, 2] {
                var output = [Float](repeating: .nan, count: m * n)
                packed.withUnsafeBufferPointer { source in
                    output.withUnsafeMutableBufferPointer { destination in
                        packedMatrixMultiply(source.baseAddress!, rows: m, weights: weights, output: destination.baseAddress!,
                                             pool: WorkerPool(threads: threads))
                    }
                }
                #expect(output == unpacked, "\(m)x\(k) · \(k)x\(n) on \(threads) thread(s): packed and unpacked differ")
            }
        }
    }

    @Test("rowMajorMatrixMultiply (A read where it lies, twelve rows at a time) equals matrixMultiply bit for bit, with and without a function after it: 5 to 200 rows (blocks of rows crossed), inner 1 to 1536, 1 and 2 threads")
    func rowMajorGemm() {
        #expect(rowMajorBlockRows(inner: 384) == 168 && rowMajorBlockRows(inner: 1536) == 36)
        for (m, k, n) in [(5, 1, 1), (11, 7, 33), (12, 96, 384), (13, 384, 40), (16, 1536, 70), (23, 5, 97), (40, 31, 64),
                          (169, 384, 40), (200, 384, 96), (73, 1536, 33), (37, 6000, 8)] {
            var random = Random(seed: UInt64(m * 104_729 + k * 37 + n))
            let a = random.array(m * k, scale: 2), b = random.array(k * n, scale: 0.5), bias = random.array(n)
            let weights = MatrixWeights(values: b, bias: bias, inner: k, columns: n)
            for function in [nil, VectorFunction.gelu(.dividedBySqrt2), .activation(.relu)] {
                var unpacked = [Float](repeating: .nan, count: m * n)
                a.withUnsafeBufferPointer { source in
                    unpacked.withUnsafeMutableBufferPointer { destination in
                        matrixMultiply(source.baseAddress!, rows: m, weights: weights, output: destination.baseAddress!,
                                       function: function, pool: WorkerPool(threads: 1))
                    }
                }
                for threads in [1, 2] {
                    var output = [Float](repeating: .nan, count: m * n)
                    a.withUnsafeBufferPointer { source in
                        output.withUnsafeMutableBufferPointer { destination in
                            rowMajorMatrixMultiply(source.baseAddress!, rows: m, weights: weights,
                                                   output: destination.baseAddress!, function: function,
                                                   pool: WorkerPool(threads: threads))
                        }
                    }
                    let what = "\(m)x\(k) · \(k)x\(n), \(String(describing: function)), \(threads) thread(s)"
                    #expect(output.map(\.bitPattern) == unpacked.map(\.bitPattern), "\(what): row-major and unpacked differ")
                }
            }
        }
    }

    @Test("transposedConvolution matches the ONNX ConvTranspose definition for strides 1-3, windows 1-4, dilation and pads")
    func transposedByTaps() {
        let cases: [(k: Int, s: Int, d: Int, pad: Int, extra: Int)] = [
            (2, 2, 1, 0, 0), (3, 2, 1, 1, 1), (3, 3, 1, 0, 0), (4, 2, 1, 1, 0), (3, 1, 2, 2, 0), (1, 1, 1, 0, 0), (3, 2, 1, 0, 1),
        ]
        for (index, c) in cases.enumerated() {
            let (cin, cout, h, w) = (5, 3, 7, 9)
            let outH = (h - 1) * c.s - 2 * c.pad + (c.k - 1) * c.d + 1 + c.extra
            let outW = (w - 1) * c.s - 2 * c.pad + (c.k - 1) * c.d + 1 + c.extra
            var random = Random(seed: UInt64(50 + index))
            let x = random.array(cin * h * w), weights = random.array(cin * cout * c.k * c.k, scale: 0.5)
            let bias = random.array(cout)
            var sums = [Double](repeating: 0, count: cout * outH * outW), magnitudes = sums
            for o in 0..<cout {
                for p in 0..<outH * outW { sums[o * outH * outW + p] = Double(bias[o]); magnitudes[o * outH * outW + p] = abs(Double(bias[o])) }
            }
            for i in 0..<cin {
                for y in 0..<h {
                    for xx in 0..<w {
                        for o in 0..<cout {
                            for ky in 0..<c.k {
                                for kx in 0..<c.k {
                                    let oy = y * c.s - c.pad + ky * c.d, ox = xx * c.s - c.pad + kx * c.d
                                    guard oy >= 0, oy < outH, ox >= 0, ox < outW else { continue }
                                    let term = Double(x[(i * h + y) * w + xx]) * Double(weights[((i * cout + o) * c.k + ky) * c.k + kx])
                                    sums[(o * outH + oy) * outW + ox] += term
                                    magnitudes[(o * outH + oy) * outW + ox] += abs(term)
                                }
                            }
                        }
                    }
                }
            }
            let expected = zip(sums, magnitudes).map { Expected(value: $0, scale: $1) }
            let taps = TapWeights(weights: weights, bias: bias, inputChannels: cin, outputChannels: cout,
                                  kernelHeight: c.k, kernelWidth: c.k)
            let input = makeMap(x, channels: cin, layout: .dense(width: w, height: h))
            var results: [[Float]] = []
            for threads in [1, 2] {
                let output = FeatureMapStorage(channels: cout, layout: .dense(width: outW, height: outH))
                let pool = WorkerPool(threads: threads)
                pool.reserve(transposedConvolutionScratch(taps, inputPixels: h * w))
                transposedConvolution(input.map, weights: taps, strideHeight: c.s, strideWidth: c.s, dilationHeight: c.d,
                                      dilationWidth: c.d, padTop: c.pad, padLeft: c.pad, output: output.map, pool: pool)
                results.append(output.interior())
            }
            expectClose(results[0], expected, "tconv k\(c.k) s\(c.s) d\(c.d) pad \(c.pad)")
            #expect(results[0] == results[1], "tconv k\(c.k) s\(c.s): 1 and 2 threads differ")
        }
    }
}
