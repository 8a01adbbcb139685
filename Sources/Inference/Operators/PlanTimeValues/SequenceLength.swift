/// ONNX `SequenceLength` (11): the number of tensors in the sequence, an int64 scalar (a
/// constant: sequences are known when the plan is built).
enum SequenceLength {
    static let build: PlanTimeBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes([])
        let sequence = try context.sequence(ofInput: 0)
        let length = ConstantTensor(shape: [], integers: [Int64(sequence.elements.count)])
        return PlanTimeRewrite(constants: [(context.node.outputs[0], length)])
    }
}
