/// ONNX `QLinearConv` (10): `Conv` of quantized int8 or uint8 x and w, plus an int32 bias,
/// requantized: y = saturate(round_half_even(float32(B[m] + Σ (x − x_zero) · (w − w_zero[m])) · s)
/// + y_zero_point), s = x_scale · w_scale[m] / y_scale in float32, as onnxruntime computes it; the
/// padding adds nothing. x's and y's scales and zero points are scalars, w's scalars or one per
/// output channel; the scales float32 or float16; y has y_zero_point's type. Conv's attributes and
/// geometry (1-D to 3-D). The sums wrap in int32.
final class QLinearConv: Operator {
    let dataInputs: [Int]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    var checksInputTypes: Bool { true }
    let convolution: ConvolutionGeometry
    let xType: ElementType, wType: ElementType
    let xScale: ScaleParameter, wScale: ScaleParameter, yScale: ScaleParameter
    let xZero: ZeroPoint, wZero: ZeroPoint, yZero: ZeroPoint
    let hasBias: Bool

    var multiplyAccumulates: Int { convolution.multiplyAccumulates }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 8, 9)
        try context.checkAttributes(ConvolutionGeometry.attributes)
        let xType = try context.requireType(ofInput: 0, in: [.int8, .uint8])
        let wType = try context.requireType(ofInput: 3, in: [.int8, .uint8])
        let yType = try context.requireType(ofInput: 7, in: [.int8, .uint8])
        let convolution = try ConvolutionGeometry(context, x: 0, w: 3)
        let channels = convolution.outputChannels
        let hasBias = context.hasInput(8)
        if hasBias {
            _ = try context.requireType(ofInput: 8, in: [.int32])
            let b = try context.shape(ofInput: 8)
            guard b == [channels] else { throw context.error(.invalidShape, "bias shape \(b) must be [\(channels)]") }
        }
        func zero(_ input: Int, _ type: ElementType, _ count: Int, _ role: String) throws(ModelError) -> ZeroPoint {
            try ZeroPoint.read(context, input: input, buffer: input, operandType: type, perIndexCount: count, role: role)
        }
        return QLinearConv(dataInputs: hasBias ? Array(0...8) : Array(0...7), outputShapes: [convolution.outputShape],
                           outputTypes: [yType], convolution: convolution, xType: xType, wType: wType,
                           xScale: try ScaleParameter.read(context, input: 1, buffer: 1, perIndexCount: nil, role: "x_scale"),
                           wScale: try ScaleParameter.read(context, input: 4, buffer: 4, perIndexCount: channels, role: "w_scale"),
                           yScale: try ScaleParameter.read(context, input: 6, buffer: 6, perIndexCount: nil, role: "y_scale"),
                           xZero: try zero(2, xType, 1, "x_zero_point"), wZero: try zero(5, wType, channels, "w_zero_point"),
                           yZero: try zero(7, yType, 1, "y_zero_point"), hasBias: hasBias)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let y = UnsafeMutableRawPointer(outputs[0]), type = outputTypes[0], range = Quantization.range(type)
        let inputScale = xScale.value(inputs, 0), outputScale = yScale.value(inputs, 0), outputZero = yZero.value(inputs, 0)
        let bias: UnsafePointer<Int32>? = hasBias ? UnsafeRawPointer(inputs[8]).assumingMemoryBound(to: Int32.self) : nil
        convolution.forEachSum(inputs, x: 0, xType: xType, xZero: xZero, w: 3, wType: wType, wZero: wZero) { m, index, sum in
            let multiplier = inputScale * wScale.value(inputs, m) / outputScale
            let total = sum &+ (bias?[m] ?? 0)
            Quantization.store(Quantization.requantize(total, multiplier: multiplier, zeroPoint: outputZero, range), y, index, type)
        }
    }

    init(dataInputs: [Int], outputShapes: [[Int]], outputTypes: [ElementType], convolution: ConvolutionGeometry,
         xType: ElementType, wType: ElementType, xScale: ScaleParameter, wScale: ScaleParameter, yScale: ScaleParameter,
         xZero: ZeroPoint, wZero: ZeroPoint, yZero: ZeroPoint, hasBias: Bool) {
        self.dataInputs = dataInputs
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.convolution = convolution
        self.xType = xType
        self.wType = wType
        self.xScale = xScale
        self.wScale = wScale
        self.yScale = yScale
        self.xZero = xZero
        self.wZero = wZero
        self.yZero = yZero
        self.hasBias = hasBias
    }
}
