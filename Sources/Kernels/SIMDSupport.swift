// The arithmetic unit of every kernel: one SIMD16<Float> (a zmm register with AVX-512, two ymm
// with AVX2, four q registers on NEON). Wider tiles are structs of SIMD16 fields; arithmetic on
// SIMD32/SIMD64 is never used because it is scalarised.

import TargetFeatures

typealias Vector = SIMD16<Float>

/// Whether the compile target has fused multiply-add (x86 FMA3, every AArch64): a constant of the
/// compile target (TargetFeatures), so each use folds to one side.
@inline(__always)
var targetHasFMA: Bool { VBG_TARGET_FMA != 0 }

/// Whether a SIMD16 takes four of only 16 vector registers: x86-64 without AVX (the portable
/// build; SSE registers are 128 bits). The kernels then use register tiles of at most 8–12 XMM
/// accumulators (2 output channels × 16 pixels, 2 depthwise rows) instead of tiles sized for 32
/// zmm registers, which would spill every accumulator. A constant of the compile target, so each
/// use folds to one side.
@inline(__always)
var narrowRegisterFile: Bool {
    #if arch(x86_64)
    VBG_TARGET_AVX == 0
    #else
    false
    #endif
}

/// Whether a SIMD16 is one of 32 vector registers (AVX-512): tiles of eight or more SIMD16
/// accumulators fit only there (with AVX2 a SIMD16 takes two of 16 ymm registers, on NEON four
/// of 32). A constant of the compile target.
@inline(__always)
var wideRegisterFile: Bool { VBG_TARGET_AVX512F != 0 }

/// Lanes `s ..< s + 16` of the 32 lanes `a` then `b`, for `s` in 0...6 (a constant after
/// inlining, so one shuffle): the input of a window tap `s` columns right of `a`'s first.
@inline(always)
func shifted(_ a: Vector, _ b: Vector, by s: Int) -> Vector {
    switch s {
    case 0: return a
    case 1: return Vector(a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], b[0])
    case 2: return Vector(a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], b[0], b[1])
    case 3: return Vector(a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], b[0], b[1], b[2])
    case 4: return Vector(a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], b[0], b[1], b[2], b[3])
    case 5: return Vector(a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], b[0], b[1], b[2], b[3], b[4])
    case 6: return Vector(a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], b[0], b[1], b[2], b[3], b[4], b[5])
    default: preconditionFailure("shifted(_:_:by:) takes 0...6")
    }
}

/// `v` moved `count` lanes up (1 or 2), `fill`'s first lanes in the lanes it leaves: one shuffle.
@inline(always)
func behind(_ v: Vector, _ fill: Vector, count: Int) -> Vector {
    switch count {
    case 1: return Vector(fill[0], v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13], v[14])
    case 2: return Vector(fill[0], fill[1], v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13])
    default: preconditionFailure("behind(_:_:count:) takes 1 or 2")
    }
}

/// Lanes per vector.
let lanes = 16

/// Floats per weight in the packed 1x1 and K×K convolution weights: 4 with
/// ``narrowRegisterFile``, where each weight is stored as a whole SSE register so a tile loads
/// it already broadcast (a scalar broadcast there is a load plus a shuffle on a vector port);
/// 1 otherwise.
@inline(__always)
var packedWeightLanes: Int { narrowRegisterFile ? 4 : 1 }

/// One SSE register of floats: the unit of the ``narrowRegisterFile`` tiles that hold more
/// channels than pixels.
typealias Quarter = SIMD4<Float>

@inline(always)
func loadQuarter(_ p: UnsafePointer<Float>) -> Quarter {
    UnsafeRawPointer(p).loadUnaligned(as: Quarter.self)
}

/// Lanes 0, 2, 4, 6 of the 8 floats at `p`: two loads and one `shufps`.
@inline(always)
func loadQuarterEven(_ p: UnsafePointer<Float>) -> Quarter {
    let a = loadQuarter(p), b = loadQuarter(p + 4)
    return Quarter(a[0], a[2], b[0], b[2])
}

/// `q` in each quarter of a vector (one SSE register used four times).
@inline(always)
func repeatQuarter(_ q: Quarter) -> Vector {
    Vector(lowHalf: SIMD8(lowHalf: q, highHalf: q), highHalf: SIMD8(lowHalf: q, highHalf: q))
}

/// A packed weight (``packedWeightLanes`` floats at `p`, 16-byte aligned when 4) in every lane
/// of a vector.
@inline(always)
func packedWeight(_ p: UnsafePointer<Float>) -> Vector {
    packedWeightLanes == 4 ? repeatQuarter(UnsafeRawPointer(p).load(as: Quarter.self)) : Vector(repeating: p[0])
}

/// The 16 floats at `p` (any address). Through TargetFeatures' C helper, which is always
/// inlined, unlike the standard library's generic `loadUnaligned(as:)`.
@inline(always)
func load(_ p: UnsafePointer<Float>) -> Vector {
    vbg_load(p)
}

@inline(always)
func load(_ p: UnsafeMutablePointer<Float>) -> Vector {
    vbg_load(p)
}

/// Stores 16 floats at `p` (any address), through the C helper likewise.
@inline(always)
func store(_ v: Vector, _ p: UnsafeMutablePointer<Float>) {
    vbg_store(p, v)
}

/// Stores the first `count` lanes (all 16 when `count >= 16`). The partial case is one masked
/// store with AVX-512; elsewhere it is out of line and takes the vector by address, so kernels
/// stay small enough for the optimizer (a SIMD16 passed by value across a call is split into xmm
/// pieces).
@inline(always)
func store(_ v: Vector, _ p: UnsafeMutablePointer<Float>, count: Int) {
    if count >= lanes {
        store(v, p)
    } else if wideRegisterFile {
        vbg_store_first(p, v, count)
    } else {
        var copy = v
        storePartial(&copy, p, count: count)
    }
}

