/// ONNX `OptionalHasElement` (15, 18): whether the optional input holds a value, a bool scalar
/// (a constant: optionals are known when the plan is built). From version 18 the input may also
/// be a tensor or a sequence (true) or absent (false).
enum OptionalHasElement {
    static let build: PlanTimeBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: context.opVersion >= 18 ? 0 : 1, 1)
        try context.checkAttributes([])
        let present: Bool
        if !context.hasInput(0) {
            present = false
        } else if case let .optional(optional) = context.inputs[0] {
            present = optional.element != nil
        } else {
            guard context.opVersion >= 18 else {
                throw context.error(.unsupported, "input 0 ('\(context.node.inputs[0])') must be an optional (a tensor or sequence from version 18)")
            }
            if !context.isPlanTimeValue(0) { _ = try context.type(ofInput: 0) }
            present = true
        }
        return PlanTimeRewrite(constants: [(context.node.outputs[0], ConstantTensor(shape: [], integers: [present ? 1 : 0], type: .bool))])
    }
}
