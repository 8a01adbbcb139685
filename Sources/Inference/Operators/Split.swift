/// ONNX `Split`, any element type: cuts the input along `axis` (negative counts from the end)
/// into one piece per output.
///
/// - Split-2/11 (opsets 7–12): lengths from the `split` attribute; Split-13: from the optional
///   constant `split` input; without them the axis is cut into equal pieces.
/// - Split-18: or `num_outputs` pieces of ceil(length / num_outputs), the last one shorter.
final class Split: Operator {
    var checksInputTypes: Bool { true }

    let dataInputs = [0]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    /// Product of the dimensions before the axis, and the byte count of one index along it.
    let outer: Int, sliceBytes: Int
    /// The input's axis length and each output's first index and length along it.
    let axisLength: Int, starts: [Int], lengths: [Int]

    static let build: OperatorBuilder = { context throws(ModelError) in
        let version = context.opVersion
        let outputCount = context.node.outputs.count
        guard outputCount >= 1 else { throw context.error(.malformed, "needs at least one output") }
        try context.checkArity(inputs: 1, version >= 13 ? 2 : 1, outputs: outputCount)
        try context.checkAttributes(version >= 18 ? ["axis", "num_outputs"] : version >= 13 ? ["axis"] : ["axis", "split"])
        let x = try context.shape(ofInput: 0)
        let type = try context.requireType(ofInput: 0, in: ElementCopy.anyType)
        guard !x.isEmpty else { throw context.error(.invalidShape, "cannot split a scalar") }
        let axis = try context.axis(try context.int("axis", default: 0), rank: x.count, attribute: "axis")
        let length = x[axis]
        var lengths: [Int]
        let given = version >= 13 ? try context.constantIntegers(1, "split").map { $0.map { Int(clamping: $0) } } : try context.ints("split")
        let pieces = version >= 18 ? try context.int("num_outputs", default: 0, in: 1...(1 << 20)) : 0
        if let given {
            guard pieces == 0 else { throw context.error(.malformed, "cannot be combined with the 'split' input", attribute: "num_outputs") }
            lengths = given
        } else if pieces > 0 {
            guard pieces == outputCount else {
                throw context.error(.invalidShape, "\(pieces) disagrees with the node's \(outputCount) outputs", attribute: "num_outputs")
            }
            let piece = Shapes.ceilDivide(length, pieces)
            lengths = Array(repeating: piece, count: pieces - 1) + [length - piece * (pieces - 1)]
        } else {
            guard length % outputCount == 0 else {
                throw context.error(.invalidShape, "axis \(axis) of \(x) cannot be split into \(outputCount) equal pieces")
            }
            lengths = Array(repeating: length / outputCount, count: outputCount)
        }
        guard lengths.count == outputCount, lengths.allSatisfy({ $0 >= 0 && $0 <= length }), lengths.reduce(0, +) == length else {
            throw context.error(.invalidShape, "lengths \(lengths) do not split axis \(axis) of \(x) into \(outputCount) pieces",
                                attribute: version < 13 ? "split" : nil)
        }
        var starts: [Int] = [], running = 0
        for piece in lengths { starts.append(running); running += piece }
        return Split(outputShapes: lengths.map { var shape = x; shape[axis] = $0; return shape },
                     outputTypes: Array(repeating: type, count: outputCount),
                     outer: x[..<axis].reduce(1, *), sliceBytes: x[(axis + 1)...].reduce(1, *) * type.byteSize,
                     axisLength: length, starts: starts, lengths: lengths)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = UnsafeRawPointer(inputs[0])
        for (k, output) in outputs.enumerated() {
            let y = UnsafeMutableRawPointer(output), run = lengths[k] * sliceBytes
            for o in 0..<outer {
                (y + o * run).copyMemory(from: x + (o * axisLength + starts[k]) * sliceBytes, byteCount: run)
            }
        }
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], outer: Int, sliceBytes: Int, axisLength: Int, starts: [Int],
         lengths: [Int]) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.outer = outer
        self.sliceBytes = sliceBytes
        self.axisLength = axisLength
        self.starts = starts
        self.lengths = lengths
    }
}
