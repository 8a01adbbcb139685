/// ONNX `QuantizeLinear` (10, 13, 19, 21, 23; 24, 25 and 28 only added types):
/// y = saturate(round_half_even(x / y_scale) + y_zero_point), per tensor, per axis (13) or per
/// block along `axis` (21), the division in float32 (`Quantization`).
///
/// x and y_scale are float32 or float16. y has the zero point's type, else `output_dtype`'s
/// (21), else uint8: int8, uint8, int16, uint16, int4, uint4, int2 or uint2; or float8e4m3fn,
/// float8e4m3fnuz, float8e5m2, float8e5m2fnuz or float4e2m1, where y is x / y_scale + y_zero_point
/// (float32) rounded to the type to nearest even, and `saturate` (float8 only, default 1) says
/// whether what is beyond the largest finite value becomes ±maximum or, with 0, NaN (±infinity
/// for float8e5m2), as `Cast` does; float4e2m1 always saturates. The float6 types are refused by
/// name. `precision` (23) may name float32 only, the type the division uses.
final class QuantizeLinear: Operator {
    let dataInputs: [Int]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    var checksInputTypes: Bool { true }
    let inputType: ElementType, scaleType: ElementType
    let layout: QuantizationLayout
    let hasZeroPoint: Bool
    let count: Int
    let saturate: Bool

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 3)
        var known: Set<String> = []
        if context.opVersion >= 13 { known.insert("axis") }
        if context.opVersion >= 19 { known.insert("saturate") }
        if context.opVersion >= 21 { known.formUnion(["block_size", "output_dtype"]) }
        if context.opVersion >= 23 { known.insert("precision") }
        try context.checkAttributes(known)
        let axis = try context.int("axis", default: 1)
        let saturate = try context.int("saturate", default: 1, in: 0...1) == 1
        let blockSize = try context.int("block_size", default: 0, in: 0...(1 << 30))
        let declared = try context.int("output_dtype", default: 0, in: 0...(1 << 20))
        let precision = try context.int("precision", default: 0, in: 0...(1 << 20))
        guard precision == 0 || precision == Int(ElementType.float32.onnxType.rawValue) else {
            throw context.error(.unsupported, "only FLOAT (1) is supported, got \(precision)", attribute: "precision")
        }
        let inputType = try context.requireType(ofInput: 0, in: [.float32, .float16])
        let scaleType = try context.requireType(ofInput: 1, in: [.float32, .float16])
        let hasZeroPoint = context.hasInput(2)
        var outputType = ElementType.uint8
        if declared != 0 {
            guard let type = ElementType(onnxCode: declared), quantizedTypes.contains(type) else {
                throw context.error(.unsupported, Quantization.unstoredTypeMessage(declared), attribute: "output_dtype")
            }
            outputType = type
        }
        if hasZeroPoint {
            let type = try context.requireType(ofInput: 2, in: quantizedTypes)
            guard declared == 0 || type == outputType else {
                throw context.error(.invalidGraph, "the zero point has type \(type) but output_dtype is \(outputType)", attribute: "output_dtype")
            }
            outputType = type
        }
        let shape = try context.shape(ofInput: 0)
        let layout = try QuantizationLayout(context, axis: axis, blockSize: blockSize, hasZeroPoint: hasZeroPoint, prefix: "y")
        return QuantizeLinear(dataInputs: hasZeroPoint ? [0, 1, 2] : [0, 1], outputShapes: [shape], outputTypes: [outputType],
                              inputType: inputType, scaleType: scaleType, layout: layout, hasZeroPoint: hasZeroPoint,
                              count: shape.reduce(1, *), saturate: saturate)
    }

    /// The types y may have.
    static let quantizedTypes = Quantization.integerTypes.union(Quantization.floatTypes)

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = UnsafeRawPointer(inputs[0]), scale = UnsafeRawPointer(inputs[1]), y = UnsafeMutableRawPointer(outputs[0])
        let zeroPoint: UnsafeRawPointer? = hasZeroPoint ? UnsafeRawPointer(inputs[2]) : nil
        let type = outputTypes[0], range = Quantization.range(type)
        if Quantization.floatTypes.contains(type) {
            let format = NarrowFloat.format(of: type)!
            for i in 0..<count {
                let p = layout.parameterIndex(i)
                let zero = zeroPoint.map { Float(TensorElements.double($0, at: p, type)) } ?? 0
                let value = Quantization.loadFloat(x, i, inputType) / Quantization.loadFloat(scale, p, scaleType) + zero
                y.storeBytes(of: UInt8(truncatingIfNeeded: format.encode(Double(value), saturate: saturate)), toByteOffset: i, as: UInt8.self)
            }
            return
        }
        for i in 0..<count {
            let p = layout.parameterIndex(i)
            let zero = zeroPoint.map { Quantization.load($0, p, type) } ?? 0
            let q = Quantization.quantize(Quantization.loadFloat(x, i, inputType), scale: Quantization.loadFloat(scale, p, scaleType),
                                          zeroPoint: zero, range)
            Quantization.store(q, y, i, type)
        }
    }

    init(dataInputs: [Int], outputShapes: [[Int]], outputTypes: [ElementType], inputType: ElementType,
         scaleType: ElementType, layout: QuantizationLayout, hasZeroPoint: Bool, count: Int, saturate: Bool) {
        self.dataInputs = dataInputs
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.inputType = inputType
        self.scaleType = scaleType
        self.layout = layout
        self.hasZeroPoint = hasZeroPoint
        self.count = count
        self.saturate = saturate
    }
}
