/// The floating-point formats the engine stores besides float32, float16 and double: bfloat16,
/// the four float8 formats of ONNX, and float4e2m1. An element is kept as its bit pattern (two
/// bytes for bfloat16, one byte for the others, float4e2m1 in the low 4 bits); this type converts
/// between the bit patterns and Double, as ONNX's `Cast` defines it and onnx's reference
/// implementation (ml_dtypes) computes it.
///
/// float8e8m0 (exponent only, no sign) has its own rules: `E8M0`.
struct NarrowFloat: Sendable {
    /// How a format spends its all-ones patterns.
    enum Specials: Sendable {
        /// IEEE 754: the all-ones exponent is ±infinity (mantissa 0) or NaN (bfloat16, float8e5m2).
        case ieee
        /// No infinity; S.1111.111 is NaN (float8e4m3fn).
        case finiteAllOnesNaN
        /// No infinity and no negative zero; 1.0000.000 (the negative zero) is the only NaN
        /// (float8e4m3fnuz, float8e5m2fnuz).
        case finiteNegativeZeroNaN
        /// No infinity and no NaN (float4e2m1).
        case finite
    }

    let exponentBits: Int
    let mantissaBits: Int
    let bias: Int
    let specials: Specials
    /// The largest finite value.
    let maximum: Double

    static let bfloat16 = NarrowFloat(exponentBits: 8, mantissaBits: 7, bias: 127, specials: .ieee, maximum: 0x1.FEp127)
    static let float8e4m3fn = NarrowFloat(exponentBits: 4, mantissaBits: 3, bias: 7, specials: .finiteAllOnesNaN, maximum: 448)
    static let float8e4m3fnuz = NarrowFloat(exponentBits: 4, mantissaBits: 3, bias: 8, specials: .finiteNegativeZeroNaN, maximum: 240)
    static let float8e5m2 = NarrowFloat(exponentBits: 5, mantissaBits: 2, bias: 15, specials: .ieee, maximum: 57344)
    static let float8e5m2fnuz = NarrowFloat(exponentBits: 5, mantissaBits: 2, bias: 16, specials: .finiteNegativeZeroNaN, maximum: 57344)
    static let float4e2m1 = NarrowFloat(exponentBits: 2, mantissaBits: 1, bias: 1, specials: .finite, maximum: 6)

    /// The format of `type`, or nil for the types that are not narrow floats.
    static func format(of type: ElementType) -> NarrowFloat? {
        switch type {
        case .bfloat16: .bfloat16
        case .float8e4m3fn: .float8e4m3fn
        case .float8e4m3fnuz: .float8e4m3fnuz
        case .float8e5m2: .float8e5m2
        case .float8e5m2fnuz: .float8e5m2fnuz
        case .float4e2m1: .float4e2m1
        default: nil
        }
    }

    private var signBit: UInt16 { 1 << UInt16(exponentBits + mantissaBits) }
    private var mantissaMask: UInt16 { (1 << UInt16(mantissaBits)) - 1 }
    private var exponentOnes: Int { (1 << exponentBits) - 1 }

    /// The value of bit pattern `bits` (exact).
    func decode(_ bits: UInt16) -> Double {
        let negative = bits & signBit != 0
        let magnitude = bits & (signBit - 1)
        let exponent = Int(magnitude >> UInt16(mantissaBits)), mantissa = Int(magnitude & mantissaMask)
        switch specials {
        case .ieee where exponent == exponentOnes:
            return mantissa != 0 ? .nan : negative ? -.infinity : .infinity
        case .finiteAllOnesNaN where magnitude == signBit - 1:
            return .nan
        case .finiteNegativeZeroNaN where bits == signBit:
            return .nan
        default:
            break
        }
        let value = exponent == 0
            ? Double(sign: .plus, exponent: 1 - bias - mantissaBits, significand: Double(mantissa))
            : Double(sign: .plus, exponent: exponent - bias - mantissaBits, significand: Double((1 << mantissaBits) | mantissa))
        return negative ? -value : value
    }

