import ONNXFormat

/// ONNX `Constant` (Constant-13): its value becomes a plan-time constant, so it never runs.
/// Supported attributes: `value` (a tensor), `value_float`, `value_floats`, `value_int`,
/// `value_ints`.
enum Constant {
    static func value(_ context: NodeContext) throws(ModelError) -> ConstantTensor {
        try context.checkArity(inputs: 0, 0)
        try context.checkAttributes(["value", "value_float", "value_floats", "value_int", "value_ints"])
        guard context.node.attributes.count == 1, let attribute = context.node.attributes.first else {
            throw context.error(.malformed, "exactly one value attribute is required")
        }
        switch attribute.name {
        case "value":
            guard let tensor = attribute.t else { throw context.error(.malformed, "holds no tensor", attribute: "value") }
            do {
                return try ConstantTensor(tensor, role: "tensor", requiresFinite: false)
            } catch {
                throw context.error(error.kind, error.message, attribute: "value")
            }
        case "value_float": return ConstantTensor(shape: [], floats: [try context.float("value_float", default: 0)])
        case "value_floats": return ConstantTensor(shape: [attribute.floats.count], floats: attribute.floats)
        case "value_int": return ConstantTensor(shape: [], integers: [attribute.i])
        default: return ConstantTensor(shape: [attribute.ints.count], integers: attribute.ints)
        }
    }
}
