/// ONNX `SequenceEmpty` (11): an empty sequence of tensors of element type `dtype` (default
/// float).
enum SequenceEmpty {
    static let build: PlanTimeBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 0, 0)
        try context.checkAttributes(["dtype"])
        let code = try context.int("dtype", default: 1)
        guard let type = ElementType(onnxCode: code) else {
            throw context.error(.unsupported, "element type \(code) is not one this engine stores", attribute: "dtype")
        }
        return PlanTimeRewrite(sequences: [(context.node.outputs[0], PlanTimeSequence(elementType: type, elements: []))])
    }
}
