import Testing
@testable import Kernels

@Suite("Dense K×K convolution vectorised over output channels")
struct SmallMapConvolutionTests {
    struct Case: CustomStringConvertible {
        var cin: Int, cout: Int, height: Int, width: Int, k: Int, stride: Int = 1, dilation: Int = 1
        var pads: (top: Int, left: Int, bottom: Int, right: Int)
        var activation: Activation = .relu, outputPad: Int = 0, threads: Int = 1

        var span: Int { (k - 1) * dilation + 1 }
        var outHeight: Int { (height + pads.top + pads.bottom - span) / stride + 1 }
        var outWidth: Int { (width + pads.left + pads.right - span) / stride + 1 }
        var description: String {
            "\(cin)->\(cout) k\(k) s\(stride) d\(dilation) pads \(pads) on \(height)x\(width) → \(outHeight)x\(outWidth), "
                + "\(activation), output pad \(outputPad), \(threads) thread(s)"
        }
    }

    static func check(_ c: Case, seed: UInt64) {
        let r = run(c, seed: seed)
        // The same sums in the same order; a tap the direct kernel skips in the padding adds ±0 here.
        let differing = zip(r.small, r.direct).filter { $0 != $1 }.count
        #expect(differing == 0, "\(c): \(differing) values differ from the direct kernel")
        #expect(r.border, "\(c): border of the padded output written")
        expectClose(r.small, r.expected, "\(c)")
    }

    @Test("equals the direct kernel: output rows of 1 to 20 pixels (the 4-, 8- and 12-pixel tiles ± 1), 3x3 and 5x5, strides 1 and 2")
    func rowWidths() {
        var seed: UInt64 = 100
        for width in [1, 2, 3, 4, 5, 7, 8, 9, 11, 12, 13, 16, 17, 20] {
            for (k, stride) in [(3, 1), (3, 2), (5, 1), (5, 2)] {
                seed += 1
                let pad = k / 2, input = (width - 1) * stride + 1
                let c = Case(cin: 5, cout: 33, height: 3 + Int(seed % 3), width: input, k: k, stride: stride,
                             pads: (pad, pad, pad, pad), activation: [.none, .relu, .relu6, .hardSwish, .sigmoid, .silu][Int(seed) % 6],
                             outputPad: Int(seed) % 3)
                Self.check(c, seed: seed)
            }
        }
    }

    @Test("equals the direct kernel: channels from 1 to 2048 (the 32-channel panels ± 1), one and two threads")
    func channelCounts() {
        var seed: UInt64 = 200
        for (cin, cout) in [(1, 1), (3, 64), (16, 64), (17, 31), (32, 32), (33, 65), (64, 256), (96, 17), (512, 33), (2048, 16)] {
            for (h, w) in [(1, 1), (4, 4), (3, 17), (8, 8)] where cin * cout * h * w <= 1 << 20 {
                seed += 1
                Self.check(Case(cin: cin, cout: cout, height: h, width: w, k: 3, pads: (1, 1, 1, 1), threads: 1 + Int(seed % 2)),
                           seed: seed)
            }
        }
    }

    @Test("equals the direct kernel across blocks of input channels (a tile goes on from the sums it stored): 3x3 at the block of 455 ± 1 and 911, 5x5 at 163 ± 1, rows of 8 and chunks across row ends")
    func channelBlocks() {
        var seed: UInt64 = 400
        #expect(smallMapChannelBlock(kernelSize: 3) == 455 && smallMapChannelBlock(kernelSize: 5) == 163)
        for (cin, k) in [(454, 3), (455, 3), (456, 3), (911, 3), (162, 5), (163, 5), (164, 5), (400, 5)] {
            for (h, w) in [(2, 8), (3, 5)] {
                seed += 1
                Self.check(Case(cin: cin, cout: 40, height: h, width: w, k: k, pads: (k / 2, k / 2, k / 2, k / 2),
                                activation: .relu, threads: 1 + Int(seed % 2)), seed: seed)
            }
        }
    }

