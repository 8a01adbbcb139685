/// ONNX `Slice`: `starts`, `ends` and optional `axes` as attributes (Slice-1, opsets 7–9), or as
/// constant inputs with optional `steps` (10, 11, 13). Negative starts/ends count from the end;
/// they are clamped to [0, dim] for positive steps and [−1, dim − 1] for negative steps. Any
/// element type.
final class Slice: Operator {
    let dataInputs = [0]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    let loop: StridedLoop
    let start: Int
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        let starts: [Int64], ends: [Int64], axes: [Int64], steps: [Int64]
        if context.opVersion < 10 {
            try context.checkArity(inputs: 1, 1)
            try context.checkAttributes(["starts", "ends", "axes"])
            // Any Int64: PyTorch writes `x[:, k:]` as ends = INT64_MAX, and the bounds are clamped below.
            guard let first = try context.ints("starts", in: Int.min...Int.max), let last = try context.ints("ends", in: Int.min...Int.max) else {
                throw context.error(.malformed, "attributes 'starts' and 'ends' are required")
            }
            starts = first.map { Int64($0) }
            ends = last.map { Int64($0) }
            axes = try context.ints("axes").map { $0.map { Int64($0) } } ?? (0..<Int64(starts.count)).map { $0 }
            steps = Array(repeating: 1, count: starts.count)
        } else {
            try context.checkArity(inputs: 3, 5)
            try context.checkAttributes([])
            guard let first = try context.constantIntegers(1, "starts"), let last = try context.constantIntegers(2, "ends") else {
                throw context.error(.malformed, "inputs 'starts' and 'ends' are required")
            }
            starts = first
            ends = last
            axes = try context.constantIntegers(3, "axes") ?? (0..<Int64(starts.count)).map { $0 }
            steps = try context.constantIntegers(4, "steps") ?? Array(repeating: 1, count: starts.count)
        }
        let x = try context.shape(ofInput: 0)
        guard x.count <= StridedLoop.maximumRank else { throw context.error(.unsupported, "rank \(x.count) is above 6") }
        guard ends.count == starts.count, axes.count == starts.count, steps.count == starts.count else {
            throw context.error(.invalidShape, "starts, ends, axes and steps must have the same length")
        }
        var begin = Array(repeating: 0, count: x.count)
        var step = Array(repeating: 1, count: x.count)
        var output = x
        var seen = Set<Int>()
        for i in starts.indices {
            let axis = try context.axis(Int(clamping: axes[i]), rank: x.count)
            guard seen.insert(axis).inserted else { throw context.error(.invalidShape, "axis \(axis) is sliced twice") }
            guard steps[i] != 0, (-Int64(Shapes.maximumElementCount)...Int64(Shapes.maximumElementCount)).contains(steps[i]) else {
                throw context.error(.invalidValue, "step \(steps[i]) must be non-zero and at most 2^31")
            }
            let dim = Int64(x[axis]), s = steps[i]
            func resolve(_ value: Int64) -> Int64 {
                let shifted = value < 0 ? (value < -dim ? -1 - dim : value) + dim : value
                return s > 0 ? min(max(shifted, 0), dim) : min(max(shifted, -1), dim - 1)
            }
            let first = resolve(starts[i]), last = resolve(ends[i])
            let count = s > 0 ? max(0, (last - first + s - 1) / s) : max(0, (first - last + (-s) - 1) / (-s))
            begin[axis] = Int(first)
            step[axis] = Int(s)
            output[axis] = Int(count)
        }
        let strides = Shapes.strides(x)
        let start = output.contains(0) ? 0 : zip(begin, strides).reduce(0) { $0 + $1.0 * $1.1 }
        return Slice(outputShapes: [output], outputTypes: [try context.type(ofInput: 0)],
                     loop: StridedLoop(shape: output, strides: [Shapes.strides(output), zip(step, strides).map { $0 * $1 }]),
                     start: start)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let size = outputTypes[0].byteSize
        ElementCopy.copy(loop, from: UnsafeRawPointer(inputs[0]) + start * size, to: UnsafeMutableRawPointer(outputs[0]), byteSize: size)
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], loop: StridedLoop, start: Int) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.loop = loop
        self.start = start
    }
}
