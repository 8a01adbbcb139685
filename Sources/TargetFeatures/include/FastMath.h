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

// onnxruntime's logistic (MLAS `MlasLogisticKernelFma3`, what its CPU Sigmoid runs on x86 with
// FMA): x clamped to [-18, 18], p = x·P(x²) and q = Q(x²) by Horner steps (fused multiply-adds),
// p / q + 0.5, then raised to 0. No clamp at 1: like MLAS's, it gives 1.0000001 on four floats
// near 17.87. Without FMA each step rounds twice, as MLAS's SSE2 kernel does. Its absolute error
// is at most 1.7e-7, but p / q + 0.5 cancels: below 0.25 its results are multiples of 2^-25, so
// its relative error grows as the value shrinks (up to 2.5e-3 just above x = -10, 17 % at -15,
// 8.9e-8 for 4.1e-8 at -17), and one ulp more in x can move it by up to 1.8e-7 (six such steps).
#define VBG_LOGISTIC_ALPHA_9 4.37031012579801e-11f
#define VBG_LOGISTIC_ALPHA_7 1.15627324459942e-07f
#define VBG_LOGISTIC_ALPHA_5 6.08574864600143e-05f
#define VBG_LOGISTIC_ALPHA_3 8.51377133304701e-03f
#define VBG_LOGISTIC_ALPHA_1 2.48287947061529e-01f
#define VBG_LOGISTIC_BETA_10 6.10247389755681e-13f
#define VBG_LOGISTIC_BETA_8 5.76102136993427e-09f
#define VBG_LOGISTIC_BETA_6 6.29106785017040e-06f
#define VBG_LOGISTIC_BETA_4 1.70198817374094e-03f
#define VBG_LOGISTIC_BETA_2 1.16817656904453e-01f
#define VBG_LOGISTIC_BETA_0 9.93151921023180e-01f

static inline __attribute__((always_inline)) vbg_f32x16 vbg_logistic_vector(vbg_f32x16 x) {
#pragma clang fp contract(off)
    // max(-18, x) then min(18, ·), each keeping a NaN (the comparisons are false for it).
    vbg_f32x16 v = vbg_blend(x < -18.0f, (vbg_f32x16)(-18.0f), x);
    v = vbg_blend(v > 18.0f, (vbg_f32x16)18.0f, v);
    vbg_f32x16 v2 = v * v;
    vbg_f32x16 p = vbg_madd((vbg_f32x16)VBG_LOGISTIC_ALPHA_7, v2, (vbg_f32x16)VBG_LOGISTIC_ALPHA_9);
    p = vbg_madd((vbg_f32x16)VBG_LOGISTIC_ALPHA_5, v2, p);
    p = vbg_madd((vbg_f32x16)VBG_LOGISTIC_ALPHA_3, v2, p);
    p = vbg_madd((vbg_f32x16)VBG_LOGISTIC_ALPHA_1, v2, p);
    p = v * p;
    vbg_f32x16 q = vbg_madd((vbg_f32x16)VBG_LOGISTIC_BETA_8, v2, (vbg_f32x16)VBG_LOGISTIC_BETA_10);
    q = vbg_madd((vbg_f32x16)VBG_LOGISTIC_BETA_6, v2, q);
    q = vbg_madd((vbg_f32x16)VBG_LOGISTIC_BETA_4, v2, q);
    q = vbg_madd((vbg_f32x16)VBG_LOGISTIC_BETA_2, v2, q);
    q = vbg_madd((vbg_f32x16)VBG_LOGISTIC_BETA_0, v2, q);
    vbg_f32x16 r = p / q + 0.5f;
    return vbg_blend(r < 0.0f, (vbg_f32x16)0.0f, r);
}