    @Test("equals the direct kernel: dilation, asymmetric and zero pads, windows 2 to 7")
    func windows() {
        var seed: UInt64 = 300
        for (k, dilation, pads) in [(3, 2, (2, 2, 2, 2)), (3, 3, (3, 1, 0, 3)), (2, 1, (0, 0, 1, 1)), (4, 1, (1, 2, 2, 1)),
                                    (7, 1, (3, 3, 3, 3)), (3, 1, (0, 0, 0, 0)), (5, 2, (4, 4, 4, 4))] {
            for stride in [1, 2] {
                seed += 1
                let c = Case(cin: 7, cout: 40, height: 9, width: 11, k: k, stride: stride, dilation: dilation, pads: pads,
                             activation: .hardSwish, outputPad: 1)
                guard c.outHeight >= 1, c.outWidth >= 1 else { continue }
                Self.check(c, seed: seed)
            }
        }
    }

    @Test("rows of tiles skip the taps that read only the border: dilations up to the map's width (FCN's dilated stages on 8×8 maps), rows of taps or whole windows in the border, 12-pixel tiles with an edge tile of 4 or 8")
    func borderTaps() {
        var seed: UInt64 = 500
        let cases: [(size: (Int, Int), k: Int, stride: Int, dilation: Int, pads: (Int, Int, Int, Int))] = [
            ((8, 8), 3, 1, 4, (4, 4, 4, 4)), ((8, 8), 3, 1, 2, (2, 2, 2, 2)), ((4, 4), 3, 1, 4, (4, 4, 4, 4)),
            ((8, 8), 3, 1, 8, (8, 8, 8, 8)), ((12, 12), 3, 1, 6, (6, 6, 6, 6)), ((16, 16), 3, 1, 8, (8, 8, 8, 8)),
            ((20, 20), 3, 1, 12, (12, 12, 12, 12)), ((8, 8), 5, 1, 3, (6, 6, 6, 6)), ((8, 8), 3, 1, 3, (3, 3, 0, 3)),
            ((4, 8), 3, 1, 1, (5, 1, 0, 1)), ((15, 15), 3, 2, 4, (4, 4, 4, 4)), ((16, 16), 3, 2, 2, (2, 2, 2, 2)),
        ]
        for (size, k, stride, dilation, pads) in cases {
            seed += 1
            let c = Case(cin: 19, cout: 40, height: size.0, width: size.1, k: k, stride: stride, dilation: dilation, pads: pads,
                         activation: [.none, .relu, .hardSwish][Int(seed) % 3], outputPad: Int(seed) % 2, threads: 1 + Int(seed) % 2)
            #expect(c.outWidth % 4 == 0, "\(c): rows of tiles need rows a multiple of 4 wide")
            Self.check(c, seed: seed)
        }
    }

    @Test("strides 3 and 4, windows 8 to 11 (AlexNet's 11x11 stride-4 stem), which only this kernel runs: chunks of 12 ± 1 pixels across row ends, 1x1 outputs, pads 0 to 5, 40 channels across the block of 33, equal to the naive loop's sums",
          .enabled(if: smallMapTilesSpanRows))
    func largeWindowsAndStrides() {
        var seed: UInt64 = 700
        let cases: [(k: Int, stride: Int, pad: Int, size: (Int, Int), cin: Int, cout: Int)] = [
            (11, 4, 2, (47, 47), 3, 64), (11, 4, 2, (51, 55), 3, 33), (11, 4, 0, (11, 11), 3, 64), (11, 3, 5, (9, 7), 5, 31),
            (10, 3, 1, (20, 41), 2, 32), (9, 4, 4, (13, 13), 7, 65), (8, 2, 3, (17, 21), 4, 40), (8, 1, 0, (8, 19), 3, 16),
            (4, 4, 0, (16, 48), 3, 96), (4, 4, 0, (52, 52), 3, 32), (3, 3, 1, (25, 38), 16, 48), (5, 3, 2, (14, 14), 40, 24),
            (7, 4, 3, (29, 31), 3, 64), (2, 4, 0, (4, 4), 600, 35), (11, 4, 2, (27, 27), 40, 32),
        ]
        for (k, stride, pad, size, cin, cout) in cases {
            seed += 1
            let c = Case(cin: cin, cout: cout, height: size.0, width: size.1, k: k, stride: stride, pads: (pad, pad, pad, pad),
                         activation: [.none, .relu, .hardSwish][Int(seed) % 3], outputPad: Int(seed) % 2,
                         threads: 1 + Int(seed) % 2)
            let r = Self.run(c, direct: false, seed: seed)
            #expect(r.border, "\(c): border of the padded output written")
            expectClose(r.small, r.expected, "\(c)")
        }
    }

