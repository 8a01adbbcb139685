/// ONNX `ConvInteger` (10): `Conv` of int8 or uint8 x and w after subtracting their zero points,
/// into int32 without bias: y = Σ (x − x_zero_point) · (w − w_zero_point[m]), the padding adding
/// nothing. x_zero_point is a scalar; w_zero_point a scalar or one per output channel; each has
/// its operand's type. Conv's attributes and geometry (1-D to 3-D). The sums wrap in int32.
final class ConvInteger: Operator {
    let dataInputs: [Int]
    let outputShapes: [[Int]]
    var outputTypes: [ElementType] { [.int32] }
    var checksInputTypes: Bool { true }
    let convolution: ConvolutionGeometry
    let xType: ElementType, wType: ElementType
    let xZero: ZeroPoint, wZero: ZeroPoint

    var multiplyAccumulates: Int { convolution.multiplyAccumulates }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 4)
        try context.checkAttributes(ConvolutionGeometry.attributes)
        let xType = try context.requireType(ofInput: 0, in: [.int8, .uint8])
        let wType = try context.requireType(ofInput: 1, in: [.int8, .uint8])
        let convolution = try ConvolutionGeometry(context, x: 0, w: 1)
        var dataInputs = [0, 1]
        let xZero = try ZeroPoint.read(context, input: 2, buffer: dataInputs.count, operandType: xType,
                                                       perIndexCount: 1, role: "x_zero_point")
        if context.hasInput(2) { dataInputs.append(2) }
        let wZero = try ZeroPoint.read(context, input: 3, buffer: dataInputs.count, operandType: wType,
                                                       perIndexCount: convolution.outputChannels, role: "w_zero_point")
        if context.hasInput(3) { dataInputs.append(3) }
        return ConvInteger(dataInputs: dataInputs, outputShapes: [convolution.outputShape], convolution: convolution,
                           xType: xType, wType: wType, xZero: xZero, wZero: wZero)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let y = UnsafeMutableRawPointer(outputs[0])
        convolution.forEachSum(inputs, x: 0, xType: xType, xZero: xZero, w: 1, wType: wType, wZero: wZero) { _, index, sum in
            y.storeBytes(of: sum, toByteOffset: 4 * index, as: Int32.self)
        }
    }

    init(dataInputs: [Int], outputShapes: [[Int]], convolution: ConvolutionGeometry, xType: ElementType,
         wType: ElementType, xZero: ZeroPoint, wZero: ZeroPoint) {
        self.dataInputs = dataInputs
        self.outputShapes = outputShapes
        self.convolution = convolution
        self.xType = xType
        self.wType = wType
        self.xZero = xZero
        self.wZero = wZero
    }
}
