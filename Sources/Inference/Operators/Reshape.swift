/// ONNX `Reshape` (5, 13, 14): the same elements under a new shape read from a constant
/// `shape` input (folded at plan time). 0 copies the input's dimension (unless `allowzero` = 1,
/// from version 14), −1 is inferred from the element count. Any element type.
final class Reshape: Operator {
    let dataInputs = [0]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    /// Bytes moved.
    let count: Int
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 2)
        try context.checkAttributes(context.opVersion >= 14 ? ["allowzero"] : [])
        let x = try context.shape(ofInput: 0)
        let allowZero = try context.int("allowzero", default: 0, in: 0...1) == 1
        guard let requested = try context.constantIntegers(1, "shape") else { throw context.error(.malformed, "input 'shape' is required") }
        let count = x.reduce(1, *)
        var shape: [Int] = []
        var inferred: Int?
        for (index, value) in requested.enumerated() {
            switch value {
            case -1:
                guard inferred == nil else { throw context.error(.invalidShape, "shape \(requested) has more than one -1") }
                inferred = index
                shape.append(1)
            case 0 where !allowZero:
                guard index < x.count else { throw context.error(.invalidShape, "shape \(requested) copies dimension \(index), which the input \(x) lacks") }
                shape.append(x[index])
            case 0...Int64(Shapes.maximumElementCount):
                shape.append(Int(value))
            default:
                throw context.error(.invalidShape, "shape \(requested) has an invalid dimension \(value)")
            }
        }
        guard let known = Shapes.elementCount(shape) else { throw context.error(.invalidShape, "shape \(requested) has more than 2^31 elements") }
        if let inferred {
            guard known > 0, count % known == 0 else { throw context.error(.invalidShape, "cannot reshape \(x) to \(requested)") }
            shape[inferred] = count / known
        }
        guard shape.reduce(1, *) == count else { throw context.error(.invalidShape, "cannot reshape \(x) (\(count) elements) to \(requested)") }
        let type = try context.type(ofInput: 0)
        return Reshape(outputShapes: [shape], outputTypes: [type], count: count * type.byteSize)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        UnsafeMutableRawPointer(outputs[0]).copyMemory(from: inputs[0], byteCount: count)
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], count: Int) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.count = count
    }
}
