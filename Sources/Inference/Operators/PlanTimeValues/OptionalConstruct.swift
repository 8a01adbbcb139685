/// ONNX `Optional` (15): an optional holding its input (a tensor or a sequence), or an empty
/// one when the input is absent (`type` then names the type, which is not needed here).
enum OptionalConstruct {
    static let build: PlanTimeBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 0, 1)
        try context.checkAttributes(["type"])
        var optional = PlanTimeOptional(element: nil)
        if context.hasInput(0) {
            switch context.inputs[0] {
            case let .sequence(sequence): optional.element = .sequence(sequence)
            case .optional: throw context.error(.invalidValue, "input 0 ('\(context.node.inputs[0])') is an optional; an optional cannot hold one")
            default:
                _ = try context.type(ofInput: 0)
                optional.element = .tensor(context.node.inputs[0])
            }
        } else if context.attribute("type") == nil {
            throw context.error(.malformed, "an empty optional (no input) needs the 'type' attribute", attribute: "type")
        }
        return PlanTimeRewrite(optionals: [(context.node.outputs[0], optional)])
    }
}
