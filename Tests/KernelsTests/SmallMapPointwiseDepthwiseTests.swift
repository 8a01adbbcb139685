import Testing
@testable import Kernels

@Suite("small-map 1x1 then depthwise as one kernel")
struct SmallMapPointwiseDepthwiseTests {
    /// The fused kernel and `smallMapPointwise` then `smallMapDepthwise` on the same input,
    /// weights, activations, window, residual and output layout: both interiors, whether the
    /// fused output's border stayed zero, and the naive loops' result.
    static func run(cin: Int, channels: Int, height: Int, width: Int, k: Int, stride: Int, dilation: Int, pad: Int,
                    pointwiseActivation: Activation, activation: Activation, outputPad: Int, residualPad: Int?,
                    threads: Int, seed: UInt64) -> (fused: [Float], apart: [Float], border: Bool, expected: [Expected], what: String) {
        var random = Random(seed: seed)
        let x = random.array(cin * height * width)
        let pw = random.array(cin * channels, scale: 0.5), pb = random.array(channels)
        let dw = random.array(channels * k * k, scale: 0.5), db = random.array(channels)
        let span = (k - 1) * dilation + 1
        let outH = (height + 2 * pad - span) / stride + 1, outW = (width + 2 * pad - span) / stride + 1
        let res = residualPad.map { _ in random.array(channels * outH * outW) }
        let input = makeMap(x, channels: cin, layout: .dense(width: width, height: height))
        let residual = res.map { makeMap($0, channels: channels, layout: .padded(width: outW, height: outH, pad: residualPad!)) }
        var columns = [Float](repeating: 0, count: cin * channels)
        for o in 0..<channels {
            for i in 0..<cin { columns[i * channels + o] = pw[o * cin + i] }
        }
        let matrix = MatrixWeights(values: columns, bias: pb, inner: cin, columns: channels)
        let lanesFirst = ChannelLaneDepthwiseWeights(weights: dw, bias: db, channels: channels, kernelSize: k)
        let pool = WorkerPool(threads: threads)
        pool.reserve(smallMapPointwiseDepthwiseScratch(inputWidth: width, inputHeight: height, outputWidth: outW,
                                                       outputHeight: outH, pointwise: matrix)
                        .union(smallMapPointwiseScratch(pixels: height * width, weights: matrix)))
        // What other kernels leave in the scratch.
        pool.shared.update(repeating: .nan)
        for part in 0..<threads { pool.scratch(part).update(repeating: .nan) }
        let layout = PlaneLayout.padded(width: outW, height: outH, pad: outputPad)
        let fused = FeatureMapStorage(channels: channels, layout: layout)
        smallMapPointwiseThenDepthwise(input.map, pointwise: matrix, pointwiseActivation: pointwiseActivation, depthwise: lanesFirst,
                                       stride: stride, dilation: dilation, padTop: pad, padLeft: pad, activation: activation,
                                       residual: residual?.map, output: fused.map, pool: pool)
        let expanded = FeatureMapStorage(channels: channels, layout: .dense(width: width, height: height))
        smallMapPointwise(input.map, weights: matrix, activation: pointwiseActivation, residual: nil, output: expanded.map, pool: pool)
        let apart = FeatureMapStorage(channels: channels, layout: layout)
        smallMapDepthwise(expanded.map, weights: lanesFirst, stride: stride, dilation: dilation, padTop: pad, padLeft: pad,
                          activation: activation, residual: residual?.map, output: apart.map, pool: pool)
        let middle = referenceConvolution(input: x, channels: cin, height: height, width: width, weights: pw, bias: pb,
                                          outputChannels: channels, kernelSize: 1, stride: 1, padTop: 0, padLeft: 0,
                                          outHeight: height, outWidth: width, groups: 1, activation: pointwiseActivation,
                                          residual: nil).map { Float($0.value) }
        let expected = referenceConvolution(input: middle, channels: channels, height: height, width: width, weights: dw, bias: db,
                                            outputChannels: channels, kernelSize: k, stride: stride, padTop: pad, padLeft: pad,
                                            outHeight: outH, outWidth: outW, groups: channels, activation: activation,
                                            residual: res, dilation: dilation)
        let what = "\(cin)->\(channels) on \(height)x\(width), \(k)x\(k) s\(stride) d\(dilation) pad \(pad), "
            + "\(pointwiseActivation) then \(activation), output pad \(outputPad), residual \(String(describing: residualPad)), \(threads) threads"
        return (fused.interior(), apart.interior(), borderIsZero(fused), expected, what)
    }

