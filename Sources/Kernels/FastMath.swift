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

/// erf(x), within 2 ulp of the exact value (1.4 ulp measured with fused multiply-adds,
/// `Tools/fit_erf.py`), odd (−0 stays −0), exactly ±1 from |x| = 3.925 on (where erf rounds to
/// 1) and NaN for NaN.
///
/// Two minimax polynomials fitted by `Tools/fit_erf.py`: for |x| ≤ 0.921875,
/// erf = |x| + |x|·r(x²) as one fused multiply-add (r is small, so its rounding hardly reaches
/// the sum); above, erf = 1 − e^q(|x|) with q ≈ log erfc.
@inline(always)
func erfVector(_ x: Vector) -> Vector {
    vbg_erf_vector(x)
}

/// The scalar erf computed by the same vector code (lane 0), for tails and tests.
package func fastErf(_ x: Float) -> Float {
    erfVector(Vector(repeating: x))[0]
}
