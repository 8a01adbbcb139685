/// ONNX `Where` (Where-9, -16): X where the bool `condition` is true, else Y, with `condition`,
/// X and Y broadcast together (numpy rules); X and Y of any one stored type, which the output has.
enum Where {
    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 3, 3)
        try context.checkAttributes([])
        _ = try context.requireType(ofInput: 0, in: [.bool])
        let type = try context.commonType(ofInputs: [1, 2], in: Set(ElementType.allCases))
        // Elements are only moved, so any type of the same width will do.
        switch type.byteSize {
        case 1: return try Selection<UInt8>(context, type)
        case 2: return try Selection<UInt16>(context, type)
        case 4: return try Selection<UInt32>(context, type)
        default: return try Selection<UInt64>(context, type)
        }
    }
}

/// `Where`'s kernel, moving elements of `Element`'s size.
final class Selection<Element: Sendable>: Operator {
    let dataInputs = [0, 1, 2]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    /// Output ← X.
    let copy: StridedLoop
    /// Output ← Y where the condition is false (operand 1 the condition, 2 Y).
    let select: StridedLoop
    var checksInputTypes: Bool { true }

    init(_ context: NodeContext, _ type: ElementType) throws(ModelError) {
        precondition(MemoryLayout<Element>.size == type.byteSize)
        let shape = try context.broadcastShape(ofInputs: [0, 1, 2])
        outputShapes = [shape]
        outputTypes = [type]
        copy = StridedLoop(output: shape, broadcasting: [try context.shape(ofInput: 1)])
        select = StridedLoop(output: shape, broadcasting: [try context.shape(ofInput: 0), try context.shape(ofInput: 2)])
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let condition = UnsafeRawPointer(inputs[0]).assumingMemoryBound(to: UInt8.self)
        let x = UnsafeRawPointer(inputs[1]).assumingMemoryBound(to: Element.self)
        let y = UnsafeRawPointer(inputs[2]).assumingMemoryBound(to: Element.self)
        let output = UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: Element.self)
        copy.forEach { out, i, _ in output[out] = x[i] }
        select.forEach { out, c, j in if condition[c] == 0 { output[out] = y[j] } }
    }
}
