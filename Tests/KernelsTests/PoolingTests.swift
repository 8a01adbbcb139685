import AllocationCounter
import Foundation
import Testing
@testable import Kernels

@Suite("Max and average pooling")
struct PoolingTests {
    struct Window: CustomStringConvertible {
        var kh: Int, kw: Int, sh: Int, sw: Int, padTop: Int, padLeft: Int, ceil: Bool
        var description: String { "\(kh)x\(kw) s\(sh),\(sw) pad \(padTop),\(padLeft)\(ceil ? " ceil" : "")" }

        /// ONNX's output size with symmetric pads: ⌊(size + 2·pad − k)/s⌋ + 1, or ⌈…⌉ + 1 in ceil
        /// mode dropping a last window that would start in the end pad.
        func outputSize(_ size: Int, k: Int, s: Int, pad: Int) -> Int {
            let span = size + 2 * pad - k
            if span < 0 { return 0 }
            var out = (ceil ? (span + s - 1) / s : span / s) + 1
            if ceil && (out - 1) * s >= size + pad { out -= 1 }
            return out
        }
    }

    static let windows: [Window] = [
        Window(kh: 1, kw: 1, sh: 1, sw: 1, padTop: 0, padLeft: 0, ceil: false),
        Window(kh: 2, kw: 2, sh: 2, sw: 2, padTop: 0, padLeft: 0, ceil: false),
        Window(kh: 2, kw: 2, sh: 2, sw: 2, padTop: 0, padLeft: 0, ceil: true),
        Window(kh: 3, kw: 3, sh: 1, sw: 1, padTop: 1, padLeft: 1, ceil: false),
        Window(kh: 3, kw: 3, sh: 2, sw: 2, padTop: 1, padLeft: 1, ceil: false),
        Window(kh: 3, kw: 3, sh: 2, sw: 2, padTop: 1, padLeft: 1, ceil: true),
        Window(kh: 5, kw: 3, sh: 1, sw: 2, padTop: 2, padLeft: 1, ceil: false),
        Window(kh: 3, kw: 5, sh: 2, sw: 1, padTop: 0, padLeft: 2, ceil: false),
        Window(kh: 3, kw: 3, sh: 3, sw: 3, padTop: 1, padLeft: 1, ceil: false),
        Window(kh: 7, kw: 7, sh: 1, sw: 1, padTop: 3, padLeft: 3, ceil: false),
    ]

    /// The ONNX definition, one window at a time: the window clipped to the input; the count of
    /// the average is the whole window with countIncludesPad, else the pixels inside.
    func reference(_ x: [Float], channels: Int, height: Int, width: Int, kind: PoolKind, window: Window,
                   outH: Int, outW: Int) -> [Expected] {
        var out: [Expected] = []
        out.reserveCapacity(channels * outH * outW)
        x.withUnsafeBufferPointer { x in
            for c in 0..<channels {
                for yo in 0..<outH {
                    for xo in 0..<outW {
                        var maximum = -Float.infinity, sum = 0.0, magnitude = 0.0, inside = 0
                        for ky in 0..<window.kh {
                            let y = yo * window.sh - window.padTop + ky
                            if y < 0 || y >= height { continue }
                            for kx in 0..<window.kw {
                                let xi = xo * window.sw - window.padLeft + kx
                                if xi < 0 || xi >= width { continue }
                                let v = x[(c * height + y) * width + xi]
                                maximum = Float.maximum(maximum, v)
                                sum += Double(v)
                                magnitude += Double(v).magnitude
                                inside += 1
                            }
                        }
                        switch kind {
                        case .max:
                            out.append(Expected(value: Double(maximum), scale: 0))
                        case .average(let countIncludesPad):
                            let count = Double(countIncludesPad ? window.kh * window.kw : inside)
                            out.append(Expected(value: sum / count, scale: magnitude / count))
                        }
                    }
                }
            }
        }
        return out
    }

