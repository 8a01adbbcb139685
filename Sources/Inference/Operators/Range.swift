/// ONNX `Range` (11, 27): `start`, `start + delta`, ... up to `limit` (exclusive), from three
/// constant scalars of one type (float32, double, int16, int32, int64; float16 and bfloat16 as
/// Range-27 allows); the element count `max(ceil((limit − start) / delta), 0)` fixes the output
/// shape, so the inputs must be known at plan time. For float16 and bfloat16 the elements are
/// accumulated in `stash_type`'s precision (FLOAT, the default, or DOUBLE) and each rounded to the
/// type; other types ignore it.
final class Range: Operator {
    let dataInputs: [Int] = []
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    let start: Double, delta: Double
    /// Integer starts and deltas, exact beyond 2^53.
    let integerStart: Int64, integerDelta: Int64
    /// For float16 and bfloat16: whether the sum is kept in double (else float32).
    let stashesDouble: Bool
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 3, 3)
        try context.checkAttributes(["stash_type"])
        let stash = try context.int("stash_type", default: 1)
        let type = try context.requireType(ofInput: 0, in: [.float32, .double, .int16, .int32, .int64, .float16, .bfloat16])
        let narrow = type == .float16 || type == .bfloat16
        guard !narrow || stash == 1 || stash == 11 else {
            throw context.error(.unsupported, "only FLOAT (1) and DOUBLE (11) are supported, got \(stash)", attribute: "stash_type")
        }
        var scalars: [ConstantTensor] = []
        for (index, role) in ["start", "limit", "delta"].enumerated() {
            _ = try context.requireType(ofInput: index, in: [type])
            guard let value = try context.constant(index, role), value.elementCount == 1 else {
                throw context.error(.invalidShape, "input '\(role)' must be a scalar")
            }
            scalars.append(value)
        }
        let values = scalars.map { tensor in tensor.bytes.withUnsafeBytes { TensorElements.double($0.baseAddress!, at: 0, type) } }
        let (start, limit, delta) = (values[0], values[1], values[2])
        guard delta != 0, delta.isFinite, start.isFinite, limit.isFinite else {
            throw context.error(.invalidValue, "delta must be non-zero and the bounds finite")
        }
        let count = max(((limit - start) / delta).rounded(.up), 0)
        guard count <= Double(Shapes.maximumElementCount) else { throw context.error(.invalidShape, "the range has \(count) elements") }
        let integers = type.isInteger ? scalars.map { $0.integers![0] } : [0, 0, 0]
        return Range(outputShapes: [[Int(count)]], outputTypes: [type], start: start, delta: delta,
                     integerStart: integers[0], integerDelta: integers[2], stashesDouble: narrow && stash == 11)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        // Each element is the previous plus delta, in the tensor's own type, as onnxruntime
        // computes it (for floats this differs from start + i·delta in the last bits).
        let y = UnsafeMutableRawPointer(outputs[0]), type = outputTypes[0]
        var integer = integerStart, single = Float(start), double = start
        for i in 0..<outputShapes[0][0] {
            switch type {
            case .float32: y.storeBytes(of: single, toByteOffset: 4 * i, as: Float.self)
            case .double: y.storeBytes(of: double, toByteOffset: 8 * i, as: Double.self)
            case .float16, .bfloat16: TensorElements.setDouble(stashesDouble ? double : Double(single), y, at: i, type)
            default: TensorElements.setInteger(integer, y, at: i, type)
            }
            integer &+= integerDelta
            single += Float(delta)
            double += delta
        }
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], start: Double, delta: Double, integerStart: Int64,
         integerDelta: Int64, stashesDouble: Bool) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.start = start
        self.delta = delta
        self.integerStart = integerStart
        self.integerDelta = integerDelta
        self.stashesDouble = stashesDouble
    }
}
