/// ONNX `MaxUnpool` (9, 11): the values of `X` [N, C, D1, ...] put back at the flat positions
/// `I` (int64, X's shape; MaxPool's second output, counted over the whole tensor) of a zero tensor of
/// the unpooled shape `(in − 1)·stride − pad_begin − pad_end + kernel` per spatial axis; with
/// `output_shape` (a constant input) that tensor is the top-left corner of a larger zero output,
/// as onnx.reference places it. An index outside the unpooled tensor is skipped. Float32, double
/// or float16; up to 3 spatial axes.
final class MaxUnpool: Operator {
    var checksInputTypes: Bool { true }

    let dataInputs = [0, 1]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    /// The unpooled shape the indices count in (the output's top-left corner).
    let unpooled: [Int]
    /// Elements of X (and of I).
    let elements: Int

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 3)
        try context.checkAttributes(["kernel_shape", "pads", "strides"])
        let type = try context.requireType(ofInput: 0, in: [.float32, .double, .float16])
        _ = try context.requireType(ofInput: 1, in: [.int64])
        let x = try context.shape(ofInput: 0), d = x.count - 2
        guard (1...3).contains(d) else { throw context.error(.invalidShape, "input 0 ('X') has shape \(x); it must have 1 to 3 spatial axes") }
        guard try context.shape(ofInput: 1) == x else {
            throw context.error(.invalidShape, "input 1 ('I') must have X's shape \(x)")
        }
        guard let kernel = try context.ints("kernel_shape", count: d, in: 1...(1 << 20)) else {
            throw context.error(.malformed, "the attribute is required", attribute: "kernel_shape")
        }
        let strides = try context.ints("strides", count: d, in: 1...(1 << 20)) ?? Array(repeating: 1, count: d)
        let pads = try context.ints("pads", count: 2 * d, in: 0...(1 << 20)) ?? Array(repeating: 0, count: 2 * d)
        var unpooled = Array(x.prefix(2))
        for axis in 0..<d {
            let size = (x[axis + 2] - 1) * strides[axis] - pads[axis] - pads[d + axis] + kernel[axis]
            guard size >= 1 else { throw context.error(.invalidShape, "the unpooled axis \(axis + 2) would have \(size) elements") }
            unpooled.append(size)
        }
        var output = unpooled
        if context.hasInput(2) {
            guard let given = try context.constantIntegers(2, "output_shape"), given.count == x.count,
                  zip(given, unpooled).allSatisfy({ $0 >= Int64($1) && $0 <= Int64(Shapes.maximumElementCount) }) else {
                throw context.error(.invalidValue, "input 2 ('output_shape') must be \(x.count) sizes, each at least the unpooled \(unpooled)")
            }
            output = given.map { Int($0) }
        }
        guard output.reduce(1, *) <= Shapes.maximumElementCount else {
            throw context.error(.invalidShape, "the output \(output) is too large")
        }
        return MaxUnpool(outputShapes: [output], outputTypes: [type], unpooled: unpooled, elements: x.reduce(1, *))
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = UnsafeRawPointer(inputs[0]), indices = UnsafeRawPointer(inputs[1]).assumingMemoryBound(to: Int64.self)
        let y = UnsafeMutableRawPointer(outputs[0]), size = outputTypes[0].byteSize
        y.initializeMemory(as: UInt8.self, repeating: 0, count: outputShapes[0].reduce(1, *) * size)
        let places = unpooled.reduce(1, *)
        for element in 0..<elements {
            let index = indices[element]
            guard index >= 0, index < Int64(places) else { continue }
            (y + outputOffset(ofUnpooled: Int(index)) * size).copyMemory(from: x + element * size, byteCount: size)
        }
    }

    /// The output offset of flat index `index` of the unpooled tensor.
    func outputOffset(ofUnpooled index: Int) -> Int {
        let output = outputShapes[0]
        var rest = index, offset = 0, scale = 1
        for axis in (0..<unpooled.count).reversed() {
            offset += (rest % unpooled[axis]) * scale
            rest /= unpooled[axis]
            scale *= output[axis]
        }
        return offset
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], unpooled: [Int], elements: Int) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.unpooled = unpooled
        self.elements = elements
    }
}
