/// `com.microsoft` `QLinearConcat` (onnxruntime's contrib op): `Concat` of quantized int8 or uint8
/// tensors along `axis` (required), each requantized to the output's scale and zero point:
/// y = saturate(round_half_even(x_scale · (x − x_zero) / y_scale) + y_zero), which copies an input
/// whose scale and zero point are the output's. Inputs: Y_scale, Y_zero_point, then per tensor
/// X, X_scale, X_zero_point (scalars).
final class QLinearConcat: Operator {
    let dataInputs: [Int]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    var checksInputTypes: Bool { true }
    /// The size of each input along the axis, the product of the dimensions before it and after it.
    let sizes: [Int]
    let outer: Int, inner: Int
    let yScale: ScaleParameter, yZero: ZeroPoint
    let xScales: [ScaleParameter], xZeros: [ZeroPoint]

    static let build: OperatorBuilder = { context throws(ModelError) in
        let count = context.node.inputs.count
        guard count >= 5, (count - 2) % 3 == 0 else {
            throw context.error(.malformed, "expected Y_scale, Y_zero_point and one or more (X, X_scale, X_zero_point) triples, got \(count) inputs")
        }
        try context.checkArity(inputs: count, count)
        try context.checkAttributes(["axis"])
        guard context.attribute("axis") != nil else { throw context.error(.malformed, "attribute is required", attribute: "axis") }
        let type = try context.requireType(ofInput: 2, in: [.int8, .uint8])
        let yScale = try ScaleParameter.read(context, input: 0, buffer: 0, perIndexCount: nil, role: "Y_scale")
        let yZero = try ZeroPoint.read(context, input: 1, buffer: 1, operandType: type, perIndexCount: 1, role: "Y_zero_point")
        var xScales: [ScaleParameter] = [], xZeros: [ZeroPoint] = []
        let first = try context.shape(ofInput: 2)
        let axis = try context.axis(try context.int("axis", default: 0), rank: first.count, attribute: "axis")
        var sizes: [Int] = []
        for start in stride(from: 2, to: count, by: 3) {
            guard try context.type(ofInput: start) == type else {
                throw context.error(.invalidGraph, "input \(start) has type \(try context.type(ofInput: start)), input 2 \(type); they must agree")
            }
            xScales.append(try ScaleParameter.read(context, input: start + 1, buffer: start + 1, perIndexCount: nil, role: "X_scale"))
            xZeros.append(try ZeroPoint.read(context, input: start + 2, buffer: start + 2, operandType: type, perIndexCount: 1,
                                                             role: "X_zero_point"))
            let shape = try context.shape(ofInput: start)
            guard shape.count == first.count, zip(shape, first).enumerated().allSatisfy({ $0.offset == axis || $0.element.0 == $0.element.1 }) else {
                throw context.error(.invalidShape, "input \(start) has shape \(shape), input 2 \(first): they may differ only on axis \(axis)")
            }
            sizes.append(shape[axis])
        }
        var output = first
        output[axis] = sizes.reduce(0, +)
        return QLinearConcat(dataInputs: Array(0..<count), outputShapes: [output], outputTypes: [type], sizes: sizes,
                             outer: first[..<axis].reduce(1, *), inner: first[(axis + 1)...].reduce(1, *),
                             yScale: yScale, yZero: yZero, xScales: xScales, xZeros: xZeros)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let type = outputTypes[0], range = Quantization.range(type)
        let target = UnsafeMutableRawPointer(outputs[0])
        let scaleY = yScale.value(inputs, 0), zeroY = yZero.value(inputs, 0)
        let total = sizes.reduce(0, +)
        var offset = 0
        for (k, size) in sizes.enumerated() {
            let source = UnsafeRawPointer(inputs[2 + 3 * k])
            let scaleX = xScales[k].value(inputs, 0), zeroX = xZeros[k].value(inputs, 0)
            let run = size * inner
            for o in 0..<outer {
                for i in 0..<run {
                    let value = scaleX * Float(Quantization.load(source, o * run + i, type) - zeroX)
                    Quantization.store(Quantization.quantize(value, scale: scaleY, zeroPoint: zeroY, range), target,
                                       (o * total + offset) * inner + i, type)
                }
            }
            offset += size
        }
    }

    init(dataInputs: [Int], outputShapes: [[Int]], outputTypes: [ElementType], sizes: [Int], outer: Int, inner: Int,
         yScale: ScaleParameter, yZero: ZeroPoint, xScales: [ScaleParameter], xZeros: [ZeroPoint]) {
        self.dataInputs = dataInputs
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.sizes = sizes
        self.outer = outer
        self.inner = inner
        self.yScale = yScale
        self.yZero = yZero
        self.xScales = xScales
        self.xZeros = xZeros
    }
}
