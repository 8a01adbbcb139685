/// ONNX `NonZero` (9, 13): the indices of the nonzero elements of X, one column per element in C
/// order, as int64 `[rank, count]` (a bool's true, a float's nonzero value, NaN included).
///
/// The output's shape depends on X's values, so X must be a plan-time constant (an initializer,
/// a constant computation, or a graph input fixed into the plan); its indices are then computed
/// when the plan is built. A scalar X is refused (numpy, onnx's reference, has no nonzero of a
/// 0-d array).
final class NonZero: Operator {
    let dataInputs: [Int] = []
    let outputShapes: [[Int]]
    let outputTypes: [ElementType] = [.int64]
    let indices: [Int64]
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes([])
        guard let x = try context.constant(0, "X") else { throw context.error(.malformed, "input 0 is required but empty") }
        guard !x.shape.isEmpty else { throw context.error(.invalidShape, "input 0 ('X') is a scalar; NonZero takes a tensor of rank 1 or more") }
        let positions = x.bytes.withUnsafeBytes { raw in
            (0..<x.elementCount).filter { TensorElements.double(raw.baseAddress!, at: $0, x.type) != 0 }
        }
        // Row d holds dimension d's index of every nonzero element.
        var indices = [Int64](repeating: 0, count: x.shape.count * positions.count)
        for (column, position) in positions.enumerated() {
            var rest = position
            for axis in x.shape.indices.reversed() {
                indices[axis * positions.count + column] = Int64(rest % x.shape[axis])
                rest /= x.shape[axis]
            }
        }
        return NonZero(outputShapes: [[x.shape.count, positions.count]], indices: indices)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let y = UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: Int64.self)
        for (index, value) in indices.enumerated() { y[index] = value }
    }

    init(outputShapes: [[Int]], indices: [Int64]) {
        self.outputShapes = outputShapes
        self.indices = indices
    }
}
