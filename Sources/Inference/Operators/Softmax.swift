import Foundation

/// ONNX `Softmax`. Opset 13+ (Softmax-13): along one `axis` (default −1). Opsets 11–12
/// (Softmax-11): the input is coerced to 2-D at `axis` (default 1) and softmax runs over the
/// flattened trailing dimensions. Both subtract the maximum first for stability.
struct Softmax: Operator {
    let dataInputs = [0]
    let outputShapes: [[Int]]
    let outer: Int, length: Int, inner: Int

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes(["axis"])
        let x = try context.shape(ofInput: 0)
        let legacy = context.opVersion < 13
        let axis = try context.axis(try context.int("axis", default: legacy ? 1 : -1), rank: max(x.count, 1), attribute: "axis")
        let outer = x[..<axis].reduce(1, *)
        if legacy {
            return Softmax(outputShapes: [x], outer: outer, length: x[axis...].reduce(1, *), inner: 1)
        }
        return Softmax(outputShapes: [x], outer: outer, length: x[axis], inner: x[(axis + 1)...].reduce(1, *))
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = inputs[0], y = outputs[0]
        for o in 0..<outer {
            for i in 0..<inner {
                let base = o * length * inner + i
                var maximum = -Float.infinity
                for k in 0..<length { maximum = max(maximum, x[base + k * inner]) }
                var sum: Float = 0
                for k in 0..<length {
                    let e = expf(x[base + k * inner] - maximum)
                    y[base + k * inner] = e
                    sum += e
                }
                for k in 0..<length { y[base + k * inner] /= sum }
            }
        }
    }
}
