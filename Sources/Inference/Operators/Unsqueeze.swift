/// A reshape whose output shape the builder fixes: `Unsqueeze`, `Squeeze` and `Flatten`. The
/// elements do not move; any element type.
final class ShapeView: Operator {
    let dataInputs = [0]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    /// Bytes copied.
    let byteCount: Int
    var checksInputTypes: Bool { true }

    init(_ context: NodeContext, shape: [Int]) throws(ModelError) {
        let type = try context.type(ofInput: 0)
        outputShapes = [shape]
        outputTypes = [type]
        byteCount = shape.reduce(1, *) * type.byteSize
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        UnsafeMutableRawPointer(outputs[0]).copyMemory(from: inputs[0], byteCount: byteCount)
    }

    /// The `axes` of Squeeze / Unsqueeze: the attribute before version 13, then the optional
    /// constant input 1.
    static func axes(_ context: NodeContext) throws(ModelError) -> [Int]? {
        if context.opVersion < 13 {
            try context.checkArity(inputs: 1, 1)
            try context.checkAttributes(["axes"])
            return try context.ints("axes")
        }
        try context.checkArity(inputs: 1, 2)
        try context.checkAttributes([])
        return try context.constantIntegers(1, "axes").map { $0.map { Int(clamping: $0) } }
    }
}

/// ONNX `Unsqueeze` (1, 11, 13): inserts a dim of size 1 at each of `axes` (positions in the
/// output; negative count from the end of the output; attribute before 13, input from 13).
enum Unsqueeze {
    static let build: OperatorBuilder = { context throws(ModelError) in
        guard let axes = try ShapeView.axes(context) else { throw context.error(.malformed, "axes are required", attribute: "axes") }
        let x = try context.shape(ofInput: 0)
        let rank = x.count + axes.count
        var inserted = Set<Int>()
        for axis in axes {
            guard inserted.insert(try context.axis(axis, rank: rank, attribute: "axes")).inserted else {
                throw context.error(.invalidShape, "axis \(axis) is given twice", attribute: "axes")
            }
        }
        var remaining = x.makeIterator()
        let shape = (0..<rank).map { inserted.contains($0) ? 1 : remaining.next()! }
        return try ShapeView(context, shape: shape)
    }
}

/// ONNX `Squeeze` (1, 11, 13): removes the dims of size 1 at `axes` (all of them when absent;
/// attribute before 13, input from 13). A listed dim that is not 1 is an error.
enum Squeeze {
    static let build: OperatorBuilder = { context throws(ModelError) in
        let x = try context.shape(ofInput: 0)
        var removed = Set<Int>()
        if let axes = try ShapeView.axes(context) {
            for value in axes {
                let axis = try context.axis(value, rank: x.count, attribute: "axes")
                guard x[axis] == 1 else { throw context.error(.invalidShape, "dim \(axis) of \(x) is not 1", attribute: "axes") }
                removed.insert(axis)
            }
        } else {
            removed = Set(x.indices.filter { x[$0] == 1 })
        }
        return try ShapeView(context, shape: x.indices.filter { !removed.contains($0) }.map { x[$0] })
    }
}

/// ONNX `Flatten` (1, 9, 11, 13): a 2-D view [product of dims before `axis`, product of the
/// rest]; `axis` in [−rank, rank] (negative from version 11).
enum Flatten {
    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes(["axis"])
        let x = try context.shape(ofInput: 0)
        var axis = try context.int("axis", default: 1)
        if axis < 0 { axis += x.count }
        guard axis >= 0, axis <= x.count else {
            throw context.error(.invalidShape, "axis is out of range for rank \(x.count)", attribute: "axis")
        }
        return try ShapeView(context, shape: [x[..<axis].reduce(1, *), x[axis...].reduce(1, *)])
    }
}
