/// A permutation of elements described by a `StridedLoop` over the output (operand 0) and the
/// input (operand 1), for any element type: DepthToSpace and SpaceToDepth.
final class Rearrangement: Operator {
    var checksInputTypes: Bool { true }

    let dataInputs = [0]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    let loop: StridedLoop

    /// The `blocksize` attribute (≥ 1) and the rank-4 input's shape and type, validated.
    static func blockAndInput(_ context: NodeContext, attributes: Set<String>) throws(ModelError) -> (block: Int, shape: [Int], type: ElementType) {
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes(attributes)
        let x = try context.shape(ofInput: 0)
        let type = try context.requireType(ofInput: 0, in: ElementCopy.anyType)
        guard x.count == 4 else { throw context.error(.invalidShape, "input must have rank 4, got \(x)") }
        guard context.attribute("blocksize") != nil else { throw context.error(.malformed, "is required", attribute: "blocksize") }
        return (try context.int("blocksize", default: 1, in: 1...(1 << 16)), x, type)
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
