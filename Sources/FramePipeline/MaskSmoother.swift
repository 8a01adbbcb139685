/// Temporal smoothing of the segmentation mask against flicker: MediaPipe's uncertainty-weighted
/// exponential moving average (`SegmentationSmoothingCalculator`, option `combine_with_previous_ratio`).
///
/// For each pixel, with `new` the fresh mask value and `previous` the last smoothed value:
///
///     t = new − 0.5,  x = t²
///     certainty   = min(1, x · (c1 + x · (c2 + x · (c3 + x · (c4 + x · c5)))))
///     uncertainty = 1 − certainty
///     smoothed    = new + (previous − new) · uncertainty · ratio
///
/// The polynomial (c1 … c5 = 5.68842, −0.748699, −57.8051, 291.309, −624.717) approximates
/// 1 − binary entropy of `new`: it is 0 at 0.5 and ≈1 at 0 and 1. So confident pixels (the
/// person's interior, the clear background) take the new value at once and never trail during
/// motion, while uncertain pixels (edges, hair) are averaged with the past, which is where flicker
/// lives. `ratio` (default 0.7, MediaPipe's pose-graph value) bounds how much of the past is kept.
///
/// The first mask after ``reset()`` is used as is (there is no past to mix with).
package struct MaskSmoother: Sendable {
    /// How much of the previous mask an uncertain pixel keeps, in [0, 1].
    package var combineWithPreviousRatio: Float
    /// Whether a previous mask exists.
    package private(set) var hasPrevious = false

    package init(combineWithPreviousRatio: Float = 0.7) {
        self.combineWithPreviousRatio = min(max(combineWithPreviousRatio, 0), 1)
    }

    /// The weight of the previous value for a fresh mask value `new` (uncertainty × ratio).
    @inlinable
    package static func previousWeight(new: Float, ratio: Float) -> Float {
        let t = new - 0.5
        let x = t * t
        var certainty = x * (5.68842 + x * (-0.748699 + x * (-57.8051 + x * (291.309 + x * -624.717))))
        certainty = min(max(certainty, 0), 1)
        return (1 - certainty) * ratio
    }

    /// Smooths the fresh mask `fresh` against `previous` (the last smoothed mask) and stores the
    /// result in `previous`, which then holds the smoothed mask to composite with. `fresh` is only
    /// read: one full-resolution mask is written per frame, not two.
    ///
    /// - Precondition: both buffers have the same count.
    package mutating func smooth(_ fresh: UnsafeBufferPointer<Float>, into previous: UnsafeMutableBufferPointer<Float>) {
        precondition(fresh.count == previous.count, "mask and previous mask differ in size")
        if hasPrevious {
            let ratio = combineWithPreviousRatio
            for i in 0..<fresh.count {
                let new = fresh[i]
                previous[i] = new + (previous[i] - new) * Self.previousWeight(new: new, ratio: ratio)
            }
        } else {
            _ = previous.update(fromContentsOf: fresh)
            hasPrevious = true
        }
    }

    /// Forgets the previous mask: the next mask is used as is.
    package mutating func reset() { hasPrevious = false }
}
