import Testing
@testable import Kernels

@Suite("Depthwise and dense convolution")
struct DepthwiseTests {
    /// TF-SAME pads as ONNX [top, left, bottom, right]: the output is ceil(size / stride).
    /// The depthwise convolution as the kernels compute it: per output, the bias, then one
    /// `multiplyAdd` per tap in (ky, kx) order, taps outside the `height` x `width` map reading 0.
    static func tapOrderReference(_ x: [Float], weights w: [Float], bias b: [Float], channels: Int, height: Int, width: Int,
                                  k: Int, stride: Int, dilation: Int, top: Int, left: Int,
                                  outHeight: Int, outWidth: Int) -> [Float] {
        var expected: [Float] = []
        expected.reserveCapacity(channels * outHeight * outWidth)
        x.withUnsafeBufferPointer { x in
            w.withUnsafeBufferPointer { w in
                for c in 0..<channels {
                    for yo in 0..<outHeight {
                        for xo in 0..<outWidth {
                            var sum = b[c]
                            for ky in 0..<k {
                                for kx in 0..<k {
                                    let y = yo * stride - top + ky * dilation, xi = xo * stride - left + kx * dilation
                                    let value = y >= 0 && y < height && xi >= 0 && xi < width ? x[(c * height + y) * width + xi] : 0
                                    sum = multiplyAdd(sum, w[(c * k + ky) * k + kx], value)
                                }
                            }
                            expected.append(sum)
                        }
                    }
                }
            }
        }
        return expected
    }

    static func samePads(kernel k: Int, stride s: Int, size: Int) -> (before: Int, after: Int, out: Int) {
        let out = (size + s - 1) / s
        let total = max((out - 1) * s + k - size, 0)
        return (total / 2, total - total / 2, out)
    }

    func depthwise(channels: Int, height: Int, width: Int, k: Int, stride: Int, pads: (Int, Int, Int, Int),
                   activation: Activation, withResidual: Bool, outputPad: Int, threads: Int, seed: UInt64,
                   dilation: Int = 1) -> (actual: [Float], expected: [Expected]) {
        let (top, left, bottom, right) = pads
        let span = (k - 1) * dilation + 1
        let outH = (height + top + bottom - span) / stride + 1, outW = (width + left + right - span) / stride + 1
        var random = Random(seed: seed)
        let x = random.array(channels * height * width)
        let w = random.array(channels * k * k, scale: 0.5)
        let b = random.array(channels)
        let res = withResidual ? random.array(channels * outH * outW) : nil
        let inputPad = max(top, left, bottom, right)
        let input = makeMap(x, channels: channels, layout: .padded(width: width, height: height, pad: inputPad))
        let output = FeatureMapStorage(channels: channels, layout: .padded(width: outW, height: outH, pad: outputPad))
        let residual = res.map { makeMap($0, channels: channels, layout: .padded(width: outW, height: outH, pad: 1)) }
        let weights = DepthwiseWeights(weights: w, bias: b, channels: channels, kernelSize: k)
        depthwiseConvolution(input.map, weights: weights, stride: stride, dilation: dilation, padTop: top, padLeft: left,
                             activation: activation, residual: residual?.map, output: output.map,
                             pool: WorkerPool(threads: threads))
        let expected = referenceConvolution(input: x, channels: channels, height: height, width: width, weights: w,
                                            bias: b, outputChannels: channels, kernelSize: k, stride: stride,
                                            padTop: top, padLeft: left, outHeight: outH, outWidth: outW,
                                            groups: channels, activation: activation, residual: res, dilation: dilation)
        #expect(borderIsZero(output))
        return (output.interior(), expected)
    }

    @Test("3x3 and 5x5, stride 1 and 2, TF-SAME pads, odd and tiny sizes, channel counts not multiples of 16")
    func sweepSame() {
        var seed: UInt64 = 7
        for k in [3, 5] {
            for stride in [1, 2] {
                for (h, w) in [(1, 1), (2, 3), (5, 7), (8, 16), (9, 16), (17, 33), (16, 47)] {
                    for channels in [1, 3, 17] {
                        seed += 1
                        let v = Self.samePads(kernel: k, stride: stride, size: h)
                        let u = Self.samePads(kernel: k, stride: stride, size: w)
                        let r = depthwise(channels: channels, height: h, width: w, k: k, stride: stride,
                                          pads: (v.before, u.before, v.after, u.after),
                                          activation: [.none, .relu, .hardSwish][Int(seed % 3)],
                                          withResidual: false, outputPad: 0, threads: 1, seed: seed)
                        expectClose(r.actual, r.expected, "dw\(k)x\(k) s\(stride) \(h)x\(w) c\(channels)")
                    }
                }
            }
        }
    }