    @Test("pool2D max and average (count with and without pads) match the ONNX definition, strides 1, 2, 3, any layouts")
    func pooling() {
        var random = Random(seed: 91)
        for (c, h, w) in oddShapes + [(2, 12, 40)] {
            for window in Self.windows {
                let outH = window.outputSize(h, k: window.kh, s: window.sh, pad: window.padTop)
                let outW = window.outputSize(w, k: window.kw, s: window.sw, pad: window.padLeft)
                if outH < 1 || outW < 1 { continue }
                let x = random.array(c * h * w, scale: 5)
                for (inPad, outPad) in layoutPairs {
                    for kind in [PoolKind.max, .average(countIncludesPad: false), .average(countIncludesPad: true)] {
                        let what = "\(kind) \(window) \(c)x\(h)x\(w) -> \(outH)x\(outW) pad \(inPad)->\(outPad)"
                        let input = makeMap(x, channels: c, layout: .padded(width: w, height: h, pad: inPad))
                        let got = runOnBothPools(input, outputChannels: c, outputHeight: outH, outputWidth: outW,
                                                 outputPad: outPad, what) { i, o, pool in
                            pool2D(i, kind: kind, kernelHeight: window.kh, kernelWidth: window.kw, strideHeight: window.sh,
                                   strideWidth: window.sw, padTop: window.padTop, padLeft: window.padLeft, output: o, pool: pool)
                        }
                        let expected = reference(x, channels: c, height: h, width: w, kind: kind, window: window, outH: outH, outW: outW)
                        if case .max = kind {
                            #expect(got == expected.map { Float($0.value) }, "\(what)")
                        } else {
                            // ≤ 49 terms summed in float, then one division.
                            expectClose(got, expected, tolerance: 1e-6, what)
                        }
                    }
                }
            }
        }
    }

    @Test("max pooling vectorised over channels (small maps up to 36×36): channels around the blocks of 16 and 64, maps 1×1 to 36×36, windows 1…7 (rectangular), strides 1…3, pads, ceil_mode, any layouts, against the ONNX definition")
    func channelLaneMaxPool() {
        var random = Random(seed: 93)
        var taken = 0
        let windows = [Window(kh: 3, kw: 3, sh: 2, sw: 2, padTop: 0, padLeft: 0, ceil: true),
                       Window(kh: 3, kw: 3, sh: 2, sw: 2, padTop: 1, padLeft: 1, ceil: false),
                       Window(kh: 3, kw: 3, sh: 1, sw: 1, padTop: 1, padLeft: 1, ceil: false),
                       Window(kh: 2, kw: 2, sh: 2, sw: 2, padTop: 0, padLeft: 0, ceil: false),
                       Window(kh: 1, kw: 1, sh: 3, sw: 3, padTop: 0, padLeft: 0, ceil: true),
                       Window(kh: 5, kw: 3, sh: 1, sw: 2, padTop: 2, padLeft: 0, ceil: true),
                       Window(kh: 2, kw: 7, sh: 3, sw: 1, padTop: 1, padLeft: 3, ceil: false)]
        for (height, width) in [(1, 1), (2, 3), (4, 4), (5, 7), (8, 8), (9, 1), (13, 16), (17, 17), (16, 33), (35, 35), (36, 36)] {
            for channels in [1, 15, 16, 17, 63, 64, 65, 130] {
                for window in windows {
                    let outH = window.outputSize(height, k: window.kh, s: window.sh, pad: window.padTop)
                    let outW = window.outputSize(width, k: window.kw, s: window.sw, pad: window.padLeft)
                    guard outH >= 1, outW >= 1, channelLaneMaxPoolFits(inputWidth: width, inputHeight: height, outputWidth: outW,
                                                                       outputHeight: outH) else { continue }
                    taken += 1
                    let x = random.array(channels * height * width, scale: 5)
                    let (inPad, outPad) = layoutPairs[taken % layoutPairs.count]
                    let what = "max \(window) \(channels)x\(height)x\(width) -> \(outH)x\(outW) pad \(inPad)->\(outPad)"
                    let input = makeMap(x, channels: channels, layout: .padded(width: width, height: height, pad: inPad))
                    let scratch = smallMapDepthwiseScratch(inputWidth: width, inputHeight: height, outputWidth: outW, outputHeight: outH)
                    var results: [[Float]] = []
                    for threads in [1, 2] {
                        let output = FeatureMapStorage(channels: channels, layout: .padded(width: outW, height: outH, pad: outPad))
                        let pool = WorkerPool(threads: threads, scratchCount: max(scratch.perThread, WorkerPool.minimumScratchCount))
                        Kernels.channelLaneMaxPool(input.map, kernelHeight: window.kh, kernelWidth: window.kw, strideHeight: window.sh,
                                                   strideWidth: window.sw, padTop: window.padTop, padLeft: window.padLeft,
                                                   output: output.map, pool: pool)
                        #expect(borderIsZero(output), "\(what): output border written")
                        results.append(output.interior())
                    }
                    let expected = reference(x, channels: channels, height: height, width: width, kind: .max, window: window,
                                             outH: outH, outW: outW)
                    #expect(results[0] == expected.map { Float($0.value) }, "\(what)")
                    #expect(results[1] == results[0], "\(what): 1 and 2 threads differ")
                }
            }
        }
        #expect(taken > 300, "the sweep reaches the channel-lane kernel (\(taken) problems)")
    }

