/// ONNX `Clip`: min(max(x, min), max), with `min` and `max` as attributes (Clip-6, opsets 7–10;
/// defaults ∓3.4028234e38) or as optional constant scalar inputs (11, 12, 13; −∞ / +∞ when absent).
enum Clip {
    static let build: OperatorBuilder = { context throws(ModelError) in
        context.opVersion < 11 ? try attributeBounds(context) : try inputBounds(context)
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