    @Test("equals the 1x1 then the depthwise kernel bit for bit: maps 1x1 to 16x16 (the grid's rows of 5+ and the pixel-by-pixel path), 3x3/5x5/7x7, strides 1 and 2, dilation 2, channels 1 to 1283 (blocks of 64 ± 1), every activation on either side, residuals, padded outputs, 1 and 2 threads")
    func equalsSeparateKernels() {
        let sides = [(1, 1), (2, 2), (3, 3), (1, 7), (4, 5), (6, 6), (7, 7), (5, 9), (8, 8), (10, 10), (12, 12), (16, 16)]
        let channels = [(1, 1), (3, 17), (16, 16), (24, 63), (17, 64), (40, 65), (96, 576), (160, 960), (7, 129), (33, 1283)]
        let windows = [(3, 1, 1, 1), (3, 2, 1, 1), (5, 1, 1, 2), (5, 2, 1, 2), (7, 1, 1, 3), (3, 1, 2, 2), (3, 1, 1, 0)]
        let activations: [Activation] = [.none, .relu, .relu6, .hardSwish, .sigmoid, .silu]
        var seed: UInt64 = 40
        for (index, (h, w)) in sides.enumerated() {
            for (cin, cout) in channels where cin * cout * h * w <= 1 << 21 && cout * h * w <= 1 << 17 {
                seed += 1
                let (k, s, d, pad) = windows[Int(seed) % windows.count]
                guard (h + 2 * pad - (k - 1) * d - 1) >= 0, (w + 2 * pad - (k - 1) * d - 1) >= 0 else { continue }
                let r = Self.run(cin: cin, channels: cout, height: h, width: w, k: k, stride: s, dilation: d, pad: pad,
                                 pointwiseActivation: activations[Int(seed) % 6], activation: activations[Int(seed / 6) % 6],
                                 outputPad: [0, 1, 2][index % 3], residualPad: [nil, 0, 1][Int(seed) % 3],
                                 threads: 1 + Int(seed) % 2, seed: seed)
                let differing = zip(r.fused, r.apart).filter { $0.bitPattern != $1.bitPattern }.count
                #expect(differing == 0, "\(r.what): \(differing) values differ from the two kernels")
                #expect(r.border, "\(r.what): border of the padded output written")
                expectClose(r.fused, r.expected, tolerance: 1e-4, r.what)
            }
        }
    }

    @Test("with the 1x1 after the depthwise (its GEMM reading the depthwise output pixel-major): equals the three kernels one after the other bit for bit, projections of 1 to 1283 channels, every activation, residuals (padded, rectified), padded outputs, 1 and 2 threads")
    func projectionEqualsSeparateKernels() {
        let sides = [(1, 1), (2, 2), (3, 3), (1, 9), (4, 4), (6, 6), (7, 7), (5, 9), (10, 10), (12, 12)]
        let channels = [(1, 1, 1), (3, 17, 5), (16, 16, 16), (24, 63, 33), (17, 65, 8), (96, 576, 160), (160, 960, 320),
                        (7, 129, 1283), (33, 1283, 31)]
        let windows = [(3, 1, 1), (3, 2, 1), (5, 1, 2), (5, 2, 2), (3, 1, 0)]
        let activations: [Activation] = [.none, .relu, .relu6, .hardSwish, .sigmoid, .silu]
        var seed: UInt64 = 700, computed = 0, cases = 0
        for (index, (h, w)) in sides.enumerated() {
            for (cin, mid, cout) in channels where (cin + cout) * mid * h * w <= 1 << 21 && mid * h * w <= 1 << 17 {
                seed += 1
                let (k, s, pad) = windows[Int(seed) % windows.count]
                guard h + 2 * pad >= k, w + 2 * pad >= k else { continue }
                let threads = 1 + Int(seed) % 2
                var random = Random(seed: seed)
                let x = random.array(cin * h * w)
                let pw = random.array(cin * mid, scale: 0.5), pb = random.array(mid)
                let dw = random.array(mid * k * k, scale: 0.5), db = random.array(mid)
                let pj = random.array(mid * cout, scale: 0.2), pjb = random.array(cout)
                let outH = (h + 2 * pad - k) / s + 1, outW = (w + 2 * pad - k) / s + 1
                let residualPad: Int? = [nil, 0, 1][Int(seed) % 3]
                let rectifies = residualPad != nil && seed % 2 == 0
                let residual = residualPad.map {
                    makeMap(random.array(cout * outH * outW), channels: cout, layout: .padded(width: outW, height: outH, pad: $0))
                }
                func columns(_ weights: [Float], _ inner: Int, _ outer: Int, _ bias: [Float]) -> MatrixWeights {
                    var c = [Float](repeating: 0, count: inner * outer)
                    for o in 0..<outer {
                        for i in 0..<inner { c[i * outer + o] = weights[o * inner + i] }
                    }
                    return MatrixWeights(values: c, bias: bias, inner: inner, columns: outer)
                }
                let expand = columns(pw, cin, mid, pb), project = columns(pj, mid, cout, pjb)
                let lanesFirst = ChannelLaneDepthwiseWeights(weights: dw, bias: db, channels: mid, kernelSize: k)
                let (a1, a2, a3) = (activations[Int(seed) % 6], activations[Int(seed / 6) % 6], activations[Int(seed / 36) % 6])
                let pool = WorkerPool(threads: threads)
                pool.reserve(smallMapPointwiseDepthwiseScratch(inputWidth: w, inputHeight: h, outputWidth: outW, outputHeight: outH,
                                                               pointwise: expand, projection: project)
                                .union(smallMapPointwiseScratch(pixels: h * w, weights: expand))
                                .union(smallMapPointwiseScratch(pixels: outH * outW, weights: project)))
                pool.shared.update(repeating: .nan)
                for part in 0..<threads { pool.scratch(part).update(repeating: .nan) }
                let input = makeMap(x, channels: cin, layout: .dense(width: w, height: h))
                let layout = PlaneLayout.padded(width: outW, height: outH, pad: [0, 1, 2][index % 3])
                let fused = FeatureMapStorage(channels: cout, layout: layout)
                let size = FeatureMapStorage(channels: mid, layout: .dense(width: outW, height: outH))
                smallMapPointwiseThenDepthwise(
                    input.map, pointwise: expand, pointwiseActivation: a1, depthwise: lanesFirst, stride: s, padTop: pad, padLeft: pad,
                    activation: a2, output: size.map,
                    projection: SmallMapProjection(weights: project, activation: a3, residual: residual?.map, rectifiesSum: rectifies,
                                                   output: fused.map),
                    pool: pool)
                let expanded = FeatureMapStorage(channels: mid, layout: .dense(width: w, height: h))
                smallMapPointwise(input.map, weights: expand, activation: a1, residual: nil, output: expanded.map, pool: pool)
                let middle = FeatureMapStorage(channels: mid, layout: .dense(width: outW, height: outH))
                smallMapDepthwise(expanded.map, weights: lanesFirst, stride: s, padTop: pad, padLeft: pad, activation: a2,
                                  output: middle.map, pool: pool)
                let apart = FeatureMapStorage(channels: cout, layout: layout)
                smallMapPointwise(middle.map, weights: project, activation: a3, residual: residual?.map, rectifiesSum: rectifies,
                                  output: apart.map, pool: pool)
                let what = "\(cin)->\(mid)->\(cout) on \(h)x\(w), \(k)x\(k) s\(s) pad \(pad), \(a1), \(a2), \(a3), "
                    + "residual \(String(describing: residualPad)) rectified \(rectifies), \(threads) threads"
                let differing = zip(fused.interior(), apart.interior()).filter { $0.bitPattern != $1.bitPattern }.count
                #expect(differing == 0, "\(what): \(differing) values differ from the three kernels")
                #expect(borderIsZero(fused), "\(what): border of the padded output written")
                if apart.interior().contains(where: { $0 != 0 && !$0.isNaN }) { computed += 1 }
                cases += 1
            }
        }
        // A case of one channel, all of it rectified, may compute only zeros; not most of them.
        #expect(computed > cases * 9 / 10, "\(computed) of \(cases) cases computed anything")
    }