// The same on one float, operation for operation (the reference path's Sigmoid from -10 on).
static inline float vbg_logistic_scalar(float x) {
#pragma clang fp contract(off)
    float v = x < -18.0f ? -18.0f : x;
    v = v > 18.0f ? 18.0f : v;
    float v2 = v * v;
#if VBG_TARGET_FMA
#define VBG_MADD1(a, b, c) __builtin_fmaf(b, c, a)
#else
#define VBG_MADD1(a, b, c) ((a) + (b) * (c))
#endif
    float p = VBG_MADD1(VBG_LOGISTIC_ALPHA_7, v2, VBG_LOGISTIC_ALPHA_9);
    p = VBG_MADD1(VBG_LOGISTIC_ALPHA_5, v2, p);
    p = VBG_MADD1(VBG_LOGISTIC_ALPHA_3, v2, p);
    p = VBG_MADD1(VBG_LOGISTIC_ALPHA_1, v2, p);
    p = v * p;
    float q = VBG_MADD1(VBG_LOGISTIC_BETA_8, v2, VBG_LOGISTIC_BETA_10);
    q = VBG_MADD1(VBG_LOGISTIC_BETA_6, v2, q);
    q = VBG_MADD1(VBG_LOGISTIC_BETA_4, v2, q);
    q = VBG_MADD1(VBG_LOGISTIC_BETA_2, v2, q);
    q = VBG_MADD1(VBG_LOGISTIC_BETA_0, v2, q);
#undef VBG_MADD1
    float r = p / q + 0.5f;
    return r < 0.0f ? 0.0f : r;
}

// The sigmoid both paths compute (Kernels/FastMath.swift's `sigmoidVector` documents the policy):
// onnxruntime's logistic from x = -10 on, where a DynamicQuantizeLinear can see its bits, and
// 1 / (1 + e^-x) = e / (1 + e) with e = e^x (2 ulp, `vbg_exp_vector`) below, where the logistic's
// relative error grows past 2.5e-3 and every value is below 4.6e-5. A vector of lanes all on one
// side computes one formula.
#define VBG_SIGMOID_ONNXRUNTIME_FROM (-10.0f)

static inline float vbg_sigmoid_onnxruntime_from(void) { return VBG_SIGMOID_ONNXRUNTIME_FROM; }

static inline __attribute__((always_inline)) vbg_f32x16 vbg_sigmoid_vector(vbg_f32x16 x) {
#pragma clang fp contract(off)
    vbg_i32x16 tail = x < VBG_SIGMOID_ONNXRUNTIME_FROM;
    if (!__builtin_reduce_or(tail)) return vbg_logistic_vector(x);
    // e^x on the tail's lanes only (the others take -10, inside exp's contract).
    vbg_f32x16 e = vbg_exp_vector(vbg_blend(tail, x, (vbg_f32x16)VBG_SIGMOID_ONNXRUNTIME_FROM));
    vbg_f32x16 s = 1.0f / (1.0f + e);
    vbg_f32x16 accurate = e * s;
    if (__builtin_reduce_and(tail)) return accurate;
    return vbg_blend(tail, accurate, vbg_logistic_vector(x));
}

// onnxruntime's erf (MLAS `MlasErfKernelFma3`, what its CPU Erf runs on x86 with FMA), operation
// for operation: |x| clamped to 3.925; below 0.921875, |x| + |x|·r(x²); above, 1 − e^q(|x|) with
// e^q by MLAS's own exp (n = round(q·log2 e) by the 1.5·2^23 shift, q − n·ln2 in two parts, a
// degree-6 polynomial, 2^n through the exponent bits); the two halves merged by OR, the sign OR-ed
// back. A NaN stays NaN, as onnxruntime's Erf gives.
#define VBG_ERF_SMALL_P0 (-5.99104969e-4f)
#define VBG_ERF_SMALL_P1 4.99339588e-3f
#define VBG_ERF_SMALL_P2 (-2.67667342e-2f)
#define VBG_ERF_SMALL_P3 1.12818025e-1f
#define VBG_ERF_SMALL_P4 (-3.76124859e-1f)
#define VBG_ERF_SMALL_P5M1 1.28379151e-1f
#define VBG_ERF_BIG_P0 1.72948930e-5f
#define VBG_ERF_BIG_P1 (-3.83208680e-4f)
#define VBG_ERF_BIG_P2 3.88393435e-3f
#define VBG_ERF_BIG_P3 (-2.42545605e-2f)
#define VBG_ERF_BIG_P4 1.06777847e-1f
#define VBG_ERF_BIG_P5 6.34846687e-1f
#define VBG_ERF_BIG_P6M1 1.28717512e-1f
#define VBG_ERF_EXP_LOWER (-88.3762626647949f)
#define VBG_ERF_EXP_LOG2E 1.44269504088896341f
#define VBG_ERF_EXP_LN2_HI (-6.93145752e-1f)
#define VBG_ERF_EXP_LN2_LO (-1.42860677e-6f)
#define VBG_ERF_EXP_P0 1.38319808e-3f
#define VBG_ERF_EXP_P1 8.37550033e-3f
#define VBG_ERF_EXP_P2 4.16689515e-2f
#define VBG_ERF_EXP_P3 1.66664466e-1f
#define VBG_ERF_EXP_P4 4.99999851e-1f
#define VBG_ERF_EXP_P5 1.0f
#define VBG_ERF_EXP_P6 1.0f
#define VBG_ERF_EXP_SHIFT 1.25829120e+7f

