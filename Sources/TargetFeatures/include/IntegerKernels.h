#ifndef VBG_INTEGER_KERNELS_H
#define VBG_INTEGER_KERNELS_H

// The two vector operations of the quantized product (Kernels/QuantizedProduct.swift) that Swift
// cannot express as single instructions: the 16-bit pair dot product, and the conversions of the
// requantizing epilogue (Swift's SIMD integer <-> float and narrowing conversions compile to
// generic out-of-line calls). Clang's vector types import into Swift as SIMD16<Int32>,
// SIMD16<Float> and SIMD16<UInt8>, and these inline functions are compiled into the Swift module
// that calls them, for its compile target.

typedef int vbg_i32x16 __attribute__((ext_vector_type(16)));
typedef unsigned int vbg_u32x16 __attribute__((ext_vector_type(16)));
typedef short vbg_i16x32 __attribute__((ext_vector_type(32)));
typedef float vbg_f32x16 __attribute__((ext_vector_type(16)));
typedef unsigned char vbg_u8x16 __attribute__((ext_vector_type(16)));

// acc + lo(a)·lo(b) + hi(a)·hi(b) per 32-bit lane, where lo and hi are the lane's two 16-bit
// halves as signed integers; wrapping in 32 bits. AVX512-VNNI: one `vpdpwssd`; AVX512BW:
// `vpmaddwd` + `vpaddd`; elsewhere shifts, multiplies and adds in unsigned (wrapping) arithmetic.
// (`vpmaddwd`'s pair sum overflows only for two products of −32768·−32768, which the callers'
// operands, within ±255, never reach.)
static inline __attribute__((always_inline)) vbg_i32x16 vbg_pair_dot_add(vbg_i32x16 acc, vbg_i32x16 a, vbg_i32x16 b) {
#if defined(__AVX512VNNI__) && defined(__AVX512F__)
    return __builtin_ia32_vpdpwssd512(acc, a, b);
#elif defined(__AVX512BW__)
    return (vbg_i32x16)((vbg_u32x16)acc + (vbg_u32x16)__builtin_ia32_pmaddwd512((vbg_i16x32)a, (vbg_i16x32)b));
#else
    vbg_i32x16 alo = (vbg_i32x16)((vbg_u32x16)a << 16) >> 16, ahi = a >> 16;
    vbg_i32x16 blo = (vbg_i32x16)((vbg_u32x16)b << 16) >> 16, bhi = b >> 16;
    return (vbg_i32x16)((vbg_u32x16)acc + (vbg_u32x16)(alo * blo) + (vbg_u32x16)(ahi * bhi));
#endif
}

// The requantizing epilogue, onnxruntime's MlasRequantizeOutput: f = float(acc) · multiplier
// (one float32 rounding each), NaN → 0, clamped to [low, high] (the output range minus the zero
// point), rounded to nearest even, plus the zero point, truncated to 8 bits (uint8, or int8's
// two's complement). `low` and `high` must be within ±2^22 (they are within ±510).
static inline __attribute__((always_inline)) vbg_u8x16 vbg_requantize(vbg_i32x16 acc, vbg_f32x16 multiplier, float low,
                                                                     float high, int zero) {
    vbg_f32x16 f = __builtin_convertvector(acc, vbg_f32x16) * multiplier;
    f = f == f ? f : (vbg_f32x16)0.0f;
    f = f < low ? (vbg_f32x16)low : f;
    f = f > high ? (vbg_f32x16)high : f;
    // Round to nearest even by adding and subtracting 1.5 · 2^23: exact for |f| < 2^22 (f is
    // clamped to within ±510) under the default rounding mode, with no libm call in builds
    // without SSE4.1's `roundps`.
    f = (f + 12582912.0f) - 12582912.0f;
    vbg_i32x16 q = __builtin_convertvector(f, vbg_i32x16) + zero;
    return __builtin_convertvector(q, vbg_u8x16);
}

#endif
