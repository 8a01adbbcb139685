/// ONNX `ReduceMean`: the mean over `axes` (all axes when none are given), keeping reduced
/// dimensions as 1 when `keepdims` = 1 (the default). Opsets 11–17 (ReduceMean-13) take `axes` as
/// an attribute; opset 18 (ReduceMean-18) takes it as an optional constant input and adds
/// `noop_with_empty_axes`.
struct ReduceMean: Operator {
    let dataInputs = [0]
    let outputShapes: [[Int]]
    let loop: StridedLoop
    let outputCount: Int
    let divisor: Float

    static let build: OperatorBuilder = { context throws(ModelError) in
        let usesInput = context.opVersion >= 18
        try context.checkArity(inputs: 1, usesInput ? 2 : 1)
        try context.checkAttributes(usesInput ? ["keepdims", "noop_with_empty_axes"] : ["axes", "keepdims"])
        let x = try context.shape(ofInput: 0)
        guard x.count <= StridedLoop.maximumRank else { throw context.error(.unsupported, "rank \(x.count) is above 6") }
        let keepDims = try context.int("keepdims", default: 1, in: 0...1) == 1
        let given: [Int]? = usesInput ? try context.constantIntegers(1, "axes")?.map { Int(clamping: $0) } : try context.ints("axes")
        var axes = Set<Int>()
        if let given, !given.isEmpty {
            for axis in given { axes.insert(try context.axis(axis, rank: x.count, attribute: usesInput ? nil : "axes")) }
        } else if usesInput, try context.int("noop_with_empty_axes", default: 0, in: 0...1) == 1 {
            axes = []
        } else {
            axes = Set(x.indices)
        }
        var reducedShape = x  // the output with kept dimensions
        for axis in axes { reducedShape[axis] = 1 }
        let outputShape = keepDims ? reducedShape : x.indices.filter { !axes.contains($0) }.map { x[$0] }
        // Iterate over the input; each element adds into the output element it reduces to.
        var accumulate = Shapes.strides(reducedShape)
        for axis in axes { accumulate[axis] = 0 }
        let count = axes.reduce(1) { $0 * x[$1] }
        return ReduceMean(outputShapes: [outputShape],
                          loop: StridedLoop(shape: x, strides: [Shapes.strides(x), accumulate]),
                          outputCount: reducedShape.reduce(1, *), divisor: Float(max(count, 1)))
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = inputs[0], y = outputs[0]
        y.update(repeating: 0, count: outputCount)
        loop.forEach { i, o, _ in y[o] += x[i] }
        let divisor = self.divisor
        for o in 0..<outputCount { y[o] /= divisor }
    }
}
