/// ONNX `SequenceErase` (11): the input sequence without the tensor at `position` (a scalar in
/// `-n...n-1`, negative counting from the end; absent: the last one).
enum SequenceErase {
    static let build: PlanTimeBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 2)
        try context.checkAttributes([])
        var sequence = try context.sequence(ofInput: 0)
        let count = sequence.elements.count
        guard count > 0 else { throw context.error(.invalidValue, "cannot erase from an empty sequence") }
        let position = try context.position(ofInput: 1, count: count, last: count - 1) ?? count - 1
        sequence.elements.remove(at: position)
        return PlanTimeRewrite(sequences: [(context.node.outputs[0], sequence)])
    }
}
