/// ONNX `DynamicQuantizeLinear` (11): a float32 x quantized to uint8 with the scale and zero point
/// of its own range, as onnx defines them and onnxruntime computes them:
/// lo = min(0, min(x)), hi = max(0, max(x)); y_scale = (hi − lo) / 255 (1 when hi = lo, where
/// onnx's formula divides by zero); y_zero_point = round_half_even(clamp(0 − lo / y_scale, 0,
/// 255)); y = saturate(round_half_even(x / y_scale) + y_zero_point). NaN elements are skipped by
/// the range.
final class DynamicQuantizeLinear: Operator {
    let dataInputs = [0]
    let outputShapes: [[Int]]
    var outputTypes: [ElementType] { [.uint8, .float32, .uint8] }
    let count: Int

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1, outputs: 3)
        try context.checkAttributes([])
        let shape = try context.shape(ofInput: 0)
        return DynamicQuantizeLinear(outputShapes: [shape, [], []], count: shape.reduce(1, *))
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = inputs[0]
        var lo: Float = 0, hi: Float = 0
        for i in 0..<count where !x[i].isNaN {
            lo = min(lo, x[i])
            hi = max(hi, x[i])
        }
        let scale: Float = hi == lo ? 1 : (hi - lo) / 255
        let zero = Int32(max(0, min(255, 0 - lo / scale)).rounded(.toNearestOrEven))
        let y = UnsafeMutableRawPointer(outputs[0]), range = Quantization.range(.uint8)
        for i in 0..<count {
            Quantization.store(Quantization.quantize(x[i], scale: scale, zeroPoint: zero, range), y, i, .uint8)
        }
        outputs[1].pointee = scale
        UnsafeMutableRawPointer(outputs[2]).storeBytes(of: UInt8(zero), as: UInt8.self)
    }

    init(outputShapes: [[Int]], count: Int) {
        self.outputShapes = outputShapes
        self.count = count
    }
}
