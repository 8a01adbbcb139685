#ifndef VBG_INTEGER_KERNELS_H
#define VBG_INTEGER_KERNELS_H

// The vector operations of the quantized product (Kernels/QuantizedProduct.swift) that Swift
// cannot express as single instructions: the 16-bit pair and the 8-bit quad dot products, and the conversions of the
// requantizing epilogue (Swift's SIMD integer <-> float and narrowing conversions compile to
// generic out-of-line calls). Clang's vector types import into Swift as SIMD16<Int32>,
// SIMD16<Float> and SIMD16<UInt8>, and these inline functions are compiled into the Swift module
// that calls them, for its compile target.

typedef int vbg_i32x16 __attribute__((ext_vector_type(16)));
typedef unsigned int vbg_u32x16 __attribute__((ext_vector_type(16)));
typedef short vbg_i16x32 __attribute__((ext_vector_type(32)));
typedef unsigned short vbg_u16x32 __attribute__((ext_vector_type(32)));
typedef float vbg_f32x16 __attribute__((ext_vector_type(16)));
typedef unsigned char vbg_u8x16 __attribute__((ext_vector_type(16)));
typedef signed char vbg_i8x16 __attribute__((ext_vector_type(16)));

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

// acc + Σ u_i·s_i over the four bytes i of each 32-bit lane, `u`'s bytes unsigned (0...255) and
// `s`'s signed (−128...127); wrapping in 32 bits. AVX512-VNNI: one `vpdpbusd` (64 multiply-adds,
// no intermediate saturation: the four products are summed into the 32-bit lane exactly, unlike
// `vpmaddubsw`, whose 16-bit pair sums saturate); AVX512BW: the even and the odd bytes widened to
// 16 bits, two `vpmaddwd` (each pair sum within ±65280) and two `vpaddd`; elsewhere shifts,
// multiplies and adds in unsigned (wrapping) arithmetic.
static inline __attribute__((always_inline)) vbg_i32x16 vbg_quad_dot_add(vbg_i32x16 acc, vbg_i32x16 u, vbg_i32x16 s) {
#if defined(__AVX512VNNI__) && defined(__AVX512F__)
    return __builtin_ia32_vpdpbusd512(acc, u, s);
#elif defined(__AVX512BW__)
    vbg_i16x32 uEven = (vbg_i16x32)(u & 0x00FF00FF), uOdd = (vbg_i16x32)((vbg_i32x16)((vbg_u32x16)u >> 8) & 0x00FF00FF);
    vbg_i16x32 sEven = (vbg_i16x32)((vbg_u16x32)s << 8) >> 8, sOdd = (vbg_i16x32)s >> 8;
    return (vbg_i32x16)((vbg_u32x16)acc + (vbg_u32x16)__builtin_ia32_pmaddwd512(uEven, sEven)
                        + (vbg_u32x16)__builtin_ia32_pmaddwd512(uOdd, sOdd));
#else
    vbg_u32x16 sum = (vbg_u32x16)acc, uu = (vbg_u32x16)u, ss = (vbg_u32x16)s;
    sum += (uu & 0xFF) * (vbg_u32x16)((vbg_i32x16)(ss << 24) >> 24);
    sum += ((uu >> 8) & 0xFF) * (vbg_u32x16)((vbg_i32x16)(ss << 16) >> 24);
    sum += ((uu >> 16) & 0xFF) * (vbg_u32x16)((vbg_i32x16)(ss << 8) >> 24);
    sum += (uu >> 24) * (vbg_u32x16)(s >> 24);
    return (vbg_i32x16)sum;
#endif
}

// saturate(round_half_even(f) + zero), as bytes: NaN → 0, clamped to [low, high] (the output
// range minus the zero point), rounded to nearest even, plus the zero point, truncated to 8 bits
// (uint8, or int8's two's complement). Clamping before rounding gives the same integer (the
// bounds are integers). `low` and `high` must be within ±2^22 (they are within ±510).
static inline __attribute__((always_inline)) vbg_u8x16 vbg_quantize_ordered(vbg_f32x16 f, float low, float high, int zero);
static inline __attribute__((always_inline)) vbg_u8x16 vbg_quantize(vbg_f32x16 f, float low, float high, int zero) {
    return vbg_quantize_ordered(f == f ? f : (vbg_f32x16)0.0f, low, high, zero);
}

