#ifndef VBG_FAST_MATH_H
#define VBG_FAST_MATH_H

// The bodies of Kernels/FastMath.swift's exp, sigmoid and erf on 16-float vectors, operation for
// operation (the contracts and the polynomials' sources are documented there). Written here
// because Swift's `replacing(with:where:)` and SIMD integer operations are loops over the lanes,
// which the optimizer rebuilt as 128-bit (and narrower) pieces inside these long functions; a
// select on clang's vectors is one blend. No contraction: every multiply and add rounds as the
// Swift code wrote it, and `vbg_madd` is fused exactly where Swift's `multiplyAdd` is.

#include "IntegerKernels.h"

// a + b·c: fused with FMA (VBG_TARGET_FMA, as Kernels' `multiplyAdd`), else two roundings.
static inline __attribute__((always_inline)) vbg_f32x16 vbg_madd(vbg_f32x16 a, vbg_f32x16 b, vbg_f32x16 c) {
#pragma clang fp contract(off)
#if VBG_TARGET_FMA
    return __builtin_elementwise_fma(b, c, a);
#else
    return a + b * c;
#endif
}

// `a` where `mask` (all ones or zero per lane) is set, `b` elsewhere.
static inline __attribute__((always_inline)) vbg_f32x16 vbg_blend(vbg_i32x16 mask, vbg_f32x16 a, vbg_f32x16 b) {
    return (vbg_f32x16)((mask & (vbg_i32x16)a) | (~mask & (vbg_i32x16)b));
}

static inline __attribute__((always_inline)) vbg_f32x16 vbg_exp_vector(vbg_f32x16 x) {
#pragma clang fp contract(off)
    vbg_i32x16 underflow = x < -87.33f;
    vbg_f32x16 xc = vbg_blend(underflow, (vbg_f32x16)(-87.33f), x);
    const float magic = 12582912.0f;
    vbg_f32x16 shifted = vbg_madd((vbg_f32x16)magic, (vbg_f32x16)1.44269504f, xc);
    vbg_f32x16 n = shifted - magic;
    vbg_f32x16 r = vbg_madd(xc, (vbg_f32x16)(-0.693359375f), n);
    r = vbg_madd(r, (vbg_f32x16)2.1219444e-4f, n);
    vbg_f32x16 p = (vbg_f32x16)1.98756915e-4f;
    p = vbg_madd((vbg_f32x16)1.39819995e-3f, p, r);
    p = vbg_madd((vbg_f32x16)8.3334519e-3f, p, r);
    p = vbg_madd((vbg_f32x16)4.16657959e-2f, p, r);
    p = vbg_madd((vbg_f32x16)1.66666655e-1f, p, r);
    p = vbg_madd((vbg_f32x16)5.00000012e-1f, p, r);
    vbg_f32x16 r2 = r * r;
    vbg_f32x16 e = vbg_madd(r + 1.0f, p, r2);
    vbg_i32x16 bits = (vbg_i32x16)((vbg_u32x16)shifted - 0x4B400000u);
    vbg_f32x16 scale = (vbg_f32x16)((vbg_u32x16)(bits + 127) << 23);
    return vbg_blend(underflow, (vbg_f32x16)0.0f, e * scale);
}

static inline __attribute__((always_inline)) vbg_f32x16 vbg_sigmoid_vector(vbg_f32x16 x) {
#pragma clang fp contract(off)
    vbg_f32x16 negativeAbs = vbg_blend(x > 0.0f, -x, x);
    vbg_f32x16 e = vbg_exp_vector(negativeAbs);
    vbg_f32x16 s = 1.0f / (1.0f + e);
    return vbg_blend(x < 0.0f, e * s, s);
}

static inline __attribute__((always_inline)) vbg_f32x16 vbg_erf_vector(vbg_f32x16 x) {
#pragma clang fp contract(off)
    vbg_u32x16 bits = (vbg_u32x16)x;
    vbg_f32x16 a = (vbg_f32x16)(bits & 0x7FFFFFFFu);
    vbg_f32x16 u = a * a;
    vbg_f32x16 r = (vbg_f32x16)8.37013868e-5f;
    r = vbg_madd((vbg_f32x16)(-8.14271509e-4f), r, u);
    r = vbg_madd((vbg_f32x16)5.20103332e-3f, r, u);
    r = vbg_madd((vbg_f32x16)(-2.68593989e-2f), r, u);
    r = vbg_madd((vbg_f32x16)1.12836957e-1f, r, u);
    r = vbg_madd((vbg_f32x16)(-3.76126349e-1f), r, u);
    r = vbg_madd((vbg_f32x16)1.28379166e-1f, r, u);
    vbg_f32x16 below = vbg_madd(a, a, r);
    vbg_f32x16 t = vbg_blend(a > 3.925f, (vbg_f32x16)3.925f, a);
    vbg_f32x16 q = (vbg_f32x16)1.94733817e-4f;
    q = vbg_madd((vbg_f32x16)(-3.03159445e-3f), q, t);
    q = vbg_madd((vbg_f32x16)2.2181375e-2f, q, t);
    q = vbg_madd((vbg_f32x16)(-1.03838861e-1f), q, t);
    q = vbg_madd((vbg_f32x16)(-6.37285829e-1f), q, t);
    q = vbg_madd((vbg_f32x16)(-1.12761545f), q, t);
    q = vbg_madd((vbg_f32x16)(-2.09920196e-4f), q, t);
    vbg_f32x16 y = vbg_blend(a > 0.921875f, 1.0f - vbg_exp_vector(q), below);
    y = vbg_blend(a >= 3.925f, (vbg_f32x16)1.0f, y);
    vbg_u32x16 sign = bits & 0x80000000u;
    return (vbg_f32x16)((vbg_u32x16)y | sign);
}

// Kernels/Elementwise.swift's `geluVector`: (x · (erf(t) + 1)) · 0.5 with t = x / 1.41421354
// (`divided`) or x · 0.707106769.
static inline __attribute__((always_inline)) vbg_f32x16 vbg_gelu_vector(vbg_f32x16 x, int divided) {
#pragma clang fp contract(off)
    vbg_f32x16 t = divided ? x / 1.41421354f : x * 0.707106769f;
    return x * (vbg_erf_vector(t) + 1.0f) * 0.5f;
}

#endif
