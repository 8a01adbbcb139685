import CMath

/// ONNX `Pow` (Pow-7, -12, -13, -15): xʸ with numpy broadcasting, the output of x's type.
/// Pow-7: float32 base and exponent (powf). From Pow-12 the base may also be int32 or int64 and
/// the exponent float32 or an integer type (int8–int64, uint8–uint64); a float32 base with an
/// integer exponent, and an integer base, are computed in double, as onnxruntime's std::pow,
/// then rounded (float) or truncated toward zero (integer; results beyond Int64 saturate, NaN
/// gives 0).
enum Pow {
    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 2)
        try context.checkAttributes([])
        let typed = context.opVersion >= 12
        let base = try context.requireType(ofInput: 0, in: typed ? [.float32, .int32, .int64] : [.float32])
        let exponent = try context.requireType(ofInput: 1, in: typed ? ElementSets.floatAndIntegers.union([.uint64]) : [.float32])
        // An integer exponent's value: uint64 is held by its bit pattern (`IntegerScalar`).
        let unsignedExponent = exponent == .uint64
        @Sendable func power(_ x: Double, _ y: Int64) -> Double { pow(x, unsignedExponent ? Double(UInt64(bitPattern: y)) : Double(y)) }
        // The generic builders, for the integer base and exponent types.
        struct IntegerBase: IntegerScalarFunction {
            let context: NodeContext, exponent: ElementType, power: @Sendable (Double, Int64) -> Double
            func callAsFunction<T: IntegerScalar>(_: T.Type) throws(ModelError) -> any Operator {
                guard exponent.isIntegerScalar else { return try TypedBinary<T, Float, T>(context) { x, y in Pow.truncated(pow(Double(x), Double(y))) } }
                return try exponent.withIntegerScalar(IntegerExponent<T>(context: context, power: power))!
            }
        }
        struct IntegerExponent<T: IntegerScalar>: IntegerScalarFunction {
            let context: NodeContext, power: @Sendable (Double, Int64) -> Double
            func callAsFunction<E: IntegerScalar>(_: E.Type) throws(ModelError) -> any Operator {
                try TypedBinary<T, E, T>(context) { [power] x, y in Pow.truncated(power(Double(x), y)) }
            }
        }
        struct FloatBase: IntegerScalarFunction {
            let context: NodeContext, power: @Sendable (Double, Int64) -> Double
            func callAsFunction<E: IntegerScalar>(_: E.Type) throws(ModelError) -> any Operator {
                try TypedBinary<Float, E, Float>(context) { [power] x, y in Float(power(Double(x), y)) }
            }
        }
        if base.isIntegerScalar { return try base.withIntegerScalar(IntegerBase(context: context, exponent: exponent, power: power))! }
        guard exponent.isIntegerScalar else { return try TypedBinary<Float, Float, Float>(context) { powf($0, $1) } }
        return try exponent.withIntegerScalar(FloatBase(context: context, power: power))!
    }

    /// `value` truncated toward zero to Int64, saturating beyond its range; NaN is 0.
    fileprivate static func truncated(_ value: Double) -> Int64 {
        guard !value.isNaN else { return 0 }
        guard value > -0x1p63 else { return .min }
        guard value < 0x1p63 else { return .max }
        return Int64(value.rounded(.towardZero))
    }
}
