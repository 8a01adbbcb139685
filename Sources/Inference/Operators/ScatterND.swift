/// ONNX `ScatterND` (11, 13, 16, 18): a copy of `data` where, for each tuple of int32 or int64
/// `indices` (`TupleIndexing`, no batch dims), the matching slice of `updates` (shape: indices'
/// dims but the last, then data's dims after the indexed ones) lands on the slice of data the
/// tuple names, combined element by element per `reduction` (`ScatterReduction`). Any element
/// type for `reduction` none, numeric types for the others.
///
/// A tuple with a coordinate outside [−dim, dim) at run time (which the spec leaves undefined)
/// is skipped.
final class ScatterND: Operator {
    let dataInputs = [0, 1, 2]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    let indexType: ElementType
    let indexing: TupleIndexing
    let reduction: ScatterReduction
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 3, 3)
        let type = try context.type(ofInput: 0)
        let reduction = try ScatterReduction.resolve(context, type: type, attributes: [])
        let indexType = try context.requireType(ofInput: 1, in: [.int32, .int64])
        _ = try context.requireType(ofInput: 2, in: [type])
        let data = try context.shape(ofInput: 0)
        let indexing = try TupleIndexing(context, data: data, indices: try context.shape(ofInput: 1), batchDims: 0)
        let updates = indexing.tupleShape + indexing.sliceShape
        guard try context.shape(ofInput: 2) == updates else { throw context.error(.invalidShape, "updates must have shape \(updates)") }
        return ScatterND(outputShapes: [data], outputTypes: [type], indexType: indexType, indexing: indexing, reduction: reduction)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let type = outputTypes[0], y = UnsafeMutableRawPointer(outputs[0])
        let indices = UnsafeRawPointer(inputs[1]), updates = UnsafeRawPointer(inputs[2])
        y.copyMemory(from: inputs[0], byteCount: outputShapes[0].reduce(1, *) * type.byteSize)
        let slice = indexing.sliceSize
        for t in 0..<indexing.tupleCount {
            guard let offset = indexing.offset(ofTuple: t, indices, indexType) else { continue }
            for e in 0..<slice { reduction.apply(y, offset + e, updates, t * slice + e, type) }
        }
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], indexType: ElementType, indexing: TupleIndexing,
         reduction: ScatterReduction) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.indexType = indexType
        self.indexing = indexing
        self.reduction = reduction
    }
}
