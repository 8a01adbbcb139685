/// ONNX `CumSum` (versions 11 and 14): running sums of x along the constant `axis` input (a
/// scalar or one-element int32/int64 tensor, negative counts from the end); `exclusive` = 1 leaves
/// each element out of its own sum, `reverse` = 1 sums from the end. Float32 sums in Double;
/// int32, uint32, int64 and uint64 wrap as the type does.
struct CumSum: Operator {
    let type: ElementType
    let dataInputs = [0]
    let outputShapes: [[Int]]
    var outputTypes: [ElementType] { [type] }
    static var checksInputTypes: Bool { true }
    let outer: Int, length: Int, inner: Int
    let exclusive: Bool, reverse: Bool

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 2)
        try context.checkAttributes(["exclusive", "reverse"])
        let type = try context.requireType(ofInput: 0, in: [.float32, .int32, .uint32, .int64, .uint64])
        let x = try context.shape(ofInput: 0)
        guard let axes = try context.constantIntegers(1, "axis"), axes.count == 1 else {
            throw context.error(.invalidShape, "input 1 ('axis') must hold one integer")
        }
        let axis = try context.axis(Int(clamping: axes[0]), rank: x.count)
        return CumSum(type: type, outputShapes: [x],
                      outer: x[..<axis].reduce(1, *), length: x[axis], inner: x[(axis + 1)...].reduce(1, *),
                      exclusive: try context.int("exclusive", default: 0, in: 0...1) == 1,
                      reverse: try context.int("reverse", default: 0, in: 0...1) == 1)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        if type == .float32 {
            let x = inputs[0], y = outputs[0]
            scan(0.0, read: { Double(x[$0]) }, write: { y[$0] = Float($1) }, add: +)
        } else {
            let x = UnsafeRawPointer(inputs[0]), y = UnsafeMutableRawPointer(outputs[0]), type = self.type
            scan(Int64(0), read: { TensorElements.integer(x, at: $0, type) }, write: { TensorElements.setInteger($1, y, at: $0, type) },
                 add: { $0 &+ $1 })
        }
    }

    /// Walks each line along the axis in the requested direction, writing the running sum before
    /// (exclusive) or after (inclusive) adding each element.
    private func scan<Value>(_ zero: Value, read: (Int) -> Value, write: (Int, Value) -> Void, add: (Value, Value) -> Value) {
        for o in 0..<outer {
            for i in 0..<inner {
                var sum = zero
                for step in 0..<length {
                    let index = o * length * inner + (reverse ? length - 1 - step : step) * inner + i
                    let value = read(index)
                    if exclusive { write(index, sum) }
                    sum = add(sum, value)
                    if !exclusive { write(index, sum) }
                }
            }
        }
    }
}
