/// ONNX `DequantizeLinear` (10, 13, 19, 21, 23; 24, 25 and 28 only added types):
/// y = float32(x − x_zero_point) · x_scale, per tensor, per axis (13) or per block along `axis`
/// (21).
///
/// x is int8, uint8, int16, uint16, int4, uint4, int2, uint2 or int32 (int32 without a zero point,
/// as onnx requires), or float8e4m3fn, float8e4m3fnuz, float8e5m2, float8e5m2fnuz or float4e2m1
/// (x − x_zero_point computed in float32; onnx's reference ignores a float zero point, which ONNX
/// requires to be 0, so both agree); float6 inputs are not stored by the engine, so a model
/// holding them is refused where they are read. x_scale is float32 or float16; y has the scale's
/// type, or `output_dtype`'s (23: FLOAT or FLOAT16). A float16 initializer is float32 once the
/// engine has read it, so its y is float32.
final class DequantizeLinear: Operator {
    let dataInputs: [Int]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    var checksInputTypes: Bool { true }
    let inputType: ElementType, scaleType: ElementType
    let layout: QuantizationLayout
    let hasZeroPoint: Bool
    let count: Int

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 3)
        var known: Set<String> = []
        if context.opVersion >= 13 { known.insert("axis") }
        if context.opVersion >= 21 { known.insert("block_size") }
        if context.opVersion >= 23 { known.insert("output_dtype") }
        try context.checkAttributes(known)
        let axis = try context.int("axis", default: 1)
        let blockSize = try context.int("block_size", default: 0, in: 0...(1 << 30))
        let declared = try context.int("output_dtype", default: 0, in: 0...(1 << 20))
        let inputType = try context.requireType(ofInput: 0, in: Quantization.integerTypes.union(Quantization.floatTypes).union([.int32]))
        let scaleType = try context.requireType(ofInput: 1, in: [.float32, .float16])
        var outputType = scaleType
        if declared != 0 {
            guard let type = ElementType(onnxCode: declared), type == .float32 || type == .float16 else {
                throw context.error(.unsupported, "output type \(declared) is not supported (supported: FLOAT, FLOAT16)", attribute: "output_dtype")
            }
            outputType = type
        }
        let hasZeroPoint = context.hasInput(2)
        if hasZeroPoint {
            let type = try context.type(ofInput: 2)
            guard type == inputType else {
                throw context.error(.invalidGraph, "x has type \(inputType) but x_zero_point \(type); they must agree")
            }
            if inputType == .int32, let zero = try? context.constantIntegers(2, "x_zero_point"), zero.contains(where: { $0 != 0 }) {
                throw context.error(.invalidValue, "an int32 x takes no zero point but 0")
            }
        }
        let shape = try context.shape(ofInput: 0)
        let layout = try QuantizationLayout(context, axis: axis, blockSize: blockSize, hasZeroPoint: hasZeroPoint, prefix: "x")
        return DequantizeLinear(dataInputs: hasZeroPoint ? [0, 1, 2] : [0, 1], outputShapes: [shape], outputTypes: [outputType],
                                inputType: inputType, scaleType: scaleType, layout: layout, hasZeroPoint: hasZeroPoint,
                                count: shape.reduce(1, *))
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = UnsafeRawPointer(inputs[0]), scale = UnsafeRawPointer(inputs[1]), y = UnsafeMutableRawPointer(outputs[0])
        let zeroPoint: UnsafeRawPointer? = hasZeroPoint ? UnsafeRawPointer(inputs[2]) : nil
        let outputType = outputTypes[0]
        if Quantization.floatTypes.contains(inputType) {
            for i in 0..<count {
                let p = layout.parameterIndex(i)
                let zero = zeroPoint.map { Float(TensorElements.double($0, at: p, inputType)) } ?? 0
                let value = (Float(TensorElements.double(x, at: i, inputType)) - zero) * Quantization.loadFloat(scale, p, scaleType)
                Quantization.storeFloat(value, y, i, outputType)
            }
            return
        }
        for i in 0..<count {
            let p = layout.parameterIndex(i)
            let zero = zeroPoint.map { Quantization.load($0, p, inputType) } ?? 0
            let value = Float(Quantization.load(x, i, inputType) &- zero) * Quantization.loadFloat(scale, p, scaleType)
            Quantization.storeFloat(value, y, i, outputType)
        }
    }

    init(dataInputs: [Int], outputShapes: [[Int]], outputTypes: [ElementType], inputType: ElementType,
         scaleType: ElementType, layout: QuantizationLayout, hasZeroPoint: Bool, count: Int) {
        self.dataInputs = dataInputs
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.inputType = inputType
        self.scaleType = scaleType
        self.layout = layout
        self.hasZeroPoint = hasZeroPoint
        self.count = count
    }
}
