import Testing
@testable import Kernels

@Suite("1x1 convolution on small maps as the packed GEMM")
struct SmallMapPointwiseTests {
    /// `smallMapPointwise` and `pointwiseConvolution` on the same input, weights, activation,
    /// residual and output layout; returns both interiors, whether the small-map output's border
    /// stayed zero, and the naive loop's result.
    static func run(cin: Int, cout: Int, height: Int, width: Int, activation: Activation, outputPad: Int,
                    residualPad: Int?, threads: Int, seed: UInt64)
        -> (small: [Float], pointwise: [Float], border: Bool, expected: [Expected]) {
        var random = Random(seed: seed)
        let x = random.array(cin * height * width)
        let w = random.array(cin * cout, scale: 0.5)
        let b = random.array(cout)
        let res = residualPad.map { _ in random.array(cout * height * width) }
        let input = makeMap(x, channels: cin, layout: .dense(width: width, height: height))
        let residual = res.map { makeMap($0, channels: cout, layout: .padded(width: width, height: height, pad: residualPad!)) }
        let layout = PlaneLayout.padded(width: width, height: height, pad: outputPad)
        let small = FeatureMapStorage(channels: cout, layout: layout)
        let direct = FeatureMapStorage(channels: cout, layout: layout)
        var columns = [Float](repeating: 0, count: cin * cout)
        for o in 0..<cout {
            for i in 0..<cin { columns[i * cout + o] = w[o * cin + i] }
        }
        let pool = WorkerPool(threads: threads)
        let matrix = MatrixWeights(values: columns, bias: b, inner: cin, columns: cout)
        pool.reserve(smallMapPointwiseScratch(pixels: height * width, weights: matrix))
        // What other kernels leave in the scratch: the patches' padding rows must not read it.
        pool.shared.update(repeating: .nan)
        smallMapPointwise(input.map, weights: matrix,
                          activation: activation, residual: residual?.map, output: small.map, pool: pool)
        pointwiseConvolution(input.map, weights: PointwiseWeights(weights: w, bias: b, outputChannels: cout, inputChannels: cin),
                             activation: activation, residual: residual?.map, output: direct.map, pool: pool)
        let expected = referenceConvolution(input: x, channels: cin, height: height, width: width, weights: w, bias: b,
                                            outputChannels: cout, kernelSize: 1, stride: 1, padTop: 0, padLeft: 0,
                                            outHeight: height, outWidth: width, groups: 1, activation: activation,
                                            residual: res)
        return (small.interior(), direct.interior(), borderIsZero(small), expected)
    }

    @Test("equals the pointwise kernel bit for bit: 1 to 70 pixels (around the 12-row panels), channels 1 to 1283, every activation, residuals and padded outputs, 1 and 2 threads")
    func equalsPointwise() {
        // Map sides: one pixel, one row, one column, the panels' edges (11, 12, 13, 24, 25 pixels), 63, 64, 70.
        let sides = [(1, 1), (1, 2), (1, 3), (2, 2), (1, 11), (3, 4), (13, 1), (4, 6), (5, 5), (3, 3), (7, 9), (8, 8), (7, 10), (6, 6)]
        let channels = [(1, 1), (3, 7), (16, 16), (17, 33), (31, 32), (33, 31), (96, 576), (576, 96), (320, 1283), (1283, 17), (160, 960), (2, 129)]
        var seed: UInt64 = 1
        for (index, (h, w)) in sides.enumerated() {
            for (cin, cout) in channels where cin * cout * h * w <= 1 << 21 {
                seed += 1
                let activations: [Activation] = [.none, .relu, .relu6, .hardSwish, .sigmoid, .silu]
                let activation = activations[Int(seed) % activations.count]
                let outputPad = [0, 1, 2][index % 3]
                let residualPad: Int? = [nil, 0, 2][Int(seed) % 3]
                let r = Self.run(cin: cin, cout: cout, height: h, width: w, activation: activation, outputPad: outputPad,
                                 residualPad: residualPad, threads: 1 + Int(seed) % 2, seed: seed)
                let what = "\(cin)->\(cout) on \(h)x\(w), \(activation), output pad \(outputPad), residual \(String(describing: residualPad))"
                let differing = zip(r.small, r.pointwise).filter { $0.bitPattern != $1.bitPattern }.count
                #expect(differing == 0, "\(what): \(differing) values differ from the pointwise kernel")
                #expect(r.border, "\(what): border of the padded output written")
                expectClose(r.small, r.expected, what)
            }
        }
    }

    @Test("written over its own input, and with the residual being the output, equals the result into separate buffers")
    func inPlace() {
        for channels in [1, 9, 16, 17, 96] {
            for (h, w) in [(1, 1), (1, 3), (3, 3), (5, 7)] {
                var random = Random(seed: UInt64(channels * 100 + h * 10 + w))
                let x = random.array(channels * h * w)
                let weights = MatrixWeights(values: random.array(channels * channels, scale: 0.5), bias: random.array(channels),
                                            inner: channels, columns: channels)
                let layout = PlaneLayout.dense(width: w, height: h)
                let pool = WorkerPool(threads: 2)
                pool.reserve(smallMapPointwiseScratch(pixels: h * w, weights: weights))
                let input = makeMap(x, channels: channels, layout: layout)
                let apart = FeatureMapStorage(channels: channels, layout: layout)
                let residual = makeMap(x, channels: channels, layout: layout)
                smallMapPointwise(input.map, weights: weights, activation: .relu, residual: residual.map, output: apart.map, pool: pool)
                // Input, output and residual all one buffer.
                smallMapPointwise(input.map, weights: weights, activation: .relu, residual: input.map, output: input.map, pool: pool)
                let differing = zip(input.interior(), apart.interior()).filter { $0.bitPattern != $1.bitPattern }.count
                #expect(differing == 0, "\(channels) channels on \(h)x\(w) in place: \(differing) values differ")
            }
        }
    }