    @Test("average pooling vectorised over channels (small maps up to 36×36, called directly, thread scratch holding NaN): with and without countIncludesPad, channels around the blocks of 16 and 64 and into the thousands, maps 1×1 to 36×36, windows 1…7 (rectangular), strides 1…3, pads, ceil_mode, any layouts, bit for bit the band kernel's values and within float rounding of the ONNX definition")
    func channelLaneAveragePool() {
        var random = Random(seed: 96)
        var taken = 0
        let windows = [Window(kh: 3, kw: 3, sh: 1, sw: 1, padTop: 1, padLeft: 1, ceil: false),
                       Window(kh: 3, kw: 3, sh: 2, sw: 2, padTop: 0, padLeft: 0, ceil: true),
                       Window(kh: 3, kw: 3, sh: 2, sw: 2, padTop: 1, padLeft: 1, ceil: false),
                       Window(kh: 2, kw: 2, sh: 2, sw: 2, padTop: 0, padLeft: 0, ceil: false),
                       Window(kh: 1, kw: 1, sh: 3, sw: 3, padTop: 0, padLeft: 0, ceil: true),
                       Window(kh: 5, kw: 3, sh: 1, sw: 2, padTop: 2, padLeft: 0, ceil: true),
                       Window(kh: 2, kw: 7, sh: 3, sw: 1, padTop: 1, padLeft: 3, ceil: false),
                       Window(kh: 3, kw: 3, sh: 1, sw: 1, padTop: 2, padLeft: 2, ceil: false)]
        let shapes = [(1, 1), (2, 3), (4, 4), (5, 7), (8, 8), (9, 1), (13, 16), (17, 17), (16, 33), (35, 35), (36, 36)]
        for (height, width) in shapes {
            for channels in [1, 15, 16, 17, 63, 64, 65, 130] + (height == 8 || height == 17 ? [768, 2048] : []) {
                for window in windows {
                    let outH = window.outputSize(height, k: window.kh, s: window.sh, pad: window.padTop)
                    let outW = window.outputSize(width, k: window.kw, s: window.sw, pad: window.padLeft)
                    guard outH >= 1, outW >= 1, channelLaneMaxPoolFits(inputWidth: width, inputHeight: height, outputWidth: outW,
                                                                       outputHeight: outH) else { continue }
                    let x = random.array(channels * height * width, scale: 5)
                    for includes in [false, true] {
                        taken += 1
                        let (inPad, outPad) = layoutPairs[taken % layoutPairs.count]
                        let what = "average (pad counted: \(includes)) \(window) \(channels)x\(height)x\(width) -> \(outH)x\(outW) "
                            + "pad \(inPad)->\(outPad)"
                        let input = makeMap(x, channels: channels, layout: .padded(width: width, height: height, pad: inPad))
                        let scratch = smallMapDepthwiseScratch(inputWidth: width, inputHeight: height, outputWidth: outW, outputHeight: outH)
                        var results: [[Float]] = []
                        for threads in [1, 2] {
                            let output = FeatureMapStorage(channels: channels, layout: .padded(width: outW, height: outH, pad: outPad))
                            let pool = WorkerPool(threads: threads, scratchCount: max(scratch.perThread, WorkerPool.minimumScratchCount))
                            for part in 0..<pool.threadCount { pool.scratch(part).update(repeating: .nan) }
                            Kernels.channelLaneAveragePool(input.map, kernelHeight: window.kh, kernelWidth: window.kw,
                                                           strideHeight: window.sh, strideWidth: window.sw, padTop: window.padTop,
                                                           padLeft: window.padLeft, countIncludesPad: includes, output: output.map,
                                                           pool: pool)
                            #expect(borderIsZero(output), "\(what): output border written")
                            results.append(output.interior())
                        }
                        #expect(results[1].elementsEqual(results[0]) { $0.bitPattern == $1.bitPattern }, "\(what): 1 and 2 threads differ")
                        let band = runOnBothPools(input, outputChannels: channels, outputHeight: outH, outputWidth: outW,
                                                  outputPad: outPad, what) { i, o, pool in
                            bandPool2D(i, kind: .average(countIncludesPad: includes), kernelHeight: window.kh, kernelWidth: window.kw,
                                       strideHeight: window.sh, strideWidth: window.sw, padTop: window.padTop,
                                       padLeft: window.padLeft, output: o, pool: pool)
                        }
                        // The same additions in the same order and the same reciprocal: equal (== also
                        // takes −0 for +0, the one difference an outside zero can make).
                        let differing = zip(results[0], band).filter { $0 != $1 }.count
                        #expect(differing == 0, "\(what): \(differing) values differ from the band kernel's")
                        // ≤ 14 terms summed in float, then one multiplication by a rounded reciprocal.
                        let expected = reference(x, channels: channels, height: height, width: width,
                                                 kind: .average(countIncludesPad: includes), window: window, outH: outH, outW: outW)
                        expectClose(results[0], expected, tolerance: 1e-6, what)
                    }
                }
            }
        }
        #expect(taken > 600, "the sweep reaches the channel-lane kernel (\(taken) problems)")
    }

