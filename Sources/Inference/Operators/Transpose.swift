/// ONNX `Transpose` (1, 13): output dimension i is input dimension perm[i] (reversed when
/// `perm` is absent); rank up to 6; any element type.
final class Transpose: Operator {
    let dataInputs = [0]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    let loop: StridedLoop
    /// Output axis i is input axis perm[i]; the input's shape.
    let perm: [Int], inputShape: [Int]
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes(["perm"])
        let x = try context.shape(ofInput: 0)
        guard x.count <= StridedLoop.maximumRank else { throw context.error(.unsupported, "rank \(x.count) is above 6") }
        let perm = try context.ints("perm", count: x.count, in: 0...max(0, x.count - 1)) ?? Array(x.indices.reversed())
        guard Set(perm).count == x.count else { throw context.error(.invalidShape, "\(perm) is not a permutation", attribute: "perm") }
        let output = perm.map { x[$0] }
        let inputStrides = Shapes.strides(x)
        return Transpose(outputShapes: [output], outputTypes: [try context.type(ofInput: 0)],
                         loop: StridedLoop(shape: output, strides: [Shapes.strides(output), perm.map { inputStrides[$0] }]),
                         perm: perm, inputShape: x)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        ElementCopy.copy(loop, from: UnsafeRawPointer(inputs[0]), to: UnsafeMutableRawPointer(outputs[0]), byteSize: outputTypes[0].byteSize)
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], loop: StridedLoop, perm: [Int], inputShape: [Int]) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.loop = loop
        self.perm = perm
        self.inputShape = inputShape
    }
}
