import Kernels

/// ONNX `Sigmoid` (Sigmoid-13): 1 / (1 + e^−x), computed as onnxruntime's CPU kernel computes it
/// (MLAS's rational logistic, ``logisticLikeOnnxruntime(_:)``), so that the reference path, the
/// fast path and onnxruntime give the same bits: a value read by a DynamicQuantizeLinear moves a
/// quantum where it is one ulp off. Within 1.7e-7 of the exact value; exactly 0 below about −15.8.
enum Sigmoid {
    static let build = ElementwiseUnary.builder { _ in (.sigmoid, { logisticLikeOnnxruntime($0) }) }
}
