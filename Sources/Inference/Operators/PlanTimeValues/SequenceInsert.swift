/// ONNX `SequenceInsert` (11): the input sequence with `tensor` inserted before `position`
/// (a scalar in `-n...n`, negative counting from the end; absent: at the end). The tensor's
/// element type must be the sequence's.
enum SequenceInsert {
    static let build: PlanTimeBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 3)
        try context.checkAttributes([])
        var sequence = try context.sequence(ofInput: 0)
        let type = try context.type(ofInput: 1)
        guard type == sequence.elementType else {
            throw context.error(.invalidValue, "input 1 ('\(context.node.inputs[1])') has element type \(type), the sequence holds \(sequence.elementType)")
        }
        let count = sequence.elements.count
        let position = try context.position(ofInput: 2, count: count, last: count) ?? count
        sequence.elements.insert(context.node.inputs[1], at: position)
        return PlanTimeRewrite(sequences: [(context.node.outputs[0], sequence)])
    }
}