    @Test("the model's asymmetric stride-2 pads [0,0,1,1] (3x3) and [1,1,2,2] (5x5), and symmetric ones")
    func explicitPads() {
        let cases: [(k: Int, s: Int, pads: (Int, Int, Int, Int))] = [
            (3, 2, (0, 0, 1, 1)), (5, 2, (1, 1, 2, 2)), (3, 2, (1, 1, 1, 1)), (3, 1, (1, 1, 1, 1)),
            (5, 1, (2, 2, 2, 2)), (3, 1, (0, 0, 0, 0)), (5, 2, (2, 2, 2, 2)), (3, 2, (0, 1, 1, 0)),
        ]
        for (i, c) in cases.enumerated() {
            for (h, w) in [(16, 16), (7, 11), (32, 32)] {
                let r = depthwise(channels: 7, height: h, width: w, k: c.k, stride: c.s, pads: c.pads,
                                  activation: .relu, withResidual: false, outputPad: 2, threads: 1, seed: UInt64(100 + i))
                expectClose(r.actual, r.expected, "dw\(c.k) s\(c.s) pads \(c.pads) \(h)x\(w)")
            }
        }
    }

    @Test("adds a residual after the activation (the decoder's r + relu(dw(r)))")
    func residual() {
        for (h, w) in [(16, 16), (9, 13)] {
            let r = depthwise(channels: 16, height: h, width: w, k: 3, stride: 1, pads: (1, 1, 1, 1),
                              activation: .relu, withResidual: true, outputPad: 0, threads: 1, seed: 5)
            expectClose(r.actual, r.expected, "dw residual \(h)x\(w)")
        }
    }

    @Test("dilated windows (rates 2 and 4, as DeepLab's atrous blocks), larger windows up to 9x9, ReLU6")
    func dilatedAndLarge() {
        let cases: [(k: Int, s: Int, d: Int, pad: Int)] = [
            (3, 1, 2, 2), (3, 1, 4, 4), (3, 2, 2, 2), (5, 1, 2, 4), (7, 1, 1, 3), (9, 1, 1, 4), (7, 2, 1, 3), (3, 1, 3, 1),
        ]
        for (i, c) in cases.enumerated() {
            for (h, w) in [(5, 7), (17, 33), (33, 20)] where (c.k - 1) * c.d + 1 <= min(h, w) + 2 * c.pad {
                for threads in [1, 2] {
                    let r = depthwise(channels: 5, height: h, width: w, k: c.k, stride: c.s, pads: (c.pad, c.pad, c.pad, c.pad),
                                      activation: .relu6, withResidual: i % 2 == 0, outputPad: 1, threads: threads,
                                      seed: UInt64(300 + i), dilation: c.d)
                    expectClose(r.actual, r.expected, "dw\(c.k) s\(c.s) d\(c.d) \(h)x\(w) threads \(threads)")
                }
            }
        }
        for (k, s, d, pad) in [(3, 1, 2, 2), (3, 1, 4, 4), (3, 2, 2, 2), (5, 1, 2, 4)] {
            let r = dense(cin: 6, cout: 11, height: 19, width: 23, k: k, stride: s, pads: (pad, pad, pad, pad), threads: 1,
                          seed: 400, dilation: d, activation: .relu6)
            expectClose(r.actual, r.expected, "dense k\(k) s\(s) d\(d)")
            let two = dense(cin: 6, cout: 11, height: 19, width: 23, k: k, stride: s, pads: (pad, pad, pad, pad), threads: 2,
                            seed: 400, dilation: d, activation: .relu6)
            #expect(r.actual == two.actual, "dense k\(k) d\(d) bit-identical on 1 and 2 threads")
        }
    }

