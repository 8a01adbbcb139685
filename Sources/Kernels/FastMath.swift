// exp and sigmoid on vectors, accurate to a couple of ulp, with exact saturation.

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
    let underflow = x .< -87.33
    let xc = x.replacing(with: -87.33, where: underflow)
    // n = round(x·log2 e) with the 1.5·2^23 trick: the sum's low mantissa bits hold n.
    let magic: Float = 12_582_912
    let shifted = multiplyAdd(Vector(repeating: magic), 1.442_695_04, xc)
    let n = shifted - magic
    var r = multiplyAdd(xc, -0.693_359_375, n)      // ln2 high part (exact in float)
    r = multiplyAdd(r, 2.121_944_4e-4, n)             // ln2 low part
    var p = Vector(repeating: 1.987_569_15e-4)
    p = multiplyAdd(Vector(repeating: 1.398_199_95e-3), p, r)
    p = multiplyAdd(Vector(repeating: 8.333_451_9e-3), p, r)
    p = multiplyAdd(Vector(repeating: 4.166_579_59e-2), p, r)
    p = multiplyAdd(Vector(repeating: 1.666_666_55e-1), p, r)
    p = multiplyAdd(Vector(repeating: 5.000_000_12e-1), p, r)
    let r2 = r * r
    let e = multiplyAdd(r + 1, p, r2)
    // 2^n: n's bits sit in the low mantissa of `shifted` (0x4B40_0000 + n).
    let bits = unsafeBitCast(shifted, to: SIMD16<Int32>.self) &- 0x4B40_0000
    let scale = unsafeBitCast((bits &+ 127) &<< 23, to: Vector.self)
    return (e * scale).replacing(with: 0, where: underflow)
}

/// 1 / (1 + e^−x). With e = e^−|x|, it is 1/(1+e) for x ≥ 0 and e/(1+e) for x < 0, so small
/// results keep their relative accuracy; large |x| give exactly 0 or 1 (logits reach ±800).
@inline(always)
func sigmoidVector(_ x: Vector) -> Vector {
    let negativeAbs = x.replacing(with: -x, where: x .> 0)
    let e = expVector(negativeAbs)
    let s = 1 / (1 + e)
    return s.replacing(with: e * s, where: x .< 0)
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
    let bits = unsafeBitCast(x, to: SIMD16<UInt32>.self)
    let a = unsafeBitCast(bits & 0x7FFF_FFFF, to: Vector.self)
    let u = a * a
    var r = Vector(repeating: 8.370_138_68e-5)
    r = multiplyAdd(Vector(repeating: -8.142_715_09e-4), r, u)
    r = multiplyAdd(Vector(repeating: 5.201_033_32e-3), r, u)
    r = multiplyAdd(Vector(repeating: -2.685_939_89e-2), r, u)
    r = multiplyAdd(Vector(repeating: 1.128_369_57e-1), r, u)
    r = multiplyAdd(Vector(repeating: -3.761_263_49e-1), r, u)
    r = multiplyAdd(Vector(repeating: 1.283_791_66e-1), r, u)
    let below = multiplyAdd(a, a, r)
    let t = a.replacing(with: 3.925, where: a .> 3.925)
    var q = Vector(repeating: 1.947_338_17e-4)
    q = multiplyAdd(Vector(repeating: -3.031_594_45e-3), q, t)
    q = multiplyAdd(Vector(repeating: 2.218_137_5e-2), q, t)
    q = multiplyAdd(Vector(repeating: -1.038_388_61e-1), q, t)
    q = multiplyAdd(Vector(repeating: -6.372_858_29e-1), q, t)
    q = multiplyAdd(Vector(repeating: -1.127_615_45), q, t)
    q = multiplyAdd(Vector(repeating: -2.099_201_96e-4), q, t)
    var y = below.replacing(with: 1 - expVector(q), where: a .> 0.921_875)
    y = y.replacing(with: 1, where: a .>= 3.925)
    let sign = bits & 0x8000_0000
    return unsafeBitCast(unsafeBitCast(y, to: SIMD16<UInt32>.self) | sign, to: Vector.self)
}

/// The scalar erf computed by the same vector code (lane 0), for tails and tests.
package func fastErf(_ x: Float) -> Float {
    erfVector(Vector(repeating: x))[0]
}
