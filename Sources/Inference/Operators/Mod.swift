import CMath

/// ONNX `Mod` (Mod-10, -13): the remainder of a / b with numpy broadcasting, on two inputs of one
/// type: float32, double or int8–int64, uint8–uint64. `fmod` 1: the sign of the dividend, as C's fmod and
/// %. `fmod` 0 (the default): the sign of the divisor, as Python's %; on floats that is what
/// Mod-28 defines (Mod-10/-13 required `fmod` 1 for floats). Integer x mod 0 is 0 (onnxruntime's
/// result there is undefined).
enum Mod {
    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkAttributes(["fmod"])
        let truncating = try context.int("fmod", default: 0, in: 0...1) == 1
        @Sendable func floating<F: FloatScalar>(_ a: F, _ b: F) -> F {
            let remainder = F.fmod(a, b)
            return truncating || remainder == 0 || (remainder < 0) == (b < 0) ? remainder : remainder + b
        }
        return try TypedElementwise.binary(context, integerTypes: ElementSets.integers, float: floating, double: floating, integer: { a, b in
            guard b != 0 else { return 0 }
            let remainder = a.remainderReportingOverflow(dividingBy: b).partialValue
            return truncating || remainder == 0 || (remainder < 0) == (b < 0) ? remainder : remainder + b
        }, unsigned64: { a, b in b == 0 ? 0 : a % b })
    }
}
