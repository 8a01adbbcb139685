import Testing
@testable import Kernels

@Suite("1x1 convolution")
struct PointwiseTests {
    static let channelPairs: [(Int, Int)] = [
        (1, 1), (3, 7), (7, 3), (16, 16), (17, 24), (24, 72), (72, 24), (88, 24), (24, 88), (96, 32),
        (32, 128), (128, 32), (16, 17), (3, 9), (24, 15), (9, 16), (40, 16),
    ]
    static let sizes: [(Int, Int)] = [(1, 1), (3, 5), (7, 9), (16, 16), (5, 13), (2, 37)]

    func run(cin: Int, cout: Int, height: Int, width: Int, activation: Activation, outputPad: Int,
             withResidual: Bool, threads: Int, seed: UInt64) -> (actual: [Float], expected: [Expected], border: Bool) {
        var random = Random(seed: seed)
        let x = random.array(cin * height * width)
        let w = random.array(cin * cout, scale: 0.5)
        let b = random.array(cout)
        let res = withResidual ? random.array(cout * height * width) : nil
        let weights = PointwiseWeights(weights: w, bias: b, outputChannels: cout, inputChannels: cin)
        let input = makeMap(x, channels: cin, layout: .dense(width: width, height: height))
        let outLayout = PlaneLayout.padded(width: width, height: height, pad: outputPad)
        let output = FeatureMapStorage(channels: cout, layout: outLayout)
        let residual = res.map { makeMap($0, channels: cout, layout: .dense(width: width, height: height)) }
        let pool = WorkerPool(threads: threads)
        pointwiseConvolution(input.map, weights: weights, activation: activation, residual: residual?.map,
                             output: output.map, pool: pool)
        let expected = referenceConvolution(input: x, channels: cin, height: height, width: width, weights: w, bias: b,
                                            outputChannels: cout, kernelSize: 1, stride: 1, padTop: 0, padLeft: 0,
                                            outHeight: height, outWidth: width, groups: 1, activation: activation,
                                            residual: res)
        return (output.interior(), expected, borderIsZero(output))
    }

    @Test("matches the naive loop for channel counts 1…128 and odd sizes, all activations")
    func sweep() {
        var seed: UInt64 = 1
        for (cin, cout) in Self.channelPairs {
            for (h, w) in Self.sizes {
                for activation in [Activation.none, .relu, .hardSwish] {
                    seed += 1
                    let r = run(cin: cin, cout: cout, height: h, width: w, activation: activation, outputPad: 0,
                                withResidual: false, threads: 1, seed: seed)
                    expectClose(r.actual, r.expected, "1x1 \(cin)->\(cout) \(h)x\(w) \(activation)")
                }
            }
        }
    }

    @Test("writes a padded output's interior only, and adds a residual after the activation")
    func paddedOutputAndResidual() {
        for (cin, cout) in [(16, 72), (24, 17), (7, 8)] {
            for (h, w) in [(16, 16), (5, 13), (64, 3)] {
                for pad in [1, 2] {
                    let r = run(cin: cin, cout: cout, height: h, width: w, activation: .relu, outputPad: pad,
                                withResidual: true, threads: 1, seed: UInt64(cin * 1000 + h * 10 + pad))
                    expectClose(r.actual, r.expected, "1x1 \(cin)->\(cout) \(h)x\(w) pad \(pad)")
                    #expect(r.border, "border of the padded output stays zero")
                }
            }
        }
    }