    @Test("max pooling of planes whose output rows fit a vector (the small-plane kernel, called directly): every width 1…32, stride 1 and 2, windows 1…7 wide, left pads 0…2, against the ONNX definition")
    func smallPlaneMaxPool() {
        var random = Random(seed: 92)
        var taken = 0
        for width in 1...32 {
            for (height, channels) in [(1, 2), (2, 3), (5, 1), (8, 17), (17, 2)] {
                for (kw, sw, padLeft) in [(1, 1, 0), (2, 2, 0), (3, 1, 1), (3, 2, 0), (3, 2, 1), (3, 1, 0), (5, 1, 2), (7, 2, 2),
                                          (2, 1, 1), (7, 1, 0), (4, 2, 2), (6, 2, 0)] {
                    for ceil in [false, true] {
                        let window = Window(kh: min(kw, 3), kw: kw, sh: sw, sw: sw, padTop: min(padLeft, 1), padLeft: padLeft, ceil: ceil)
                        let outH = window.outputSize(height, k: window.kh, s: window.sh, pad: window.padTop)
                        let outW = window.outputSize(width, k: kw, s: sw, pad: padLeft)
                        guard outH >= 1, outW >= 1, smallPlaneMaxPoolFits(inputWidth: width, inputHeight: height, outputWidth: outW,
                                                                          kernelWidth: kw, strideWidth: sw, padLeft: padLeft) else { continue }
                        taken += 1
                        let x = random.array(channels * height * width, scale: 5)
                        let (inPad, outPad) = layoutPairs[taken % layoutPairs.count]
                        let what = "max \(window) \(channels)x\(height)x\(width) -> \(outH)x\(outW) pad \(inPad)->\(outPad)"
                        let input = makeMap(x, channels: channels, layout: .padded(width: width, height: height, pad: inPad))
                        let got = runOnBothPools(input, outputChannels: channels, outputHeight: outH, outputWidth: outW,
                                                 outputPad: outPad, what) { i, o, pool in
                            Kernels.smallPlaneMaxPool(i, kernelHeight: window.kh, kernelWidth: kw, strideHeight: sw, strideWidth: sw,
                                                      padTop: window.padTop, padLeft: padLeft, output: o, pool: pool)
                        }
                        let expected = reference(x, channels: channels, height: height, width: width, kind: .max, window: window,
                                                 outH: outH, outW: outW)
                        #expect(got == expected.map { Float($0.value) }, "\(what)")
                    }
                }
            }
        }
        #expect(taken > 1000, "the sweep reaches the small-plane kernel (\(taken) problems)")
    }

