/// ONNX `SequenceAt` (11): the tensor at `position` of the sequence (a scalar in `-n...n-1`,
/// negative counting from the end), as an `Identity` of that element.
enum SequenceAt {
    static let build: PlanTimeBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 2)
        try context.checkAttributes([])
        let sequence = try context.sequence(ofInput: 0)
        let count = sequence.elements.count
        guard count > 0 else { throw context.error(.invalidValue, "the sequence is empty") }
        let position = try context.position(ofInput: 1, count: count, last: count - 1)!
        let copy = context.tensorNode("Identity", inputs: [sequence.elements[position]], outputs: context.node.outputs)
        return PlanTimeRewrite(nodes: [(copy, 13)])
    }
}
