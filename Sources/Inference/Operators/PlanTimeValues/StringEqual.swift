/// ONNX `Equal` (19) on two string tensors: element-wise equality of the UTF-8 bytes (no Unicode
/// normalisation, as numpy and onnxruntime compare), with numpy's broadcasting; a bool tensor
/// computed when the plan is built, where strings exist (`StringTensor`).
enum StringEqual {
    static let build: PlanTimeBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 2)
        try context.checkAttributes([])
        guard context.opVersion >= 19 else {
            throw context.error(.unsupported, "string inputs need Equal-19 or later (the node is Equal-\(context.opVersion))")
        }
        let (a, b) = try context.stringPair()
        let (shape, pairs) = try context.broadcastPairs(a, b)
        let equal: [Int64] = pairs.map { a.values[$0.0].utf8.elementsEqual(b.values[$0.1].utf8) ? 1 : 0 }
        return PlanTimeRewrite(constants: [(context.node.outputs[0], ConstantTensor(shape: shape, integers: equal, type: .bool))])
    }
}