    @Test("3×3 max pooling in registers (the row kernel, called directly): widths around 1, 2 and 3 vectors and up to 113, strides 1 and 2 on each axis, pads 0…2, ceil_mode, any layouts, against the ONNX definition")
    func rowMaxPool() {
        var random = Random(seed: 93)
        var taken = 0
        let widths = [1, 2, 3, 5, 8, 13, 15, 16, 17, 23, 24, 25, 31, 32, 33, 34, 35, 47, 48, 49, 50, 63, 64, 65, 66,
                      79, 80, 81, 95, 96, 97, 111, 112, 113]
        for width in widths {
            for (height, channels) in [(1, 2), (2, 1), (4, 3), (7, 2)] {
                for (sh, sw) in [(1, 1), (2, 2), (1, 2), (2, 1)] {
                    for (padTop, padLeft) in [(0, 0), (1, 1), (2, 2), (0, 1), (1, 2)] {
                        for ceil in [false, true] {
                            let window = Window(kh: 3, kw: 3, sh: sh, sw: sw, padTop: padTop, padLeft: padLeft, ceil: ceil)
                            let outH = window.outputSize(height, k: 3, s: sh, pad: padTop)
                            let outW = window.outputSize(width, k: 3, s: sw, pad: padLeft)
                            guard outH >= 1, outW >= 1,
                                  rowMaxPoolFits(inputWidth: width, inputHeight: height, outputWidth: outW, outputHeight: outH,
                                                 kernelHeight: 3, kernelWidth: 3, strideHeight: sh, strideWidth: sw,
                                                 padTop: padTop, padLeft: padLeft) else { continue }
                            taken += 1
                            let x = random.array(channels * height * width, scale: 5)
                            let (inPad, outPad) = layoutPairs[taken % layoutPairs.count]
                            let what = "max \(window) \(channels)x\(height)x\(width) -> \(outH)x\(outW) pad \(inPad)->\(outPad)"
                            let input = makeMap(x, channels: channels, layout: .padded(width: width, height: height, pad: inPad))
                            let got = runOnBothPools(input, outputChannels: channels, outputHeight: outH, outputWidth: outW,
                                                     outputPad: outPad, what) { i, o, pool in
                                Kernels.rowMaxPool(i, strideHeight: sh, strideWidth: sw, padTop: padTop, padLeft: padLeft,
                                                   output: o, pool: pool)
                            }
                            let expected = reference(x, channels: channels, height: height, width: width, kind: .max, window: window,
                                                     outH: outH, outW: outW)
                            #expect(got == expected.map { Float($0.value) }, "\(what)")
                        }
                    }
                }
            }
        }
        #expect(taken > 3000, "the sweep reaches the row kernel (\(taken) problems)")
    }

    @Test("3×3 average pooling in registers (the row kernel, called directly, thread scratch holding NaN): with and without countIncludesPad, widths around 1, 2 and 3 vectors and up to 113, strides 1 and 2 on each axis, pads 0…2, ceil_mode, any layouts, bit for bit the band kernel's values and within float rounding of the ONNX definition")
    func rowAveragePool() {
        var random = Random(seed: 94)
        var taken = 0
        let widths = [1, 2, 3, 5, 8, 13, 15, 16, 17, 23, 24, 25, 31, 32, 33, 34, 35, 47, 48, 49, 50, 63, 64, 65, 66,
                      79, 80, 81, 95, 96, 97, 111, 112, 113]
        for width in widths {
            for (height, channels) in [(1, 2), (2, 1), (4, 3), (7, 2)] {
                for (sh, sw) in [(1, 1), (2, 2), (1, 2), (2, 1)] {
                    for (padTop, padLeft) in [(0, 0), (1, 1), (2, 2), (0, 1), (1, 2)] {
                        for ceil in [false, true] {
                            let window = Window(kh: 3, kw: 3, sh: sh, sw: sw, padTop: padTop, padLeft: padLeft, ceil: ceil)
                            let outH = window.outputSize(height, k: 3, s: sh, pad: padTop)
                            let outW = window.outputSize(width, k: 3, s: sw, pad: padLeft)
                            guard outH >= 1, outW >= 1,
                                  rowMaxPoolFits(inputWidth: width, inputHeight: height, outputWidth: outW, outputHeight: outH,
                                                 kernelHeight: 3, kernelWidth: 3, strideHeight: sh, strideWidth: sw,
                                                 padTop: padTop, padLeft: padLeft) else { continue }
                            let x = random.array(channels * height * width, scale: 5)
                            for includes in [false, true] {
                                taken += 1
                                let (inPad, outPad) = layoutPairs[taken % layoutPairs.count]
                                let what = "average (pad counted: \(includes)) \(window) \(channels)x\(height)x\(width) -> \(outH)x\(outW) "
                                    + "pad \(inPad)->\(outPad)"
                                let input = makeMap(x, channels: channels, layout: .padded(width: width, height: height, pad: inPad))
                                let got = runOnBothPools(input, outputChannels: channels, outputHeight: outH, outputWidth: outW,
                                                         outputPad: outPad, what) { i, o, pool in
                                    for part in 0..<pool.threadCount { pool.scratch(part).update(repeating: .nan) }
                                    Kernels.rowAveragePool(i, strideHeight: sh, strideWidth: sw, padTop: padTop, padLeft: padLeft,
                                                           countIncludesPad: includes, output: o, pool: pool)
                                }
                                let band = runOnBothPools(input, outputChannels: channels, outputHeight: outH, outputWidth: outW,
                                                          outputPad: outPad, what) { i, o, pool in
                                    bandPool2D(i, kind: .average(countIncludesPad: includes), kernelHeight: 3, kernelWidth: 3,
                                               strideHeight: sh, strideWidth: sw, padTop: padTop, padLeft: padLeft, output: o, pool: pool)
                                }
                                // The same additions in the same order and the same reciprocal: equal
                                // (== also takes −0 for +0, the one difference an outside zero can make).
                                let differing = zip(got, band).filter { $0 != $1 }.count
                                #expect(differing == 0, "\(what): \(differing) values differ from the band kernel's")
                                // ≤ 9 terms summed in float, then one multiplication by a rounded reciprocal.
                                let expected = reference(x, channels: channels, height: height, width: width,
                                                         kind: .average(countIncludesPad: includes), window: window, outH: outH, outW: outW)
                                expectClose(got, expected, tolerance: 1e-6, what)
                            }
                        }
                    }
                }
            }
        }
        #expect(taken > 6000, "the sweep reaches the row kernel (\(taken) problems)")
    }