@inline(never)
func storePartial(_ v: inout Vector, _ p: UnsafeMutablePointer<Float>, count: Int) {
    for lane in 0..<count { p[lane] = v[lane] }
}

/// Loads the first `count` lanes (all 16 when `count >= 16`); the others are zero. Never reads
/// past `p + count`.
@inline(always)
func load(_ p: UnsafePointer<Float>, count: Int) -> Vector {
    if count >= lanes { return load(p) }
    if wideRegisterFile { return vbg_load_first(p, count) }
    var v = Vector()
    loadPartial(&v, p, count: count)
    return v
}

@inline(never)
func loadPartial(_ v: inout Vector, _ p: UnsafePointer<Float>, count: Int) {
    for lane in 0..<count { v[lane] = p[lane] }
}

/// `a + b * c`, fused where the target has FMA. Without FMA `addingProduct` would lower to one
/// `fmaf` libm call per lane, so the portable build multiplies and adds.
@inline(always)
func multiplyAdd(_ a: Vector, _ b: Float, _ c: Vector) -> Vector {
    targetHasFMA ? a.addingProduct(b, c) : a + b * c
}

@inline(always)
func multiplyAdd(_ a: Vector, _ b: Vector, _ c: Vector) -> Vector {
    targetHasFMA ? a.addingProduct(b, c) : a + b * c
}

/// The scalar twin of ``multiplyAdd(_:_:_:)-(Vector,Float,Vector)``, rounding the same way, for
/// tails handled one element at a time.
@inline(always)
func multiplyAdd(_ a: Float, _ b: Float, _ c: Float) -> Float {
    targetHasFMA ? a.addingProduct(b, c) : a + b * c
}

/// Lanes 0, 2, 4, …, 30 of the 32 floats at `p`, meant to be two vector loads and one
/// two-source permute (`vpermt2ps`).
///
/// The shape matters (measured with Swift 6.3.1, -march=znver5): initialising the lanes from
/// memory (`Vector(p[0], p[2], …)`) or from two plain loads becomes four gathers inside the
/// convolution loops (LLVM scalarises the loads feeding the lane extracts, then re-vectorises
/// the strided scalar loads as gathers), and `SIMD8<UInt64>` truncation or `SIMD32.evenHalf`
/// become out-of-line stdlib calls; each is 10–20× slower. Adding +0 to the loaded vectors gives
/// them a vector use, which keeps the loads whole.
@inline(always)
func loadEven(_ p: UnsafePointer<Float>) -> Vector {
    if narrowRegisterFile {
        // Four SSE deinterleaves (two loads and a `shufps` each); the `+ 0` would be four adds.
        return Vector(lowHalf: SIMD8(lowHalf: loadQuarterEven(p), highHalf: loadQuarterEven(p + 8)),
                      highHalf: SIMD8(lowHalf: loadQuarterEven(p + 16), highHalf: loadQuarterEven(p + 24)))
    }
    return evenLanes(load(p) + 0, load(p + 16) + 0)
}

/// Lanes 0, 2, …, 30 of the 32 lanes `a` then `b` (one `vpermt2ps` with AVX-512; see
/// ``loadEven(_:)`` for what keeps loads feeding it whole).
@inline(always)
func evenLanes(_ a: Vector, _ b: Vector) -> Vector {
    Vector(a[0], a[2], a[4], a[6], a[8], a[10], a[12], a[14], b[0], b[2], b[4], b[6], b[8], b[10], b[12], b[14])
}

/// Lanes 1, 3, …, 31 of the 32 lanes `a` then `b`.
@inline(always)
func oddLanes(_ a: Vector, _ b: Vector) -> Vector {
    Vector(a[1], a[3], a[5], a[7], a[9], a[11], a[13], a[15], b[1], b[3], b[5], b[7], b[9], b[11], b[13], b[15])
}

/// Lanes 0 … 7 of `a` and `b` interleaved: a0, b0, a1, b1, …
@inline(always)
func interleavedLow(_ a: Vector, _ b: Vector) -> Vector {
    Vector(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3], a[4], b[4], a[5], b[5], a[6], b[6], a[7], b[7])
}

/// Lanes 8 … 15 of `a` and `b` interleaved.
@inline(always)
func interleavedHigh(_ a: Vector, _ b: Vector) -> Vector {
    Vector(a[8], b[8], a[9], b[9], a[10], b[10], a[11], b[11], a[12], b[12], a[13], b[13], a[14], b[14], a[15], b[15])
}

/// Sum of all lanes by halving (a tree, not the sequential `.sum()`).
@inline(always)
func horizontalSum(_ v: Vector) -> Float {
    let a = v.lowHalf + v.highHalf
    let b = a.lowHalf + a.highHalf
    return (b[0] + b[2]) + (b[1] + b[3])
}

/// Lanes interleaved: (a0, b0, a1, b1, …, a7, b7) and (a8, b8, …, a15, b15).
@inline(always)
func interleave(_ a: Vector, _ b: Vector) -> (low: Vector, high: Vector) {
    let low = Vector(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3],
                     a[4], b[4], a[5], b[5], a[6], b[6], a[7], b[7])
    let high = Vector(a[8], b[8], a[9], b[9], a[10], b[10], a[11], b[11],
                      a[12], b[12], a[13], b[13], a[14], b[14], a[15], b[15])
    return (low, high)
}

@inline(always)
func roundUp(_ value: Int, toMultipleOf multiple: Int) -> Int {
    (value + multiple - 1) / multiple * multiple
}