static inline __attribute__((always_inline)) vbg_f32x16 vbg_erf_vector(vbg_f32x16 x) {
#pragma clang fp contract(off)
    vbg_u32x16 bits = (vbg_u32x16)x;
    vbg_u32x16 sign = bits & 0x80000000u;
    vbg_f32x16 a = (vbg_f32x16)(bits & 0x7FFFFFFFu);
    a = vbg_blend(a > 3.925f, (vbg_f32x16)3.925f, a);
    vbg_f32x16 s = a * a;
    vbg_f32x16 r = (vbg_f32x16)VBG_ERF_SMALL_P0;
    r = vbg_madd((vbg_f32x16)VBG_ERF_SMALL_P1, r, s);
    r = vbg_madd((vbg_f32x16)VBG_ERF_SMALL_P2, r, s);
    r = vbg_madd((vbg_f32x16)VBG_ERF_SMALL_P3, r, s);
    r = vbg_madd((vbg_f32x16)VBG_ERF_SMALL_P4, r, s);
    r = vbg_madd((vbg_f32x16)VBG_ERF_SMALL_P5M1, r, s);
    r = vbg_madd(a, r, a);
    vbg_i32x16 big = a >= 0.921875f;
    vbg_i32x16 small = ~big & (vbg_i32x16)r;
    vbg_f32x16 b = (vbg_f32x16)(big & (vbg_i32x16)a);
    vbg_f32x16 q = (vbg_f32x16)VBG_ERF_BIG_P0;
    q = vbg_madd((vbg_f32x16)VBG_ERF_BIG_P1, q, b);
    q = vbg_madd((vbg_f32x16)VBG_ERF_BIG_P2, q, b);
    q = vbg_madd((vbg_f32x16)VBG_ERF_BIG_P3, q, b);
    q = vbg_madd((vbg_f32x16)VBG_ERF_BIG_P4, q, b);
    q = vbg_madd((vbg_f32x16)VBG_ERF_BIG_P5, q, b);
    q = vbg_madd((vbg_f32x16)VBG_ERF_BIG_P6M1, q, b);
    q = vbg_madd(b, q, b);
    q = (vbg_f32x16)((vbg_u32x16)q ^ 0x80000000u);
    q = vbg_blend(q < VBG_ERF_EXP_LOWER, (vbg_f32x16)VBG_ERF_EXP_LOWER, q);
    vbg_f32x16 n = vbg_madd((vbg_f32x16)VBG_ERF_EXP_SHIFT, (vbg_f32x16)VBG_ERF_EXP_LOG2E, q) - VBG_ERF_EXP_SHIFT;
    vbg_f32x16 f = vbg_madd(q, (vbg_f32x16)VBG_ERF_EXP_LN2_HI, n);
    f = vbg_madd(f, n, (vbg_f32x16)VBG_ERF_EXP_LN2_LO);
    vbg_f32x16 y = (vbg_f32x16)VBG_ERF_EXP_P0;
    y = vbg_madd((vbg_f32x16)VBG_ERF_EXP_P1, y, f);
    y = vbg_madd((vbg_f32x16)VBG_ERF_EXP_P2, y, f);
    y = vbg_madd((vbg_f32x16)VBG_ERF_EXP_P3, y, f);
    y = vbg_madd((vbg_f32x16)VBG_ERF_EXP_P4, y, f);
    y = vbg_madd((vbg_f32x16)VBG_ERF_EXP_P5, y, f);
    y = vbg_madd((vbg_f32x16)VBG_ERF_EXP_P6, y, f);
    vbg_i32x16 e = __builtin_convertvector(n, vbg_i32x16);
    vbg_f32x16 scale = (vbg_f32x16)((vbg_u32x16)(e + 127) << 23);
    y = 1.0f - y * scale;
    return (vbg_f32x16)((vbg_u32x16)y | (vbg_u32x16)small | sign);
}

