/// ONNX `ArgMax` and `ArgMin` (versions 1–13): the int64 index of the largest / smallest element
/// along `axis` (default 0, negative counts from the end), the first one unless
/// `select_last_index` = 1 (version 12+); `keepdims` (default 1) keeps the axis as 1. Inputs
/// float32, int8, uint8, int32, uint32 or int64.
final class ArgReduce: Operator {
    let largest: Bool
    let type: ElementType
    let selectLast: Bool
    let dataInputs = [0]
    let outputShapes: [[Int]]
    var outputTypes: [ElementType] { [.int64] }
    var checksInputTypes: Bool { true }
    let outer: Int, length: Int, inner: Int

    /// A builder for ArgMax (`largest`) or ArgMin.
    static func builder(largest: Bool) -> OperatorBuilder {
        return { context throws(ModelError) in
            try context.checkArity(inputs: 1, 1)
            try context.checkAttributes(context.opVersion >= 12 ? ["axis", "keepdims", "select_last_index"] : ["axis", "keepdims"])
            let type = try context.requireType(ofInput: 0, in: [.float32, .int8, .uint8, .int32, .uint32, .int64])
            let x = try context.shape(ofInput: 0)
            let axis = try context.axis(try context.int("axis", default: 0), rank: x.count, attribute: "axis")
            let keepDims = try context.int("keepdims", default: 1, in: 0...1) == 1
            let selectLast = try context.int("select_last_index", default: 0, in: 0...1) == 1
            guard x[axis] > 0 else { throw context.error(.invalidShape, "axis \(axis) of \(x) is empty: there is no index to return", attribute: "axis") }
            var output = x
            if keepDims { output[axis] = 1 } else { output.remove(at: axis) }
            return ArgReduce(largest: largest, type: type, selectLast: selectLast, outputShapes: [output],
                             outer: x[..<axis].reduce(1, *), length: x[axis], inner: x[(axis + 1)...].reduce(1, *))
        }
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let y = UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: Int64.self)
        if type == .float32 {
            let x = inputs[0]
            search(y) { Double(x[$0]) }
        } else {
            let raw = UnsafeRawPointer(inputs[0]), type = self.type
            search(y) { TensorElements.integer(raw, at: $0, type) }
        }
    }

    /// Writes, for each (outer, inner) position, the index along the axis of the extreme of `value`.
    private func search<Value: Comparable>(_ y: UnsafeMutablePointer<Int64>, _ value: (Int) -> Value) {
        for o in 0..<outer {
            for i in 0..<inner {
                let base = o * length * inner + i
                var best = value(base), index = 0
                for k in 1..<length {
                    let candidate = value(base + k * inner)
                    let better = largest ? candidate > best : candidate < best
                    if better || (selectLast && candidate == best) {
                        best = candidate
                        index = k
                    }
                }
                y[o * inner + i] = Int64(index)
            }
        }
    }

    init(largest: Bool, type: ElementType, selectLast: Bool, outputShapes: [[Int]], outer: Int, length: Int,
         inner: Int) {
        self.largest = largest
        self.type = type
        self.selectLast = selectLast
        self.outputShapes = outputShapes
        self.outer = outer
        self.length = length
        self.inner = inner
    }
}
