/// ONNX `CenterCropPad` (18): each axis of `axes` (default all, negative from the end) cropped or
/// zero-padded to the length `shape` gives it (a constant int32 / int64 input, one per axis),
/// centred: a crop of d elements drops ⌊d/2⌋ at the start and the rest at the end, a pad of d adds
/// ⌊d/2⌋ zeros at the start and the rest at the end. Any element type; rank ≤ 6.
final class CenterCropPad: Operator {
    var checksInputTypes: Bool { true }

    let dataInputs = [0]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    /// The kept block: output operand 0, input operand 1.
    let loop: StridedLoop
    /// Element offsets of the kept block's first element in the input and the output.
    let inputOffset: Int, outputOffset: Int

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 2)
        try context.checkAttributes(["axes"])
        let type = try context.requireType(ofInput: 0, in: ElementCopy.anyType)
        let x = try context.shape(ofInput: 0), rank = x.count
        guard rank <= StridedLoop.maximumRank else {
            throw context.error(.unsupported, "rank \(rank) is above the supported \(StridedLoop.maximumRank)")
        }
        _ = try context.requireType(ofInput: 1, in: [.int32, .int64])
        guard let lengths = try context.constantIntegers(1, "shape") else { throw context.error(.malformed, "input 1 ('shape') is required") }
        var axes = Array(0..<rank)
        if let given = try context.ints("axes") {
            axes = []
            for axis in given {
                guard axis >= -rank, axis < rank else {
                    throw context.error(.invalidValue, "axis \(axis) is outside rank \(rank)", attribute: "axes")
                }
                let normalized = axis < 0 ? axis + rank : axis
                guard !axes.contains(normalized) else { throw context.error(.invalidValue, "axis \(axis) is repeated", attribute: "axes") }
                axes.append(normalized)
            }
        }
        guard lengths.count == axes.count else {
            throw context.error(.invalidShape, "input 1 ('shape') has \(lengths.count) lengths for \(axes.count) axes")
        }
        var output = x, kept = x, inputStart = [Int](repeating: 0, count: rank), outputStart = inputStart
        for (axis, length) in zip(axes, lengths) {
            guard length >= 0, length <= Int64(Shapes.maximumElementCount) else {
                throw context.error(.invalidValue, "input 1 ('shape') asks for length \(length) on axis \(axis)")
            }
            let target = Int(length), dim = x[axis]
            output[axis] = target
            kept[axis] = min(target, dim)
            if target < dim { inputStart[axis] = (dim - target) / 2 } else { outputStart[axis] = (target - dim) / 2 }
        }
        let inputStrides = Shapes.strides(x), outputStrides = Shapes.strides(output)
        return CenterCropPad(outputShapes: [output], outputTypes: [type],
                             loop: StridedLoop(shape: kept, strides: [outputStrides, inputStrides]),
                             inputOffset: zip(inputStart, inputStrides).map(*).reduce(0, +),
                             outputOffset: zip(outputStart, outputStrides).map(*).reduce(0, +))
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let size = outputTypes[0].byteSize
        let y = UnsafeMutableRawPointer(outputs[0])
        y.initializeMemory(as: UInt8.self, repeating: 0, count: outputShapes[0].reduce(1, *) * size)
        ElementCopy.copy(loop, from: UnsafeRawPointer(inputs[0]) + inputOffset * size, to: y + outputOffset * size, byteSize: size)
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], loop: StridedLoop, inputOffset: Int, outputOffset: Int) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.loop = loop
        self.inputOffset = inputOffset
        self.outputOffset = outputOffset
    }
}
