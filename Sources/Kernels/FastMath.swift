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
