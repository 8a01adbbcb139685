import AllocationCounter
import Imaging
import Testing

@Suite("Per-frame work allocates nothing after the first frame of a size")
struct AllocationTests {
    /// Heap allocations made by `body` on this thread.
    static func allocations(_ body: () -> Void) -> UInt {
        let before = vbg_thread_allocation_count()
        body()
        return UInt(vbg_thread_allocation_count() - before)
    }

    @Test("sampler, upsampler, blur (plain, masked, fused), coverage and compositor: zero allocations in steady state",
          .enabled(if: vbg_allocation_counting_is_active() == 1))
    func steadyState() {
        let w = 97, h = 61
        let frame = Image(width: w, height: h, format: .bgra8, bytes: Synthetic.noise(count: 4 * w * h, seed: 9))
        let background = Image(width: w, height: h, format: .bgra8, bytes: Synthetic.noise(count: 4 * w * h, seed: 10))
        var mask = Mask(width: w, height: h, values: (0..<(w * h)).map { Float($0 % 17) / 16 })
        let small = Synthetic.mask(width: 32, height: 24)
        var tensor = [Float](repeating: 0, count: 32 * 32 * 3)
        var output = frame, scratch = frame
        let sampler = ModelInputSampler(sourceWidth: w, sourceHeight: h, tensorWidth: 32, tensorHeight: 32)
        let upsampler = MaskUpsampler(sourceWidth: 32, sourceHeight: 24, targetWidth: w, targetHeight: h)
        let blur = BackgroundBlur()
        var coverage = CoverageMask(width: w, height: h)
        func frameWork() {
            tensor.withUnsafeMutableBufferPointer { sampler.sample(frame, into: $0) }
            small.withUnsafeBufferPointer { s in mask.values.withUnsafeMutableBufferPointer { upsampler.upsample(s, into: $0) } }
            blur.blur(frame, strength: BlurStrength(level: 7), into: &output)
            blur.blur(frame, strength: BlurStrength(level: 7), excluding: mask, into: &output)
            Compositor.composite(person: frame, background: background, mask: mask, into: &output)
            Compositor.composite(over: &scratch, background: background, mask: mask)
            coverage.update(from: mask)
            Compositor.composite(person: frame, background: background, coverage: coverage, into: &output)
            Compositor.composite(over: &scratch, background: background, coverage: coverage)
            blur.blurBackground(of: &scratch, mask: mask, coverage: coverage, strength: BlurStrength(level: 7))
            blur.blurBackground(of: frame, mask: mask, coverage: coverage, strength: BlurStrength(level: 7), into: &output)
        }
        frameWork()  // first frame: buffers are allocated here
        let parts: [(String, () -> Void)] = [
            ("sample", { tensor.withUnsafeMutableBufferPointer { sampler.sample(frame, into: $0) } }),
            ("upsample", { small.withUnsafeBufferPointer { s in mask.values.withUnsafeMutableBufferPointer { upsampler.upsample(s, into: $0) } } }),
            ("blur", { blur.blur(frame, strength: BlurStrength(level: 7), into: &output) }),
            ("blur masked", { blur.blur(frame, strength: BlurStrength(level: 7), excluding: mask, into: &output) }),
            ("composite", { Compositor.composite(person: frame, background: background, mask: mask, into: &output) }),
            ("composite over", { Compositor.composite(over: &scratch, background: background, mask: mask) }),
            ("coverage", { coverage.update(from: mask) }),
            ("fused coverage", { blur.blurBackground(of: &scratch, mask: mask, coverage: coverage, strength: BlurStrength(level: 7)) }),
            ("fused coverage into", {
                blur.blurBackground(of: frame, mask: mask, coverage: coverage, strength: BlurStrength(level: 7), into: &output)
            }),
            ("composite coverage", { Compositor.composite(person: frame, background: background, coverage: coverage, into: &output) }),
            ("composite coverage over", { Compositor.composite(over: &scratch, background: background, coverage: coverage) }),
        ]
        for (name, part) in parts {
            let n = Self.allocations(part)
            #expect(n == 0, "\(name): \(n) allocations")
        }
        let count = Self.allocations { for _ in 0..<5 { frameWork() } }
        #expect(count == 0, "\(count) allocations in 5 frames")
        // The counter does see allocations (so the zero above means something).
        #expect(Self.allocations { _ = BackgroundBlur().blur(frame, strength: BlurStrength(level: 3), into: &output) } > 0)
    }

    @Test("every input.sampling sampler: zero allocations per frame once built",
          .enabled(if: vbg_allocation_counting_is_active() == 1))
    func samplers() {
        let w = 97, h = 61
        let frame = Image(width: w, height: h, format: .bgra8, bytes: Synthetic.noise(count: 4 * w * h, seed: 11))
        // Shrinking (area's box filter, fractional and whole factors), growing, and mixed.
        for (width, height) in [(32, 32), (97, 61), (194, 30), (200, 100)] {
            var tensor = [Float](repeating: 0, count: width * height * 3)
            for sampling in InputSampling.allCases {
                let sampler = sampling.sampler(sourceWidth: w, sourceHeight: h, tensorWidth: width, tensorHeight: height)
                tensor.withUnsafeMutableBufferPointer { sampler.sample(frame, into: $0) }
                let n = Self.allocations { tensor.withUnsafeMutableBufferPointer { sampler.sample(frame, into: $0) } }
                #expect(n == 0, "\(sampling) to \(width)x\(height): \(n) allocations")
            }
        }
    }
}