    @Test("windows of unequal sides (1×7, 7×1, 1×3, 3×1, 1×5, 5×1, 2×3, 3×2, 1×2) equal the square kernel run with the window written into a K×K one of zero taps: rows of tiles and chunks across row ends (widths 1 to 20), strides 1 and 2, dilation 2, channels 1 to 768 in and 1 to 192 out, one and two threads")
    func unequalSides() {
        var seed: UInt64 = 700
        let windows: [(kh: Int, kw: Int)] = [(1, 7), (7, 1), (1, 3), (3, 1), (1, 5), (5, 1), (2, 3), (3, 2), (1, 2)]
        var cases: [(cin: Int, cout: Int, h: Int, w: Int, stride: Int, dilation: Int)] = []
        for width in [1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 16, 17, 20] { cases.append((5, 33, 3 + width % 4, width, 1, 1)) }
        cases += [(3, 1, 9, 9, 2, 1), (17, 31, 17, 17, 1, 1), (64, 65, 17, 17, 2, 1), (128, 192, 9, 11, 1, 1), (33, 40, 8, 8, 1, 1),
                  (19, 32, 11, 13, 1, 2), (768, 32, 8, 8, 1, 1), (1, 1, 1, 1, 1, 1), (2, 3, 1, 17, 1, 1), (7, 9, 17, 1, 1, 1)]
        for (cin, cout, h, w, stride, dilation) in cases {
            for (kh, kw) in windows {
                seed += 1
                // "Same" pads on each axis (the larger half at the end for an even window), as Inception's.
                let pads = ((kh - 1) / 2 * dilation, (kw - 1) / 2 * dilation, kh / 2 * dilation, kw / 2 * dilation)
                let outH = (h + pads.0 + pads.2 - (kh - 1) * dilation - 1) / stride + 1
                let outW = (w + pads.1 + pads.3 - (kw - 1) * dilation - 1) / stride + 1
                let threads = 1 + Int(seed % 2)
                let what = "\(cin)->\(cout) \(kh)x\(kw) s\(stride) d\(dilation) pads \(pads) on \(h)x\(w) → \(outH)x\(outW), "
                    + "\(threads) thread(s)"
                var random = Random(seed: seed)
                let x = random.array(cin * h * w), b = random.array(cout)
                let w0 = random.array(cout * cin * kh * kw, scale: 0.5)
                // The window in a K×K one at rows offsetRows…, columns offsetColumns…, its pads grown to match.
                let k = max(kh, kw), offsetRows = (k - kh) / 2, offsetColumns = (k - kw) / 2
                var square = [Float](repeating: 0, count: cout * cin * k * k)
                for f in 0..<cout * cin {
                    for ky in 0..<kh {
                        for kx in 0..<kw { square[(f * k + ky + offsetRows) * k + kx + offsetColumns] = w0[(f * kh + ky) * kw + kx] }
                    }
                }
                let squareTop = pads.0 + offsetRows * dilation, squareLeft = pads.1 + offsetColumns * dilation
                let squareBottom = pads.2 + (k - kh - offsetRows) * dilation, squareRight = pads.3 + (k - kw - offsetColumns) * dilation
                let border = max(squareTop, squareLeft, squareBottom, squareRight)
                let input = makeMap(x, channels: cin, layout: .padded(width: w, height: h, pad: border))
                let layout = PlaneLayout.padded(width: outW, height: outH, pad: Int(seed % 2))
                let unequal = FeatureMapStorage(channels: cout, layout: layout), reference = FeatureMapStorage(channels: cout, layout: layout)
                let pool = WorkerPool(threads: threads)
                let productCount = outH * outW * cout
                pool.reserve(ScratchSize(shared: productCount))
                /// The weights as the kernel's matrix: column o is output channel o's filter.
                func matrix(_ weights: [Float], taps: Int) -> MatrixWeights {
                    let inner = cin * taps
                    var columns = [Float](repeating: 0, count: inner * cout)
                    for o in 0..<cout {
                        for i in 0..<inner { columns[i * cout + o] = weights[o * inner + i] }
                    }
                    return MatrixWeights(values: columns, bias: b, inner: inner, columns: cout)
                }
                pool.shared.update(repeating: .nan)
                smallMapConvolution(input.map, weights: matrix(w0, taps: kh * kw), kernelHeight: kh, kernelWidth: kw, stride: stride,
                                    dilation: dilation, padTop: pads.0, padLeft: pads.1, activation: .relu, output: unequal.map,
                                    products: pool.shared.baseAddress!, productCount: productCount, pool: pool)
                pool.shared.update(repeating: .nan)
                smallMapConvolution(input.map, weights: matrix(square, taps: k * k), kernelSize: k, stride: stride, dilation: dilation,
                                    padTop: squareTop, padLeft: squareLeft, activation: .relu, output: reference.map,
                                    products: pool.shared.baseAddress!, productCount: productCount, pool: pool)
                // The same fused multiply-adds in the same order; a zero tap adds ±0 to the running sum.
                let got = unequal.interior()
                let differing = zip(got, reference.interior()).filter { $0 != $1 }.count
                #expect(differing == 0, "\(what): \(differing) values differ from the square kernel's")
                #expect(borderIsZero(unequal), "\(what): border of the padded output written")
                let expected = referenceConvolution(input: x, channels: cin, height: h, width: w, weights: w0, bias: b,
                                                    outputChannels: cout, kernelSize: kh, kernelWidth: kw, stride: stride,
                                                    padTop: pads.0, padLeft: pads.1, outHeight: outH, outWidth: outW, groups: 1,
                                                    activation: .relu, dilation: dilation)
                expectClose(got, expected, what)
            }
        }
    }

