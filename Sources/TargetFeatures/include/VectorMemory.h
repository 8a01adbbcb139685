#ifndef VBG_VECTOR_MEMORY_H
#define VBG_VECTOR_MEMORY_H

// 16-float vectors to and from memory at any address (Kernels/SIMDSupport.swift's `load` and
// `store`). Written here because these are always inlined: the standard library's
// `loadUnaligned(as:)` and `storeBytes(of:as:)` are generic functions that the optimizer may leave
// out of line in a large kernel, where each call returned the vector in four xmm pieces.

#include "IntegerKernels.h"

// One float vector with the alignment of a float (as the intrinsics headers' `__m512_u`).
typedef float vbg_f32x16_unaligned __attribute__((ext_vector_type(16), aligned(4)));

static inline __attribute__((always_inline)) vbg_f32x16 vbg_load(const float *p) {
    return *(const vbg_f32x16_unaligned *)p;
}

static inline __attribute__((always_inline)) void vbg_store(float *p, vbg_f32x16 v) {
    *(vbg_f32x16_unaligned *)p = v;
}

// The first `count` lanes (0 <= count <= 16), touching nothing past p + count (the partial
// loads and stores). AVX-512: one masked `vmovups` (masked-off lanes neither fault nor are
// written); elsewhere a loop, which the Swift callers do not take (they keep their out-of-line
// lane loop there).

static inline __attribute__((always_inline)) void vbg_store_first(float *p, vbg_f32x16 v, long count) {
#if defined(__AVX512F__)
    __builtin_ia32_storeups512_mask(p, v, (unsigned short)((1u << count) - 1));
#else
    for (long i = 0; i < count; i++) p[i] = v[i];
#endif
}

// The 8 floats at `p` in lanes 0-7, zeros in lanes 8-15: one 32-byte load (a 256-bit move
// zeroes the register's upper half), which never crosses a cache line from a 32-byte boundary.
typedef float vbg_f32x8_unaligned __attribute__((ext_vector_type(8), aligned(4)));
static inline __attribute__((always_inline)) vbg_f32x16 vbg_load_eight(const float *p) {
    vbg_f32x8_unaligned low = *(const vbg_f32x8_unaligned *)p;
    return __builtin_shufflevector(low, (vbg_f32x8_unaligned){0}, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}

static inline __attribute__((always_inline)) vbg_f32x16 vbg_load_first(const float *p, long count) {
#if defined(__AVX512F__)
    return __builtin_ia32_loadups512_mask(p, (vbg_f32x16){0}, (unsigned short)((1u << count) - 1));
#else
    vbg_f32x16 v = {0};
    for (long i = 0; i < count; i++) v[i] = p[i];
    return v;
#endif
}

// The lanes of `mask` (bit i: lane i, at p + i); the others are neither read nor written (and do
// not fault with AVX-512), so `p` may point before the first lane stored.
static inline __attribute__((always_inline)) void vbg_store_masked(float *p, vbg_f32x16 v, unsigned short mask) {
#if defined(__AVX512F__)
    __builtin_ia32_storeups512_mask(p, v, mask);
#else
    for (int i = 0; i < 16; i++) if (mask >> i & 1) p[i] = v[i];
#endif
}

// `into` with the lanes of `mask` loaded from p + i (the same rule for the others).
static inline __attribute__((always_inline)) vbg_f32x16 vbg_load_masked(const float *p, vbg_f32x16 into, unsigned short mask) {
#if defined(__AVX512F__)
    return __builtin_ia32_loadups512_mask(p, into, mask);
#else
    for (int i = 0; i < 16; i++) if (mask >> i & 1) into[i] = p[i];
    return into;
#endif
}

// A hint to bring the cache line at `p` towards the core (no fault, no effect on results).
static inline __attribute__((always_inline)) void vbg_prefetch(const void *p) {
    __builtin_prefetch(p, 0, 3);
}

#endif
