/// ONNX `SplitToSequence` (11): the input cut along `axis` (negative counts from the end) into
/// a sequence of tensors, computed by a `Split` node (and a `Squeeze` per piece).
///
/// - `split` a scalar: pieces of that length, the last one shorter when the axis does not divide.
/// - `split` 1-D: the pieces' lengths, which must add up to the axis length.
/// - no `split`: pieces of length 1, each squeezed (the axis removed) when `keepdims` is 0.
///
/// `split` must be a constant (or a graph input offered at plan time).
enum SplitToSequence {
    static let build: PlanTimeBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 2)
        try context.checkAttributes(["axis", "keepdims"])
        let x = try context.shape(ofInput: 0)
        let type = try context.type(ofInput: 0)
        guard !x.isEmpty else { throw context.error(.invalidShape, "cannot split a scalar") }
        let axis = try context.axis(try context.int("axis", default: 0), rank: x.count, attribute: "axis")
        let keepsDims = try context.int("keepdims", default: 1, in: 0...1) == 1
        let length = x[axis]
        var lengths: [Int]
        if let split = try context.constant(1, "split") {
            guard split.type == .int32 || split.type == .int64, split.shape.count <= 1, let values = split.integers else {
                throw context.error(.malformed, "input 1 ('split') must be an int32 or int64 scalar or 1-D tensor, got \(split.type) \(split.shape)")
            }
            if split.shape.isEmpty {
                guard values[0] > 0 else { throw context.error(.invalidValue, "input 1 ('split') is \(values[0]); a piece length must be positive") }
                let piece = Int(clamping: values[0])
                lengths = stride(from: 0, to: length, by: piece).map { min(piece, length - $0) }
            } else {
                lengths = values.map { Int(clamping: $0) }
                guard lengths.allSatisfy({ $0 >= 0 }), lengths.reduce(0, +) == length else {
                    throw context.error(.invalidShape, "input 1 ('split') \(lengths) does not add up to axis \(axis) of \(x)")
                }
            }
        } else {
            lengths = Array(repeating: 1, count: length)
        }
        let squeezes = !keepsDims && !context.hasInput(1)
        let elements = lengths.indices.map { context.helperName("element\($0)") }
        var rewrite = PlanTimeRewrite(sequences: [(context.node.outputs[0], PlanTimeSequence(elementType: type, elements: elements))])
        guard !lengths.isEmpty else { return rewrite }
        let pieces = squeezes ? lengths.indices.map { context.helperName("piece\($0)") } : elements
        rewrite.nodes.append((context.tensorNode("Split", inputs: [context.node.inputs[0]], outputs: pieces,
                                                 attributes: [.int("axis", axis), .ints("split", lengths)]), 11))
        if squeezes {
            for (piece, element) in zip(pieces, elements) {
                rewrite.nodes.append((context.tensorNode("Squeeze", inputs: [piece], outputs: [element], attributes: [.ints("axes", [axis])]), 11))
            }
        }
        return rewrite
    }
}