    /// `smallMapConvolution` (of `groups` groups of `pairedGroupWidth` output channels, two to a
    /// panel, when `groups` is above 1) and the direct `convolution` group by group on channel
    /// slices, on the same zero-bordered input (products scratch filled with NaN first); returns
    /// both interiors (the direct one empty without `runsDirect`), whether the small-map output's
    /// border stayed zero, and the naive loop's result.
    static func run(_ c: Case, groups: Int = 1, direct runsDirect: Bool = true,
                    seed: UInt64) -> (small: [Float], direct: [Float], border: Bool, expected: [Expected]) {
        var random = Random(seed: seed)
        let gin = c.cin / groups, gout = c.cout / groups
        let x = random.array(c.cin * c.height * c.width)
        let w = random.array(c.cout * gin * c.k * c.k, scale: 0.5)
        let b = random.array(c.cout)
        let border = max(c.pads.top, c.pads.left, c.pads.bottom, c.pads.right)
        let input = makeMap(x, channels: c.cin, layout: .padded(width: c.width, height: c.height, pad: border))
        let layout = PlaneLayout.padded(width: c.outWidth, height: c.outHeight, pad: c.outputPad)
        let small = FeatureMapStorage(channels: c.cout, layout: layout), direct = FeatureMapStorage(channels: c.cout, layout: layout)
        let inner = gin * c.k * c.k
        var columns = [Float](repeating: 0, count: inner * c.cout)
        for o in 0..<c.cout {
            for i in 0..<inner { columns[i * c.cout + o] = w[o * inner + i] }
        }
        let pool = WorkerPool(threads: c.threads)
        let productCount = c.outHeight * c.outWidth * c.cout
        pool.reserve(ScratchSize(shared: productCount))
        pool.shared.update(repeating: .nan)
        smallMapConvolution(input.map, weights: MatrixWeights(values: columns, bias: b, inner: inner, columns: c.cout),
                            kernelSize: c.k, stride: c.stride, dilation: c.dilation, padTop: c.pads.top, padLeft: c.pads.left,
                            activation: c.activation, output: small.map, products: pool.shared.baseAddress!,
                            productCount: productCount, groups: groups, pool: pool)
        for g in 0..<groups where runsDirect {
            let filters = Array(w[g * gout * inner ..< (g + 1) * gout * inner]), biases = Array(b[g * gout ..< (g + 1) * gout])
            convolution(input.map.channels(g * gin, count: gin),
                        weights: ConvolutionWeights(weights: filters, bias: biases, outputChannels: gout, inputChannels: gin,
                                                    kernelSize: c.k),
                        stride: c.stride, dilation: c.dilation, padTop: c.pads.top, padLeft: c.pads.left,
                        activation: c.activation, output: direct.map.channels(g * gout, count: gout), pool: pool)
        }
        let expected = referenceConvolution(input: x, channels: c.cin, height: c.height, width: c.width, weights: w, bias: b,
                                            outputChannels: c.cout, kernelSize: c.k, stride: c.stride, padTop: c.pads.top,
                                            padLeft: c.pads.left, outHeight: c.outHeight, outWidth: c.outWidth, groups: groups,
                                            activation: c.activation, dilation: c.dilation)
        return (small.interior(), direct.interior(), borderIsZero(small), expected)
    }

