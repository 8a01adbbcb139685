/// ONNX `SequenceConstruct` (11): the sequence of its input tensors, in order; they must share
/// one element type (their shapes may differ).
enum SequenceConstruct {
    static let build: PlanTimeBuilder = { context throws(ModelError) in
        let count = context.node.inputs.count
        guard count >= 1 else { throw context.error(.malformed, "needs at least one input") }
        try context.checkArity(inputs: count, count)
        try context.checkAttributes([])
        let type = try context.type(ofInput: 0)
        for index in 1..<count {
            let other = try context.type(ofInput: index)
            guard other == type else {
                throw context.error(.invalidValue, "input \(index) ('\(context.node.inputs[index])') has element type \(other), input 0 has \(type)")
            }
        }
        return PlanTimeRewrite(sequences: [(context.node.outputs[0], PlanTimeSequence(elementType: type, elements: context.node.inputs))])
    }
}
