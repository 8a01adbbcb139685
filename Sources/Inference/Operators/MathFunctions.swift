import CMath
import Kernels

// The element-wise math functions: float32 (ONNX's other float types are not computed), except
// Exp and Log, which also take double, and Neg, Abs and Sign, which also take integers. Each op's
// builder is named after it.

/// A builder for an attribute-free float32 function of one input.
private func function(_ body: @escaping @Sendable (Float) -> Float) -> OperatorBuilder {
    ElementwiseUnary.builder { _ in (.other, body) }
}

/// A builder for an attribute-free function of one float32 (`float`) or double (`double`) input,
/// each computed in its own type.
private func function(_ float: @escaping @Sendable (Float) -> Float, double: @escaping @Sendable (Double) -> Double) -> OperatorBuilder {
    let floatBuilder = function(float)
    return { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        guard try context.requireType(ofInput: 0, in: [.float32, .double]) == .double else { return try floatBuilder(context) }
        try context.checkAttributes([])
        return try TypedUnary<Double, Double>(context, double)
    }
}

/// ONNX `Exp` (Exp-6, -13): eˣ, float32 or double.
enum Exp { static let build = function(Float.exp, double: Double.exp) }
/// ONNX `Log` (Log-6, -13): ln x (−∞ at 0, NaN below), float32 or double.
enum Log { static let build = function(Float.log, double: Double.log) }
/// ONNX `Sqrt` (Sqrt-6, -13): √x (NaN below 0).
enum Sqrt { static let build = function { $0.squareRoot() } }
/// ONNX `Reciprocal` (Reciprocal-6, -13): 1/x.
enum Reciprocal { static let build = function { 1 / $0 } }
/// ONNX `Erf` (Erf-9, -13), float32: the error function.
/// Erf as onnxruntime's CPU kernel computes it (MLAS's erf, ``erfLikeOnnxruntime(_:)``), so the
/// reference path, the fast path and onnxruntime give the same bits (GELU's erf before a
/// DynamicQuantizeLinear); within 1 ulp of the exact value.
enum Erf { static let build = ElementwiseUnary.builder { _ in (.erf, { erfLikeOnnxruntime($0) }) } }
/// ONNX `Floor` (Floor-6, -13): the largest integer ≤ x.
enum Floor { static let build = function { $0.rounded(.down) } }
/// ONNX `Ceil` (Ceil-6, -13): the smallest integer ≥ x.
enum Ceil { static let build = function { $0.rounded(.up) } }
/// ONNX `Round` (Round-11): the nearest integer, halves to even.
enum Round { static let build = function { $0.rounded(.toNearestOrEven) } }
/// ONNX `Sin` (Sin-7).
enum Sin { static let build = function { sinf($0) } }
/// ONNX `Cos` (Cos-7).
enum Cos { static let build = function { cosf($0) } }
/// ONNX `Tan` (Tan-7).
enum Tan { static let build = function { tanf($0) } }
/// ONNX `Asin` (Asin-7): NaN outside [−1, 1].
enum Asin { static let build = function { asinf($0) } }
/// ONNX `Acos` (Acos-7): NaN outside [−1, 1].
enum Acos { static let build = function { acosf($0) } }
/// ONNX `Atan` (Atan-7).
enum Atan { static let build = function { atanf($0) } }
/// ONNX `Sinh` (Sinh-9).
enum Sinh { static let build = function { sinhf($0) } }
/// ONNX `Cosh` (Cosh-9).
enum Cosh { static let build = function { coshf($0) } }
/// ONNX `Asinh` (Asinh-9).
enum Asinh { static let build = function { asinhf($0) } }
/// ONNX `Acosh` (Acosh-9): NaN below 1.
enum Acosh { static let build = function { acoshf($0) } }
/// ONNX `Atanh` (Atanh-9): ±∞ at ±1, NaN outside.
enum Atanh { static let build = function { atanhf($0) } }

/// ONNX `Neg` (Neg-6, -13): −x, on float32 or a signed integer type (int8–int64; the minimum
/// value wraps to itself).
enum Neg {
    static let build = TypedElementwise.unary(integerTypes: ElementSets.signedIntegers, float: { -$0 }, integer: { 0 &- $0 })
}

/// ONNX `Abs` (Abs-6, -13): |x|, on float32 or an integer type (int8–int64, uint8–uint32; the
/// minimum signed value stays itself, as in onnxruntime).
enum Abs {
    static let build = TypedElementwise.unary(integerTypes: ElementSets.integers, float: { abs($0) }) { x in
        x < 0 ? 0 &- x : x
    }
}

/// ONNX `Sign` (Sign-9, -13): −1, 0 or 1 by the sign of x, on float32 (NaN stays NaN, −0 gives 0)
/// or an integer type (int8–int64, uint8–uint32).
enum Sign {
    static let build = TypedElementwise.unary(integerTypes: ElementSets.integers, float: { x in
        x > 0 ? 1 : (x < 0 ? -1 : (x == 0 ? 0 : x))
    }, integer: { x in x > 0 ? 1 : (x < 0 ? -1 : 0) })
}

/// ONNX `IsNaN` (IsNaN-9, -13, -20), float32: true where x is NaN.
enum IsNaN {
    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes([])
        _ = try context.requireType(ofInput: 0, in: [.float32])
        return try TypedUnary<Float, BoolScalar>(context) { $0.isNaN }
    }
}

/// ONNX `IsInf` (IsInf-10, -20), float32: true where x is +∞ (if `detect_positive`, default 1)
/// or −∞ (if `detect_negative`, default 1).
enum IsInf {
    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes(["detect_negative", "detect_positive"])
        _ = try context.requireType(ofInput: 0, in: [.float32])
        let negative = try context.int("detect_negative", default: 1, in: 0...1) == 1
        let positive = try context.int("detect_positive", default: 1, in: 0...1) == 1
        return try TypedUnary<Float, BoolScalar>(context) { x in
            x.isInfinite && (x < 0 ? negative : positive)
        }
    }
}
