import Testing
@testable import Kernels

// The comparison every kernel test uses, against the references in ScalarReference.swift (whose
// header gives the tolerance's derivation).

/// Checks every element: |actual − value| ≤ tolerance · scale (+ 1e-30 for exact zeros).
func expectClose(_ actual: [Float], _ expected: [Expected], tolerance: Double = 2e-5,
                 _ what: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(actual.count == expected.count, "\(what()): count", sourceLocation: sourceLocation)
    let worstIndex = worstOutlier(actual, expected, tolerance: tolerance) ?? -1
    #expect(worstIndex < 0, "\(what()): element \(worstIndex) is \(worstIndex >= 0 ? actual[worstIndex] : 0), expected \(worstIndex >= 0 ? expected[worstIndex].value : 0) (±\(worstIndex >= 0 ? tolerance * expected[worstIndex].scale : 0))", sourceLocation: sourceLocation)
}
