/// The running sums (CumSum) or products (CumProd) of x along the constant `axis` input (a scalar
/// or one-element int32/int64 tensor, negative counts from the end); `exclusive` = 1 leaves each
/// element out of its own result (which starts at 0 for sums, 1 for products), `reverse` = 1
/// scans from the end. Float32 and double accumulate in Double; int32, uint32, int64 and uint64
/// wrap as the type does.
final class CumulativeScan: Operator {
    enum Combination: Sendable {
        case sum, product
    }

    let type: ElementType
    let combination: Combination
    let dataInputs = [0]
    let outputShapes: [[Int]]
    var outputTypes: [ElementType] { [type] }
    var checksInputTypes: Bool { true }
    let outer: Int, length: Int, inner: Int
    let exclusive: Bool, reverse: Bool

    static func builder(_ combination: Combination) -> OperatorBuilder {
        { context throws(ModelError) in
            try context.checkArity(inputs: 2, 2)
            try context.checkAttributes(["exclusive", "reverse"])
            let type = try context.requireType(ofInput: 0, in: [.float32, .double, .int32, .uint32, .int64, .uint64])
            let x = try context.shape(ofInput: 0)
            guard let axes = try context.constantIntegers(1, "axis"), axes.count == 1 else {
                throw context.error(.invalidShape, "input 1 ('axis') must hold one integer")
            }
            let axis = try context.axis(Int(clamping: axes[0]), rank: x.count)
            return CumulativeScan(type: type, combination: combination, outputShapes: [x],
                                  outer: x[..<axis].reduce(1, *), length: x[axis], inner: x[(axis + 1)...].reduce(1, *),
                                  exclusive: try context.int("exclusive", default: 0, in: 0...1) == 1,
                                  reverse: try context.int("reverse", default: 0, in: 0...1) == 1)
        }
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let isSum = combination == .sum
        if type == .float32 {
            let x = inputs[0], y = outputs[0]
            scan(isSum ? 0.0 : 1.0, read: { Double(x[$0]) }, write: { y[$0] = Float($1) }, combine: isSum ? (+) : (*))
        } else if type == .double {
            let x = UnsafeRawPointer(inputs[0]).assumingMemoryBound(to: Double.self)
            let y = UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: Double.self)
            scan(isSum ? 0.0 : 1.0, read: { x[$0] }, write: { y[$0] = $1 }, combine: isSum ? (+) : (*))
        } else {
            let x = UnsafeRawPointer(inputs[0]), y = UnsafeMutableRawPointer(outputs[0]), type = self.type
            scan(Int64(isSum ? 0 : 1), read: { TensorElements.integer(x, at: $0, type) },
                 write: { TensorElements.setInteger($1, y, at: $0, type) }, combine: isSum ? { $0 &+ $1 } : { $0 &* $1 })
        }
    }

    /// Walks each line along the axis in the requested direction, writing the running result
    /// before (exclusive) or after (inclusive) combining each element into it.
    private func scan<Value>(_ identity: Value, read: (Int) -> Value, write: (Int, Value) -> Void,
                             combine: (Value, Value) -> Value) {
        for o in 0..<outer {
            for i in 0..<inner {
                var running = identity
                for step in 0..<length {
                    let index = o * length * inner + (reverse ? length - 1 - step : step) * inner + i
                    let value = read(index)
                    if exclusive { write(index, running) }
                    running = combine(running, value)
                    if !exclusive { write(index, running) }
                }
            }
        }
    }

    init(type: ElementType, combination: Combination, outputShapes: [[Int]], outer: Int, length: Int, inner: Int,
         exclusive: Bool, reverse: Bool) {
        self.type = type
        self.combination = combination
        self.outputShapes = outputShapes
        self.outer = outer
        self.length = length
        self.inner = inner
        self.exclusive = exclusive
        self.reverse = reverse
    }
}

/// ONNX `CumSum` (versions 11 and 14): `CumulativeScan` summing.
enum CumSum { static let build = CumulativeScan.builder(.sum) }

/// ONNX `CumProd` (version 26): `CumulativeScan` multiplying.
enum CumProd { static let build = CumulativeScan.builder(.product) }