// `vbg_quantize` of values that are not NaN (the NaN test left out).
static inline __attribute__((always_inline)) vbg_u8x16 vbg_quantize_ordered(vbg_f32x16 f, float low, float high, int zero) {
    f = f < low ? (vbg_f32x16)low : f;
    f = f > high ? (vbg_f32x16)high : f;
#if defined(__AVX512F__)
    // `vcvtps2dq` in the current rounding mode, which Swift never changes from nearest even.
    typedef float vbg_v16sf __attribute__((__vector_size__(64)));
    typedef int vbg_v16si __attribute__((__vector_size__(64)));
    vbg_i32x16 q = (vbg_i32x16)__builtin_ia32_cvtps2dq512_mask((vbg_v16sf)f, (vbg_v16si)(vbg_i32x16)0, (unsigned short)0xFFFF, 4);
#else
    // Round to nearest even by adding and subtracting 1.5 · 2^23: exact for |f| < 2^22 (f is
    // clamped to within ±510) under the default rounding mode, with no libm call in builds
    // without SSE4.1's `roundps`.
    f = (f + 12582912.0f) - 12582912.0f;
    vbg_i32x16 q = __builtin_convertvector(f, vbg_i32x16);
#endif
    return __builtin_convertvector(q + zero, vbg_u8x16);
}

// The requantizing epilogue, onnxruntime's MlasRequantizeOutput: f = float(acc) · multiplier
// (one float32 rounding each), then `vbg_quantize`.
static inline __attribute__((always_inline)) vbg_u8x16 vbg_requantize(vbg_i32x16 acc, vbg_f32x16 multiplier, float low,
                                                                     float high, int zero) {
    return vbg_quantize(__builtin_convertvector(acc, vbg_f32x16) * multiplier, low, high, zero);
}

// `vbg_requantize` with a finite multiplier: float(acc) is finite, so the product is not NaN
// (at most ±infinity, which the clamp takes as `vbg_quantize` does) and the NaN test is left
// out, two of the epilogue's ten vector operations.
static inline __attribute__((always_inline)) vbg_u8x16 vbg_requantize_finite(vbg_i32x16 acc, vbg_f32x16 multiplier, float low,
                                                                            float high, int zero) {
    return vbg_quantize_ordered(__builtin_convertvector(acc, vbg_f32x16) * multiplier, low, high, zero);
}

// Four rows of 16 bytes interleaved into 16 32-bit elements (element i: a[i], b[i], c[i], d[i]
// from its low byte), xor `flip`: the quantized convolution's patches of four channels.
static inline __attribute__((always_inline)) vbg_i32x16 vbg_interleave_bytes(vbg_u8x16 a, vbg_u8x16 b, vbg_u8x16 c,
                                                                            vbg_u8x16 d, unsigned flip) {
    vbg_u32x16 w = __builtin_convertvector(a, vbg_u32x16) | __builtin_convertvector(b, vbg_u32x16) << 8
        | __builtin_convertvector(c, vbg_u32x16) << 16 | __builtin_convertvector(d, vbg_u32x16) << 24;
    return (vbg_i32x16)(w ^ flip);
}

// 16 bytes (uint8 or int8) widened to int32, minus `offset`.
static inline __attribute__((always_inline)) vbg_i32x16 vbg_widen_u8(vbg_u8x16 x, int offset) {
    return __builtin_convertvector(x, vbg_i32x16) - offset;
}
static inline __attribute__((always_inline)) vbg_i32x16 vbg_widen_i8(vbg_i8x16 x, int offset) {
    return __builtin_convertvector(x, vbg_i32x16) - offset;
}

// float(acc) · multiplier, one float32 rounding each: QGemm's float output.
static inline __attribute__((always_inline)) vbg_f32x16 vbg_scale_sums(vbg_i32x16 acc, vbg_f32x16 multiplier) {
    return __builtin_convertvector(acc, vbg_f32x16) * multiplier;
}

// The even elements of p[0..<32]: two loads and one `vpermt2d` (Swift's lane initialiser from
// memory becomes 16 inserts for int32).
static inline __attribute__((always_inline)) vbg_i32x16 vbg_load_even_i32(const int *p) {
    vbg_i32x16 a, b;
    __builtin_memcpy(&a, p, sizeof a);
    __builtin_memcpy(&b, p + 16, sizeof b);
    return __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
}

