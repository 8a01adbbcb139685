/// ONNX `ScatterElements` (11, 13, 16, 18): a copy of `data` where element k of `updates` (of the
/// indices' shape) lands at k's coordinates with the one along `axis` replaced by int32 or int64
/// `indices[k]` (negative counts from the end), combined per `reduction` (`ScatterReduction`).
/// Any element type for `reduction` none, numeric types for the others.
///
/// An update whose index lies outside [−dim, dim) at run time (which the spec leaves undefined)
/// is skipped.
final class ScatterElements: Operator {
    let dataInputs = [0, 1, 2]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    let indexType: ElementType
    let indexing: ElementIndexing
    let reduction: ScatterReduction
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 3, 3)
        let type = try context.type(ofInput: 0)
        let reduction = try ScatterReduction.resolve(context, type: type, attributes: ["axis"])
        let indexType = try context.requireType(ofInput: 1, in: [.int32, .int64])
        _ = try context.requireType(ofInput: 2, in: [type])
        let data = try context.shape(ofInput: 0), indices = try context.shape(ofInput: 1)
        guard try context.shape(ofInput: 2) == indices else {
            throw context.error(.invalidShape, "updates must have the indices' shape \(indices)")
        }
        return ScatterElements(outputShapes: [data], outputTypes: [type], indexType: indexType,
                               indexing: try ElementIndexing(context, data: data, indices: indices), reduction: reduction)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let type = outputTypes[0], y = UnsafeMutableRawPointer(outputs[0])
        let indices = UnsafeRawPointer(inputs[1]), updates = UnsafeRawPointer(inputs[2])
        y.copyMemory(from: inputs[0], byteCount: outputShapes[0].reduce(1, *) * type.byteSize)
        for k in 0..<indexing.count {
            if let offset = indexing.offset(of: k, index: TensorElements.integer(indices, at: k, indexType)) {
                reduction.apply(y, offset, updates, k, type)
            }
        }
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], indexType: ElementType, indexing: ElementIndexing,
         reduction: ScatterReduction) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.indexType = indexType
        self.indexing = indexing
        self.reduction = reduction
    }
}