    @Test("3×3 average pooling in registers on Inception's maps (35×35, 17×17 and 8×8, channels into the thousands, stride 1, pad 1, both counts) through pool2D: the band kernel's values, bit for bit")
    func inceptionAveragePools() {
        var random = Random(seed: 95)
        for (channels, size) in [(192, 35), (288, 35), (768, 17), (1280, 8), (2048, 8), (3, 1), (5, 2)] {
            let x = random.array(channels * size * size, scale: 5)
            let input = makeMap(x, channels: channels, layout: .dense(width: size, height: size))
            for includes in [false, true] {
                let what = "average (pad counted: \(includes)) \(channels)x\(size)x\(size)"
                let got = runOnBothPools(input, outputChannels: channels, outputHeight: size, outputWidth: size, outputPad: 0, what) {
                    pool2D($0, kind: .average(countIncludesPad: includes), kernelHeight: 3, kernelWidth: 3, strideHeight: 1,
                           strideWidth: 1, padTop: 1, padLeft: 1, output: $1, pool: $2)
                }
                let band = runOnBothPools(input, outputChannels: channels, outputHeight: size, outputWidth: size, outputPad: 0, what) {
                    bandPool2D($0, kind: .average(countIncludesPad: includes), kernelHeight: 3, kernelWidth: 3, strideHeight: 1,
                               strideWidth: 1, padTop: 1, padLeft: 1, output: $1, pool: $2)
                }
                #expect(got == band, "\(what)")
                if size == 35 {
                    let expected = reference(x, channels: channels, height: size, width: size,
                                             kind: .average(countIncludesPad: includes),
                                             window: Window(kh: 3, kw: 3, sh: 1, sw: 1, padTop: 1, padLeft: 1, ceil: false),
                                             outH: size, outW: size)
                    expectClose(got, expected, tolerance: 1e-6, what)
                }
            }
        }
    }