// DequantizeLinear of 16 bytes: float(x − zero) · scale (one float32 rounding), `x` uint8 or int8.
static inline __attribute__((always_inline)) vbg_f32x16 vbg_dequantize_u8(vbg_u8x16 x, int zero, float scale) {
    return __builtin_convertvector(__builtin_convertvector(x, vbg_i32x16) - zero, vbg_f32x16) * scale;
}
static inline __attribute__((always_inline)) vbg_f32x16 vbg_dequantize_i8(vbg_i8x16 x, int zero, float scale) {
    return __builtin_convertvector(__builtin_convertvector(x, vbg_i32x16) - zero, vbg_f32x16) * scale;
}

typedef unsigned char vbg_u8x64 __attribute__((ext_vector_type(64)));
typedef char vbg_v64qi __attribute__((__vector_size__(64)));
typedef char vbg_v16qi __attribute__((__vector_size__(16)));

// Sixteen 4-byte windows of the 64 bytes at `p`, one per 32-bit lane: lane e gets the bytes at
// 4 · words[e] + (bytes[4e + j] & 3) for j = 0...3, where each 16-byte chunk of the result is
// gathered from the four words `words` names for it and `bytes` indexes within that chunk
// (0...15). The depthwise kernel's taps (Kernels/QuantizedProduct.swift, `byteDepthwise`): lane
// i of an output row's vector with its taps' bytes at i · stride + j · dilation. AVX512BW: one
// `vpermd` and one `vpshufb`; elsewhere byte by byte (the kernel is chosen only with AVX512BW).
static inline __attribute__((always_inline)) vbg_i32x16 vbg_byte_windows(const unsigned char *p, vbg_i32x16 words,
                                                                        vbg_u8x64 bytes) {
    vbg_i32x16 v;
    __builtin_memcpy(&v, p, sizeof v);
#if defined(__AVX512BW__)
    v = __builtin_ia32_permvarsi512(v, words);
    return (vbg_i32x16)__builtin_ia32_pshufb512((vbg_v64qi)v, (vbg_v64qi)bytes);
#else
    vbg_u8x64 source = (vbg_u8x64)v, out;
    vbg_i32x16 chunked;
    for (int e = 0; e < 16; e++) chunked[e] = v[words[e] & 15];
    source = (vbg_u8x64)chunked;
    for (int b = 0; b < 64; b++) out[b] = source[(b & ~15) + (bytes[b] & 15)];
    return (vbg_i32x16)out;
#endif
}

// The 64 bytes at `p`, four positions of 16 channels (position j's channel c at 16j + c), as 16
// 32-bit lanes of four bytes: lane c holds channel c of positions 0...3, from its low byte. The
// channel-vector depthwise kernel's four taps of a kernel row (Kernels/ChannelByteDepthwise.swift).
// One `vpermb` with AVX512-VBMI; elsewhere the compiler's lowering of the same shuffle.
static inline __attribute__((always_inline)) vbg_i32x16 vbg_channel_quads(const unsigned char *p) {
    vbg_u8x64 v;
    __builtin_memcpy(&v, p, sizeof v);
    return (vbg_i32x16)__builtin_shufflevector(v, v, 0, 16, 32, 48, 1, 17, 33, 49, 2, 18, 34, 50, 3, 19, 35, 51, 4, 20, 36, 52,
                                               5, 21, 37, 53, 6, 22, 38, 54, 7, 23, 39, 55, 8, 24, 40, 56, 9, 25, 41, 57, 10, 26,
                                               42, 58, 11, 27, 43, 59, 12, 28, 44, 60, 13, 29, 45, 61, 14, 30, 46, 62, 15, 31, 47, 63);
}

// Stores the first `count` (0...16) bytes of `v` at `p`: one masked store with AVX512BW and
// AVX512VL, else byte by byte.
static inline __attribute__((always_inline)) void vbg_store_bytes(unsigned char *p, vbg_u8x16 v, int count) {
#if defined(__AVX512BW__) && defined(__AVX512VL__)
    __builtin_ia32_storedquqi128_mask((vbg_v16qi *)p, (vbg_v16qi)v, (unsigned short)((1u << count) - 1u));
#else
    for (int i = 0; i < count; i++) p[i] = v[i];
#endif
}

