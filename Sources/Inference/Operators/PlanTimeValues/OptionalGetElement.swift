/// ONNX `OptionalGetElement` (15, 18): the value an optional holds (a tensor, copied by an
/// `Identity` node, or a sequence); an empty optional is an error. From version 18 the input may
/// also be a tensor or a sequence, which is the output.
enum OptionalGetElement {
    static let build: PlanTimeBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes([])
        let output = context.node.outputs[0]
        switch context.inputs[0] {
        case let .optional(optional):
            switch optional.element {
            case nil: throw context.error(.invalidValue, "input 0 ('\(context.node.inputs[0])') is an empty optional")
            case let .sequence(sequence)?: return PlanTimeRewrite(sequences: [(output, sequence)])
            case let .tensor(name)?: return PlanTimeRewrite(nodes: [(context.tensorNode("Identity", inputs: [name], outputs: [output]), 13)])
            }
        case let .sequence(sequence) where context.opVersion >= 18:
            return PlanTimeRewrite(sequences: [(output, sequence)])
        default:
            guard context.opVersion >= 18 else {
                throw context.error(.unsupported, "input 0 ('\(context.node.inputs[0])') must be an optional (a tensor or sequence from version 18)")
            }
            return PlanTimeRewrite(nodes: [(context.tensorNode("Identity", inputs: context.node.inputs, outputs: [output]), 13)])
        }
    }
}
