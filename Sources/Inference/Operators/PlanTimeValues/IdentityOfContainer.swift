/// ONNX `Identity` of a sequence (Identity-14 and later) or an optional (Identity-16 and
/// later): the same value under the output's name.
enum IdentityOfContainer {
    static let build: PlanTimeBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes([])
        let output = context.node.outputs[0]
        switch context.inputs[0] {
        case let .sequence(sequence) where context.opVersion >= 14:
            return PlanTimeRewrite(sequences: [(output, sequence)])
        case let .optional(optional) where context.opVersion >= 16:
            return PlanTimeRewrite(optionals: [(output, optional)])
        default:
            throw context.error(.unsupported, "input 0 ('\(context.node.inputs[0])') is a sequence or optional, which Identity-\(context.opVersion) does not take")
        }
    }
}
