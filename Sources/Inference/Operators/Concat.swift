/// ONNX `Concat` (4, 11, 13): joins the inputs along `axis` (negative counts from the end);
/// every other dimension and the element type must match. Any element type.
final class Concat: Operator {
    let dataInputs: [Int]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    var checksInputTypes: Bool { true }
    /// Product of the dimensions before the axis.
    let outer: Int
    /// Per input, the contiguous bytes copied for each outer index (its axis length × inner size).
    let runs: [Int]

    static let build: OperatorBuilder = { context throws(ModelError) in
        guard !context.node.inputs.isEmpty else { throw context.error(.malformed, "needs at least one input") }
        try context.checkArity(inputs: context.node.inputs.count, context.node.inputs.count)
        try context.checkAttributes(["axis"])
        let first = try context.shape(ofInput: 0)
        let type = try context.type(ofInput: 0)
        let axis = try context.axis(try context.int("axis", default: Int.min), rank: first.count, attribute: "axis")
        var output = first
        output[axis] = 0
        var runs: [Int] = []
        for index in context.node.inputs.indices {
            let shape = try context.shape(ofInput: index)
            guard shape.count == first.count,
                  shape.indices.allSatisfy({ $0 == axis || shape[$0] == first[$0] })
            else { throw context.error(.invalidShape, "input \(index) has shape \(shape), incompatible with \(first) along axis \(axis)") }
            _ = try context.requireType(ofInput: index, in: [type])
            output[axis] += shape[axis]
            runs.append(shape[axis...].reduce(1, *))
        }
        let size = type.byteSize
        return Concat(dataInputs: Array(context.node.inputs.indices), outputShapes: [output], outputTypes: [type],
                      outer: first[..<axis].reduce(1, *), runs: runs.map { $0 * size })
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        var destination = UnsafeMutableRawPointer(outputs[0])
        for o in 0..<outer {
            for (index, run) in runs.enumerated() {
                destination.copyMemory(from: UnsafeRawPointer(inputs[index]) + o * run, byteCount: run)
                destination += run
            }
        }
    }

    init(dataInputs: [Int], outputShapes: [[Int]], outputTypes: [ElementType], outer: Int, runs: [Int]) {
        self.dataInputs = dataInputs
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.outer = outer
        self.runs = runs
    }
}
