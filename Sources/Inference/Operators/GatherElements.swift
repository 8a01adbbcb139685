/// The addressing GatherElements and ScatterElements share: element k of `indices` (C order)
/// names, along `axis`, one element of `data`, the other coordinates being its own.
struct ElementIndexing: Sendable {
    /// The indices' shape and the data's strides.
    let indices: [Int], dataStrides: [Int]
    let axis: Int, axisLength: Int
    var count: Int { indices.reduce(1, *) }

    /// Validates ranks, the axis attribute and that every non-axis dim of `indices` fits in
    /// `data`'s.
    init(_ context: NodeContext, data: [Int], indices: [Int]) throws(ModelError) {
        guard !data.isEmpty, indices.count == data.count else {
            throw context.error(.invalidShape, "indices (shape \(indices)) must have the rank of data (shape \(data)), 1 or more")
        }
        let axis = try context.axis(try context.int("axis", default: 0), rank: data.count, attribute: "axis")
        for a in data.indices where a != axis && indices[a] > data[a] {
            throw context.error(.invalidShape, "indices dim \(a) (\(indices[a])) exceeds data's (\(data[a]))")
        }
        self.indices = indices
        dataStrides = Shapes.strides(data)
        self.axis = axis
        axisLength = data[axis]
    }

    /// The data offset of element k of indices, given the index it holds, or nil when that index
    /// lies outside [−axisLength, axisLength).
    func offset(of k: Int, index: Int64) -> Int? {
        var index = Int(clamping: index)
        if index < 0 { index += axisLength }
        guard index >= 0 && index < axisLength else { return nil }
        var rest = k, offset = 0
        for a in stride(from: indices.count - 1, through: 0, by: -1) {
            let coordinate = rest % indices[a]
            rest /= indices[a]
            offset += (a == axis ? index : coordinate) * dataStrides[a]
        }
        return offset
    }
}

/// ONNX `GatherElements` (11, 13): output element k (of the indices' shape) is the element of
/// `data` at k's coordinates with the one along `axis` replaced by int32 or int64 `indices[k]`
/// (negative counts from the end). Any element type for `data`.
///
/// An index outside [−dim, dim) at run time (which the spec leaves undefined) gives a zero.
final class GatherElements: Operator {
    let dataInputs = [0, 1]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    let indexType: ElementType
    let indexing: ElementIndexing
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 2)
        try context.checkAttributes(["axis"])
        let indexType = try context.requireType(ofInput: 1, in: [.int32, .int64])
        let indices = try context.shape(ofInput: 1)
        return GatherElements(outputShapes: [indices], outputTypes: [try context.type(ofInput: 0)], indexType: indexType,
                              indexing: try ElementIndexing(context, data: try context.shape(ofInput: 0), indices: indices))
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let data = UnsafeRawPointer(inputs[0]), indices = UnsafeRawPointer(inputs[1])
        let y = UnsafeMutableRawPointer(outputs[0]), size = outputTypes[0].byteSize
        for k in 0..<indexing.count {
            if let offset = indexing.offset(of: k, index: TensorElements.integer(indices, at: k, indexType)) {
                (y + k * size).copyMemory(from: data + offset * size, byteCount: size)
            } else {
                (y + k * size).initializeMemory(as: UInt8.self, repeating: 0, count: size)
            }
        }
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], indexType: ElementType, indexing: ElementIndexing) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.indexType = indexType
        self.indexing = indexing
    }
}
