import Foundation

/// How far a tensor is from a reference one of the same type and shape, measured as
/// `Docs/Numerics.md` measures the paths' parity: the largest absolute difference relative to the
/// reference's largest magnitude, `max|Δ| / max|reference|`.
///
/// Elements that are NaN in both tensors, or the same infinity, agree; NaN or an infinity in one
/// only (or opposite infinities) is a mismatch, counted apart from the finite differences.
/// Integer and bool tensors are compared through their values as Double, so any difference in
/// them is at least 1 in `maxAbsolute`.
package struct TensorDifference: Sendable, Equatable, CustomStringConvertible {
    /// Elements compared.
    package var count: Int
    /// max |actual − reference| over the elements where both are finite (0 when there are none).
    package var maxAbsolute: Double
    /// Flat index (C order) of the element with the largest finite difference, or of the first
    /// mismatch when there are mismatches.
    package var worstIndex: Int
    /// max |reference| over its finite elements.
    package var referenceScale: Double
    /// Elements that are not finite in one tensor and something else in the other.
    package var mismatches: Int
    /// Elements that differ at all (|Δ| > 0, or a mismatch).
    package var differingCount: Int

    /// `maxAbsolute / referenceScale`, or `maxAbsolute` when the reference is all zeros; infinity
    /// when there are mismatches.
    package var relative: Double {
        guard mismatches == 0 else { return .infinity }
        return referenceScale > 0 ? maxAbsolute / referenceScale : maxAbsolute
    }

    /// Compares `actual` with `reference`, or returns nil when their types or shapes differ or
    /// they hold strings.
    package init?(_ actual: Tensor, _ reference: Tensor) {
        guard actual.elementType == reference.elementType, actual.shape == reference.shape,
              actual.elementType != .string else { return nil }
        self.init(actual.doubles, reference.doubles)
    }

    /// Compares two arrays of the same length element by element.
    ///
    /// - Precondition: `actual.count == reference.count`.
    package init(_ actual: [Double], _ reference: [Double]) {
        precondition(actual.count == reference.count, "compared arrays differ in length: \(actual.count) vs \(reference.count)")
        count = actual.count
        maxAbsolute = 0
        worstIndex = 0
        referenceScale = 0
        mismatches = 0
        differingCount = 0
        for index in actual.indices {
            let a = actual[index], b = reference[index]
            if b.isFinite { referenceScale = max(referenceScale, abs(b)) }
            guard a.isFinite, b.isFinite else {
                let same = (a.isNaN && b.isNaN) || a == b
                if !same {
                    if mismatches == 0 { worstIndex = index }
                    mismatches += 1
                    differingCount += 1
                }
                continue
            }
            let difference = abs(a - b)
            if difference > 0 { differingCount += 1 }
            if difference > maxAbsolute {
                maxAbsolute = difference
                if mismatches == 0 { worstIndex = index }
            }
        }
    }

    /// Whether the tensors agree: no mismatch and `max|Δ| ≤ absoluteTolerance + relativeTolerance · max|reference|`.
    package func agrees(relativeTolerance: Double, absoluteTolerance: Double = 0) -> Bool {
        mismatches == 0 && maxAbsolute <= absoluteTolerance + relativeTolerance * referenceScale
    }

    package var description: String {
        var text = "relative error \(Self.format(relative)) (max|Δ| \(Self.format(maxAbsolute)) at element \(worstIndex), "
            + "max|reference| \(Self.format(referenceScale)), \(differingCount) of \(count) elements differ"
        if mismatches > 0 { text += ", \(mismatches) NaN or infinity in one only" }
        return text + ")"
    }

    /// Three significant digits, in exponent form for small and large magnitudes.
    package static func format(_ value: Double) -> String {
        if value == 0 { return "0" }
        if !value.isFinite { return value.isNaN ? "nan" : (value > 0 ? "inf" : "-inf") }
        let magnitude = abs(value)
        if magnitude >= 1e-3 && magnitude < 1e4 {
            var text = String(format: "%.3g", value)
            if text.contains("e") { text = String(format: "%g", value) }
            return text
        }
        return String(format: "%.2e", value)
    }
}