    /// The bit pattern of `value` rounded to nearest even.
    ///
    /// A value beyond the largest finite one (after rounding), or an infinity, becomes
    /// ±maximum when `saturate` or the format has no infinity and no NaN (float4e2m1);
    /// otherwise ±infinity (IEEE formats) or NaN. NaN becomes the format's NaN (float4e2m1, which
    /// has none: the zero of the other sign, as ml_dtypes does). A negative value that rounds to zero
    /// becomes +0 in the formats without a negative zero.
    func encode(_ value: Double, saturate: Bool) -> UInt16 {
        let sign: UInt16 = value.sign == .minus ? signBit : 0
        if value.isNaN {
            switch specials {
            case .ieee: return sign | UInt16(exponentOnes) << UInt16(mantissaBits) | 1 << UInt16(mantissaBits - 1)
            case .finiteAllOnesNaN: return sign | (signBit - 1)
            case .finiteNegativeZeroNaN: return signBit
            // float4e2m1 has no NaN: ml_dtypes (onnx's reference) gives a zero of the opposite sign.
            case .finite: return sign == 0 ? signBit : 0
            }
        }
        let magnitude = abs(value)
        let minimumExponent = 1 - bias
        var rounded = Double.infinity
        if magnitude.isFinite {
            if magnitude == 0 { return specials == .finiteNegativeZeroNaN ? 0 : sign }
            // One unit in the last place of the format at the value's binade (the subnormal one
            // below the normal range); scaling by a power of two is exact.
            let quantum = Double(sign: .plus, exponent: max(Int(magnitude.exponent), minimumExponent) - mantissaBits, significand: 1)
            rounded = (magnitude / quantum).rounded(.toNearestOrEven) * quantum
        }
        if rounded > maximum {
            if saturate || specials == .finite { return sign | encodeMagnitude(maximum) }
            switch specials {
            case .ieee: return sign | UInt16(exponentOnes) << UInt16(mantissaBits)
            case .finiteAllOnesNaN: return sign | (signBit - 1)
            case .finiteNegativeZeroNaN, .finite: return signBit
            }
        }
        if rounded == 0 { return specials == .finiteNegativeZeroNaN ? 0 : sign }
        return sign | encodeMagnitude(rounded)
    }

    /// The pattern of a positive value the format holds exactly.
    private func encodeMagnitude(_ value: Double) -> UInt16 {
        let minimumExponent = 1 - bias
        if Int(value.exponent) < minimumExponent {
            return UInt16(value / Double(sign: .plus, exponent: minimumExponent - mantissaBits, significand: 1))
        }
        let exponent = Int(value.exponent)
        let significand = Int(value / Double(sign: .plus, exponent: exponent - mantissaBits, significand: 1))
        return UInt16(exponent + bias) << UInt16(mantissaBits) | (UInt16(significand) & mantissaMask)
    }
}

/// float8e8m0: an 8-bit biased exponent, value 2^(bits − 127), 0xFF NaN, no sign, no zero (the
/// scale type of the OCP microscaling formats).
enum E8M0 {
    /// How a value between two powers of two is rounded (`Cast`'s `round_mode`).
    enum Rounding: String, Sendable, CaseIterable {
        /// Away from zero: any mantissa bit makes the next power.
        case up
        /// Toward zero: the mantissa is dropped.
        case down
        /// To the nearer power, ties up.
        case nearest
    }

    static func decode(_ bits: UInt8) -> Double {
        bits == 0xFF ? .nan : Double(sign: .plus, exponent: Int(bits) - 127, significand: 1)
    }

    /// The pattern of `value`, first rounded to float32, as onnx's `to_float8e8m0` computes it
    /// from the float32 bits: the sign is ignored, NaN and infinity give 0xFF, zero and the
    /// float32 subnormals the exponent 0 (then rounded like the others); with `saturate`, rounding
    /// never goes past 0xFE.
    static func encode(_ value: Double, saturate: Bool, rounding: Rounding) -> UInt8 {
        let bits = Float(value).bitPattern
        var exponent = (bits >> 23) & 0xFF
        if exponent == 0xFF { return 0xFF }
        let roundsUp: Bool
        switch rounding {
        case .up:
            roundsUp = bits & 0x7F_FFFF != 0
        case .down:
            roundsUp = false
        case .nearest:
            let guardBit = bits & 0x40_0000 != 0, roundBit = bits & 0x20_0000 != 0, sticky = bits & 0x1F_FFFF != 0
            roundsUp = guardBit && (roundBit || sticky || exponent > 0)
        }
        if roundsUp && !(saturate && exponent == 0xFE) { exponent += 1 }
        return UInt8(exponent)
    }
}