    @Test("grouped, two groups of 16 output channels to a panel, equals the direct kernel group by group: 1 to 25 groups (an odd last group alone in its panel), maps 1x1 to 20x20 (chunks of 12 ± 1), strides 1 and 2, dilation, 1 to 64 input channels a group, one and two threads",
          .enabled(if: pairsGroups))
    func pairedGroups() {
        var seed: UInt64 = 600
        let cases: [(groups: Int, gin: Int, size: (Int, Int), k: Int, stride: Int, dilation: Int)] = [
            (2, 16, (40, 40), 3, 2, 1), (4, 16, (20, 20), 3, 2, 1), (4, 16, (10, 10), 3, 1, 1), (10, 16, (10, 10), 3, 2, 1),
            (10, 16, (5, 5), 3, 1, 1), (25, 16, (5, 5), 3, 2, 1), (25, 16, (3, 3), 3, 1, 1), (3, 16, (1, 1), 3, 1, 1),
            (1, 16, (7, 7), 3, 1, 1), (5, 1, (11, 13), 3, 1, 2), (2, 64, (4, 4), 3, 1, 1), (3, 7, (13, 12), 5, 2, 1),
            (6, 3, (2, 9), 3, 1, 1), (7, 2, (9, 9), 1, 1, 1),
        ]
        for (groups, gin, size, k, stride, dilation) in cases {
            seed += 1
            let pad = k / 2 * dilation
            let c = Case(cin: groups * gin, cout: groups * pairedGroupWidth, height: size.0, width: size.1, k: k, stride: stride,
                         dilation: dilation, pads: (pad, pad, pad, pad), activation: [.none, .relu, .hardSwish, .silu][Int(seed) % 4],
                         outputPad: Int(seed) % 2, threads: 1 + Int(seed) % 2)
            let r = Self.run(c, groups: groups, seed: seed)
            let differing = zip(r.small, r.direct).filter { $0 != $1 }.count
            #expect(differing == 0, "\(c), \(groups) groups: \(differing) values differ from the direct kernel")
            #expect(r.border, "\(c), \(groups) groups: border of the padded output written")
            expectClose(r.small, r.expected, "\(c), \(groups) groups")
        }
    }

