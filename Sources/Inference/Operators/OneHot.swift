/// ONNX `OneHot` (9, 11): for each element of `indices` (any numeric type, floats truncated toward
/// zero), a line of `depth` elements along the new axis `axis` (default −1, counted in the
/// output's rank) holding `values[1]` at the index and `values[0]` elsewhere. `depth` must be a
/// constant (a scalar or one-element tensor of any numeric type); `values` is a two-element tensor
/// of any type, which is the output's. From version 11 a negative index counts from the end.
///
/// An index outside the range (negative ones before version 11) gives a line of `values[0]`.
final class OneHot: Operator {
    let dataInputs = [0, 2]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    let indexType: ElementType
    /// Product of the indices' dims before the new axis, the depth, product of those after.
    let outer: Int, depth: Int, inner: Int
    let negativeCountsFromEnd: Bool
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 3, 3)
        try context.checkAttributes(["axis"])
        let indexType = try context.type(ofInput: 0)
        guard indexType != .bool else { throw context.error(.unsupported, "indices must be numeric, not bool") }
        guard let depthTensor = try context.constant(1, "depth"), depthTensor.elementCount == 1, depthTensor.type != .bool else {
            throw context.error(.invalidShape, "input 1 ('depth') must hold one number")
        }
        let depthValue = depthTensor.bytes.withUnsafeBytes { TensorElements.double($0.baseAddress!, at: 0, depthTensor.type) }
        guard depthValue >= 1, depthValue < Double(1 << 31) else {
            throw context.error(.invalidValue, "depth must be at least 1, not \(depthValue)")
        }
        let depth = Int(depthValue)
        guard try context.shape(ofInput: 2).reduce(1, *) == 2 else { throw context.error(.invalidShape, "values must hold two elements") }
        let indices = try context.shape(ofInput: 0)
        let axis = try context.axis(try context.int("axis", default: -1), rank: indices.count + 1, attribute: "axis")
        return OneHot(outputShapes: [Array(indices[..<axis]) + [depth] + Array(indices[axis...])],
                      outputTypes: [try context.type(ofInput: 2)], indexType: indexType,
                      outer: indices[..<axis].reduce(1, *), depth: depth, inner: indices[axis...].reduce(1, *),
                      negativeCountsFromEnd: context.opVersion >= 11)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let indices = UnsafeRawPointer(inputs[0]), values = UnsafeRawPointer(inputs[1])
        let y = UnsafeMutableRawPointer(outputs[0]), size = outputTypes[0].byteSize
        for o in 0..<outer {
            for i in 0..<inner {
                var index = Int(clamping: TensorElements.integer(indices, at: o * inner + i, indexType))
                if index < 0 && negativeCountsFromEnd { index += depth }
                for d in 0..<depth {
                    let value = d == index ? values + size : values
                    (y + ((o * depth + d) * inner + i) * size).copyMemory(from: value, byteCount: size)
                }
            }
        }
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], indexType: ElementType, outer: Int, depth: Int, inner: Int,
         negativeCountsFromEnd: Bool) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.indexType = indexType
        self.outer = outer
        self.depth = depth
        self.inner = inner
        self.negativeCountsFromEnd = negativeCountsFromEnd
    }
}
