/// ONNX `Clip`: min(max(x, min), max), with `min` and `max` as attributes (Clip-6, opsets 7–10,
/// float32; defaults ∓3.4028234e38) or as optional constant scalar inputs of x's type (Clip-11,
/// -12, -13): float32 with −∞ / +∞ when absent, and from Clip-12 the integer types int8–int64,
/// uint8–uint32 with the type's lowest / highest value when absent.
enum Clip {
    static let build: OperatorBuilder = { context throws(ModelError) in
        guard context.opVersion >= 11 else { return try attributeBounds(context) }
        let types = context.opVersion >= 12 ? ElementSets.floatAndIntegers : [.float32]
        let type = try context.requireType(ofInput: 0, in: types)
        guard type.isIntegerScalar else { return try inputBounds(context) }
        try context.checkArity(inputs: 1, 3)
        try context.checkAttributes([])
        struct Make: IntegerScalarFunction {
            let context: NodeContext
            func callAsFunction<T: IntegerScalar>(_: T.Type) throws(ModelError) -> any Operator {
                func bound(_ index: Int, _ role: String, _ fallback: T) throws(ModelError) -> Int64 {
                    guard let values = try context.constantIntegers(index, role) else { return fallback.elementValue }
                    guard try context.type(ofInput: index) == T.elementType, values.count == 1 else {
                        throw context.error(.invalidValue, "input '\(role)' must be a scalar of the input's type \(T.elementType)")
                    }
                    return values[0]
                }
                let low = try bound(1, "min", T.min), high = try bound(2, "max", T.max)
                return try TypedUnary<T, T>(context) { x in min(max(x, low), high) }
            }
        }
        return try type.withIntegerScalar(Make(context: context))!
    }

    private static let attributeBounds = ElementwiseUnary.builder(attributes: ["min", "max"]) { context throws(ModelError) in
        let low = try context.float("min", default: -.greatestFiniteMagnitude)
        let high = try context.float("max", default: .greatestFiniteMagnitude)
        return (.clip(minimum: low, maximum: high), { x in min(max(x, low), high) })
    }

    private static let inputBounds = ElementwiseUnary.builder(inputs: 3) { context throws(ModelError) in
        func bound(_ index: Int, _ role: String, _ fallback: Float) throws(ModelError) -> Float {
            guard let values = try context.constantFloats(index, role) else { return fallback }
            guard values.count == 1 else { throw context.error(.invalidShape, "input '\(role)' must be a scalar, it has \(values.count) values") }
            return values[0]
        }
        let low = try bound(1, "min", -.infinity)
        let high = try bound(2, "max", .infinity)
        return (.clip(minimum: low, maximum: high), { x in min(max(x, low), high) })
    }
}