    @Test("output rows of 32 columns and more (two vectors per tile row), windows 3, 5 and 7, strides 1 and 2, residual, padded output")
    func wideRows() {
        var seed: UInt64 = 500
        for k in [3, 5, 7] {
            for stride in [1, 2] {
                // Output widths 31, 32, 33, 47, 48, 63, 64, 65 and 97: whole tiles, a tile and a
                // partial vector, tails of one full vector.
                for outW in [31, 32, 33, 47, 48, 63, 64, 65, 97] {
                    let w = outW * stride - (stride - 1) + [0, 1][Int(seed % 2)]
                    for (h, withResidual) in [(4, false), (9, true), (13, false)] {
                        seed += 1
                        let v = Self.samePads(kernel: k, stride: stride, size: h)
                        let u = Self.samePads(kernel: k, stride: stride, size: w)
                        let r = depthwise(channels: 3, height: h, width: w, k: k, stride: stride,
                                          pads: (v.before, u.before, v.after, u.after),
                                          activation: [.none, .relu, .hardSwish][Int(seed % 3)],
                                          withResidual: withResidual, outputPad: Int(seed % 3), threads: 1 + Int(seed % 2),
                                          seed: seed)
                        expectClose(r.actual, r.expected, "dw\(k)x\(k) s\(stride) \(h)x\(w) residual \(withResidual)")
                    }
                }
            }
        }
    }

    @Test("each output is the bias then one fused multiply-add per tap in (ky, kx) order, bit for bit")
    func tapOrder() {
        // Widths 71 and 50: two-vector tiles, one-vector tiles and partial vectors at both strides.
        for (k, stride, pads) in [(3, 1, (1, 1, 1, 1)), (3, 2, (0, 0, 1, 1)), (5, 1, (2, 2, 2, 2)), (5, 2, (1, 1, 2, 2)),
                                  (7, 1, (3, 3, 3, 3))] {
            for width in [71, 50] {
                let r = Self.runTapOrder(k: k, stride: stride, pads: pads, channels: 2, height: 11, width: width,
                                         seed: UInt64(600 + k * 10 + stride))
                #expect(r.actual == r.expected, "dw\(k)x\(k) s\(stride) width \(width)")
            }
        }
    }

    /// The fast depthwise convolution (no activation, one thread, dense output) and the
    /// tap-order reference on the same random map, weights and bias.
    static func runTapOrder(k: Int, stride: Int, pads: (Int, Int, Int, Int), channels: Int, height: Int, width: Int,
                            seed: UInt64) -> (actual: [Float], expected: [Float]) {
        let (top, left, bottom, right) = pads
        let outH = (height + top + bottom - k) / stride + 1, outW = (width + left + right - k) / stride + 1
        var random = Random(seed: seed)
        let x = random.array(channels * height * width)
        let w = random.array(channels * k * k, scale: 0.5)
        let b = random.array(channels)
        let input = makeMap(x, channels: channels, layout: .padded(width: width, height: height, pad: max(top, left, bottom, right)))
        let output = FeatureMapStorage(channels: channels, layout: .dense(width: outW, height: outH))
        depthwiseConvolution(input.map, weights: DepthwiseWeights(weights: w, bias: b, channels: channels, kernelSize: k),
                             stride: stride, padTop: top, padLeft: left, activation: .none, output: output.map,
                             pool: WorkerPool(threads: 1))
        let expected = Self.tapOrderReference(x, weights: w, bias: b, channels: channels, height: height, width: width,
                                              k: k, stride: stride, dilation: 1, top: top, left: left,
                                              outHeight: outH, outWidth: outW)
        return (output.interior(), expected)
    }

    @Test("the last outputs of a row (fewer than a vector) from input rows loaded once: bias then one multiply-add per tap in (ky, kx) order, bit for bit; output rows 1 to 35 wide (every tail length), 4 to 9 rows (the last tile moved up), 5x5 and 7x7 at stride 1, 3x3 and 5x5 at stride 2 (and 3x3 at stride 1, whose tiles read each tap from memory), symmetric and TF-SAME pads")
    func rowTails() {
        var seed: UInt64 = 700
        for outW in Array(1...17) + [24, 28, 31, 33, 35] {
            for (k, stride, pads) in [(3, 2, (1, 1, 1, 1)), (3, 2, (0, 0, 1, 1)), (5, 2, (2, 2, 2, 2)), (5, 2, (1, 1, 2, 2)),
                                      (3, 1, (1, 1, 1, 1)), (5, 1, (2, 2, 2, 2)), (7, 1, (3, 3, 3, 3)), (3, 1, (0, 0, 2, 2))] {
                seed += 1
                let (top, left, bottom, right) = pads
                let outH = 4 + Int(seed % 6)
                let width = stride * (outW - 1) + k - left - right + (stride == 2 ? Int(seed % 2) : 0)
                let height = stride * (outH - 1) + k - top - bottom
                let r = Self.runTapOrder(k: k, stride: stride, pads: pads, channels: 3, height: height, width: width, seed: seed)
                #expect(r.actual == r.expected, "dw\(k)x\(k) s\(stride) pads \(pads) \(height)x\(width) → \(outH)x\(outW)")
            }
        }
    }

