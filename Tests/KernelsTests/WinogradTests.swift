import AllocationCounter
import Testing
@testable import Kernels

/// Winograd's F(2×2, 3×3) for dense 3×3 stride-1 convolutions, against the exact (Double)
/// convolution.
///
/// Tolerance: the direct kernels' bound, 2e-5 · (Σ|terms| + |bias| + |residual|)
/// (`ScalarReference.swift`). The transforms add and subtract up to four inputs and scale the
/// weights by ½, so each of the 16 products' sums carries the rounding of operands up to a few
/// times the inputs' magnitude, and the output transform adds nine of them: a few float32 ulps of
/// Σ|terms| more than a direct sum (the sweep's worst, printed, is about 1.5e-7 of it). A wrong
/// tap, tile or lane is off by a whole term, far above the bound.
@Suite("Winograd F(2×2, 3×3) convolution")
struct WinogradTests {
    static let tolerance = 2e-5

    struct Case: CustomStringConvertible {
        var cin: Int, cout: Int, height: Int, width: Int
        /// Pads before and after the rows and columns (each at most the input border).
        var top: Int, left: Int, bottom: Int, right: Int
        var border: Int, outputPad: Int
        var activation: Activation = .relu
        var residual = false, rectified = false
        var outH: Int { height + top + bottom - 2 }
        var outW: Int { width + left + right - 2 }
        var description: String {
            "\(cin)→\(cout) on \(height)×\(width) pads [\(top), \(left), \(bottom), \(right)] border \(border) -> pad \(outputPad)"
                + " \(activation)\(residual ? " + residual" : "")\(rectified ? " rectified" : "")"
        }
    }

    /// The kernel's output (interior) and the exact values (none unless `exact`), on `threads`
    /// threads, in `form` (nil: the kernel's choice).
    func run(_ c: Case, threads: Int, seed: UInt64, form: WinogradForm? = nil, exact: Bool = true) -> (actual: [Float], expected: [Expected]) {
        var random = Random(seed: seed)
        let x = random.array(c.cin * c.height * c.width)
        let w = random.array(c.cout * c.cin * 9, scale: 0.5)
        let b = random.array(c.cout)
        let r = random.array(c.cout * c.outH * c.outW, scale: 2)
        let input = makeMap(x, channels: c.cin, layout: .padded(width: c.width, height: c.height, pad: c.border))
        let output = FeatureMapStorage(channels: c.cout, layout: .padded(width: c.outW, height: c.outH, pad: c.outputPad))
        let residual = c.residual ? makeMap(r, channels: c.cout, layout: .dense(width: c.outW, height: c.outH)) : nil
        let pool = WorkerPool(threads: threads)
        // Shared scratch before the kernel's own is left alone (a step's zero-bordered input copy lies there).
        let before = 37
        pool.reserve(winogradScratch(inputChannels: c.cin, outputChannels: c.cout, outputWidth: c.outW, outputHeight: c.outH,
                                     sharedOffset: before, form: form))
        pool.shared.update(repeating: .nan)
        pool.shared.baseAddress!.update(repeating: 7, count: before)
        winogradConvolution(input.map, weights: WinogradWeights(weights: w, bias: b, outputChannels: c.cout, inputChannels: c.cin),
                            padTop: c.top, padLeft: c.left, activation: c.activation, residual: residual?.map,
                            rectifiesSum: c.rectified, output: output.map, pool: pool, sharedOffset: before, form: form)
        #expect(borderIsZero(output), "\(c): the output's border was written")
        #expect(pool.shared.prefix(before).allSatisfy { $0 == 7 }, "\(c): shared scratch before the offset written")
        guard exact else { return (output.interior(), []) }
        var expected = referenceConvolution(input: x, channels: c.cin, height: c.height, width: c.width, weights: w, bias: b,
                                            outputChannels: c.cout, kernelSize: 3, stride: 1, padTop: c.top, padLeft: c.left,
                                            outHeight: c.outH, outWidth: c.outW, groups: 1, activation: c.activation,
                                            residual: c.residual ? r : nil)
        if c.rectified { expected = expected.map { Expected(value: max($0.value, 0), scale: $0.scale) } }
        return (output.interior(), expected)
    }

    /// The worst |Δ| / scale of a run.
    func worst(_ actual: [Float], _ expected: [Expected]) -> Double {
        zip(actual, expected).reduce(0) { max($0, abs(Double($1.0) - $1.1.value) / ($1.1.scale + 1e-30)) }
    }

