import CMath

/// ONNX `Sigmoid` (Sigmoid-13): 1 / (1 + e^−x). For x ≪ 0, e^−x overflows to +∞ and the result
/// is exactly 0, as in the spec's definition.
enum Sigmoid {
    static let build = ElementwiseUnary.builder { _ in (.sigmoid, { 1 / (1 + expf(-$0)) }) }
}
