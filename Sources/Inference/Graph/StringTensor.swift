/// A tensor of strings (ONNX `STRING` elements, UTF-8).
///
/// Strings exist only while the plan is built, as sequences do (`PlanTimeValues.swift`): a string
/// graph input is given when the model is loaded (`InferenceModel`'s `planTimeStrings`), the
/// operators on strings (`StringNormalizer`) run then, and a string graph output is part of the
/// loaded model (`InferenceModel.stringOutputs`). Nothing about them runs per frame.
package struct StringTensor: Sendable, Equatable {
    package var shape: [Int]
    /// The elements in C order.
    package var values: [String]

    /// - Precondition: `values.count == shape.reduce(1, *)`.
    package init(shape: [Int], values: [String]) {
        precondition(values.count == shape.reduce(1, *), "\(values.count) strings do not fill \(shape)")
        self.shape = shape
        self.values = values
    }
}
