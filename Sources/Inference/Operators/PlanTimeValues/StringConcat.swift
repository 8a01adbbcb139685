/// ONNX `StringConcat` (20): each element of X followed by the element of Y, with numpy's
/// broadcasting; computed when the plan is built, where strings exist (`StringTensor`).
enum StringConcat {
    static let build: PlanTimeBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 2)
        try context.checkAttributes([])
        let (x, y) = try context.stringPair()
        let (shape, pairs) = try context.broadcastPairs(x, y)
        let values = pairs.map { x.values[$0.0] + y.values[$0.1] }
        return PlanTimeRewrite(strings: [(context.node.outputs[0], StringTensor(shape: shape, values: values))])
    }
}

extension NodeContext {
    /// Inputs 0 and 1 as string tensors.
    func stringPair() throws(ModelError) -> (StringTensor, StringTensor) {
        guard case let .strings(a) = inputs[0], case let .strings(b) = inputs[1] else {
            throw error(.invalidGraph, "inputs 0 and 1 must both be string tensors")
        }
        return (a, b)
    }

    /// The broadcast shape of `a` and `b` (numpy's rule) and, for each of its elements in C
    /// order, the index of the element of `a` and of `b` it reads.
    func broadcastPairs(_ a: StringTensor, _ b: StringTensor) throws(ModelError) -> (shape: [Int], pairs: [(Int, Int)]) {
        guard let shape = Shapes.broadcast(a.shape, b.shape) else {
            throw error(.invalidShape, "input shapes \(a.shape) and \(b.shape) do not broadcast")
        }
        let strideA = Shapes.broadcastStrides(a.shape, to: shape), strideB = Shapes.broadcastStrides(b.shape, to: shape)
        let pairs = (0..<shape.reduce(1, *)).map { flat in
            var rest = flat, indexA = 0, indexB = 0
            for axis in shape.indices.reversed() {
                let position = rest % shape[axis]
                rest /= shape[axis]
                indexA += position * strideA[axis]
                indexB += position * strideB[axis]
            }
            return (indexA, indexB)
        }
        return (shape, pairs)
    }
}
