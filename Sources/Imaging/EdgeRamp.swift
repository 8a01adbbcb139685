/// How the mask's soft edge becomes the person's coverage when compositing.
///
/// The model's mask, upsampled from 256 px, fades from 0 to 1 over several frame pixels. Using it
/// directly as alpha leaves a wide semi-transparent fringe (background showing through hair and
/// shoulders, the "ghost edge"). The coverage is instead a smoothstep of the mask between
/// ``lower`` and ``upper``:
///
///     t = clamp((m − lower) / (upper − lower), 0, 1),  coverage = t²(3 − 2t)
///
/// The default `0.25…0.75` keeps the 0.5 boundary where the model puts it, halves the fringe's
/// width, and stays continuous (no jagged threshold). `EdgeRamp(lower: 0, upper: 1)` is a pure
/// smoothstep of the mask; ``linear`` uses the mask as it is.
package struct EdgeRamp: Sendable, Hashable {
    package var lower: Float
    package var upper: Float
    /// Smoothstep off: coverage = mask.
    package var isLinear: Bool

    /// - Precondition: `0 ≤ lower < upper ≤ 1`.
    package init(lower: Float = 0.25, upper: Float = 0.75) {
        precondition(lower >= 0 && lower < upper && upper <= 1, "need 0 ≤ lower < upper ≤ 1")
        self.lower = lower
        self.upper = upper
        self.isLinear = false
    }

    private init(linear: Void) {
        lower = 0; upper = 1; isLinear = true
    }

    /// The default ramp, `0.25…0.75`.
    package static let standard = EdgeRamp()
    /// The mask used as coverage unchanged (clamped into [0, 1]).
    package static let linear = EdgeRamp(linear: ())

    /// The coverage for one mask value, in [0, 1].
    @inlinable package func coverage(_ m: Float) -> Float {
        if isLinear { return min(max(m, 0), 1) }
        let t = min(max((m - lower) * (1 / (upper - lower)), 0), 1)
        return t * t * (3 - 2 * t)
    }

    /// The coverage of 16 mask values at once.
    @inlinable @inline(__always)
    func coverage(_ m: SIMD16<Float>) -> SIMD16<Float> {
        coverage(ramp: ramp(m))
    }

    /// The ramp position `t` before clamping: `(m − lower) / (upper − lower)`, or `m` when linear.
    /// Every lane `t ≤ 0` means coverage 0 and every lane `t ≥ 1` coverage 1, exactly.
    @inlinable @inline(__always)
    func ramp(_ m: SIMD16<Float>) -> SIMD16<Float> {
        isLinear ? m : (m - lower) * (1 / (upper - lower))
    }

    /// The coverage from the ramp position ``ramp(_:)``.
    @inlinable @inline(__always)
    func coverage(ramp: SIMD16<Float>) -> SIMD16<Float> {
        // `replacing` rather than `clamped`: the latter is scalarised.
        var t = ramp.replacing(with: 0, where: ramp .< 0)
        t = t.replacing(with: 1, where: t .> 1)
        return isLinear ? t : t * t * (3 - 2 * t)
    }
}
