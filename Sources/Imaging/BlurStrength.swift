/// How strongly the background is blurred: a level from 1 (light) to 10 (strongest), 5 by default.
///
/// A level maps to a Gaussian standard deviation proportional to the frame's *shorter side*, so a
/// level looks the same at 480p and at 1080p:
///
///     σ = level · 0.0045 · min(width, height)
///
/// (1080p: σ ≈ 4.9 px at level 1, 24.3 px at level 5, 48.6 px at level 10), realised as three box
/// passes whose widths follow Kovesi ("Fast Almost-Gaussian Filtering", DICTA 2010):
/// `w_ideal = √(12σ²/3 + 1)`, `w_l` the largest odd integer ≤ `w_ideal`, `w_u = w_l + 2`,
/// `m = round((12σ² − 3w_l² − 12w_l − 9) / (−4w_l − 4))` passes of width `w_l` and `3 − m` of `w_u`.
/// Radii are capped at ``BlurStrength/maximumRadius`` (reached only above ~2900 px on the short side).
/// The table of resulting radii is in `Sources/Imaging/README.md`.
package struct BlurStrength: Sendable, Hashable {
    /// The level, clamped into `1...10`.
    package let level: Int

    package static let levels: ClosedRange<Int> = 1...10
    package static let defaultLevel = 5
    /// Per-level σ as a fraction of the shorter frame side.
    package static let sigmaPerLevel = 0.0045
    /// The largest box radius used; keeps the running sums exact in `Float` (see `BoxBlur`).
    package static let maximumRadius = 127

    /// A strength; levels outside `1...10` are clamped.
    package init(level: Int = BlurStrength.defaultLevel) {
        self.level = min(max(level, Self.levels.lowerBound), Self.levels.upperBound)
    }

    /// The target Gaussian σ in pixels for a frame of this size.
    package func sigma(width: Int, height: Int) -> Double {
        Double(level) * Self.sigmaPerLevel * Double(min(width, height))
    }

    /// The three box radii (width `2r + 1`), smallest first, for a frame of this size.
    package func radii(width: Int, height: Int) -> [Int] {
        Self.kovesiRadii(sigma: sigma(width: width, height: height), passes: 3)
    }

    /// Box radii for `passes` passes approximating a Gaussian of `sigma` (Kovesi's widths).
    package static func kovesiRadii(sigma: Double, passes n: Int) -> [Int] {
        let ideal = (12 * sigma * sigma / Double(n) + 1).squareRoot()
        var lower = Int(ideal.rounded(.down))
        if lower % 2 == 0 { lower -= 1 }
        lower = max(lower, 1)
        let upper = lower + 2
        let wl = Double(lower), nd = Double(n)
        let m = Int(((12 * sigma * sigma - nd * wl * wl - 4 * nd * wl - 3 * nd) / (-4 * wl - 4)).rounded())
        let count = min(max(m, 0), n)
        let widths = Array(repeating: lower, count: count) + Array(repeating: upper, count: n - count)
        return widths.map { min(($0 - 1) / 2, maximumRadius) }
    }

    /// The σ three boxes of these radii achieve: `√(Σ ((2r+1)² − 1) / 12)`.
    package static func achievedSigma(radii: [Int]) -> Double {
        (radii.reduce(0.0) { $0 + Double((2 * $1 + 1) * (2 * $1 + 1) - 1) } / 12).squareRoot()
    }
}
