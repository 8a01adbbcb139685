/// `com.microsoft` `QLinearGlobalAveragePool` (onnxruntime's contrib op): the mean of each
/// channel's plane of a quantized int8 or uint8 tensor, requantized as onnxruntime's x86 kernel
/// computes it: y = saturate(round_half_even(float32(Σx − n · x_zero) · (x_scale / (y_scale · n)))
/// + y_zero) over the n pixels of the plane. `channels_last` 0 reads [N, C, spatial...] and writes
/// [N, C, 1...]; 1 reads [N, spatial..., C] and writes [N, 1..., C]. Inputs: X, x_scale,
/// x_zero_point, y_scale, y_zero_point (scalars; the zero points may be omitted: 0).
final class QLinearGlobalAveragePool: Operator {
    let dataInputs: [Int]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    var checksInputTypes: Bool { true }
    let x: QuantizedScalar, y: QuantizedScalar
    let batch: Int, channels: Int, planeSize: Int
    let channelsLast: Bool

    static let build: OperatorBuilder = { context throws(ModelError) in
        let (type, x, y, dataInputs) = try QuantizedScalar.readOneInput(context)
        try context.checkAttributes(["channels_last"])
        let channelsLast = try context.int("channels_last", default: 0, in: 0...1) == 1
        let shape = try context.shape(ofInput: 0)
        guard shape.count >= 3 else { throw context.error(.invalidShape, "X must have rank ≥ 3, got \(shape)") }
        let channels = channelsLast ? shape[shape.count - 1] : shape[1]
        let spatial = channelsLast ? Array(shape[1..<(shape.count - 1)]) : Array(shape[2...])
        let output = channelsLast ? [shape[0]] + spatial.map { _ in 1 } + [channels] : [shape[0], channels] + spatial.map { _ in 1 }
        return QLinearGlobalAveragePool(dataInputs: dataInputs, outputShapes: [output], outputTypes: [type], x: x, y: y, batch: shape[0],
                                        channels: channels, planeSize: spatial.reduce(1, *), channelsLast: channelsLast)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let type = outputTypes[0], range = Quantization.range(type)
        let source = UnsafeRawPointer(inputs[0]), target = UnsafeMutableRawPointer(outputs[0])
        let zeroX = x.zero.value(inputs, 0), zeroY = y.zero.value(inputs, 0)
        let multiplier = x.scale.value(inputs, 0) / (y.scale.value(inputs, 0) * Float(planeSize))
        for n in 0..<batch {
            for c in 0..<channels {
                var sum: Int32 = 0
                for p in 0..<planeSize {
                    let index = channelsLast ? (n * planeSize + p) * channels + c : (n * channels + c) * planeSize + p
                    sum = sum &+ Quantization.load(source, index, type)
                }
                let biased = sum &- zeroX &* Int32(truncatingIfNeeded: planeSize)
                Quantization.store(Quantization.requantize(biased, multiplier: multiplier, zeroPoint: zeroY, range), target,
                                   n * channels + c, type)
            }
        }
    }

    init(dataInputs: [Int], outputShapes: [[Int]], outputTypes: [ElementType], x: QuantizedScalar, y: QuantizedScalar,
         batch: Int, channels: Int, planeSize: Int, channelsLast: Bool) {
        self.dataInputs = dataInputs
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.x = x
        self.y = y
        self.batch = batch
        self.channels = channels
        self.planeSize = planeSize
        self.channelsLast = channelsLast
    }
}