    @Test("a window wholly in the pad gives −∞ for max and 0 for average")
    func emptyWindows() {
        // 3x3 stride 1, pad 3 on a 3x3 input: the corner windows of the 7x7 output see no input pixel.
        let input = makeMap([1, 2, 3, 4, 5, 6, 7, 8, 9], channels: 1, layout: .dense(width: 3, height: 3))
        for kind in [PoolKind.max, .average(countIncludesPad: false), .average(countIncludesPad: true)] {
            let got = runOnBothPools(input, outputChannels: 1, outputHeight: 7, outputWidth: 7, outputPad: 0, "\(kind)") { i, o, pool in
                pool2D(i, kind: kind, kernelHeight: 3, kernelWidth: 3, strideHeight: 1, strideWidth: 1, padTop: 3, padLeft: 3,
                       output: o, pool: pool)
            }
            // Output (yo, xo) covers input rows yo − 3 ... yo − 1 and the same columns.
            let includes = kind == .average(countIncludesPad: true)
            if case .max = kind {
                #expect(got[0] == -.infinity && got[48] == -.infinity, "\(kind): empty corners \(got)")
                #expect(got[8] == 1 && got[24] == 9 && got[40] == 9, "\(kind): \(got)")
            } else {
                #expect(got[0] == 0 && got[48] == 0, "\(kind): empty corners \(got)")
                #expect(got[24] == 5 && got[40] == (includes ? 1 : 9) && got[8] == (includes ? Float(1) / 9 : 1), "\(kind): \(got)")
            }
        }
    }

    @Test("windows below or right of the input (an output larger than the windows reach) are empty, not a crash")
    func windowsBeyondTheInput() {
        let input = makeMap([1, 2, 3, 4], channels: 1, layout: .dense(width: 2, height: 2))
        for kind in [PoolKind.max, .average(countIncludesPad: false)] {
            let got = runOnBothPools(input, outputChannels: 1, outputHeight: 3, outputWidth: 3, outputPad: 0, "\(kind)") { i, o, pool in
                pool2D(i, kind: kind, kernelHeight: 1, kernelWidth: 1, strideHeight: 3, strideWidth: 3, padTop: 0, padLeft: 0,
                       output: o, pool: pool)
            }
            let empty: Float = kind == .max ? -.infinity : 0
            #expect(got == [1, empty, empty, empty, empty, empty, empty, empty, empty], "\(kind): \(got)")
        }
    }

    @Test("pool2D allocates nothing per call on 1 and 2 threads", .enabled(if: vbg_allocation_counting_is_active() == 1))
    func noAllocation() {
        let c = 17, h = 33, w = 19
        var random = Random(seed: 5)
        let input = makeMap(random.array(c * h * w), channels: c, layout: .dense(width: w, height: h))
        let same = FeatureMapStorage(channels: c, layout: .dense(width: w, height: h))
        let half = FeatureMapStorage(channels: c, layout: .padded(width: 10, height: 17, pad: 1))
        let tiny = makeMap(random.array(c * 64), channels: c, layout: .dense(width: 8, height: 8))
        let small = FeatureMapStorage(channels: c, layout: .dense(width: 8, height: 8))
        #expect(channelLaneAveragePoolPreferred(inputWidth: 8, inputHeight: 8, outputWidth: 8, outputHeight: 8))
        for threads in [1, 2] {
            let pool = WorkerPool(threads: threads)
            let kernels: [(String, () -> Void)] = [
                ("average 3x3 s1", { pool2D(input.map, kind: .average(countIncludesPad: false), kernelHeight: 3, kernelWidth: 3,
                                            strideHeight: 1, strideWidth: 1, padTop: 1, padLeft: 1, output: same.map, pool: pool) }),
                ("average 3x3 s1 pad counted", { pool2D(input.map, kind: .average(countIncludesPad: true), kernelHeight: 3,
                                                        kernelWidth: 3, strideHeight: 1, strideWidth: 1, padTop: 1, padLeft: 1,
                                                        output: same.map, pool: pool) }),
                ("average 3x3 s1 over channels", { pool2D(tiny.map, kind: .average(countIncludesPad: true), kernelHeight: 3,
                                                          kernelWidth: 3, strideHeight: 1, strideWidth: 1, padTop: 1, padLeft: 1,
                                                          output: small.map, pool: pool) }),
                ("average 5x3 s1 (band kernel)", { pool2D(input.map, kind: .average(countIncludesPad: false), kernelHeight: 5,
                                                          kernelWidth: 3, strideHeight: 1, strideWidth: 1, padTop: 2, padLeft: 1,
                                                          output: same.map, pool: pool) }),
                ("max 3x3 s2", { pool2D(input.map, kind: .max, kernelHeight: 3, kernelWidth: 3,
                                        strideHeight: 2, strideWidth: 2, padTop: 1, padLeft: 1, output: half.map, pool: pool) }),
            ]
            for (name, kernel) in kernels {
                kernel()
                let n = allocations { for _ in 0..<10 { kernel() } }
                #expect(n == 0, "\(name) on \(threads) thread(s): \(n) allocations in 10 calls")
            }
        }
    }
}