    @Test("7x7 at stride 1 in strips of 7 or 8 output rows (the input rows each loaded once per strip): bias then one multiply-add per tap in (ky, kx) order, bit for bit; 7 to 61 output rows (a last strip moved up), rows 1 to 97 wide (pairs of vectors, a last single or partial one), symmetric and asymmetric pads, dense and padded outputs, 1 and 2 threads")
    func sevenBySevenStrips() {
        var seed: UInt64 = 1_700
        for outH in [7, 8, 9, 14, 15, 16, 17, 28, 31, 32, 33, 56, 57, 61] {
            for outW in [1, 5, 15, 16, 17, 28, 31, 32, 33, 47, 48, 56, 57, 97] {
                for pads in [(3, 3, 3, 3), (0, 0, 6, 6), (2, 3, 4, 3)] {
                    seed += 1
                    guard seed % 3 == 0 || outH == 56 || outH == 28 || outW == 56 || outW == 28 else { continue }
                    let (top, left, bottom, right) = pads
                    let height = outH + 6 - top - bottom, width = outW + 6 - left - right
                    let channels = [1, 3, 17][Int(seed % 3)]
                    var random = Random(seed: seed)
                    let x = random.array(channels * height * width)
                    let w = random.array(channels * 49, scale: 0.5)
                    let b = random.array(channels)
                    let input = makeMap(x, channels: channels, layout: .padded(width: width, height: height, pad: max(top, left, bottom, right)))
                    let outputPad = Int(seed / 3 % 2) * 3
                    let output = FeatureMapStorage(channels: channels, layout: outputPad == 0 ? .dense(width: outW, height: outH)
                                                   : .padded(width: outW, height: outH, pad: outputPad))
                    depthwiseConvolution(input.map, weights: DepthwiseWeights(weights: w, bias: b, channels: channels, kernelSize: 7),
                                         stride: 1, padTop: top, padLeft: left, activation: .none, output: output.map,
                                         pool: WorkerPool(threads: 1 + Int(seed / 2 % 2)))
                    let expected = Self.tapOrderReference(x, weights: w, bias: b, channels: channels, height: height, width: width,
                                                          k: 7, stride: 1, dilation: 1, top: top, left: left,
                                                          outHeight: outH, outWidth: outW)
                    let what = "dw7x7 \(channels) channels \(height)x\(width) → \(outH)x\(outW) pads \(pads) output pad \(outputPad)"
                    #expect(output.interior() == expected, "\(what)")
                    #expect(borderIsZero(output), "\(what): border written")
                }
            }
        }
        // Activations and residuals in the strips' stores, against the naive loop.
        for (h, w) in [(28, 28), (56, 57), (9, 33), (17, 16)] {
            for activation in [Activation.none, .relu, .hardSwish, .silu] {
                let r = depthwise(channels: 5, height: h, width: w, k: 7, stride: 1, pads: (3, 3, 3, 3), activation: activation,
                                  withResidual: true, outputPad: [0, 1, 3][(h + w) % 3], threads: 1 + h % 2, seed: UInt64(h * 100 + w))
                expectClose(r.actual, r.expected, "dw7 strips \(h)x\(w) \(activation) residual")
            }
        }
    }