    @Test("allocates nothing while it runs")
    func allocatesNothing() {
        let (cin, cout, h, w) = (40, 120, 6, 6)
        var random = Random(seed: 5)
        let input = makeMap(random.array(cin * h * w), channels: cin, layout: .dense(width: w, height: h))
        let matrix = MatrixWeights(values: random.array(cin * cout), bias: nil, inner: cin, columns: cout)
        let lanesFirst = ChannelLaneDepthwiseWeights(weights: random.array(cout * 9), bias: nil, channels: cout, kernelSize: 3)
        let output = FeatureMapStorage(channels: cout, layout: .dense(width: w, height: h))
        let pool = WorkerPool(threads: 1)
        pool.reserve(smallMapPointwiseDepthwiseScratch(inputWidth: w, inputHeight: h, outputWidth: w, outputHeight: h, pointwise: matrix))
        let run = {
            smallMapPointwiseThenDepthwise(input.map, pointwise: matrix, pointwiseActivation: .relu6, depthwise: lanesFirst, stride: 1,
                                           padTop: 1, padLeft: 1, activation: .relu6, output: output.map, pool: pool)
        }
        run()
        #expect(allocations(run) == 0)
        let projected = FeatureMapStorage(channels: cin, layout: .dense(width: w, height: h))
        let projection = SmallMapProjection(weights: MatrixWeights(values: random.array(cout * cin), bias: nil, inner: cout, columns: cin),
                                            activation: .none, residual: input.map, output: projected.map)
        pool.reserve(smallMapPointwiseDepthwiseScratch(inputWidth: w, inputHeight: h, outputWidth: w, outputHeight: h, pointwise: matrix,
                                                       projection: projection.weights))
        let runProjected = {
            smallMapPointwiseThenDepthwise(input.map, pointwise: matrix, pointwiseActivation: .relu6, depthwise: lanesFirst, stride: 1,
                                           padTop: 1, padLeft: 1, activation: .relu6, output: output.map, projection: projection,
                                           pool: pool)
        }
        runProjected()
        #expect(allocations(runProjected) == 0)
    }
}
