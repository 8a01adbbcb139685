/// How far apart two float arrays are, with the place of the worst element, for test messages.
package struct Difference: CustomStringConvertible, Sendable {
    /// max |a − b| over all elements.
    package var maxAbsolute: Float
    /// mean |a − b|.
    package var meanAbsolute: Float
    /// max |b| (the reference's scale), so `maxAbsolute / referenceScale` is the relative error
    /// used by the parity tolerances (`Docs/Numerics.md`).
    package var referenceScale: Float
    /// Flat index of the element with the largest |a − b|.
    package var worstIndex: Int

    /// max|Δ| / max|reference|, or max|Δ| when the reference is all zeros.
    package var relative: Float { referenceScale > 0 ? maxAbsolute / referenceScale : maxAbsolute }

    package var description: String {
        "max|Δ| \(maxAbsolute) (relative \(relative)) at index \(worstIndex), mean|Δ| \(meanAbsolute), max|ref| \(referenceScale)"
    }

    /// Compares `actual` with `reference` element by element. NaN anywhere makes every measure NaN.
    ///
    /// - Precondition: both have the same count.
    package init<A: Collection, B: Collection>(_ actual: A, _ reference: B)
    where A.Element == Float, B.Element == Float {
        precondition(actual.count == reference.count, "compared arrays differ in length: \(actual.count) vs \(reference.count)")
        var maxAbs: Float = 0, sum: Double = 0, scale: Float = 0, worst = 0
        for (index, (a, b)) in zip(actual, reference).enumerated() {
            let d = abs(a - b)
            if d.isNaN { maxAbs = .nan; worst = index; sum = .nan; break }
            if d > maxAbs { maxAbs = d; worst = index }
            sum += Double(d)
            scale = max(scale, abs(b))
        }
        maxAbsolute = maxAbs
        meanAbsolute = actual.isEmpty ? 0 : Float(sum / Double(actual.count))
        referenceScale = scale
        worstIndex = worst
    }
}
