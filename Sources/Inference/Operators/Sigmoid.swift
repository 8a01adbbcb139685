import CMath
import Kernels

/// ONNX `Sigmoid` (Sigmoid-13): 1 / (1 + e^−x), the function the fast path's kernels compute
/// (``sigmoidVector``, Kernels/FastMath.swift, has the policy and its bounds): from x = −10 on,
/// onnxruntime's logistic (MLAS's rational approximation, ``logisticLikeOnnxruntime(_:)``), so
/// the reference path, the fast path and onnxruntime give the same bits where a
/// DynamicQuantizeLinear can see them (within 1.71e-7 of the exact value); below −10,
/// 1 / (1 + e^−x) with libm's `expf`, relatively accurate (every value there is below 4.6e-5;
/// exactly 0 once e^−x overflows, as in the spec's definition).
enum Sigmoid {
    static let build = ElementwiseUnary.builder { _ in
        (.sigmoid, { $0 < sigmoidLikeOnnxruntimeFrom ? 1 / (1 + expf(-$0)) : logisticLikeOnnxruntime($0) })
    }
}
