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
