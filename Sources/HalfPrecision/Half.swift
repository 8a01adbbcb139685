/// IEEE 754 binary16 conversions, for the float16 tensors of ONNX models (Inference) and of .npy
/// files (NumpyFormat). Swift's `Float16` is unavailable on macOS x86_64, one of the platforms the
/// package builds for, so the bits are converted here.
package enum Half {
    /// binary16 → binary32, exact.
    package static func float(_ half: UInt16) -> Float {
        let sign = UInt32(half & 0x8000) << 16
        let exponent = Int(half >> 10) & 0x1f
        let mantissa = UInt32(half & 0x3ff)
        if exponent == 0 {
            let magnitude = Float(mantissa) * 0x1p-24
            return sign == 0 ? magnitude : -magnitude
        }
        if exponent == 31 { return Float(bitPattern: sign | 0x7f80_0000 | (mantissa << 13)) }
        return Float(bitPattern: sign | UInt32(exponent - 15 + 127) << 23 | (mantissa << 13))
    }

    /// binary32 → binary16, rounded to nearest even; overflow gives ±infinity, NaN stays NaN.
    package static func bits(_ value: Float) -> UInt16 {
        let bits = value.bitPattern
        let sign = UInt16((bits >> 16) & 0x8000)
        let exponent = Int((bits >> 23) & 0xff)
        var mantissa = bits & 0x7f_ffff
        if exponent == 0xff { return sign | 0x7c00 | (mantissa != 0 ? 0x200 : 0) }
        let halfExponent = exponent - 127 + 15
        if halfExponent >= 0x1f { return sign | 0x7c00 }
        if halfExponent <= 0 {
            guard halfExponent >= -10 else { return sign }
            mantissa |= 0x80_0000
            let shift = UInt32(14 - halfExponent)
            let halfway = UInt32(1) << (shift - 1)
            var result = mantissa >> shift
            let remainder = mantissa & ((UInt32(1) << shift) - 1)
            if remainder > halfway || (remainder == halfway && result & 1 == 1) { result += 1 }
            return sign | UInt16(result)
        }
        var result = UInt32(halfExponent) << 10 | (mantissa >> 13)
        let remainder = mantissa & 0x1fff
        if remainder > 0x1000 || (remainder == 0x1000 && result & 1 == 1) { result += 1 }  // may carry into the exponent: correct
        return sign | UInt16(result)
    }
}