    @Test("maps of 1 to 3 output rows (one- and two-row tiles): bias then one multiply-add per tap in (ky, kx) order, bit for bit; channels 1 to 577, 1 and 2 threads, dense and padded outputs, dilation")
    func shortMaps() {
        var seed: UInt64 = 900
        for (k, stride, dilation) in [(3, 1, 1), (3, 2, 1), (5, 1, 1), (5, 2, 1), (3, 1, 2), (7, 1, 1)] {
            for (height, width) in [(1, 1), (2, 2), (3, 3), (2, 5), (1, 17), (3, 40), (5, 6), (6, 2)] {
                for channels in [1, 7, 8, 9, 17, 577] where channels * width * height <= 40_000 {
                    seed += 1
                    let pad = (k - 1) * dilation / 2
                    let outH = (height + 2 * pad - (k - 1) * dilation - 1) / stride + 1
                    let outW = (width + 2 * pad - (k - 1) * dilation - 1) / stride + 1
                    guard outH < 4 else { continue }
                    var random = Random(seed: seed)
                    let x = random.array(channels * height * width)
                    let w = random.array(channels * k * k, scale: 0.5)
                    let b = random.array(channels)
                    let input = makeMap(x, channels: channels, layout: .padded(width: width, height: height, pad: pad))
                    let outputPad = Int(seed % 2)
                    let output = FeatureMapStorage(channels: channels, layout: .padded(width: outW, height: outH, pad: outputPad))
                    depthwiseConvolution(input.map, weights: DepthwiseWeights(weights: w, bias: b, channels: channels, kernelSize: k),
                                         stride: stride, dilation: dilation, padTop: pad, padLeft: pad, activation: .none,
                                         output: output.map, pool: WorkerPool(threads: 1 + Int(seed / 2 % 2)))
                    let expected = Self.tapOrderReference(x, weights: w, bias: b, channels: channels, height: height, width: width,
                                                          k: k, stride: stride, dilation: dilation, top: pad, left: pad,
                                                          outHeight: outH, outWidth: outW)
                    let what = "dw\(k)x\(k) s\(stride) d\(dilation) \(channels) channels \(height)x\(width) output pad \(outputPad)"
                    #expect(output.interior() == expected, "\(what)")
                    #expect(borderIsZero(output), "\(what): border written")
                }
            }
        }
        // With activations and residuals, against the naive loop.
        for (channels, h, w) in [(9, 2, 2), (24, 3, 3), (577, 1, 1), (33, 2, 7)] {
            for activation in [Activation.relu6, .hardSwish, .sigmoid, .silu] {
                let r = depthwise(channels: channels, height: h, width: w, k: 5, stride: 1, pads: (2, 2, 2, 2), activation: activation,
                                  withResidual: true, outputPad: 1, threads: 2, seed: UInt64(channels + h))
                expectClose(r.actual, r.expected, "dw5 short \(channels) \(h)x\(w) \(activation)")
            }
        }
    }

    @Test("small maps vectorised over channels: bias then one multiply-add per tap in (ky, kx) order, bit for bit; channels 1 to 1153 (blocks of 64 ± 1), windows 1 to 7, strides 1 to 3, dilation, asymmetric pads, dense and padded maps, rows of 1 to 17 (row tiles of 8 ± 1 from 5 outputs on) and inputs up to 32 × 32 (stride 2's rows of 12 to 16), residual, 1 and 2 threads")
    func smallMapChannelLanes() {
        var seed: UInt64 = 1200
        let shapes: [(k: Int, s: Int, d: Int, pads: (Int, Int, Int, Int))] = [
            (3, 1, 1, (1, 1, 1, 1)), (3, 2, 1, (0, 0, 1, 1)), (5, 1, 1, (2, 2, 2, 2)), (5, 2, 1, (1, 1, 2, 2)),
            (3, 1, 2, (2, 2, 2, 2)), (7, 1, 1, (3, 3, 3, 3)), (3, 1, 1, (0, 0, 0, 0)), (1, 1, 1, (0, 0, 0, 0)),
            (3, 3, 1, (1, 0, 2, 1)), (5, 1, 3, (4, 1, 0, 6)),
        ]
        for shape in shapes {
            for (height, width) in [(1, 1), (2, 2), (3, 3), (2, 5), (6, 6), (7, 7), (8, 8), (9, 4), (12, 12), (16, 16), (14, 14),
                                    (4, 15), (3, 9), (5, 13), (2, 17), (24, 24), (28, 28), (27, 31), (32, 32)] {
                for channels in [1, 15, 16, 17, 63, 64, 65, 129, 577, 1153] where channels * height * width <= 150_000 {
                    seed += 1
                    let (top, left, bottom, right) = shape.pads
                    let span = (shape.k - 1) * shape.d + 1
                    guard height + top + bottom >= span, width + left + right >= span else { continue }
                    let outH = (height + top + bottom - span) / shape.s + 1, outW = (width + left + right - span) / shape.s + 1
                    var random = Random(seed: seed)
                    let x = random.array(channels * height * width)
                    let w = random.array(channels * shape.k * shape.k, scale: 0.5)
                    let b = random.array(channels)
                    let res = seed % 3 == 0 ? random.array(channels * outH * outW) : nil
                    let activation = [Activation.none, .relu, .relu6, .hardSwish, .sigmoid, .silu][Int(seed % 6)]
                    let input = makeMap(x, channels: channels,
                                        layout: seed % 2 == 0 ? .dense(width: width, height: height) : .padded(width: width, height: height, pad: 2))
                    let output = FeatureMapStorage(channels: channels, layout: seed % 4 < 2 ? .dense(width: outW, height: outH)
                                                   : .padded(width: outW, height: outH, pad: 1))
                    let residual = res.map { makeMap($0, channels: channels, layout: .padded(width: outW, height: outH, pad: 1)) }
                    let pool = WorkerPool(threads: 1 + Int(seed / 2 % 2))
                    pool.reserve(smallMapDepthwiseScratch(inputWidth: width, inputHeight: height, outputWidth: outW, outputHeight: outH))
                    smallMapDepthwise(input.map, weights: ChannelLaneDepthwiseWeights(weights: w, bias: b, channels: channels,
                                                                                      kernelSize: shape.k),
                                      stride: shape.s, dilation: shape.d, padTop: top, padLeft: left, activation: activation,
                                      residual: residual?.map, output: output.map, pool: pool)
                    var expected = Self.tapOrderReference(x, weights: w, bias: b, channels: channels, height: height, width: width,
                                                          k: shape.k, stride: shape.s, dilation: shape.d, top: top, left: left,
                                                          outHeight: outH, outWidth: outW).map { activation.apply($0) }
                    if let res { expected = zip(expected, res).map { $0 + $1 } }
                    let what = "small-map dw\(shape.k) s\(shape.s) d\(shape.d) pads \(shape.pads) \(channels) channels \(height)x\(width) \(activation) residual \(res != nil)"
                    #expect(output.interior() == expected, "\(what)")
                    #expect(borderIsZero(output), "\(what): border written")
                }
            }
        }
    }