    @Test("channels last: the pixel-major sums are the planar kernel's output (no activation) transposed to NHWC, bit for bit: ConvNeXt's 4x4 stride-4 stem (3 → 96) and 2x2 stride-2 patches, strides 1 to 4, pads, output rows of 1 to 57 pixels (rows of tiles and chunks across row ends), channels not multiples of 32, across a block of input channels, one and two threads")
    func channelsLast() {
        var seed: UInt64 = 900
        let cases: [(k: Int, stride: Int, pad: Int, size: (Int, Int), cin: Int, cout: Int)] = [
            (4, 4, 0, (64, 64), 3, 96), (4, 4, 0, (228, 36), 3, 96), (4, 4, 0, (4, 4), 3, 17), (4, 4, 0, (68, 124), 3, 33),
            (2, 2, 0, (56, 56), 96, 192), (2, 2, 0, (34, 30), 7, 40), (3, 1, 1, (17, 17), 5, 31), (3, 2, 1, (57, 57), 3, 16),
            (3, 1, 1, (28, 31), 8, 64), (5, 3, 2, (14, 14), 40, 24), (11, 4, 2, (27, 27), 40, 32), (3, 1, 1, (1, 1), 2, 9),
            (3, 1, 0, (9, 33), 460, 8),
        ]
        for (k, stride, pad, size, cin, cout) in cases where stride <= 2 || smallMapTilesSpanRows {
            seed += 1
            let c = Case(cin: cin, cout: cout, height: size.0, width: size.1, k: k, stride: stride, pads: (pad, pad, pad, pad),
                         activation: .none, threads: 1 + Int(seed) % 2)
            var random = Random(seed: seed)
            let x = random.array(c.cin * c.height * c.width)
            let w = random.array(c.cout * c.cin * k * k, scale: 0.5)
            let b = random.array(c.cout)
            let input = makeMap(x, channels: c.cin, layout: .padded(width: c.width, height: c.height, pad: pad))
            let inner = c.cin * k * k
            var columns = [Float](repeating: 0, count: inner * c.cout)
            for o in 0..<c.cout {
                for i in 0..<inner { columns[i * c.cout + o] = w[o * inner + i] }
            }
            let weights = MatrixWeights(values: columns, bias: b, inner: inner, columns: c.cout)
            let pool = WorkerPool(threads: c.threads)
            let pixels = c.outHeight * c.outWidth
            pool.reserve(ScratchSize(shared: pixels * c.cout))
            let planar = FeatureMapStorage(channels: c.cout, layout: .dense(width: c.outWidth, height: c.outHeight))
            smallMapConvolution(input.map, weights: weights, kernelSize: k, stride: stride, dilation: 1, padTop: pad, padLeft: pad,
                                activation: .none, output: planar.map, products: pool.shared.baseAddress!,
                                productCount: pixels * c.cout, pool: pool)
            // One float past the output: written by nothing.
            var nhwc = [Float](repeating: .nan, count: pixels * c.cout + 1)
            nhwc.withUnsafeMutableBufferPointer { out in
                smallMapConvolutionChannelsLast(input.map, weights: weights, kernelHeight: k, kernelWidth: k, stride: stride,
                                                dilation: 1, padTop: pad, padLeft: pad, outputHeight: c.outHeight,
                                                outputWidth: c.outWidth, output: out.baseAddress!, pool: pool)
            }
            let planes = planar.interior()
            let transposed = (0..<pixels * c.cout).map { i in planes[(i % c.cout) * pixels + i / c.cout] }
            #expect(Array(nhwc[..<(pixels * c.cout)]) == transposed, "\(c)")
            #expect(nhwc[pixels * c.cout].isNaN, "\(c): wrote past the output")
        }
    }

    @Test("one and two threads give the same bits: rows or 12-pixel chunks across row ends split, and panels split when there are fewer than threads")
    func threadsAgree() {
        for (h, w, cout) in [(8, 8, 128), (1, 7, 96), (17, 17, 64), (5, 5, 64), (3, 3, 96), (2, 5, 40)] {
            let c = Case(cin: 16, cout: cout, height: h, width: w, k: 3, pads: (1, 1, 1, 1))
            var two = c
            two.threads = 2
            #expect(Self.run(c, seed: 9).small == Self.run(two, seed: 9).small, "\(c)")
        }
    }
}
