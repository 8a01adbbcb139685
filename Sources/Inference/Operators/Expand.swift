/// ONNX `Expand` (8, 13): `input` broadcast (numpy rules, both ways) with the constant int64
/// `shape`; rank up to 6; any element type.
final class Expand: Operator {
    let dataInputs = [0]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    let loop: StridedLoop
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 2)
        try context.checkAttributes([])
        let x = try context.shape(ofInput: 0)
        guard let requested = try context.constantIntegers(1, "shape") else { throw context.error(.malformed, "input 'shape' is required") }
        guard requested.allSatisfy({ $0 >= 0 && $0 <= Int64(Shapes.maximumElementCount) }) else {
            throw context.error(.invalidShape, "shape \(requested) has a negative or too large dim")
        }
        guard let shape = Shapes.broadcast(x, requested.map { Int($0) }) else {
            throw context.error(.invalidShape, "\(x) cannot be broadcast to \(requested)")
        }
        guard shape.count <= StridedLoop.maximumRank else { throw context.error(.unsupported, "rank \(shape.count) is above 6") }
        return Expand(outputShapes: [shape], outputTypes: [try context.type(ofInput: 0)],
                      loop: StridedLoop(shape: shape, strides: [Shapes.strides(shape), Shapes.broadcastStrides(x, to: shape)]))
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        ElementCopy.copy(loop, from: UnsafeRawPointer(inputs[0]), to: UnsafeMutableRawPointer(outputs[0]), byteSize: outputTypes[0].byteSize)
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], loop: StridedLoop) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.loop = loop
    }
}