    @Test("small maps vectorised over channels, channels last: each output stored pixel-major (NHWC) is the planar kernel's value, bit for bit, and nothing past the output is written; blocks of 64 ± 1 channels and channel counts not multiples of 32, split between 1 and 2 threads, row tiles (rows of 5 and more) and pixel by pixel (narrower rows, dilation, stride 3), ConvNeXt's 7x7 on 28x28, 14x14 and 7x7, rows of 32, every activation")
    func smallMapChannelsLast() {
        var seed: UInt64 = 2_400
        let shapes: [(k: Int, s: Int, d: Int, pads: (Int, Int, Int, Int))] = [
            (7, 1, 1, (3, 3, 3, 3)), (3, 1, 1, (1, 1, 1, 1)), (3, 2, 1, (0, 0, 1, 1)), (5, 2, 1, (1, 1, 2, 2)),
            (3, 1, 2, (2, 2, 2, 2)), (3, 3, 1, (1, 0, 2, 1)),
        ]
        for shape in shapes {
            for (height, width) in [(1, 1), (3, 3), (2, 5), (7, 7), (9, 4), (14, 14), (5, 13), (16, 16), (2, 17), (28, 28), (21, 32)] {
                for channels in [1, 15, 16, 17, 33, 63, 64, 65, 96, 129, 192, 384, 768] where channels * height * width <= 160_000 {
                    seed += 1
                    guard seed % 2 == 0 || channels >= 192 || height == 14 || height == 28 else { continue }
                    let (top, left, bottom, right) = shape.pads
                    let span = (shape.k - 1) * shape.d + 1
                    guard height + top + bottom >= span, width + left + right >= span else { continue }
                    let outH = (height + top + bottom - span) / shape.s + 1, outW = (width + left + right - span) / shape.s + 1
                    var random = Random(seed: seed)
                    let x = random.array(channels * height * width)
                    let weights = ChannelLaneDepthwiseWeights(weights: random.array(channels * shape.k * shape.k, scale: 0.5),
                                                              bias: random.array(channels), channels: channels, kernelSize: shape.k)
                    let activation = [Activation.none, .relu, .relu6, .hardSwish, .sigmoid, .silu][Int(seed % 6)]
                    let input = makeMap(x, channels: channels,
                                        layout: seed % 4 < 2 ? .dense(width: width, height: height) : .padded(width: width, height: height, pad: 3))
                    let planar = FeatureMapStorage(channels: channels, layout: .dense(width: outW, height: outH))
                    let pool = WorkerPool(threads: 1 + Int(seed / 2 % 2))
                    pool.reserve(smallMapDepthwiseScratch(inputWidth: width, inputHeight: height, outputWidth: outW, outputHeight: outH))
                    smallMapDepthwise(input.map, weights: weights, stride: shape.s, dilation: shape.d, padTop: top, padLeft: left,
                                      activation: activation, output: planar.map, pool: pool)
                    let pixels = outH * outW
                    var nhwc = [Float](repeating: .nan, count: pixels * channels + lanes)
                    nhwc.withUnsafeMutableBufferPointer { out in
                        smallMapDepthwiseChannelsLast(input.map, weights: weights, stride: shape.s, dilation: shape.d, padTop: top,
                                                      padLeft: left, activation: activation, outputHeight: outH, outputWidth: outW,
                                                      output: out.baseAddress!, pool: pool)
                    }
                    let planes = planar.interior()
                    let transposed = (0..<pixels * channels).map { i in planes[(i % channels) * pixels + i / channels] }
                    let what = "dw\(shape.k) s\(shape.s) d\(shape.d) pads \(shape.pads) \(channels) channels \(height)x\(width) \(activation)"
                    #expect(Array(nhwc[..<(pixels * channels)]) == transposed, "\(what)")
                    let untouched = nhwc[(pixels * channels)...].allSatisfy { $0.isNaN }
                    #expect(untouched, "\(what): wrote past the output")
                }
            }
        }
    }

