/// ONNX `Clip` (Clip-11 / Clip-13): min(max(x, min), max) with `min` and `max` as optional
/// constant scalar inputs (−∞ / +∞ when absent). Opset-6 style attributes are not accepted.
enum Clip {
    static let build = ElementwiseUnary.builder(inputs: 3) { context throws(ModelError) in
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
