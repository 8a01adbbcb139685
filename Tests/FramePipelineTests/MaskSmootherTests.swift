import FramePipeline
import Testing

/// Smooths `values` into `previous` and returns the smoothed mask (what `previous` now holds).
private func smooth(_ smoother: inout MaskSmoother, _ values: [Float], previous: UnsafeMutableBufferPointer<Float>) -> [Float] {
    values.withUnsafeBufferPointer { smoother.smooth($0, into: previous) }
    return Array(previous)
}

@Suite("Temporal mask smoothing")
struct MaskSmootherTests {
    @Test("the first mask after a reset is used as is")
    func firstMaskRaw() {
        let previous = UnsafeMutableBufferPointer<Float>.allocate(capacity: 3)
        defer { previous.deallocate() }
        previous.initialize(repeating: 0.9)
        var smoother = MaskSmoother()
        #expect(smooth(&smoother, [0.5, 0.2, 1], previous: previous) == [0.5, 0.2, 1])
        _ = smooth(&smoother, [0.5, 0.5, 0.5], previous: previous)
        smoother.reset()
        #expect(smooth(&smoother, [0.1, 0.6, 0], previous: previous) == [0.1, 0.6, 0])
    }

    @Test("confident pixels take the new value at once (no trailing)")
    func confidentPixelsFollow() {
        let previous = UnsafeMutableBufferPointer<Float>.allocate(capacity: 2)
        defer { previous.deallocate() }
        var smoother = MaskSmoother(combineWithPreviousRatio: 0.9)
        _ = smooth(&smoother, [1, 0], previous: previous)
        let next = smooth(&smoother, [0, 1], previous: previous)
        #expect(abs(next[0] - 0) < 1e-3)
        #expect(abs(next[1] - 1) < 1e-3)
    }

    @Test("an uncertain pixel keeps `ratio` of the previous value")
    func uncertainPixelsAverage() {
        let previous = UnsafeMutableBufferPointer<Float>.allocate(capacity: 1)
        defer { previous.deallocate() }
        var smoother = MaskSmoother(combineWithPreviousRatio: 0.7)
        _ = smooth(&smoother, [1], previous: previous)
        let next = smooth(&smoother, [0.5], previous: previous)
        // weight = uncertainty(0.5) · 0.7 = 0.7: 0.5 + (1 − 0.5) · 0.7
        #expect(abs(next[0] - 0.85) < 1e-6)
        #expect(MaskSmoother.previousWeight(new: 0.5, ratio: 0.7) == 0.7)
    }

    @Test("the weight of the past falls monotonically with confidence")
    func weightMonotonic() {
        var last: Float = .infinity
        for step in 0...50 {
            let value = 0.5 + Float(step) / 100
            let weight = MaskSmoother.previousWeight(new: value, ratio: 1)
            #expect(weight <= last + 1e-6, "weight rises at \(value)")
            #expect(weight >= 0 && weight <= 1)
            last = weight
            #expect(abs(weight - MaskSmoother.previousWeight(new: 1 - value, ratio: 1)) < 1e-5, "not symmetric at \(value)")
        }
    }

    @Test("flicker on an edge pixel is damped")
    func flickerDamped() {
        let previous = UnsafeMutableBufferPointer<Float>.allocate(capacity: 1)
        defer { previous.deallocate() }
        var smoother = MaskSmoother()
        var outputs: [Float] = []
        for frame in 0..<40 {
            outputs += smooth(&smoother, [frame % 2 == 0 ? 0.3 : 0.7], previous: previous)
        }
        let tail = outputs.suffix(20)
        let swing = tail.max()! - tail.min()!
        // Raw swing is 0.4; the filter must cut it at least in half.
        #expect(swing < 0.2, "smoothed swing \(swing)")
    }
}
