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

/// 1 / (1 + e^−x). With e = e^−|x|, it is 1/(1+e) for x ≥ 0 and e/(1+e) for x < 0, so small
/// results keep their relative accuracy; large |x| give exactly 0 or 1 (logits reach ±800).
@inline(always)
func sigmoidVector(_ x: Vector) -> Vector {
    vbg_sigmoid_vector(x)
}

/// The scalar sigmoid computed by the same vector code (lane 0), for tails and tests.
package func fastSigmoid(_ x: Float) -> Float {
    sigmoidVector(Vector(repeating: x))[0]
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
