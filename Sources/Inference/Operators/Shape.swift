/// ONNX `Shape` (1, 13, 15): the input's dims as int64, from version 15 those in
/// [`start`, `end`) (negative values count from the end, both clamped to [0, rank]). Shapes are
/// static, so the value is always a plan-time constant.
final class Shape: Operator {
    let dataInputs: [Int] = []
    let outputShapes: [[Int]]
    let outputTypes: [ElementType] = [.int64]
    let dims: [Int64]
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes(context.opVersion >= 15 ? ["start", "end"] : [])
        let x = try context.shape(ofInput: 0)
        let rank = x.count
        func clamp(_ value: Int) -> Int { min(max(value < 0 ? value + rank : value, 0), rank) }
        let start = clamp(try context.int("start", default: 0))
        let end = clamp(try context.int("end", default: rank))
        let dims = start < end ? x[start..<end].map { Int64($0) } : []
        return Shape(outputShapes: [[dims.count]], dims: dims)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let y = UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: Int64.self)
        for (index, dim) in dims.enumerated() { y[index] = dim }
    }

    init(outputShapes: [[Int]], dims: [Int64]) {
        self.outputShapes = outputShapes
        self.dims = dims
    }
}

/// ONNX `Size` (1, 13): the input's element count as an int64 scalar (a plan-time constant).
final class Size: Operator {
    let dataInputs: [Int] = []
    let outputShapes: [[Int]] = [[]]
    let outputTypes: [ElementType] = [.int64]
    let count: Int64
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes([])
        return Size(count: Int64(try context.shape(ofInput: 0).reduce(1, *)))
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        UnsafeMutableRawPointer(outputs[0]).storeBytes(of: count, as: Int64.self)
    }

    init(count: Int64) {
        self.count = count
    }
}
