// exp and sigmoid on vectors, accurate to a couple of ulp, with exact saturation. The bodies are
// TargetFeatures/FastMath.h's, operation for operation (see there why they are C).

import TargetFeatures

/// e^x for x ≤ 0, within 2 ulp of the exact value down to −87.33 (tested against Foundation's
/// `exp` over a grid), and exactly 0 below that (−∞ included), where 2^n would leave the normal
/// range; so results are never subnormal except just above −87.33. NaN gives NaN. Positive
/// arguments are outside the contract (they overflow to +∞ early, from about 88.4).
///
/// Cody–Waite reduction x = n·ln2 + r, |r| ≤ ln2/2, and the Cephes `expf` polynomial (≈1 ulp on
/// the reduced range), scaled by 2^n through the exponent bits. What the sigmoid uses (with
/// −|x|) and the channel softmax (with x − max).
@inline(always)
func expVector(_ x: Vector) -> Vector {
    vbg_exp_vector(x)
}

/// The sigmoid 1 / (1 + e^−x) of both paths (the reference path's Sigmoid computes the same
/// function, ``logisticLikeOnnxruntime(_:)`` from −10 on and libm's `expf` below). The policy
/// (`Docs/Numerics.md`, "Ops that compute onnxruntime's bits"):
/// - from x = −10 on (``sigmoidLikeOnnxruntimeFrom``), onnxruntime's own logistic, bit for bit
///   (MLAS's rational approximation, `MlasLogisticKernelFma3`: x clamped to [−18, 18],
///   x·P(x²) / Q(x²) + 0.5 with Horner steps fused where the build has FMA, raised to 0;
///   `Fixtures/ops/sigmoid_bits`): within 1.6e-7 of the exact value (1.71e-7 without FMA); 1
///   from 18, and with FMA 1.0000001 on four floats near 17.87, as MLAS gives. A
///   DynamicQuantizeLinear reading these values moves a whole quantum where one is an ulp off
///   onnxruntime's.
/// - below −10, e / (1 + e) with e = e^x (``expVector``): within 3 ulp of the exact value, exactly
///   0 below −87.33, so small results keep their relative accuracy. MLAS's p/q + 0.5 cancels
///   there: its results are multiples of 2^−25, up to 2.5e-3 off relatively just above −10, 17 %
///   at −15, 8.9e-8 for 4.1e-8 at −17. Its bits would not change a quantized model's bytes: every value
///   below −10 is under σ(−10) = 4.54e-5 (a SiLU's x·σ(x) under 4.6e-4 in magnitude), which a
///   DynamicQuantizeLinear rounds to its zero point unless the tensor it reads spans less than
///   510 times that (0.023; 0.23 for a SiLU, whose own minimum is −0.28).
/// The cost of the upper branch: one ulp of difference in x can move MLAS's result by 1.8e-7,
/// so two paths whose logits differ in the last bits can differ by that much where the output's
/// largest value is below 1.8e-3 (relative 1e-4, `vbg check`'s default), unless all of it is
/// below −10. A vector whose lanes are all on one side computes one formula.
@inline(always)
func sigmoidVector(_ x: Vector) -> Vector {
    vbg_sigmoid_vector(x)
}

/// The scalar sigmoid computed by the same vector code (lane 0), for tails and tests.
package func fastSigmoid(_ x: Float) -> Float {
    sigmoidVector(Vector(repeating: x))[0]
}

/// The x from which the sigmoid is onnxruntime's logistic (−10; below it, e^x / (1 + e^x)).
package var sigmoidLikeOnnxruntimeFrom: Float { vbg_sigmoid_onnxruntime_from() }

/// onnxruntime's logistic (MLAS's) on one float, the operations of ``sigmoidVector(_:)``'s upper
/// branch in scalar registers (the reference path's Sigmoid from −10 on): equal to
/// ``fastSigmoid(_:)`` for every x ≥ −10, and defined (but relatively inaccurate) below.
package func logisticLikeOnnxruntime(_ x: Float) -> Float {
    vbg_logistic_scalar(x)
}

/// erf(x) as onnxruntime's CPU Erf computes it (MLAS's `MlasErfKernelFma3`): |x| clamped to 3.925,
/// |x| + |x|·r(x²) below 0.921875, above 1 − e^q(|x|) with MLAS's own exp, fused steps where the
/// build has FMA. Equal to onnxruntime's bits (`Fixtures/ops/erf_bits`), within 1 ulp of the exact
/// value (0.98 measured), odd, ±1 from 3.925 on (0.99999994 just below), NaN for NaN.
@inline(always)
func erfVector(_ x: Vector) -> Vector {
    vbg_erf_vector(x)
}

/// The scalar erf computed by the same vector code (lane 0), for tails and tests.
package func fastErf(_ x: Float) -> Float {
    erfVector(Vector(repeating: x))[0]
}

/// ``erfVector(_:)`` on one float, the same operations in scalar registers (the reference path's
/// Erf): equal to ``fastErf(_:)`` for every float.
package func erfLikeOnnxruntime(_ x: Float) -> Float {
    vbg_erf_scalar(x)
}
