import Testing
@testable import Kernels

@Suite("Fused kernels equal their unfused pairs")
struct FusionTests {
    /// The 1x1 convolution into a full padded map, then the depthwise convolution on it: what
    /// the banded kernel must reproduce bit for bit.
    func unbanded(_ input: FeatureMapStorage, _ pw: PointwiseWeights, _ dw: DepthwiseWeights, stride: Int,
                  dilation: Int = 1, padTop: Int, padLeft: Int, pad: Int, residualIsInput: Bool, outH: Int, outW: Int,
                  pool: WorkerPool) -> [Float] {
        let h = input.layout.height, w = input.layout.width
        let mid = FeatureMapStorage(channels: pw.outputChannels, layout: .padded(width: w, height: h, pad: pad))
        pointwiseConvolution(input.map, weights: pw, activation: .relu, output: mid.map, pool: pool)
        let out = FeatureMapStorage(channels: pw.outputChannels, layout: .dense(width: outW, height: outH))
        depthwiseConvolution(mid.map, weights: dw, stride: stride, dilation: dilation, padTop: padTop, padLeft: padLeft,
                             activation: .hardSwish, residual: residualIsInput ? mid.map : nil, output: out.map, pool: pool)
        return out.interior()
    }

    @Test("""
        1x1 then depthwise in bands of rows: bit-identical to the full-map pair, any band height, 1 and 2 threads \
        (maps short enough to share each band between the threads, and tall enough to split their rows; \
        the rows consecutive bands share are carried over, not recomputed; the band buffers reused         from a call on another map, as a step reuses them on every frame)
        """,
          arguments: [(3, 1, 1), (3, 2, 1), (5, 2, 1), (5, 1, 1), (3, 1, 2), (3, 2, 3)])
    func pointwiseThenDepthwiseBands(window: (k: Int, stride: Int, dilation: Int)) {
        var random = Random(seed: UInt64(window.k * 10 + window.stride + 100 * (window.dilation - 1)))
        let span = (window.k - 1) * window.dilation + 1
        for (cin, cout, h, w) in [(16, 24, 19, 13), (8, 17, 16, 32), (3, 5, 7, 40), (8, 12, 41, 24)] {
            let x = random.array(cin * h * w)
            let pw = PointwiseWeights(weights: random.array(cin * cout, scale: 0.5), bias: random.array(cout),
                                      outputChannels: cout, inputChannels: cin)
            let dw = DepthwiseWeights(weights: random.array(cout * window.k * window.k, scale: 0.5),
                                      bias: random.array(cout), channels: cout, kernelSize: window.k)
            let input = makeMap(x, channels: cin, layout: .dense(width: w, height: h))
            let earlierFrame = makeMap(random.array(cin * h * w), channels: cin, layout: .dense(width: w, height: h))
            // TF-SAME: output ⌈size / stride⌉, half the total pad before (rounded down), the rest after.
            let outH = (h + window.stride - 1) / window.stride, outW = (w + window.stride - 1) / window.stride
            let totalH = max((outH - 1) * window.stride + span - h, 0)
            let totalW = max((outW - 1) * window.stride + span - w, 0)
            let padTop = totalH / 2, padLeft = totalW / 2
            let pad = max(totalH - padTop, totalW - padLeft, 1)
            let residualIsInput = window.stride == 1
            for threads in [1, 2] {
                let pool = WorkerPool(threads: threads)
                let expected = unbanded(input, pw, dw, stride: window.stride, dilation: window.dilation, padTop: padTop,
                                        padLeft: padLeft, pad: pad, residualIsInput: residualIsInput,
                                        outH: outH, outW: outW, pool: pool)
                for bandRows in [1, 3, 4, 8, outH] {
                  // Bands in the pool's scratch, and bands of the caller's own.
                  for owned in [false, true] {
                    pool.reserve(pointwiseThenDepthwiseScratch(pw, width: w, bandOutputRows: bandRows, stride: window.stride,
                                                               kernelSpan: span, bandPad: pad, gated: false, ownsBands: owned))
                    let layout = bandLayout(width: w, bandOutputRows: bandRows, stride: window.stride, kernelSpan: span, bandPad: pad)
                    let bands = owned ? (0..<threads).map { _ in FeatureMapStorage(channels: cout, layout: layout) } : nil
                    let out = FeatureMapStorage(channels: cout, layout: .dense(width: outW, height: outH))
                    for frame in [earlierFrame, input] {
                        Self.dirty(pool)
                        pointwiseThenDepthwise(frame.map, pointwise: pw, pointwiseActivation: .relu,
                                               bandOutputRows: bandRows, bandPad: pad, ownBands: bands, depthwise: dw, stride: window.stride,
                                               dilation: window.dilation, padTop: padTop, padLeft: padLeft,
                                               depthwiseActivation: .hardSwish, residualIsInput: residualIsInput,
                                               residual: nil, output: out.map, pool: pool)
                    }
                    #expect(out.interior() == expected,
                            "\(cin)->\(cout) \(h)x\(w) k\(window.k) s\(window.stride) d\(window.dilation) bands of \(bandRows), \(threads) thread(s), own bands \(owned)")
                  }
                }
            }
        }
    }

    /// Fills every thread's scratch with NaN: what other kernels leave there, which the band
    /// buffers in it must not read.
    static func dirty(_ pool: WorkerPool) {
        for part in 0..<pool.threadCount { pool.scratch(part).update(repeating: .nan) }
    }

    @Test("an attention gate applied band by band into the banded 1x1 + depthwise input equals applying it whole first")
    func gatedInputBands() {
        var random = Random(seed: 77)
        let (cin, cout, h, w) = (16, 16, 21, 32)
        let skip = makeMap(random.array(cin * h * w), channels: cin, layout: .dense(width: w, height: h))
        let upsampled = makeMap(random.array(cin * h * w), channels: cin, layout: .dense(width: w, height: h))
        let gate = random.array(cin)
        let pw = PointwiseWeights(weights: random.array(cin * cout, scale: 0.5), bias: random.array(cout),
                                  outputChannels: cout, inputChannels: cin)
        let dw = DepthwiseWeights(weights: random.array(cout * 9, scale: 0.5), bias: random.array(cout),
                                  channels: cout, kernelSize: 3)
        for threads in [1, 2] {
            let pool = WorkerPool(threads: threads)
            let gated = FeatureMapStorage(channels: cin, layout: .dense(width: w, height: h))
            gate.withUnsafeBufferPointer {
                applyGate(skip: skip.map, upsampled: upsampled.map, gate: $0.baseAddress!, output: gated.map, pool: pool)
            }
            let expected = unbanded(gated, pw, dw, stride: 1, padTop: 1, padLeft: 1, pad: 1, residualIsInput: true,
                                    outH: h, outW: w, pool: pool)
            for bandRows in [1, 4, 8] {
                pool.reserve(pointwiseThenDepthwiseScratch(pw, width: w, bandOutputRows: bandRows, stride: 1, kernelSpan: 3,
                                                           bandPad: 1, gated: true))
                Self.dirty(pool)
                let out = FeatureMapStorage(channels: cout, layout: .dense(width: w, height: h))
                gate.withUnsafeBufferPointer { g in
                    let input = GatedInput(skip: skip.map, upsampled: upsampled.map, gate: g.baseAddress!)
                    // The input map itself is never read: pass the skip map in its place.
                    pointwiseThenDepthwise(skip.map, gatedInput: input, pointwise: pw, pointwiseActivation: .relu,
                                           bandOutputRows: bandRows, bandPad: 1, depthwise: dw, stride: 1, padTop: 1,
                                           padLeft: 1, depthwiseActivation: .hardSwish, residualIsInput: true,
                                           residual: nil, output: out.map, pool: pool)
                }
                #expect(out.interior() == expected, "bands of \(bandRows), \(threads) thread(s)")
            }
        }
    }

    @Test("zeroBorder leaves every float outside the interior zero, whatever the buffer held", arguments: [
        (1, 1, 1, 1), (3, 8, 8, 1), (5, 7, 3, 2), (2, 16, 5, 1), (4, 17, 9, 3), (116, 8, 8, 1), (1, 2, 64, 8)])
    func zeroBorderClearsTheBorder(_ shape: (channels: Int, width: Int, height: Int, pad: Int)) {
        let layout = PlaneLayout.padded(width: shape.width, height: shape.height, pad: shape.pad)
        let storage = FeatureMapStorage(channels: shape.channels, layout: layout)
        let count = layout.storageCount(channels: shape.channels)
        storage.buffer.baseAddress.update(repeating: .nan, count: count)
        zeroBorder(storage.map)
        var interior = Set<Int>()
        for c in 0..<shape.channels {
            for y in 0..<shape.height {
                for x in 0..<shape.width { interior.insert(layout.offset(channel: c, y: y, x: x)) }
            }
        }
        let dirty = (0..<count).filter { !interior.contains($0) && storage.buffer.baseAddress[$0] != 0 }
        #expect(dirty.isEmpty, "\(shape): \(dirty.count) border floats not zero, first at \(dirty.first ?? -1)")
    }

    @Test("NHWC pixels to NCHW planes, dense or into a padded map's interior: three channels (RGB), and 1 to 97 channels on maps of rows 1 to 33 wide (16 × 16 squares ± 1, partial in pixels and channels)")
    func deinterleave() {
        for (c, h, w) in [(3, 5, 7), (3, 16, 33), (1, 2, 3), (4, 3, 17), (3, 2, 16), (3, 3, 47), (3, 2, 256),
                          (16, 4, 4), (17, 3, 5), (15, 1, 17), (32, 5, 16), (33, 2, 9), (96, 7, 7), (97, 3, 33), (2, 17, 1)] {
            let x = (0..<(c * h * w)).map(Float.init)
            var expected = [Float](repeating: 0, count: x.count)
            for y in 0..<h { for i in 0..<w { for ch in 0..<c { expected[(ch * h + y) * w + i] = x[(y * w + i) * c + ch] } } }
            for pad in [0, 1, 2] {
                for threads in [1, 2] {
                    let out = FeatureMapStorage(channels: c, layout: .padded(width: w, height: h, pad: pad))
                    x.withUnsafeBufferPointer { deinterleaveChannels($0.baseAddress!, output: out.map, pool: WorkerPool(threads: threads)) }
                    #expect(out.interior() == expected, "\(c)x\(h)x\(w) pad \(pad)")
                    #expect(borderIsZero(out))
                }
            }
        }
    }

    @Test("NCHW planes (dense or padded) to NHWC pixels, the inverse of deinterleaveChannels: 1 to 97 channels on maps of rows 1 to 33 wide (16 × 16 squares ± 1, partial in pixels and channels)")
    func interleave() {
        for (c, h, w) in [(3, 5, 7), (1, 2, 3), (4, 3, 17), (24, 9, 33), (17, 1, 16), (16, 4, 4), (15, 1, 17), (32, 5, 16),
                          (33, 2, 9), (96, 7, 7), (97, 3, 33), (2, 17, 1), (16, 1, 15)] {
            let x = (0..<(c * h * w)).map(Float.init)
            var expected = [Float](repeating: 0, count: x.count)
            for y in 0..<h { for i in 0..<w { for ch in 0..<c { expected[(y * w + i) * c + ch] = x[(ch * h + y) * w + i] } } }
            for pad in [0, 2] {
                let input = makeMap(x, channels: c, layout: .padded(width: w, height: h, pad: pad))
                for threads in [1, 2] {
                    var out = [Float](repeating: -1, count: x.count)
                    out.withUnsafeMutableBufferPointer { interleaveChannels(input.map, output: $0.baseAddress!, pool: WorkerPool(threads: threads)) }
                    #expect(out == expected, "\(c)x\(h)x\(w) pad \(pad), \(threads) thread(s)")
                }
            }
        }
    }
}
