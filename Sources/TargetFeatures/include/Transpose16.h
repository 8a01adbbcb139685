#ifndef VBG_TRANSPOSE16_H
#define VBG_TRANSPOSE16_H

// A 16 x 16 block of floats (16 vectors, row i at r[i]) transposed in place
// (Kernels/SmallMapDepthwise.swift's `Square16`). Four stages of two-source shuffles with
// immediate patterns: floats and pairs interleaved within 128-bit lanes (AVX-512's
// `vunpcklps`/`vunpckhps`, `vunpcklpd`/`vunpckhpd`), then 128-bit blocks exchanged twice
// (`vshuff32x4`). None needs an index register, and each writes a third register, so the
// block stays in registers without copies.

#include "VectorMemory.h"

#define VBG_UNPACK_LO_PS(a, b) __builtin_shufflevector(a, b, 0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29)
#define VBG_UNPACK_HI_PS(a, b) __builtin_shufflevector(a, b, 2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11, 27, 14, 30, 15, 31)
#define VBG_UNPACK_LO_PD(a, b) __builtin_shufflevector(a, b, 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29)
#define VBG_UNPACK_HI_PD(a, b) __builtin_shufflevector(a, b, 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31)
// 128-bit blocks: [a0 a1 b0 b1], [a2 a3 b2 b3], [a0 a2 b0 b2], [a1 a3 b1 b3].
#define VBG_BLOCKS_44(a, b) __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23)
#define VBG_BLOCKS_EE(a, b) __builtin_shufflevector(a, b, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31)
#define VBG_BLOCKS_88(a, b) __builtin_shufflevector(a, b, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27)
#define VBG_BLOCKS_DD(a, b) __builtin_shufflevector(a, b, 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31)

// A value the optimiser must take as it is: shuffle combining stops here, so the block is
// transposed by the four stages below wherever it is inlined, not merged with the loads and uses
// around it into permutes by index vectors loaded from memory.
#if defined(__AVX512F__)
#define VBG_OPAQUE(x) __asm__("" : "+v"(x))
#else
#define VBG_OPAQUE(x) ((void)0)
#endif

// Rows 4g ... 4g + 3 to four vectors u[j] whose 128-bit lane L holds column 4L + j of the four rows.
static inline __attribute__((always_inline)) void vbg_transpose4_rows(const vbg_f32x16_unaligned *r, vbg_f32x16 *u) {
    vbg_f32x16 r0 = r[0], r1 = r[1], r2 = r[2], r3 = r[3];
    VBG_OPAQUE(r0); VBG_OPAQUE(r1); VBG_OPAQUE(r2); VBG_OPAQUE(r3);
    vbg_f32x16 t0 = VBG_UNPACK_LO_PS(r0, r1), t1 = VBG_UNPACK_HI_PS(r0, r1);
    vbg_f32x16 t2 = VBG_UNPACK_LO_PS(r2, r3), t3 = VBG_UNPACK_HI_PS(r2, r3);
    u[0] = VBG_UNPACK_LO_PD(t0, t2);
    u[1] = VBG_UNPACK_HI_PD(t0, t2);
    u[2] = VBG_UNPACK_LO_PD(t1, t3);
    u[3] = VBG_UNPACK_HI_PD(t1, t3);
}

// `r` needs only a float's alignment (Swift aligns a SIMD16<Float> to 16 bytes, not 64).
static inline __attribute__((always_inline)) void vbg_transpose16(vbg_f32x16_unaligned *r) {
    vbg_f32x16 u0[4], u1[4], u2[4], u3[4];
    vbg_transpose4_rows(r, u0);
    vbg_transpose4_rows(r + 4, u1);
    vbg_transpose4_rows(r + 8, u2);
    vbg_transpose4_rows(r + 12, u3);
    for (int j = 0; j < 4; j++) {
        vbg_f32x16 s0 = VBG_BLOCKS_44(u0[j], u1[j]), s1 = VBG_BLOCKS_EE(u0[j], u1[j]);
        vbg_f32x16 s2 = VBG_BLOCKS_44(u2[j], u3[j]), s3 = VBG_BLOCKS_EE(u2[j], u3[j]);
        vbg_f32x16 o0 = VBG_BLOCKS_88(s0, s2), o1 = VBG_BLOCKS_DD(s0, s2);
        vbg_f32x16 o2 = VBG_BLOCKS_88(s1, s3), o3 = VBG_BLOCKS_DD(s1, s3);
        VBG_OPAQUE(o0); VBG_OPAQUE(o1); VBG_OPAQUE(o2); VBG_OPAQUE(o3);
        r[j] = o0;
        r[4 + j] = o1;
        r[8 + j] = o2;
        r[12 + j] = o3;
    }
}

#endif
