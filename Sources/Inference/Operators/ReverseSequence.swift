/// ONNX `ReverseSequence` (version 10): for each batch entry b (along `batch_axis`, default 1),
/// the first `sequence_lens[b]` entries along `time_axis` (default 0) in reverse order, the rest
/// as they are. The two axes are 0 and 1 in either order; `sequence_lens` is an int64 (or int32)
/// tensor of one length per batch entry, read at run time. Any element type for the input.
///
/// A length outside [0, time length] at run time is clamped to it.
final class ReverseSequence: Operator {
    let dataInputs = [0, 1]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    let lengthType: ElementType
    let timeAxis: Int
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 2)
        try context.checkAttributes(["batch_axis", "time_axis"])
        let x = try context.shape(ofInput: 0)
        guard x.count >= 2 else { throw context.error(.invalidShape, "input must have rank 2 or more, not \(x.count)") }
        let timeAxis = try context.int("time_axis", default: 0, in: 0...1)
        guard try context.int("batch_axis", default: 1, in: 0...1) == 1 - timeAxis else {
            throw context.error(.invalidValue, "batch_axis must differ from time_axis", attribute: "batch_axis")
        }
        let lengthType = try context.requireType(ofInput: 1, in: [.int32, .int64])
        guard try context.shape(ofInput: 1) == [x[1 - timeAxis]] else {
            throw context.error(.invalidShape, "sequence_lens must hold one length per batch entry (\(x[1 - timeAxis]))")
        }
        return ReverseSequence(outputShapes: [x], outputTypes: [try context.type(ofInput: 0)], lengthType: lengthType, timeAxis: timeAxis)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = UnsafeRawPointer(inputs[0]), lengths = UnsafeRawPointer(inputs[1]), y = UnsafeMutableRawPointer(outputs[0])
        let shape = outputShapes[0], time = shape[timeAxis], batch = shape[1 - timeAxis]
        let bytes = shape.dropFirst(2).reduce(1, *) * outputTypes[0].byteSize
        let timeStride = timeAxis == 0 ? batch : 1, batchStride = timeAxis == 0 ? 1 : time
        for b in 0..<batch {
            let length = min(max(Int(clamping: TensorElements.integer(lengths, at: b, lengthType)), 0), time)
            for t in 0..<time {
                let source = t < length ? length - 1 - t : t
                (y + (b * batchStride + t * timeStride) * bytes).copyMemory(from: x + (b * batchStride + source * timeStride) * bytes,
                                                                            byteCount: bytes)
            }
        }
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], lengthType: ElementType, timeAxis: Int) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.lengthType = lengthType
        self.timeAxis = timeAxis
    }
}
