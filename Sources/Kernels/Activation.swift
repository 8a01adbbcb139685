/// The activation fused into a kernel's output.
package enum Activation: Sendable, Hashable, CustomStringConvertible {
    /// The identity.
    case none
    /// max(x, 0).
    case relu
    /// min(max(x, 0), 6) (ONNX Clip(0, 6), TFLite RELU6).
    case relu6
    /// x · min(max(x · (1/6) + 0.5, 0), 1) (ONNX HardSwish, TFLite HARD_SWISH), each operation
    /// rounded on its own as onnxruntime's HardSwish kernel computes it.
    case hardSwish
    /// 1 / (1 + e^−x): onnxruntime's logistic from x = −10 on, e^x / (1 + e^x) below
    /// (``sigmoidVector(_:)``), saturating to exactly 0 and 1.
    case sigmoid
    /// x · sigmoid(x) (SiLU, swish: ONNX Sigmoid then Mul by its input), the sigmoid rounded
    /// before the product, as the two nodes compute it.
    case silu

    package var description: String {
        switch self {
        case .none: "none"
        case .relu: "relu"
        case .relu6: "relu6"
        case .hardSwish: "hardswish"
        case .sigmoid: "sigmoid"
        case .silu: "silu"
        }
    }

    /// The activation of one value, rounding as the vector kernels do.
    package func apply(_ x: Float) -> Float {
        switch self {
        case .none: return x
        case .relu: return x < 0 ? 0 : x
        case .relu6: return min(max(x, 0), 6)
        case .hardSwish:
            var t = x * (1 / 6 as Float) + 0.5
            if t < 0 { t = 0 }
            if t > 1 { t = 1 }
            return x * t
        case .sigmoid:
            return fastSigmoid(x)
        case .silu:
            return x * fastSigmoid(x)
        }
    }
}

extension Activation {
    @inline(always)
    func apply(_ v: Vector) -> Vector {
        switch self {
        case .none: return v
        case .relu: return ReLU.apply(v)
        case .relu6: return ReLU6.apply(v)
        case .hardSwish: return HardSwish.apply(v)
        case .sigmoid: return Sigmoid.apply(v)
        case .silu: return SiLU.apply(v)
        }
    }
}

/// An activation known at compile time.
protocol ActivationFunction {
    static func apply(_ v: Vector) -> Vector
}

enum Identity: ActivationFunction {
    @inline(always) static func apply(_ v: Vector) -> Vector { v }
}

enum ReLU: ActivationFunction {
    /// One `vmaxps`; `pointwiseMax` would be a scalar loop.
    @inline(always) static func apply(_ v: Vector) -> Vector { v.replacing(with: 0, where: v .< 0) }
}

/// `v` with every lane below `floor` raised to it (a NaN stays NaN): one `vmaxps`. A floor of 0
/// is ``ReLU``'s; −∞ leaves `v` as it is.
@inline(always) func raised(_ v: Vector, to floor: Float) -> Vector { v.replacing(with: floor, where: v .< floor) }

/// The floor of the sum of a kernel's output and its residual: 0 when a Relu after the residual
/// Add is fused (`rectifiesSum`), else −∞ (``raised(_:to:)`` then changes nothing).
@inline(always) func sumFloor(rectifiesSum: Bool) -> Float { rectifiesSum ? 0 : -.infinity }

enum ReLU6: ActivationFunction {
    @inline(always) static func apply(_ v: Vector) -> Vector {
        byQuarters(v) { v in
            let t = v.replacing(with: 0, where: v .< 0)
            return t.replacing(with: 6, where: t .> 6)
        }
    }
}

/// onnxruntime's HardSwish: x · min(max(x · (1/6) + 0.5, 0), 1), the product and the sum rounded
/// apart (not fused), the clamp, then the product by x: its bits on every float (the arithmetic
/// x · min(max(x + 3, 0), 6) / 6 differs from it on about a quarter of them, enough to move a
/// value a DynamicQuantizeLinear reads across a rounding boundary).
enum HardSwish: ActivationFunction {
    @inline(always) static func apply(_ v: Vector) -> Vector {
        byQuarters(v) { v in
            var t = v * (1 / 6 as Float) + 0.5
            t = t.replacing(with: 0, where: t .< 0)
            t = t.replacing(with: 1, where: t .> 1)
            return v * t
        }
    }
}

/// `body(v)`; with ``narrowRegisterFile``, computed for each SSE quarter of `v` on its own (a
/// vector of four copies of the quarter, of which one is kept). The clamps then become one
/// `maxps` / `minps` each: on the whole vector, and above all on one assembled from quarters
/// (``Quarter8``), LLVM lowers them to compares and masks, up to 13 instructions instead of 5
/// per register for the hard-swish. The lanes' values are the same either way.
@inline(always)
func byQuarters(_ v: Vector, _ body: (Vector) -> Vector) -> Vector {
    guard narrowRegisterFile else { return body(v) }
    @inline(always) func one(_ q: Quarter) -> Quarter { body(repeatQuarter(q)).lowHalf.lowHalf }
    return Vector(lowHalf: SIMD8(lowHalf: one(v.lowHalf.lowHalf), highHalf: one(v.lowHalf.highHalf)),
                  highHalf: SIMD8(lowHalf: one(v.highHalf.lowHalf), highHalf: one(v.highHalf.highHalf)))
}

enum Sigmoid: ActivationFunction {
    @inline(always) static func apply(_ v: Vector) -> Vector {
        var result = v
        sigmoidInPlace(&result)
        return result
    }
}

/// Inline, unlike ``Sigmoid``: a call in a kernel's store spills every accumulator (all vector
/// registers are caller-saved), and SiLU is fused into the wide layers of the models that use it.
enum SiLU: ActivationFunction {
    @inline(always) static func apply(_ v: Vector) -> Vector { v * sigmoidVector(v) }
}

/// Out of line so that fusing a sigmoid does not bloat every kernel; the vector travels by
/// address.
@inline(never)
func sigmoidInPlace(_ v: inout Vector) {
    v = sigmoidVector(v)
}