    @Test("into padded outputs whose chunks cross row ends (row pieces from the registers, or row segments stored whole): bit-equal to a dense output, with and without a dense residual (and a rectified sum), borders and rows past a band view stay zero; widths 1 to 40, pads 1 to 3, 1 and 2 threads")
    func paddedRowSegments() {
        var seed: UInt64 = 4000
        for (cin, cout) in [(3, 5), (16, 24), (24, 17), (9, 40)] {
            for (h, w) in [(1, 1), (3, 1), (7, 2), (5, 3), (6, 5), (11, 7), (4, 12), (9, 13), (3, 15), (5, 16), (4, 17), (13, 20), (24, 12), (6, 24), (5, 40), (10, 5), (9, 6), (8, 8), (7, 14), (5, 28)] {
                seed += 1
                let pad = 1 + Int(seed % 3), threads = 1 + Int(seed / 3 % 2)
                let activation = [Activation.none, .relu, .relu6, .hardSwish, .sigmoid, .silu][Int(seed % 6)]
                var random = Random(seed: seed)
                let x = random.array(cin * h * w)
                let weights = PointwiseWeights(weights: random.array(cin * cout, scale: 0.5), bias: random.array(cout),
                                               outputChannels: cout, inputChannels: cin)
                let input = makeMap(x, channels: cin, layout: .dense(width: w, height: h))
                let pool = WorkerPool(threads: threads)
                let dense = FeatureMapStorage(channels: cout, layout: .dense(width: w, height: h))
                pointwiseConvolution(input.map, weights: weights, activation: activation, output: dense.map, pool: pool)
                let padded = FeatureMapStorage(channels: cout, layout: .padded(width: w, height: h, pad: pad))
                pointwiseConvolution(input.map, weights: weights, activation: activation, output: padded.map, pool: pool)
                let what = "1x1 \(cin)->\(cout) \(h)x\(w) pad \(pad) \(activation) \(threads) threads"
                #expect(padded.interior().elementsEqual(dense.interior()) { $0.bitPattern == $1.bitPattern }, "\(what)")
                #expect(borderIsZero(padded), "\(what): border written")
                // A band view (the banded 1x1 + depthwise writes rows of a taller zero-bordered
                // buffer): the rows above and below the view stay zero.
                let band = FeatureMapStorage(channels: cout, layout: .padded(width: w, height: h + 5, pad: pad))
                pointwiseConvolution(input.map, weights: weights, activation: activation, output: band.map.rows(from: 2, count: h),
                                     pool: pool)
                var inside: [Float] = [], outside = 0
                for c in 0..<cout {
                    for y in 0..<(h + 5) {
                        for column in 0..<w {
                            let value = band.buffer.baseAddress[band.layout.offset(channel: c, y: y, x: column)]
                            if y >= 2 && y < 2 + h { inside.append(value) } else if value != 0 { outside += 1 }
                        }
                    }
                }
                #expect(inside.elementsEqual(dense.interior()) { $0.bitPattern == $1.bitPattern }, "\(what), band view")
                #expect(outside == 0 && borderIsZero(band), "\(what), band view: \(outside) values outside it written")
                // A dense residual added after the activation, the sum rectified in every other case.
                let residual = makeMap(random.array(cout * h * w), channels: cout, layout: .dense(width: w, height: h))
                let rectifies = seed % 2 == 0
                pointwiseConvolution(input.map, weights: weights, activation: activation, residual: residual.map,
                                     rectifiesSum: rectifies, output: dense.map, pool: pool)
                pointwiseConvolution(input.map, weights: weights, activation: activation, residual: residual.map,
                                     rectifiesSum: rectifies, output: padded.map, pool: pool)
                #expect(padded.interior().elementsEqual(dense.interior()) { $0.bitPattern == $1.bitPattern },
                        "\(what), residual, rectified \(rectifies)")
                #expect(borderIsZero(padded), "\(what), residual: border written")
            }
        }
    }

    @Test("written over its own input, equals the result into a separate output")
    func inPlace() {
        for channels in [8, 9, 15, 16, 17, 24, 40] {
            for (h, w) in [(1, 1), (7, 9), (16, 16), (3, 50)] {
                var random = Random(seed: UInt64(channels * 100 + h))
                let x = random.array(channels * h * w)
                let weights = PointwiseWeights(weights: random.array(channels * channels, scale: 0.5),
                                               bias: random.array(channels), outputChannels: channels, inputChannels: channels)
                let layout = PlaneLayout.dense(width: w, height: h)
                let input = makeMap(x, channels: channels, layout: layout)
                let apart = FeatureMapStorage(channels: channels, layout: layout)
                let pool = WorkerPool(threads: 2)
                pointwiseConvolution(input.map, weights: weights, activation: .relu, output: apart.map, pool: pool)
                pointwiseConvolution(input.map, weights: weights, activation: .relu, output: input.map, pool: pool)
                let differing = zip(input.interior(), apart.interior()).filter { $0 != $1 }.count
                #expect(differing == 0, "1x1 \(channels)->\(channels) \(h)x\(w) in place: \(differing) values differ")
            }
        }
    }

    @Test("the pixels past the whole 48-pixel chunks of a small map as one more column of the chunks' tiles (7x7, 7x14, 1x97, 1x151): bias then one multiply-add per input channel in order, bit for bit; partial channel tiles, channels into the thousands, dense and padded outputs, residual and rectified sum, in place, 1 and 2 threads")
    func extraColumns() {
        var seed: UInt64 = 7000
        for (h, w) in [(7, 7), (7, 14), (1, 97), (1, 151), (3, 50)] {
            for (cin, cout) in [(1, 1), (5, 3), (16, 16), (17, 23), (40, 96), (192, 13), (1365, 320), (2048, 25)]
            where cin * cout * h * w <= 45_000_000 {
                seed += 1
                let pad = Int(seed % 3), threads = 1 + Int(seed % 2), rectifies = seed % 4 == 0
                let activation = seed % 2 == 0 ? Activation.relu : .none
                var random = Random(seed: seed)
                let x = random.array(cin * h * w), wts = random.array(cin * cout, scale: 0.5), b = random.array(cout)
                let res = random.array(cout * h * w)
                let weights = PointwiseWeights(weights: wts, bias: b, outputChannels: cout, inputChannels: cin)
                let input = makeMap(x, channels: cin, layout: .dense(width: w, height: h))
                let residual = makeMap(res, channels: cout, layout: .dense(width: w, height: h))
                let output = FeatureMapStorage(channels: cout, layout: .padded(width: w, height: h, pad: pad))
                let pool = WorkerPool(threads: threads)
                pool.reserve(pointwiseScratch(inputChannels: cin))
                pointwiseConvolution(input.map, weights: weights, activation: activation, residual: residual.map,
                                     rectifiesSum: rectifies, output: output.map, pool: pool)
                var expected = [Float](repeating: 0, count: cout * h * w)
                for o in 0..<cout {
                    for p in 0..<(h * w) {
                        var y = b[o]
                        for i in 0..<cin { y = multiplyAdd(y, wts[o * cin + i], x[i * h * w + p]) }
                        if activation == .relu && y < 0 { y = 0 }
                        y += res[o * h * w + p]
                        if rectifies && y < 0 { y = 0 }
                        expected[o * h * w + p] = y
                    }
                }
                let what = "1x1 \(cin)->\(cout) \(h)x\(w) pad \(pad) \(activation) rectified \(rectifies) \(threads) threads"
                let actual = output.interior()
                let differing = (0..<actual.count).filter { actual[$0].bitPattern != expected[$0].bitPattern }
                #expect(differing.isEmpty, "\(what): \(differing.count) differ, first at \(differing.first ?? 0)")
                #expect(borderIsZero(output), "\(what): border written")
                if cin == cout {
                    let apart = FeatureMapStorage(channels: cout, layout: .dense(width: w, height: h))
                    pointwiseConvolution(input.map, weights: weights, activation: activation, output: apart.map, pool: pool)
                    pointwiseConvolution(input.map, weights: weights, activation: activation, output: input.map, pool: pool)
                    #expect(input.interior() == apart.interior(), "\(what): in place")
                }
            }
        }
    }

    @Test("is bit-identical on 1 and 2 threads: pixels split, and on maps of fewer 48-pixel chunks than threads (7x7, 5x5, 1x1, 6x8) tiles of output channels split, odd tile counts and a partial last tile")
    func threadsAgree() {
        for (cin, cout, h, w) in [(16, 72, 64, 64), (72, 24, 32, 32), (17, 9, 7, 59), (128, 32, 16, 16), (192, 1152, 7, 7),
                                  (320, 1280, 7, 7), (64, 20, 5, 5), (33, 17, 1, 1), (96, 24, 6, 8), (24, 8, 9, 9), (40, 9, 7, 7)] {
            let one = run(cin: cin, cout: cout, height: h, width: w, activation: .hardSwish, outputPad: 1,
                          withResidual: true, threads: 1, seed: 99)
            let two = run(cin: cin, cout: cout, height: h, width: w, activation: .hardSwish, outputPad: 1,
                          withResidual: true, threads: 2, seed: 99)
            #expect(one.actual == two.actual, "1x1 \(cin)->\(cout) \(h)x\(w)")
            expectClose(two.actual, two.expected, "1x1 2 threads \(cin)->\(cout)")
        }
    }
}
