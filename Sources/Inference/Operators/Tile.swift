/// ONNX `Tile` (Tile-6/13), any element type: output dimension i is input dimension i times
/// `repeats[i]` (a constant int64 input, each ≥ 0), the input repeated along it.
enum Tile {
    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 2)
        try context.checkAttributes([])
        let x = try context.shape(ofInput: 0)
        let type = try context.requireType(ofInput: 0, in: ElementCopy.anyType)
        guard let repeats = try context.constantIntegers(1, "repeats") else { throw context.error(.malformed, "input 'repeats' is required") }
        guard repeats.count == x.count, repeats.allSatisfy({ $0 >= 0 && $0 <= Int64(Shapes.maximumElementCount) }) else {
            throw context.error(.invalidShape, "'repeats' \(repeats) must hold \(x.count) values ≥ 0")
        }
        let output = zip(x, repeats).map { $0 * Int($1) }
        try AxisGather.checkOutput(output, context)
        return AxisGather(input: x, outputShape: output, type: type,
                          sourceIndices: zip(x, output).map { length, tiled in (0..<tiled).map { $0 % length } })
    }
}
