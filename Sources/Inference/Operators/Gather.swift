/// ONNX `Gather` (1, 11, 13): entries of `data` along `axis` picked by int32 or int64 `indices`
/// (negative counts from the end); the output shape is data's dims before the axis, then the
/// indices' dims, then data's dims after the axis. Any element type for `data`.
///
/// An index outside [−dim, dim) at run time (which the spec leaves undefined) gives zeros.
final class Gather: Operator {
    let dataInputs = [0, 1]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    let indexType: ElementType
    /// What `run` walks: the product of data's dims before the axis, the axis length, the bytes
    /// of one entry along it, and the number of indices.
    let outer: Int, axisLength: Int, entryBytes: Int, indexCount: Int
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 2)
        try context.checkAttributes(["axis"])
        let data = try context.shape(ofInput: 0), indices = try context.shape(ofInput: 1)
        let indexType = try context.requireType(ofInput: 1, in: [.int32, .int64])
        guard !data.isEmpty else { throw context.error(.invalidShape, "data must have rank 1 or more") }
        let axis = try context.axis(try context.int("axis", default: 0), rank: data.count, attribute: "axis")
        let type = try context.type(ofInput: 0)
        return Gather(outputShapes: [Array(data[..<axis]) + indices + Array(data[(axis + 1)...])], outputTypes: [type],
                      indexType: indexType, outer: data[..<axis].reduce(1, *), axisLength: data[axis],
                      entryBytes: data[(axis + 1)...].reduce(1, *) * type.byteSize, indexCount: indices.reduce(1, *))
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let data = UnsafeRawPointer(inputs[0]), indices = UnsafeRawPointer(inputs[1])
        var destination = UnsafeMutableRawPointer(outputs[0])
        for o in 0..<outer {
            let block = data + o * axisLength * entryBytes
            for k in 0..<indexCount {
                var index = Int(TensorElements.integer(indices, at: k, indexType))
                if index < 0 { index += axisLength }
                if index >= 0 && index < axisLength {
                    destination.copyMemory(from: block + index * entryBytes, byteCount: entryBytes)
                } else {
                    destination.initializeMemory(as: UInt8.self, repeating: 0, count: entryBytes)
                }
                destination += entryBytes
            }
        }
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], indexType: ElementType, outer: Int, axisLength: Int,
         entryBytes: Int, indexCount: Int) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.indexType = indexType
        self.outer = outer
        self.axisLength = axisLength
        self.entryBytes = entryBytes
        self.indexCount = indexCount
    }
}
