/// ONNX `Compress` (9, 11): the entries of the input along `axis` (negative counts from the end
/// from version 11) whose element of the constant 1-D bool `condition` is true, or, without
/// `axis`, the elements of the flattened input so picked. A condition shorter than that axis
/// leaves the entries past its end out; a longer one is refused. Any element type.
enum Compress {
    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 2)
        try context.checkAttributes(["axis"])
        guard let condition = try context.constant(1, "condition"), condition.type == .bool, condition.shape.count == 1 else {
            throw context.error(.unsupported, "input 1 ('condition') must be a constant 1-D bool tensor")
        }
        let x = try context.shape(ofInput: 0)
        let axis: Int? = context.attribute("axis") == nil ? nil
            : try context.axis(try context.int("axis", default: 0), rank: x.count, attribute: "axis")
        if context.opVersion < 11, let axis = context.attribute("axis")?.i, axis < 0 {
            throw context.error(.unsupported, "a negative axis needs Compress-11", attribute: "axis")
        }
        let input = axis == nil ? [x.reduce(1, *)] : x
        let along = axis ?? 0
        guard condition.elementCount <= input[along] else {
            throw context.error(.invalidShape, "condition has \(condition.elementCount) elements, more than the \(input[along]) it selects from")
        }
        let picked = condition.bytes.indices.filter { condition.bytes[$0] != 0 }
        var sources = input.map { Array(0..<$0) }
        sources[along] = picked
        var output = input
        output[along] = picked.count
        return AxisGather(input: input, outputShape: output, type: try context.type(ofInput: 0), sourceIndices: sources)
    }
}