// Stores bytes first ... first + count − 1 of `v` (count ≥ 1, first + count ≤ 16) at `p`: one
// masked store with AVX512BW and AVX512VL (the bytes outside the mask are not accessed), else
// byte by byte.
static inline __attribute__((always_inline)) void vbg_store_lanes(unsigned char *p, vbg_u8x16 v, int first, int count) {
#if defined(__AVX512BW__) && defined(__AVX512VL__)
    __builtin_ia32_storedquqi128_mask((vbg_v16qi *)(p - first), (vbg_v16qi)v,
                                      (unsigned short)(((1u << count) - 1u) << first));
#else
    for (int i = 0; i < count; i++) p[i] = v[first + i];
#endif
}

// The even bytes of p[0..<32]: the second step of a stride-2 window (one `vpmovwb` with AVX512BW).
static inline __attribute__((always_inline)) vbg_u8x16 vbg_load_even_bytes(const unsigned char *p) {
    typedef unsigned char u8x32 __attribute__((ext_vector_type(32)));
    u8x32 v;
    __builtin_memcpy(&v, p, sizeof v);
    return __builtin_shufflevector(v, v, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
}

// The even bytes of the first `count` (0...32) bytes at `p`, zeros past them: a masked load
// (AVX512BW and VL; the bytes outside the mask are not accessed) and `vpmovwb`; else byte by byte.
// A stride-2 window's last few columns (Kernels/QuantizedProduct.swift, `channelMinorPatches`).
static inline __attribute__((always_inline)) vbg_u8x16 vbg_load_even_bytes_masked(const unsigned char *p, int count) {
#if defined(__AVX512BW__) && defined(__AVX512VL__)
    typedef char v32qi __attribute__((__vector_size__(32)));
    typedef unsigned char u8x32 __attribute__((ext_vector_type(32)));
    unsigned int mask = count >= 32 ? 0xFFFFFFFFu : (1u << count) - 1u;
    u8x32 v = (u8x32)__builtin_ia32_loaddquqi256_mask((const v32qi *)p, (v32qi)(u8x32)0, mask);
    return __builtin_shufflevector(v, v, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
#else
    vbg_u8x16 out = (vbg_u8x16)0;
    for (int i = 0; i < 16 && 2 * i < count; i++) out[i] = p[2 * i];
    return out;
#endif
}

// `v`'s lanes at each of `indices`' low 4 bits: one `vpermps` with AVX-512, else lane by lane. The
// byte bilinear resize's gather of 16 source columns (Kernels/ByteBilinear.swift).
static inline __attribute__((always_inline)) vbg_f32x16 vbg_permute_floats(vbg_f32x16 v, vbg_i32x16 indices) {
#if defined(__AVX512F__)
    typedef float v16sf __attribute__((__vector_size__(64)));
    typedef int v16si __attribute__((__vector_size__(64)));
    return (vbg_f32x16)__builtin_ia32_permvarsf512((v16sf)v, (v16si)indices);
#else
    vbg_f32x16 out;
    for (int i = 0; i < 16; i++) out[i] = v[indices[i] & 15];
    return out;
#endif
}

// Each float truncated toward zero to int32 (`vcvttps2dq`; within ±2^31), then to its low 8 bits.
static inline __attribute__((always_inline)) vbg_u8x16 vbg_truncated_bytes(vbg_f32x16 f) {
    return __builtin_convertvector(__builtin_convertvector(f, vbg_i32x16), vbg_u8x16);
}

// The bytes of the 128-byte table (lo, hi) at each index's low 7 bits: one `vpermi2b` with
// AVX512-VBMI, else byte by byte.
static inline __attribute__((always_inline)) vbg_u8x64 vbg_permute_bytes(vbg_u8x64 lo, vbg_u8x64 hi, vbg_u8x64 indices) {
#if defined(__AVX512VBMI__)
    return (vbg_u8x64)__builtin_ia32_vpermi2varqi512((vbg_v64qi)lo, (vbg_v64qi)indices, (vbg_v64qi)hi);
#else
    vbg_u8x64 out;
    for (int i = 0; i < 64; i++) out[i] = (indices[i] & 64) ? hi[indices[i] & 63] : lo[indices[i] & 63];
    return out;
#endif
}

// Lane i: i · stride + offset where that is within 0..<count and i < outputs, else 64: the byte
// each output of a pooled row reads for one tap (Kernels/ByteMaxPool.swift,
// `registerRowMaxPool`), for `vbg_permute_bytes` with the row as its first 64 bytes and the
// type's minimum as the next. In 16-bit lanes: |i · stride + offset| must stay under 2^15.
static inline __attribute__((always_inline)) vbg_u8x64 vbg_pool_tap_indices(int stride, int offset, int count, int outputs) {
    typedef short i16x64 __attribute__((ext_vector_type(64)));
    const i16x64 lane = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27,
                         28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52,
                         53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};
    i16x64 at = lane * (short)stride + (short)offset;
    i16x64 inside = (at >= (short)0) & (at < (short)count) & (lane < (short)outputs);
    i16x64 index = (at & inside) | ((i16x64)64 & ~inside);
    return __builtin_convertvector(index, vbg_u8x64);
}

// Every byte of `x` xor `flip` (`vpxorq`; Swift's `^` on SIMD64<UInt8> compiles to a lane-by-lane
// loop of 64 inserts): int8 made unsigned (x + 128) with `flip` 0x80.
static inline __attribute__((always_inline)) vbg_u8x64 vbg_flip_bytes64(vbg_u8x64 x, unsigned char flip) {
    return x ^ (vbg_u8x64)(flip);
}

// The larger of each lane's bytes, as uint8 or as int8 (`vpmaxub` / `vpmaxsb`).
static inline __attribute__((always_inline)) vbg_u8x64 vbg_max_u8x64(vbg_u8x64 a, vbg_u8x64 b) { return a > b ? a : b; }
static inline __attribute__((always_inline)) vbg_u8x64 vbg_max_i8x64(vbg_u8x64 a, vbg_u8x64 b) {
    typedef signed char i8x64 __attribute__((ext_vector_type(64)));
    return (vbg_u8x64)((i8x64)a > (i8x64)b ? (i8x64)a : (i8x64)b);
}
static inline __attribute__((always_inline)) vbg_u8x16 vbg_max_u8x16(vbg_u8x16 a, vbg_u8x16 b) { return a > b ? a : b; }
static inline __attribute__((always_inline)) vbg_u8x16 vbg_max_i8x16(vbg_u8x16 a, vbg_u8x16 b) {
    return (vbg_u8x16)((vbg_i8x16)a > (vbg_i8x16)b ? (vbg_i8x16)a : (vbg_i8x16)b);
}

// The first `count` (0...64) bytes at `p` and zeros after: one masked load with AVX512BW (the
// bytes outside the mask are not accessed), else byte by byte.
static inline __attribute__((always_inline)) vbg_u8x64 vbg_load_bytes64(const unsigned char *p, int count) {
#if defined(__AVX512BW__)
    unsigned long long mask = count >= 64 ? ~0ull : (1ull << count) - 1ull;
    return (vbg_u8x64)__builtin_ia32_loaddquqi512_mask((const vbg_v64qi *)p, (vbg_v64qi)(vbg_u8x64)0, mask);
#else
    vbg_u8x64 v = (vbg_u8x64)0;
    for (int i = 0; i < count && i < 64; i++) v[i] = p[i];
    return v;
#endif
}

// Stores the first `count` (0...64) bytes of `v` at `p`: one masked store with AVX512BW, else
// byte by byte.
static inline __attribute__((always_inline)) void vbg_store_bytes64(unsigned char *p, vbg_u8x64 v, int count) {
#if defined(__AVX512BW__)
    unsigned long long mask = count >= 64 ? ~0ull : (1ull << count) - 1ull;
    __builtin_ia32_storedquqi512_mask((vbg_v64qi *)p, (vbg_v64qi)v, mask);
#else
    for (int i = 0; i < count && i < 64; i++) p[i] = v[i];
#endif
}

// The first `count` (0...16) bytes at `p` and zeros after: one masked load with AVX512BW and
// AVX512VL (the bytes outside the mask are not accessed), else byte by byte.
static inline __attribute__((always_inline)) vbg_u8x16 vbg_load_bytes16(const unsigned char *p, int count) {
#if defined(__AVX512BW__) && defined(__AVX512VL__)
    return (vbg_u8x16)__builtin_ia32_loaddquqi128_mask((const vbg_v16qi *)p, (vbg_v16qi)(vbg_u8x16)0,
                                                       (unsigned short)((1u << count) - 1u));
#else
    vbg_u8x16 v = (vbg_u8x16)0;
    for (int i = 0; i < count && i < 16; i++) v[i] = p[i];
    return v;
#endif
}

// A block of `rows` x `cols` bytes (each at most 16; row r at src + r * srcStride) transposed to
// dst (column c's `rows` bytes at dst + c * dstStride), each byte XORed with `flip`: the rows
// loaded (masked at the edge) and joined in registers; per 64 bytes of the transpose (four
// columns) two `vpermi2b`, rows 0-7 from the first 128 bytes and rows 8-15 from the last at the
// same offsets, and a byte blend; the columns taken out of the registers and stored (masked at
// the edge). In registers rather than through memory: a 64-byte load of four 16-byte stores
// cannot be forwarded (the first version's stall, 9 % of Keras mobilenet_v2 QOperator). Each
// group of four rows is loaded straight into its 64-byte register (`vbg_transpose_rows4`): an
// array of the 16 rows, filled in a loop over a row count known only at run time, was kept on
// the stack and read back 64 bytes at a time, the same stall (a third of the 16-channel byte
// depthwise kernel's time).
static inline __attribute__((always_inline)) vbg_u8x16 vbg_transpose_row(const unsigned char *src, long srcStride, int i, int rows,
                                                                        int cols, unsigned char flip) {
    vbg_u8x16 v = (vbg_u8x16)0;
    if (i < rows) {
        if (cols == 16) __builtin_memcpy(&v, src + i * srcStride, 16);
        else v = vbg_load_bytes16(src + i * srcStride, cols);
        v ^= (vbg_u8x16)flip;
    }
    return v;
}
static inline __attribute__((always_inline)) vbg_u8x64 vbg_transpose_rows4(const unsigned char *src, long srcStride, int first,
                                                                          int rows, int cols, unsigned char flip) {
    typedef unsigned char u8x32 __attribute__((ext_vector_type(32)));
    vbg_u8x16 a = vbg_transpose_row(src, srcStride, first, rows, cols, flip);
    vbg_u8x16 b = vbg_transpose_row(src, srcStride, first + 1, rows, cols, flip);
    vbg_u8x16 c = vbg_transpose_row(src, srcStride, first + 2, rows, cols, flip);
    vbg_u8x16 d = vbg_transpose_row(src, srcStride, first + 3, rows, cols, flip);
    u8x32 lo = __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                       16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
    u8x32 hi = __builtin_shufflevector(c, d, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                       16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
    return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                                   22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
                                   44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63);
}
static inline __attribute__((always_inline)) void vbg_transpose_block16(const unsigned char *src, long srcStride, int rows, int cols,
                                                                        unsigned char *dst, long dstStride, unsigned char flip) {
#if defined(__AVX512VBMI__) && defined(__AVX512BW__) && defined(__AVX512VL__)
    typedef unsigned char u8x32 __attribute__((ext_vector_type(32)));
    static const vbg_u8x64 indices[4] = {
        {0, 16, 32, 48, 64, 80, 96, 112, 0, 16, 32, 48, 64, 80, 96, 112, 1, 17, 33, 49, 65, 81, 97, 113, 1, 17, 33, 49, 65, 81, 97, 113, 2, 18, 34, 50, 66, 82, 98, 114, 2, 18, 34, 50, 66, 82, 98, 114, 3, 19, 35, 51, 67, 83, 99, 115, 3, 19, 35, 51, 67, 83, 99, 115},
        {4, 20, 36, 52, 68, 84, 100, 116, 4, 20, 36, 52, 68, 84, 100, 116, 5, 21, 37, 53, 69, 85, 101, 117, 5, 21, 37, 53, 69, 85, 101, 117, 6, 22, 38, 54, 70, 86, 102, 118, 6, 22, 38, 54, 70, 86, 102, 118, 7, 23, 39, 55, 71, 87, 103, 119, 7, 23, 39, 55, 71, 87, 103, 119},
        {8, 24, 40, 56, 72, 88, 104, 120, 8, 24, 40, 56, 72, 88, 104, 120, 9, 25, 41, 57, 73, 89, 105, 121, 9, 25, 41, 57, 73, 89, 105, 121, 10, 26, 42, 58, 74, 90, 106, 122, 10, 26, 42, 58, 74, 90, 106, 122, 11, 27, 43, 59, 75, 91, 107, 123, 11, 27, 43, 59, 75, 91, 107, 123},
        {12, 28, 44, 60, 76, 92, 108, 124, 12, 28, 44, 60, 76, 92, 108, 124, 13, 29, 45, 61, 77, 93, 109, 125, 13, 29, 45, 61, 77, 93, 109, 125, 14, 30, 46, 62, 78, 94, 110, 126, 14, 30, 46, 62, 78, 94, 110, 126, 15, 31, 47, 63, 79, 95, 111, 127, 15, 31, 47, 63, 79, 95, 111, 127},
    };
    vbg_u8x64 z0 = vbg_transpose_rows4(src, srcStride, 0, rows, cols, flip);
    vbg_u8x64 z1 = vbg_transpose_rows4(src, srcStride, 4, rows, cols, flip);
    vbg_u8x64 z2 = vbg_transpose_rows4(src, srcStride, 8, rows, cols, flip);
    vbg_u8x64 z3 = vbg_transpose_rows4(src, srcStride, 12, rows, cols, flip);
    for (int k = 0; k < 4; k++) {
        vbg_v64qi low = __builtin_ia32_vpermi2varqi512((vbg_v64qi)z0, (vbg_v64qi)indices[k], (vbg_v64qi)z1);
        vbg_v64qi high = __builtin_ia32_vpermi2varqi512((vbg_v64qi)z2, (vbg_v64qi)indices[k], (vbg_v64qi)z3);
        vbg_u8x64 t = (vbg_u8x64)__builtin_ia32_selectb_512(0x00FF00FF00FF00FFull, low, high);
        u8x32 t0 = __builtin_shufflevector(t, t, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                                           22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
        u8x32 t1 = __builtin_shufflevector(t, t, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50,
                                           51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63);
        vbg_u8x16 columns[4] = {
            __builtin_shufflevector(t0, t0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
            __builtin_shufflevector(t0, t0, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31),
            __builtin_shufflevector(t1, t1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
            __builtin_shufflevector(t1, t1, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31),
        };
        for (int j = 0; j < 4; j++) {
            int c = 4 * k + j;
            if (c >= cols) return;
            if (rows == 16) __builtin_memcpy(dst + c * dstStride, &columns[j], 16);
            else vbg_store_bytes(dst + c * dstStride, columns[j], rows);
        }
    }
#else
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++) dst[c * dstStride + r] = src[r * srcStride + c] ^ flip;
    }
#endif
}

// Stores the first `count` (0...16) elements of `v` at `p`: one masked store with AVX512F, else
// element by element.
static inline __attribute__((always_inline)) void vbg_store_words(int *p, vbg_i32x16 v, int count) {
#if defined(__AVX512F__)
    __builtin_ia32_storedqusi512_mask(p, v, (unsigned short)((1u << count) - 1u));
#else
    for (int i = 0; i < count && i < 16; i++) p[i] = v[i];
#endif
}

// table[x] for each byte x of `indices`, the 256-byte table in four vectors (t0: entries 0...63,
// t1: 64...127, t2: 128...191, t3: 192...255): two `vpermi2b` and a blend by each index's top bit
// with AVX512-VBMI, else byte by byte.
static inline __attribute__((always_inline)) vbg_u8x64 vbg_lookup_bytes(vbg_u8x64 indices, vbg_u8x64 t0, vbg_u8x64 t1,
                                                                       vbg_u8x64 t2, vbg_u8x64 t3) {
#if defined(__AVX512VBMI__) && defined(__AVX512BW__)
    vbg_u8x64 low = (vbg_u8x64)__builtin_ia32_vpermi2varqi512((vbg_v64qi)t0, (vbg_v64qi)indices, (vbg_v64qi)t1);
    vbg_u8x64 high = (vbg_u8x64)__builtin_ia32_vpermi2varqi512((vbg_v64qi)t2, (vbg_v64qi)indices, (vbg_v64qi)t3);
    return (vbg_u8x64)__builtin_ia32_selectb_512(__builtin_ia32_cvtb2mask512((vbg_v64qi)indices), (vbg_v64qi)high, (vbg_v64qi)low);
#else
    vbg_u8x64 out;
    for (int i = 0; i < 64; i++) {
        unsigned x = indices[i];
        out[i] = x < 64 ? t0[x] : x < 128 ? t1[x - 64] : x < 192 ? t2[x - 128] : t3[x - 192];
    }
    return out;
#endif
}

#endif
