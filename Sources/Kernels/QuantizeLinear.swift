// QuantizeLinear and DequantizeLinear per tensor between float32 and 8-bit values, 16 elements
// at a time (TargetFeatures/IntegerKernels.h), with the reference's arithmetic: y =
// saturate(round_half_even(x / scale) + zero) (the division in float32, NaN giving the zero
// point), and x = float(q − zero) · scale.

import TargetFeatures

/// `count` floats of `x` quantized into `output` (uint8, or int8's two's complement when
/// `minimum` is −128): round_half_even(x / scale) + zeroPoint saturated to minimum...maximum.
package func quantizeLinear(_ x: UnsafePointer<Float>, scale: Float, zeroPoint: Int32, minimum: Int32, maximum: Int32,
                            output: UnsafeMutablePointer<UInt8>, count: Int) {
    let low = Float(minimum - zeroPoint), high = Float(maximum - zeroPoint), divisor = Vector(repeating: scale)
    var i = 0
    while i + lanes <= count {
        let v = UnsafeRawPointer(x + i).loadUnaligned(as: Vector.self)
        UnsafeMutableRawPointer(output + i).storeBytes(of: vbg_quantize(v / divisor, low, high, zeroPoint), as: SIMD16<UInt8>.self)
        i += lanes
    }
    guard i < count else { return }
    var v = Vector(repeating: 0)
    for lane in 0..<(count - i) { v[lane] = x[i + lane] }
    let bytes = vbg_quantize(v / divisor, low, high, zeroPoint)
    for lane in 0..<(count - i) { output[i + lane] = bytes[lane] }
}

/// `count` 8-bit values of `x` (int8 when `signed`, else uint8) dequantized into `output`:
/// Float(x − zeroPoint) · scale.
package func dequantizeLinear(_ x: UnsafeRawPointer, signed: Bool, zeroPoint: Int32, scale: Float,
                              output: UnsafeMutablePointer<Float>, count: Int) {
    @inline(__always) func convert(_ at: Int) -> Vector {
        signed ? vbg_dequantize_i8(x.loadUnaligned(fromByteOffset: at, as: SIMD16<Int8>.self), zeroPoint, scale)
            : vbg_dequantize_u8(x.loadUnaligned(fromByteOffset: at, as: SIMD16<UInt8>.self), zeroPoint, scale)
    }
    var i = 0
    while i + lanes <= count {
        UnsafeMutableRawPointer(output + i).storeBytes(of: convert(i), as: Vector.self)
        i += lanes
    }
    while i < count {
        let q = signed ? Int32(x.load(fromByteOffset: i, as: Int8.self)) : Int32(x.load(fromByteOffset: i, as: UInt8.self))
        output[i] = Float(q &- zeroPoint) * scale
        i += 1
    }
}

/// DynamicQuantizeLinear of `count` floats into uint8 `output`, with onnx's scale and zero point
/// of their own range (as the reference computes them): lo = min(0, min x), hi = max(0, max x)
/// over the non-NaN values, scale = (hi − lo) / 255 (1 when hi = lo), zero =
/// round_half_even(clamp(−lo / scale, 0, 255)); then ``quantizeLinear``. Returns the scale and
/// zero point.
package func dynamicQuantizeLinear(_ x: UnsafePointer<Float>, count: Int, output: UnsafeMutablePointer<UInt8>) -> (scale: Float, zeroPoint: Int32) {
    // Four vectors of minima and maxima; a NaN compares false and leaves them as they are.
    var lo0 = Vector(repeating: 0), lo1 = lo0, hi0 = lo0, hi1 = lo0
    var i = 0
    while i + 2 * lanes <= count {
        let a = UnsafeRawPointer(x + i).loadUnaligned(as: Vector.self)
        let b = UnsafeRawPointer(x + i + lanes).loadUnaligned(as: Vector.self)
        lo0 = lo0.replacing(with: a, where: a .< lo0); hi0 = hi0.replacing(with: a, where: a .> hi0)
        lo1 = lo1.replacing(with: b, where: b .< lo1); hi1 = hi1.replacing(with: b, where: b .> hi1)
        i += 2 * lanes
    }
    var lo: Float = 0, hi: Float = 0
    for lane in 0..<lanes {
        lo = min(lo, lo0[lane], lo1[lane])
        hi = max(hi, hi0[lane], hi1[lane])
    }
    while i < count {
        if !x[i].isNaN { lo = min(lo, x[i]); hi = max(hi, x[i]) }
        i += 1
    }
    let scale: Float = hi == lo ? 1 : (hi - lo) / 255
    let zero = Int32(max(0, min(255, 0 - lo / scale)).rounded(.toNearestOrEven))
    quantizeLinear(x, scale: scale, zeroPoint: zero, minimum: 0, maximum: 255, output: output, count: count)
    return (scale, zero)
}