    @Test("small maps vectorised over channels: the output may be the input itself")
    func smallMapInPlace() {
        for (channels, size, k) in [(577, 3, 5), (70, 6, 3), (1, 1, 3), (130, 8, 5)] {
            var random = Random(seed: UInt64(channels))
            let x = random.array(channels * size * size)
            let w = random.array(channels * k * k, scale: 0.5)
            let b = random.array(channels)
            for threads in [1, 2] {
                let map = makeMap(x, channels: channels, layout: .dense(width: size, height: size))
                let pool = WorkerPool(threads: threads)
                smallMapDepthwise(map.map, weights: ChannelLaneDepthwiseWeights(weights: w, bias: b, channels: channels, kernelSize: k),
                                  stride: 1, padTop: k / 2, padLeft: k / 2, activation: .relu, output: map.map, pool: pool)
                let expected = Self.tapOrderReference(x, weights: w, bias: b, channels: channels, height: size, width: size, k: k,
                                                      stride: 1, dilation: 1, top: k / 2, left: k / 2, outHeight: size,
                                                      outWidth: size).map { Activation.relu.apply($0) }
                #expect(map.interior() == expected, "in place: \(channels) channels \(size)x\(size) dw\(k), \(threads) threads")
            }
        }
    }

    @Test("is bit-identical on 1 and 2 threads")
    func threadsAgree() {
        for (k, s, pads) in [(3, 1, (1, 1, 1, 1)), (3, 2, (0, 0, 1, 1)), (5, 1, (2, 2, 2, 2)), (5, 2, (1, 1, 2, 2))] {
            let one = depthwise(channels: 24, height: 32, width: 32, k: k, stride: s, pads: pads, activation: .hardSwish,
                                withResidual: true, outputPad: 1, threads: 1, seed: 3)
            let two = depthwise(channels: 24, height: 32, width: 32, k: k, stride: s, pads: pads, activation: .hardSwish,
                                withResidual: true, outputPad: 1, threads: 2, seed: 3)
            #expect(one.actual == two.actual, "dw\(k) s\(s)")
        }
    }

    func dense(cin: Int, cout: Int, height: Int, width: Int, k: Int, stride: Int, pads: (Int, Int, Int, Int),
               threads: Int, seed: UInt64, dilation: Int = 1, activation: Activation = .hardSwish)
        -> (actual: [Float], expected: [Expected]) {
        let (top, left, bottom, right) = pads
        let span = (k - 1) * dilation + 1
        let outH = (height + top + bottom - span) / stride + 1, outW = (width + left + right - span) / stride + 1
        var random = Random(seed: seed)
        let x = random.array(cin * height * width)
        let w = random.array(cout * cin * k * k, scale: 0.5)
        let b = random.array(cout)
        let input = makeMap(x, channels: cin, layout: .padded(width: width, height: height, pad: max(top, left, bottom, right)))
        let output = FeatureMapStorage(channels: cout, layout: .dense(width: outW, height: outH))
        let weights = ConvolutionWeights(weights: w, bias: b, outputChannels: cout, inputChannels: cin, kernelSize: k)
        convolution(input.map, weights: weights, stride: stride, dilation: dilation, padTop: top, padLeft: left,
                    activation: activation, output: output.map, pool: WorkerPool(threads: threads))
        let expected = referenceConvolution(input: x, channels: cin, height: height, width: width, weights: w, bias: b,
                                            outputChannels: cout, kernelSize: k, stride: stride, padTop: top,
                                            padLeft: left, outHeight: outH, outWidth: outW, groups: 1,
                                            activation: activation, dilation: dilation)
        return (output.interior(), expected)
    }

