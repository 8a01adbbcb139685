/// ONNX `Pad`.
///
/// - Pad-2 (opsets 7–10): `pads` and `value` attributes; float16, float32 and double data.
/// - Pad-11/13 (any element type): constant `pads` and optional constant `constant_value`
///   (typed like the data) inputs; Pad-18 adds the optional constant `axes` input (negative
///   counts from the end).
/// - `mode`: constant, reflect, edge, and (Pad-19) wrap.
///
/// `pads` is [begin..., end...]. A negative pad crops first (onnxruntime's order): each axis is
/// cut to its kept range, and the positive pads then extend that range by the mode's rule.
/// Reflect needs a kept length of at least 2 and pads below it; edge needs a kept length of 1.
enum Pad {
    static let build: OperatorBuilder = { context throws(ModelError) in
        let legacy = context.opVersion < 11
        let modes = context.opVersion >= 19 ? ["constant", "reflect", "edge", "wrap"] : ["constant", "reflect", "edge"]
        let x = try context.shape(ofInput: 0)
        let type = try context.requireType(ofInput: 0, in: legacy ? [.float32, .float16, .double] : ElementCopy.anyType)
        let rank = x.count
        var pads: [Int]
        var fill: UInt64 = 0
        if legacy {
            try context.checkArity(inputs: 1, 1)
            try context.checkAttributes(["mode", "pads", "value"])
            guard let given = try context.ints("pads", count: 2 * rank) else { throw context.error(.malformed, "is required", attribute: "pads") }
            pads = given
            let value = try context.float("value", default: 0)
            fill = AxisGather.pattern(value, as: type)
        } else {
            try context.checkArity(inputs: 2, context.opVersion >= 18 ? 4 : 3)
            try context.checkAttributes(["mode"])
            guard let given = try context.constantIntegers(1, "pads") else { throw context.error(.malformed, "input 'pads' is required") }
            var axes = Array(0..<rank)
            if let named = try context.constantIntegers(3, "axes") {
                axes = try named.map { (axis: Int64) throws(ModelError) -> Int in try context.axis(Int(clamping: axis), rank: rank) }
                guard Set(axes).count == axes.count else { throw context.error(.invalidShape, "'axes' \(named) repeats an axis") }
            }
            guard given.count == 2 * axes.count else {
                throw context.error(.invalidShape, "'pads' has \(given.count) values for \(axes.count) axes")
            }
            pads = Array(repeating: 0, count: 2 * rank)
            for (i, axis) in axes.enumerated() {
                pads[axis] = Int(clamping: given[i])
                pads[rank + axis] = Int(clamping: given[axes.count + i])
            }
            if let value = try context.constant(2, "constant_value") {
                guard value.type == type, value.elementCount == 1 else {
                    throw context.error(.invalidValue, "input 2 ('constant_value') must be one \(type) value, got \(value.type) \(value.shape)")
                }
                fill = AxisGather.pattern(value.bytes)
            }
        }
        let mode = try context.choice("mode", modes, default: "constant")
        var output = x
        var keptLengths = x, starts = x, befores = x
        for axis in 0..<rank {
            let begin = pads[axis], end = pads[rank + axis]
            // Magnitudes first: a pad of Int.min cannot even be negated.
            guard (-Shapes.maximumElementCount...Shapes.maximumElementCount).contains(begin),
                  (-Shapes.maximumElementCount...Shapes.maximumElementCount).contains(end) else {
                throw context.error(.invalidShape, "pads \(begin), \(end) do not fit axis \(axis) of \(x)", attribute: legacy ? "pads" : nil)
            }
            let first = max(0, -begin), kept = x[axis] - first - max(0, -end)
            let before = max(0, begin), after = max(0, end)
            keptLengths[axis] = kept
            starts[axis] = first
            befores[axis] = before
            guard kept >= 0, let length = Shapes.elementCount([kept + before + after]) else {
                throw context.error(.invalidShape, "pads \(begin), \(end) do not fit axis \(axis) of \(x)", attribute: legacy ? "pads" : nil)
            }
            switch mode {
            case "reflect" where (before > 0 || after > 0) && (kept < 2 || before >= kept || after >= kept):
                throw context.error(.invalidShape,
                                    "reflect pads \(before), \(after) need a kept length above them and at least 2 on axis \(axis) (it is \(kept))")
            case "edge" where (before > 0 || after > 0) && kept == 0, "wrap" where (before > 0 || after > 0) && kept == 0:
                throw context.error(.invalidShape, "\(mode) padding of the empty axis \(axis)")
            default: break
            }
            output[axis] = length
        }
        try AxisGather.checkOutput(output, context)
        var sourceIndices: [[Int]] = []
        for axis in 0..<rank {
            let kept = keptLengths[axis], first = starts[axis], before = befores[axis]
            sourceIndices.append((0..<output[axis]).map { o in
                let i = o - before
                if i >= 0 && i < kept { return first + i }
                switch mode {
                case "edge": return first + min(max(i, 0), kept - 1)
                case "reflect": return first + (i < 0 ? -i : 2 * (kept - 1) - i)
                case "wrap": return first + ((i % kept) + kept) % kept
                default: return -1
                }
            })
        }
        return AxisGather(input: x, outputShape: output, type: type, sourceIndices: sourceIndices, fill: fill)
    }
}
