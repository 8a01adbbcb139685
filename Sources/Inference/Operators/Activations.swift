import CMath

// The float32 activation functions: each op's builder is named after it, and computes the
// formula of its ONNX operator page.

/// ONNX `Tanh` (Tanh-6, -13): tanh(x).
enum Tanh { static let build = ElementwiseUnary.builder { _ in (.other, { tanhf($0) }) } }

/// ONNX `LeakyRelu` (LeakyRelu-6, -16): x if x ≥ 0, else alpha · x (alpha 0.01 by default).
enum LeakyRelu {
    static let build = ElementwiseUnary.builder(attributes: ["alpha"]) { context throws(ModelError) in
        let alpha = try context.float("alpha", default: 0.01)
        return (.other, { x in x < 0 ? alpha * x : x })
    }
}

/// ONNX `Elu` (Elu-6): x if x ≥ 0, else alpha · (eˣ − 1) (alpha 1 by default).
enum Elu {
    static let build = ElementwiseUnary.builder(attributes: ["alpha"]) { context throws(ModelError) in
        let alpha = try context.float("alpha", default: 1)
        return (.other, { x in x < 0 ? alpha * expm1f(x) : x })
    }
}

/// ONNX `Selu` (Selu-6): gamma · x if x > 0, else gamma · (alpha · eˣ − alpha), with the
/// defaults alpha ≈ 1.6733 and gamma ≈ 1.0507 of the spec.
enum Selu {
    static let build = ElementwiseUnary.builder(attributes: ["alpha", "gamma"]) { context throws(ModelError) in
        let alpha = try context.float("alpha", default: 1.67326319217681884765625)
        let gamma = try context.float("gamma", default: 1.05070102214813232421875)
        return (.other, { x in x > 0 ? gamma * x : gamma * (alpha * expf(x) - alpha) })
    }
}

/// ONNX `Celu` (Celu-12): max(0, x) + min(0, alpha · (e^(x/alpha) − 1)) (alpha 1 by default;
/// 0 is refused, the formula divides by it).
enum Celu {
    static let build = ElementwiseUnary.builder(attributes: ["alpha"]) { context throws(ModelError) in
        let alpha = try context.float("alpha", default: 1)
        guard alpha != 0 else { throw context.error(.invalidValue, "alpha must not be 0 (the formula divides by it)", attribute: "alpha") }
        return (.other, { x in max(0, x) + min(0, alpha * expm1f(x / alpha)) })
    }
}

/// ONNX `Softplus` (Softplus-1): ln(eˣ + 1), computed as max(x, 0) + ln(1 + e^−|x|) so that it
/// neither overflows for large x nor loses small values for very negative x.
enum Softplus {
    static let build = ElementwiseUnary.builder { _ in (.other, softplus) }

    @Sendable static func softplus(_ x: Float) -> Float { max(x, 0) + log1pf(expf(-abs(x))) }
}

/// ONNX `Softsign` (Softsign-1): x / (1 + |x|).
enum Softsign { static let build = ElementwiseUnary.builder { _ in (.other, { x in x / (1 + abs(x)) }) } }

/// ONNX `Mish` (Mish-18): x · tanh(softplus(x)).
enum Mish { static let build = ElementwiseUnary.builder { _ in (.other, { x in x * tanhf(Softplus.softplus(x)) }) } }

/// ONNX `Gelu` (Gelu-20): approximate "none": x/2 · (1 + erf(x/√2)); approximate "tanh":
/// x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³))).
enum Gelu {
    static let build = ElementwiseUnary.builder(attributes: ["approximate"]) { context throws(ModelError) in
        switch try context.choice("approximate", ["none", "tanh"], default: "none") {
        case "tanh":
            let scale = Float((2 / Double.pi).squareRoot())
            return (.other, { x in 0.5 * x * (1 + tanhf(scale * (x + 0.044715 * x * x * x))) })
        default:
            return (.gelu, { x in 0.5 * x * (1 + erff(x * Float(0.5.squareRoot()))) })
        }
    }
}

/// ONNX `ThresholdedRelu` (ThresholdedRelu-10): x if x > alpha, else 0 (alpha 1 by default).
enum ThresholdedRelu {
    static let build = ElementwiseUnary.builder(attributes: ["alpha"]) { context throws(ModelError) in
        let alpha = try context.float("alpha", default: 1)
        return (.other, { x in x > alpha ? x : 0 })
    }
}

/// ONNX `Shrink` (Shrink-9), float32: x + bias if x < −lambd, x − bias if x > lambd, else 0
/// (bias 0 and lambd 0.5 by default). Integer inputs are refused.
enum Shrink {
    static let build = ElementwiseUnary.builder(attributes: ["bias", "lambd"]) { context throws(ModelError) in
        let bias = try context.float("bias", default: 0)
        let lambd = try context.float("lambd", default: 0.5)
        return (.other, { x in x < -lambd ? x + bias : (x > lambd ? x - bias : 0) })
    }
}

/// ONNX `Swish` (Swish-24): x · sigmoid(alpha · x) (alpha 1 by default).
enum Swish {
    static let build = ElementwiseUnary.builder(attributes: ["alpha"]) { context throws(ModelError) in
        let alpha = try context.float("alpha", default: 1)
        return (.other, { x in x / (1 + expf(-alpha * x)) })
    }
}