    @Test("dense rows of at most 16 pixels, two to a tile: bias then one multiply-add per (input channel, ky, kx) in order, bit for bit; widths 1 to 17, odd heights (a last row alone), strides 1 and 2, dilation, asymmetric pads, dense and padded outputs, 1 and 2 threads")
    func denseRowPairs() {
        var seed: UInt64 = 1300
        for (k, stride, dilation) in [(3, 1, 1), (3, 2, 1), (5, 1, 1), (3, 1, 2), (7, 2, 1), (1, 2, 1)] {
            for (height, width) in [(1, 1), (2, 16), (3, 15), (5, 13), (4, 16), (7, 9), (9, 17), (16, 16), (6, 33)] {
                seed += 1
                let (cin, cout) = (1 + Int(seed % 5) * 7, 8 + Int(seed % 3) * 5)
                let span = (k - 1) * dilation
                let (top, left, bottom, right) = (span / 2, span - span / 2, span - span / 2, span / 2)
                let outH = (height + top + bottom - span - 1) / stride + 1
                let outW = (width + left + right - span - 1) / stride + 1
                var random = Random(seed: seed)
                let x = random.array(cin * height * width)
                let w = random.array(cout * cin * k * k, scale: 0.5)
                let b = random.array(cout)
                let input = makeMap(x, channels: cin, layout: .padded(width: width, height: height, pad: max(1, span)))
                let outputPad = Int(seed % 2)
                let output = FeatureMapStorage(channels: cout, layout: .padded(width: outW, height: outH, pad: outputPad))
                convolution(input.map, weights: ConvolutionWeights(weights: w, bias: b, outputChannels: cout, inputChannels: cin,
                                                                   kernelSize: k),
                            stride: stride, dilation: dilation, padTop: top, padLeft: left, activation: .relu,
                            output: output.map, pool: WorkerPool(threads: 1 + Int(seed / 2 % 2)))
                var expected: [Float] = []
                for o in 0..<cout {
                    for yo in 0..<outH {
                        for xo in 0..<outW {
                            var sum = b[o]
                            for c in 0..<cin {
                                for ky in 0..<k {
                                    for kx in 0..<k {
                                        let y = yo * stride - top + ky * dilation, xi = xo * stride - left + kx * dilation
                                        guard y >= 0 && y < height && xi >= 0 && xi < width else { continue }
                                        sum = multiplyAdd(sum, w[((o * cin + c) * k + ky) * k + kx], x[(c * height + y) * width + xi])
                                    }
                                }
                            }
                            expected.append(max(sum, 0))
                        }
                    }
                }
                let what = "conv\(k)x\(k) s\(stride) d\(dilation) \(cin)→\(cout) on \(height)x\(width), output pad \(outputPad)"
                #expect(output.interior() == expected, "\(what)")
                #expect(borderIsZero(output), "\(what): border written")
            }
        }
    }

    @Test("the dense stem (3x3 stride 2, 3→16, pads [0,0,1,1], hard-swish) and other dense shapes")
    func denseConvolution() {
        for (h, w) in [(1, 1), (2, 2), (7, 9), (32, 32), (33, 70), (10, 64)] {
            let v = Self.samePads(kernel: 3, stride: 2, size: h), u = Self.samePads(kernel: 3, stride: 2, size: w)
            let r = dense(cin: 3, cout: 16, height: h, width: w, k: 3, stride: 2, pads: (v.before, u.before, v.after, u.after),
                          threads: 1, seed: 11)
            expectClose(r.actual, r.expected, "stem \(h)x\(w)")
        }
        for (cin, cout, k, s, pads) in [(3, 7, 3, 1, (1, 1, 1, 1)), (4, 17, 5, 2, (1, 1, 2, 2)), (1, 1, 3, 2, (1, 1, 1, 1))] {
            let r = dense(cin: cin, cout: cout, height: 13, width: 37, k: k, stride: s, pads: pads, threads: 1, seed: 12)
            expectClose(r.actual, r.expected, "conv \(cin)->\(cout) k\(k) s\(s)")
        }
        let one = dense(cin: 3, cout: 16, height: 64, width: 64, k: 3, stride: 2, pads: (0, 0, 1, 1), threads: 1, seed: 13)
        let two = dense(cin: 3, cout: 16, height: 64, width: 64, k: 3, stride: 2, pads: (0, 0, 1, 1), threads: 2, seed: 13)
        #expect(one.actual == two.actual, "stem bit-identical on 1 and 2 threads")
    }
}
