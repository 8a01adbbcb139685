import AllocationCounter
import Testing
@testable import Kernels

/// Dilated 3×3 convolutions (pads of the dilation, the output the input's size) by Winograd's
/// F(2×2, 3×3) on their sub-lattices, against the exact (Double) convolution, with the
/// Winograd kernel's tolerance (`WinogradTests`).
@Suite("Dilated 3×3 convolutions by Winograd on their sub-lattices")
struct DilatedWinogradTests {
    struct Case: CustomStringConvertible {
        var cin: Int, cout: Int, height: Int, width: Int, dilation: Int
        var inputPad = 0, outputPad = 0
        var activation: Activation = .relu
        var description: String {
            "\(cin)→\(cout) on \(height)×\(width) dilation \(dilation), input pad \(inputPad), output pad \(outputPad), \(activation)"
        }
    }

    /// The kernel's output (interior) on `threads` threads, and the exact values (none unless `exact`).
    func run(_ c: Case, threads: Int, seed: UInt64, exact: Bool = true) -> (actual: [Float], expected: [Expected]) {
        var random = Random(seed: seed)
        let x = random.array(c.cin * c.height * c.width)
        let w = random.array(c.cout * c.cin * 9, scale: 0.5)
        let b = random.array(c.cout)
        let input = makeMap(x, channels: c.cin, layout: .padded(width: c.width, height: c.height, pad: c.inputPad))
        let output = FeatureMapStorage(channels: c.cout, layout: .padded(width: c.width, height: c.height, pad: c.outputPad))
        let pool = WorkerPool(threads: threads)
        let before = 29
        pool.reserve(dilatedWinogradScratch(inputChannels: c.cin, outputChannels: c.cout, width: c.width, height: c.height,
                                            dilation: c.dilation, sharedOffset: before))
        pool.shared.update(repeating: .nan)
        pool.shared.baseAddress!.update(repeating: 7, count: before)
        for part in 0..<threads { pool.scratch(part).update(repeating: .nan) }
        dilatedWinogradConvolution(input.map, weights: WinogradWeights(weights: w, bias: b, outputChannels: c.cout, inputChannels: c.cin),
                                   dilation: c.dilation, activation: c.activation, output: output.map, pool: pool, sharedOffset: before)
        #expect(borderIsZero(output), "\(c): the output's border was written")
        #expect(pool.shared.prefix(before).allSatisfy { $0 == 7 }, "\(c): shared scratch before the offset written")
        guard exact else { return (output.interior(), []) }
        let expected = referenceConvolution(input: x, channels: c.cin, height: c.height, width: c.width, weights: w, bias: b,
                                            outputChannels: c.cout, kernelSize: 3, stride: 1, padTop: c.dilation, padLeft: c.dilation,
                                            outHeight: c.height, outWidth: c.width, groups: 1, activation: c.activation,
                                            dilation: c.dilation)
        return (output.interior(), expected)
    }

    @Test("every output within 2e-5 of the exact sum's magnitude: dilations 2 to 6, sub-lattices of unequal sizes (odd maps), tiles not whole vectors, channels not whole tiles of 8, padded and dense inputs and outputs, activations, 1 and 2 threads bit-identical",
          .enabled(if: wideRegisterFile, "the kernel runs with AVX-512 only"))
    func sweep() {
        let cases = [
            Case(cin: 16, cout: 32, height: 32, width: 32, dilation: 2),
            Case(cin: 33, cout: 17, height: 33, width: 31, dilation: 2, inputPad: 2, outputPad: 1, activation: .none),
            Case(cin: 64, cout: 40, height: 32, width: 32, dilation: 4, inputPad: 4),
            Case(cin: 24, cout: 48, height: 31, width: 29, dilation: 3, outputPad: 2, activation: .hardSwish),
            Case(cin: 40, cout: 24, height: 24, width: 24, dilation: 6, activation: .silu),
            Case(cin: 20, cout: 36, height: 17, width: 40, dilation: 2, inputPad: 1, activation: .relu6),
            Case(cin: 300, cout: 65, height: 20, width: 18, dilation: 2),
        ]
        var largest = 0.0
        for (index, c) in cases.enumerated() {
            #expect(dilatedWinogradFits(inputChannels: c.cin, outputChannels: c.cout, width: c.width, height: c.height,
                                        dilation: c.dilation), "\(c): the kernel does not take it")
            let one = run(c, threads: 1, seed: UInt64(1600 + index))
            let two = run(c, threads: 2, seed: UInt64(1600 + index), exact: false)
            expectClose(one.actual, one.expected, tolerance: WinogradTests.tolerance, "\(c)")
            #expect(one.actual.elementsEqual(two.actual) { $0.bitPattern == $1.bitPattern }, "\(c): 1 and 2 threads differ")
            largest = max(largest, zip(one.actual, one.expected).reduce(0) { max($0, abs(Double($1.0) - $1.1.value) / ($1.1.scale + 1e-30)) })
        }
        print("DilatedWinogradTests: \(cases.count) problems, worst |Δ| / Σ|terms| \(largest)")
    }

    @Test("what it leaves to the direct kernels: dilation 1, sub-lattices of a row or two (DeepLab's rate 12 on 32×32), what Winograd refuses")
    func refusals() {
        #expect(!dilatedWinogradFits(inputChannels: 256, outputChannels: 256, width: 32, height: 32, dilation: 1))
        #expect(!dilatedWinogradFits(inputChannels: 256, outputChannels: 256, width: 32, height: 32, dilation: 12))
        #expect(!dilatedWinogradFits(inputChannels: 8, outputChannels: 256, width: 32, height: 32, dilation: 2))
        #expect(!dilatedWinogradFits(inputChannels: 256, outputChannels: 256, width: 14, height: 14, dilation: 2))
        #expect(dilatedWinogradFits(inputChannels: 512, outputChannels: 512, width: 32, height: 32, dilation: 4) == wideRegisterFile)
        #expect(dilatedWinogradFits(inputChannels: 256, outputChannels: 256, width: 32, height: 32, dilation: 2) == wideRegisterFile)
    }

    @Test("allocates nothing per call on 1 and 2 threads", .enabled(if: vbg_allocation_counting_is_active() == 1 && wideRegisterFile))
    func noAllocation() {
        for threads in [1, 2] {
            var random = Random(seed: 6)
            let input = makeMap(random.array(32 * 24 * 24), channels: 32, layout: .dense(width: 24, height: 24))
            let output = FeatureMapStorage(channels: 32, layout: .dense(width: 24, height: 24))
            let weights = WinogradWeights(weights: random.array(32 * 32 * 9), bias: nil, outputChannels: 32, inputChannels: 32)
            let pool = WorkerPool(threads: threads)
            pool.reserve(dilatedWinogradScratch(inputChannels: 32, outputChannels: 32, width: 24, height: 24, dilation: 2))
            let call = {
                dilatedWinogradConvolution(input.map, weights: weights, dilation: 2, activation: .relu, output: output.map, pool: pool)
            }
            call()
            let n = allocations { for _ in 0..<5 { call() } }
            #expect(n == 0, "\(threads) thread(s): \(n) allocations in 5 calls")
        }
    }
}
