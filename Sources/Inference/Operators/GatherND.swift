/// The addressing GatherND and ScatterND share: `indices` (int32 or int64, shape
/// `[b₁…b_B, t₁…, k]`) holds, per batch (its first `batch_dims` dims, equal to data's) and per
/// tuple, k coordinates (negative counts from the end) naming a slice of `data`: its dims from
/// B + k on.
struct TupleIndexing: Sendable {
    let batches: Int, tuplesPerBatch: Int
    /// Elements in one slice, and in one batch of data.
    let sliceSize: Int, batchSize: Int
    /// For each of the k coordinates: data's length and stride on its axis.
    let lengths: [Int], strides: [Int]
    /// indices' dims but the last: the output's (GatherND) or the updates' (ScatterND) leading dims.
    let tupleShape: [Int]
    /// data's dims after the indexed ones: the shape of one slice.
    let sliceShape: [Int]
    var k: Int { lengths.count }
    var tupleCount: Int { batches * tuplesPerBatch }

    init(_ context: NodeContext, data: [Int], indices: [Int], batchDims: Int) throws(ModelError) {
        guard let k = indices.last, k >= 1, batchDims >= 0, batchDims < indices.count, batchDims + k <= data.count,
              Array(indices[..<batchDims]) == Array(data[..<batchDims]) else {
            throw context.error(.invalidShape, "indices of shape \(indices) do not index data of shape \(data) with \(batchDims) batch dims")
        }
        let dataStrides = Shapes.strides(data)
        batches = data[..<batchDims].reduce(1, *)
        tuplesPerBatch = indices[batchDims..<(indices.count - 1)].reduce(1, *)
        sliceSize = data[(batchDims + k)...].reduce(1, *)
        batchSize = data[batchDims...].reduce(1, *)
        lengths = Array(data[batchDims..<(batchDims + k)])
        strides = Array(dataStrides[batchDims..<(batchDims + k)])
        tupleShape = Array(indices.dropLast())
        sliceShape = Array(data[(batchDims + k)...])
    }

    /// The data offset of the slice that tuple `t` (counted over all batches) names, or nil when
    /// a coordinate lies outside [−dim, dim).
    func offset(ofTuple t: Int, _ indices: UnsafeRawPointer, _ type: ElementType) -> Int? {
        var offset = (t / tuplesPerBatch) * batchSize
        for j in 0..<k {
            var index = Int(clamping: TensorElements.integer(indices, at: t * k + j, type))
            if index < 0 { index += lengths[j] }
            guard index >= 0 && index < lengths[j] else { return nil }
            offset += index * strides[j]
        }
        return offset
    }
}

/// ONNX `GatherND` (11, 12, 13): for each tuple of int32 or int64 `indices` (`TupleIndexing`),
/// the slice of `data` it names; `batch_dims` (from version 12, default 0) leading dims pair data
/// and indices. The output shape is indices' dims but the last, then data's dims after the indexed
/// ones. Any element type for `data`.
///
/// A tuple with a coordinate outside [−dim, dim) at run time (which the spec leaves undefined)
/// gives a slice of zeros.
final class GatherND: Operator {
    let dataInputs = [0, 1]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    let indexType: ElementType
    let indexing: TupleIndexing
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 2)
        try context.checkAttributes(context.opVersion >= 12 ? ["batch_dims"] : [])
        let indexType = try context.requireType(ofInput: 1, in: [.int32, .int64])
        let indexing = try TupleIndexing(context, data: try context.shape(ofInput: 0), indices: try context.shape(ofInput: 1),
                                         batchDims: try context.int("batch_dims", default: 0, in: 0...64))
        return GatherND(outputShapes: [indexing.tupleShape + indexing.sliceShape], outputTypes: [try context.type(ofInput: 0)],
                        indexType: indexType, indexing: indexing)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let data = UnsafeRawPointer(inputs[0]), indices = UnsafeRawPointer(inputs[1])
        let bytes = indexing.sliceSize * outputTypes[0].byteSize, size = outputTypes[0].byteSize
        var destination = UnsafeMutableRawPointer(outputs[0])
        for t in 0..<indexing.tupleCount {
            if let offset = indexing.offset(ofTuple: t, indices, indexType) {
                destination.copyMemory(from: data + offset * size, byteCount: bytes)
            } else {
                destination.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
            }
            destination += bytes
        }
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], indexType: ElementType, indexing: TupleIndexing) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.indexType = indexType
        self.indexing = indexing
    }
}