    @Test("rectifying the sum with the residual equals the unrectified result raised to 0 (NaN kept), bit for bit, on both 1x1 kernels: stores direct and spilled, squares and lanes, tails, padded outputs and residuals, 1 and 2 threads")
    func rectifiedSum() {
        // Pixels: one, a vector's tail, the small map's lanes (< 16) and squares, the pointwise kernel's 48-pixel chunks ± 1.
        let sides = [(1, 1), (3, 3), (1, 15), (4, 4), (5, 7), (7, 7), (47, 1), (6, 8), (1, 49), (10, 10), (16, 16)]
        var seed: UInt64 = 900
        for (index, (h, w)) in sides.enumerated() {
            for (cin, cout) in [(3, 5), (16, 24), (33, 17), (64, 72)] {
                seed += 1
                var random = Random(seed: seed)
                let x = random.array(cin * h * w)
                let matrix = random.array(cin * cout, scale: 0.5), bias = random.array(cout)
                var sum = random.array(cout * h * w)
                sum[cout * h * w / 2] = .nan
                let input = makeMap(x, channels: cin, layout: .dense(width: w, height: h))
                let residual = makeMap(sum, channels: cout, layout: .padded(width: w, height: h, pad: [0, 2][index % 2]))
                let layout = PlaneLayout.padded(width: w, height: h, pad: [0, 1, 2][Int(seed) % 3])
                let activation = [Activation.none, .relu, .hardSwish][Int(seed) % 3]
                let pool = WorkerPool(threads: 1 + Int(seed) % 2)
                var columns = [Float](repeating: 0, count: cin * cout)
                for o in 0..<cout {
                    for i in 0..<cin { columns[i * cout + o] = matrix[o * cin + i] }
                }
                let small = MatrixWeights(values: columns, bias: bias, inner: cin, columns: cout)
                let pointwise = PointwiseWeights(weights: matrix, bias: bias, outputChannels: cout, inputChannels: cin)
                pool.reserve(smallMapPointwiseScratch(pixels: h * w, weights: small).union(pointwiseScratch(inputChannels: cin)))
                let outputs = (0..<4).map { _ in FeatureMapStorage(channels: cout, layout: layout) }
                smallMapPointwise(input.map, weights: small, activation: activation, residual: residual.map, output: outputs[0].map, pool: pool)
                smallMapPointwise(input.map, weights: small, activation: activation, residual: residual.map, rectifiesSum: true,
                                  output: outputs[1].map, pool: pool)
                pointwiseConvolution(input.map, weights: pointwise, activation: activation, residual: residual.map,
                                     output: outputs[2].map, pool: pool)
                pointwiseConvolution(input.map, weights: pointwise, activation: activation, residual: residual.map, rectifiesSum: true,
                                     output: outputs[3].map, pool: pool)
                // The Relu node: x < 0 ? 0 : x.
                let expected = outputs[0].interior().map { $0 < 0 ? 0 : $0 }
                #expect(expected.contains { $0.isNaN } && expected.contains(0) && expected.contains { $0 > 0 })
                let what = "\(cin)->\(cout) on \(h)x\(w), \(activation), output \(layout), residual \(residual.layout)"
                for (name, output) in [("small-map", outputs[1]), ("pointwise", outputs[3])] {
                    let differing = zip(output.interior(), expected).filter { $0.bitPattern != $1.bitPattern }.count
                    #expect(differing == 0, "\(name) \(what): \(differing) values differ")
                    #expect(borderIsZero(output), "\(name) \(what): border written")
                }
                let unrectified = zip(outputs[0].interior(), outputs[2].interior()).filter { $0.bitPattern != $1.bitPattern }.count
                #expect(unrectified == 0, "\(what): the kernels differ before rectifying")
            }
        }
    }

    @Test("allocates nothing while it runs")
    func allocatesNothing() {
        let (cin, cout, h, w) = (40, 120, 5, 7)
        var random = Random(seed: 3)
        let input = makeMap(random.array(cin * h * w), channels: cin, layout: .dense(width: w, height: h))
        let weights = MatrixWeights(values: random.array(cin * cout), bias: nil, inner: cin, columns: cout)
        let output = FeatureMapStorage(channels: cout, layout: .padded(width: w, height: h, pad: 1))
        let pool = WorkerPool(threads: 1)
        pool.reserve(smallMapPointwiseScratch(pixels: h * w, weights: weights))
        let run = {
            smallMapPointwise(input.map, weights: weights, activation: .hardSwish, residual: nil, output: output.map, pool: pool)
        }
        run()
        #expect(allocations(run) == 0)
    }
}
