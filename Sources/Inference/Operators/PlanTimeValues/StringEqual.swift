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
        guard case let .strings(a) = context.inputs[0], case let .strings(b) = context.inputs[1] else {
            throw context.error(.invalidGraph, "inputs 0 and 1 must both be string tensors to compare strings")
        }
        guard let shape = Shapes.broadcast(a.shape, b.shape) else {
            throw context.error(.invalidShape, "input shapes \(a.shape) and \(b.shape) do not broadcast")
        }
        let strideA = Shapes.broadcastStrides(a.shape, to: shape), strideB = Shapes.broadcastStrides(b.shape, to: shape)
        let equal: [Int64] = (0..<shape.reduce(1, *)).map { flat in
            var rest = flat, indexA = 0, indexB = 0
            for axis in shape.indices.reversed() {
                let position = rest % shape[axis]
                rest /= shape[axis]
                indexA += position * strideA[axis]
                indexB += position * strideB[axis]
            }
            return a.values[indexA].utf8.elementsEqual(b.values[indexB].utf8) ? 1 : 0
        }
        return PlanTimeRewrite(constants: [(context.node.outputs[0], ConstantTensor(shape: shape, integers: equal, type: .bool))])
    }
}
