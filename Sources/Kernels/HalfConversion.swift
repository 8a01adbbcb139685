// float16 (IEEE binary16, as bit patterns) <-> float32 conversions of whole buffers, 16 lanes at a
// time in integer arithmetic (Swift's Float16 is unavailable on one of the package's platforms):
// - widening is exact: normal halves rebiased in integers, subnormals converted as mantissa · 2^-24;
//   infinities and NaN (exponent 31) keep their payload as sign | 0x7f800000 | mantissa << 13, a NaN
//   made quiet (| 0x400000) as the reference's float32 value is (and F16C's vcvtph2ps);
// - narrowing rounds to nearest even: normal results add the bias and 0xfff plus the last kept
//   bit before dropping 13 bits (a carry into the exponent rounds up to the next binade or to
//   infinity); results below 2^-14 are rounded by the float32 addition of 0.5 (whose rounding is to
//   nearest even, at the half subnormals' step); 65536 and up give infinity (65520 rounds up to
//   it through the carry), NaN gives sign | 0x7e00.
// Both equal the Inference Cast's reference kernel bit for bit (`HalfCastStepTests`).

/// `count` float16 values at `source` widened to float32 at `target`.
package func widenHalves(_ source: UnsafePointer<UInt16>, _ target: UnsafeMutablePointer<Float>, count: Int) {
    var i = 0
    while i + lanes <= count {
        let halves = UnsafeRawPointer(source + i).loadUnaligned(as: SIMD16<UInt16>.self)
        UnsafeMutableRawPointer(target + i).storeBytes(of: widen(halves), as: Vector.self)
        i += lanes
    }
    guard i < count else { return }
    var halves = SIMD16<UInt16>(repeating: 0)
    for lane in 0..<(count - i) { halves[lane] = source[i + lane] }
    let values = widen(halves)
    for lane in 0..<(count - i) { target[i + lane] = values[lane] }
}

/// `count` float32 values at `source` rounded to float16 (nearest even) at `target`.
package func narrowToHalves(_ source: UnsafePointer<Float>, _ target: UnsafeMutablePointer<UInt16>, count: Int) {
    var i = 0
    while i + lanes <= count {
        let values = UnsafeRawPointer(source + i).loadUnaligned(as: Vector.self)
        UnsafeMutableRawPointer(target + i).storeBytes(of: narrow(values), as: SIMD16<UInt16>.self)
        i += lanes
    }
    guard i < count else { return }
    var values = Vector(repeating: 0)
    for lane in 0..<(count - i) { values[lane] = source[i + lane] }
    let halves = narrow(values)
    for lane in 0..<(count - i) { target[i + lane] = halves[lane] }
}

/// All ones in the lanes where `x`, read as a signed 32-bit value, is negative; zero elsewhere
/// (an arithmetic shift: the selects below are bitwise, as `replacing(with:where:)` on these
/// integer vectors compiles to a loop over the lanes through the stack).
@inline(__always)
private func negativeLanes(_ x: SIMD16<UInt32>) -> SIMD16<UInt32> {
    unsafeBitCast(unsafeBitCast(x, to: SIMD16<Int32>.self) &>> 31, to: SIMD16<UInt32>.self)
}

/// `a` where `mask` is all ones, `b` where it is zero.
@inline(__always)
private func bitSelect(_ mask: SIMD16<UInt32>, _ a: SIMD16<UInt32>, _ b: SIMD16<UInt32>) -> SIMD16<UInt32> {
    (a & mask) | (b & ~mask)
}

@inline(__always)
func widen(_ halves: SIMD16<UInt16>) -> Vector {
    let h = SIMD16<UInt32>(truncatingIfNeeded: halves)
    let sign = (h & 0x8000) &<< 16, exponent = h & 0x7c00, mantissa = h & 0x3ff
    let magnitude = (h & 0x7fff) &<< 13
    // Normal halves: rebiased in integers; subnormals: mantissa · 2^-24 (an exact conversion and an
    // exact scaling to a float32 normal, whatever the denormal mode); exponent 31: infinity or NaN.
    let normal = magnitude &+ (112 &<< 23)
    let subnormal = unsafeBitCast(SIMD16<Float>(SIMD16<Int32>(truncatingIfNeeded: mantissa)) * Vector(repeating: 0x1p-24),
                                  to: SIMD16<UInt32>.self)
    let quiet = ((0 &- mantissa) &>> 31) &<< 22  // 0x400000 where the mantissa is not zero
    let isZeroExponent = negativeLanes(exponent &- 1)  // exponent ≤ 0x7c00: negative only for 0
    let isTopExponent = 0 &- ((exponent &+ 0x400) &>> 15)  // 0x8000 reached only from 0x7c00
    var bits = bitSelect(isZeroExponent, subnormal, normal)
    bits = bitSelect(isTopExponent, magnitude | 0x7f80_0000 | quiet, bits)
    return unsafeBitCast(bits | sign, to: Vector.self)
}

@inline(__always)
func narrow(_ values: Vector) -> SIMD16<UInt16> {
    let bits = unsafeBitCast(values, to: SIMD16<UInt32>.self)
    let sign = bits & 0x8000_0000
    let f = bits ^ sign  // below 2^31: the differences below are signed comparisons
    // Normal results: rebias, round to nearest even on the 13 dropped bits.
    let odd = (f &>> 13) & 1
    let normal = (f &+ (UInt32(bitPattern: Int32(15 - 127)) &<< 23) &+ 0xfff &+ odd) &>> 13
    // Results below 2^-14 (half subnormals and zero): the float32 addition rounds them in place.
    let magic: UInt32 = UInt32((127 - 15) + (23 - 10) + 1) &<< 23
    let sum = unsafeBitCast(f, to: Vector.self) + Vector(repeating: Float(bitPattern: magic))
    let small = unsafeBitCast(sum, to: SIMD16<UInt32>.self) &- magic
    var result = bitSelect(negativeLanes(f &- (113 &<< 23)), small, normal)
    // 65520 and up (f ≥ 2^16 after rounding is caught by the carry; ≥ 2^16 here): infinity; NaN: 0x7e00.
    result = bitSelect(negativeLanes(f &- ((127 + 16) &<< 23)), result, SIMD16<UInt32>(repeating: 0x7c00))
    result = bitSelect(negativeLanes(0x7f80_0000 &- f), SIMD16<UInt32>(repeating: 0x7e00), result)
    return SIMD16<UInt16>(truncatingIfNeeded: result | (sign &>> 16))
}