    @Test("every output within 2e-5 of the exact sum's magnitude: maps around the 16-tile groups and 48-tile products (odd sizes, one-row bands), channels 16 to 2053 (tiles of 8 ± 1, bands of one tile row), pads 0 to 2 before and after, borders 1 and 2, padded outputs, activations, residual and rectified sums, 1 and 2 threads bit-identical",
          .enabled(if: wideRegisterFile, "the kernel runs with AVX-512 only"))
    func sweep() {
        var cases: [Case] = []
        for (height, width) in [(15, 17), (17, 15), (16, 16), (9, 33), (28, 28), (27, 31), (56, 56), (7, 97), (33, 17), (12, 64)] {
            for (cin, cout) in [(16, 32), (17, 31), (64, 64), (33, 40)] {
                cases.append(Case(cin: cin, cout: cout, height: height, width: width, top: 1, left: 1, bottom: 1, right: 1,
                                  border: 1, outputPad: (height + width) % 2))
            }
        }
        cases += [
            Case(cin: 32, cout: 24, height: 20, width: 21, top: 0, left: 0, bottom: 0, right: 0, border: 1, outputPad: 0),
            Case(cin: 32, cout: 24, height: 20, width: 21, top: 0, left: 1, bottom: 1, right: 0, border: 1, outputPad: 1),
            Case(cin: 24, cout: 32, height: 19, width: 22, top: 2, left: 2, bottom: 2, right: 2, border: 2, outputPad: 0),
            Case(cin: 24, cout: 32, height: 19, width: 22, top: 1, left: 2, bottom: 0, right: 1, border: 2, outputPad: 2),
            Case(cin: 257, cout: 16, height: 16, width: 16, top: 1, left: 1, bottom: 1, right: 1, border: 1, outputPad: 0),
            Case(cin: 16, cout: 129, height: 15, width: 15, top: 1, left: 1, bottom: 1, right: 1, border: 1, outputPad: 1),
            // Bands of one and two tile rows (the transformed input of a band is capped near a megabyte).
            Case(cin: 1031, cout: 17, height: 16, width: 16, top: 1, left: 1, bottom: 1, right: 1, border: 1, outputPad: 0),
            Case(cin: 2053, cout: 16, height: 14, width: 28, top: 1, left: 1, bottom: 1, right: 1, border: 1, outputPad: 1),
            Case(cin: 48, cout: 48, height: 30, width: 30, top: 1, left: 1, bottom: 1, right: 1, border: 1, outputPad: 0,
                 activation: .none, residual: true),
            Case(cin: 48, cout: 48, height: 29, width: 30, top: 1, left: 1, bottom: 1, right: 1, border: 1, outputPad: 1,
                 activation: .none, residual: true, rectified: true),
            Case(cin: 20, cout: 36, height: 18, width: 40, top: 1, left: 1, bottom: 1, right: 1, border: 1, outputPad: 0,
                 activation: .hardSwish, residual: true),
            Case(cin: 20, cout: 36, height: 18, width: 40, top: 1, left: 1, bottom: 1, right: 1, border: 1, outputPad: 0,
                 activation: .silu),
            Case(cin: 20, cout: 36, height: 18, width: 40, top: 1, left: 1, bottom: 1, right: 1, border: 1, outputPad: 0,
                 activation: .relu6),
            // Transformed weights of 4 MiB and more on maps of several bands: the whole-map form
            // (70 tiles, not whole vectors; 130 channels, not whole tiles of 8).
            Case(cin: 512, cout: 130, height: 14, width: 20, top: 1, left: 1, bottom: 1, right: 1, border: 1, outputPad: 1),
        ]
        var largest = 0.0
        for (index, c) in cases.enumerated() {
            #expect(winogradFits(inputChannels: c.cin, outputChannels: c.cout, outputWidth: c.outW, outputHeight: c.outH),
                    "\(c): the kernel does not take it")
            let one = run(c, threads: 1, seed: UInt64(1400 + index))
            let two = run(c, threads: 2, seed: UInt64(1400 + index), exact: false)
            expectClose(one.actual, one.expected, tolerance: Self.tolerance, "\(c)")
            #expect(one.actual.elementsEqual(two.actual) { $0.bitPattern == $1.bitPattern }, "\(c): 1 and 2 threads differ")
            largest = max(largest, worst(one.actual, one.expected))
        }
        print("WinogradTests: \(cases.count) problems, worst |Δ| / Σ|terms| \(largest)")
    }

    @Test("the whole-map form (the 16 products as 1x1 convolutions over every tile) gives the bands' bits: tiles not whole vectors, channels not whole tiles of 8, borders and pads, activations, residual and rectified sums, 1 and 2 threads; shared scratch before its offset untouched",
          .enabled(if: wideRegisterFile, "the kernel runs with AVX-512 only"))
    func wholeMapEqualsBands() {
        let cases = [
            Case(cin: 16, cout: 32, height: 16, width: 16, top: 1, left: 1, bottom: 1, right: 1, border: 1, outputPad: 0),
            Case(cin: 33, cout: 17, height: 9, width: 33, top: 1, left: 1, bottom: 1, right: 1, border: 1, outputPad: 1),
            Case(cin: 17, cout: 31, height: 56, width: 56, top: 1, left: 1, bottom: 1, right: 1, border: 1, outputPad: 0),
            Case(cin: 64, cout: 40, height: 27, width: 31, top: 1, left: 1, bottom: 1, right: 1, border: 1, outputPad: 0),
            Case(cin: 24, cout: 32, height: 19, width: 22, top: 1, left: 2, bottom: 0, right: 1, border: 2, outputPad: 2),
            Case(cin: 32, cout: 24, height: 20, width: 21, top: 0, left: 0, bottom: 0, right: 0, border: 1, outputPad: 0),
            Case(cin: 48, cout: 48, height: 29, width: 30, top: 1, left: 1, bottom: 1, right: 1, border: 1, outputPad: 1,
                 activation: .none, residual: true, rectified: true),
            Case(cin: 20, cout: 36, height: 18, width: 40, top: 1, left: 1, bottom: 1, right: 1, border: 1, outputPad: 0,
                 activation: .hardSwish, residual: true),
            Case(cin: 2053, cout: 16, height: 14, width: 28, top: 1, left: 1, bottom: 1, right: 1, border: 1, outputPad: 1,
                 activation: .silu),
        ]
        for (index, c) in cases.enumerated() {
            for threads in [1, 2] {
                let bands = run(c, threads: threads, seed: UInt64(1500 + index), form: .bands, exact: false).actual
                let whole = run(c, threads: threads, seed: UInt64(1500 + index), form: .wholeMap, exact: false).actual
                let differing = zip(bands, whole).filter { $0.bitPattern != $1.bitPattern }.count
                #expect(differing == 0, "\(c), \(threads) thread(s): \(differing) outputs differ between the forms")
            }
        }
    }

    @Test("the form the shape calls for: the whole map when the transformed weights reach 4 MiB and the map takes more than one band",
          .enabled(if: wideRegisterFile, "the kernel runs with AVX-512 only"))
    func formChoice() {
        func wholeMap(_ cin: Int, _ cout: Int, _ size: Int) -> Bool {
            WinogradGeometry(inputChannels: cin, outputChannels: cout, outputWidth: size, outputHeight: size).wholeMap
        }
        #expect(wholeMap(2048, 512, 32), "FCN's head: 2048 → 512 on 32×32")
        #expect(wholeMap(256, 256, 32), "ResNet's 256 channels on 32×32")
        #expect(!wholeMap(256, 256, 16), "one band: 8 tile rows of 256 channels fit it")
        #expect(!wholeMap(128, 128, 64), "transformed weights of 1 MiB")
        #expect(!wholeMap(64, 64, 56))
        #expect(WinogradGeometry(inputChannels: 512, outputChannels: 130, outputWidth: 20, outputHeight: 14).wholeMap, "the sweep's whole-map case")
    }

    @Test("maps it leaves to the direct kernels: fewer than 64 tiles, too few channels")
    func refusals() {
        #expect(!winogradFits(inputChannels: 512, outputChannels: 512, outputWidth: 8, outputHeight: 8))
        #expect(!winogradFits(inputChannels: 16, outputChannels: 16, outputWidth: 56, outputHeight: 56))
        #expect(!winogradFits(inputChannels: 8, outputChannels: 128, outputWidth: 56, outputHeight: 56))
        #expect(!winogradFits(inputChannels: 256, outputChannels: 256, outputWidth: 14, outputHeight: 14))
        #expect(winogradFits(inputChannels: 256, outputChannels: 256, outputWidth: 16, outputHeight: 16) == wideRegisterFile)
    }

    @Test("allocates nothing per call on 1 and 2 threads, in either form", .enabled(if: vbg_allocation_counting_is_active() == 1 && wideRegisterFile),
          arguments: [WinogradForm.bands, .wholeMap])
    func noAllocation(form: WinogradForm) {
        for threads in [1, 2] {
            var random = Random(seed: 5)
            let input = makeMap(random.array(32 * 28 * 28), channels: 32, layout: .padded(width: 28, height: 28, pad: 1))
            let output = FeatureMapStorage(channels: 32, layout: .dense(width: 28, height: 28))
            let weights = WinogradWeights(weights: random.array(32 * 32 * 9), bias: nil, outputChannels: 32, inputChannels: 32)
            let pool = WorkerPool(threads: threads)
            pool.reserve(winogradScratch(inputChannels: 32, outputChannels: 32, outputWidth: 28, outputHeight: 28, form: form))
            let call = {
                winogradConvolution(input.map, weights: weights, padTop: 1, padLeft: 1, activation: .relu, output: output.map, pool: pool,
                                    form: form)
            }
            call()
            let n = allocations { for _ in 0..<5 { call() } }
            #expect(n == 0, "\(form), \(threads) thread(s): \(n) allocations in 5 calls")
        }
    }
}