// The same on one float, operation for operation (the reference path's Erf).
static inline float vbg_erf_scalar(float x) {
#pragma clang fp contract(off)
#if VBG_TARGET_FMA
#define VBG_MADD1(a, b, c) __builtin_fmaf(b, c, a)
#else
#define VBG_MADD1(a, b, c) ((a) + (b) * (c))
#endif
    unsigned bits;
    __builtin_memcpy(&bits, &x, 4);
    unsigned sign = bits & 0x80000000u, abits = bits & 0x7FFFFFFFu;
    float a;
    __builtin_memcpy(&a, &abits, 4);
    a = a > 3.925f ? 3.925f : a;
    float s = a * a;
    float r = VBG_ERF_SMALL_P0;
    r = VBG_MADD1(VBG_ERF_SMALL_P1, r, s);
    r = VBG_MADD1(VBG_ERF_SMALL_P2, r, s);
    r = VBG_MADD1(VBG_ERF_SMALL_P3, r, s);
    r = VBG_MADD1(VBG_ERF_SMALL_P4, r, s);
    r = VBG_MADD1(VBG_ERF_SMALL_P5M1, r, s);
    r = VBG_MADD1(a, r, a);
    int big = a >= 0.921875f;
    unsigned small;
    __builtin_memcpy(&small, &r, 4);
    small = big ? 0u : small;
    float b = big ? a : 0.0f;
    float q = VBG_ERF_BIG_P0;
    q = VBG_MADD1(VBG_ERF_BIG_P1, q, b);
    q = VBG_MADD1(VBG_ERF_BIG_P2, q, b);
    q = VBG_MADD1(VBG_ERF_BIG_P3, q, b);
    q = VBG_MADD1(VBG_ERF_BIG_P4, q, b);
    q = VBG_MADD1(VBG_ERF_BIG_P5, q, b);
    q = VBG_MADD1(VBG_ERF_BIG_P6M1, q, b);
    q = VBG_MADD1(b, q, b);
    q = -q;
    q = q < VBG_ERF_EXP_LOWER ? VBG_ERF_EXP_LOWER : q;
    float n = VBG_MADD1(VBG_ERF_EXP_SHIFT, VBG_ERF_EXP_LOG2E, q) - VBG_ERF_EXP_SHIFT;
    float f = VBG_MADD1(q, VBG_ERF_EXP_LN2_HI, n);
    f = VBG_MADD1(f, n, VBG_ERF_EXP_LN2_LO);
    float y = VBG_ERF_EXP_P0;
    y = VBG_MADD1(VBG_ERF_EXP_P1, y, f);
    y = VBG_MADD1(VBG_ERF_EXP_P2, y, f);
    y = VBG_MADD1(VBG_ERF_EXP_P3, y, f);
    y = VBG_MADD1(VBG_ERF_EXP_P4, y, f);
    y = VBG_MADD1(VBG_ERF_EXP_P5, y, f);
    y = VBG_MADD1(VBG_ERF_EXP_P6, y, f);
#undef VBG_MADD1
    unsigned scaleBits = (unsigned)((int)n + 127) << 23;
    float scale;
    __builtin_memcpy(&scale, &scaleBits, 4);
    y = 1.0f - y * scale;
    unsigned out;
    __builtin_memcpy(&out, &y, 4);
    out = out | small | sign;
    float result;
    __builtin_memcpy(&result, &out, 4);
    return result;
}

// Kernels/Elementwise.swift's `geluVector`: (x · (erf(t) + 1)) · 0.5 with t = x / 1.41421354
// (`divided`) or x · 0.707106769.
static inline __attribute__((always_inline)) vbg_f32x16 vbg_gelu_vector(vbg_f32x16 x, int divided) {
#pragma clang fp contract(off)
    vbg_f32x16 t = divided ? x / 1.41421354f : x * 0.707106769f;
    return x * (vbg_erf_vector(t) + 1.0f) * 0.5f;
}

#endif
