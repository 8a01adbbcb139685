/// `com.microsoft` `QLinearAveragePool` (onnxruntime's contrib op): AveragePool of a quantized
/// int8 or uint8 tensor, computed as onnxruntime's CPU kernel computes it, so the bytes agree:
/// each element dequantized to float32(x − x_zero) · x_scale, the window's float32 sum in order
/// (depth, then rows, then columns), divided by the count, and quantized as
/// saturate(round_half_even(y / y_scale + float32(y_zero))) (the zero point added in float32
/// before rounding, as onnxruntime does). The count is the kernel's size with
/// `count_include_pad` (whatever part of the window lies past the padded input) and the taps
/// inside the input otherwise. A window that covers a whole unpadded plane is onnxruntime's
/// global average instead, on the integer sums (`QLinearGlobalAveragePool`'s arithmetic).
///
/// Attributes: `kernel_shape`, `strides`, `pads`, `auto_pad`, `ceil_mode`, `count_include_pad`,
/// `channels_last` (0: [N, C, spatial...], 1: [N, spatial..., C]); 1-D to 3-D windows, no
/// dilations (the schema has none). Inputs: X, x_scale, x_zero_point, y_scale, y_zero_point
/// (scalars; the zero points may be omitted: 0).
final class QLinearAveragePool: Operator {
    let dataInputs: [Int]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    var checksInputTypes: Bool { true }
    let x: QuantizedScalar, y: QuantizedScalar
    let batch: Int, channels: Int
    let depth: WindowAxis, height: WindowAxis, width: WindowAxis
    let countIncludesPad: Bool, channelsLast: Bool

    static let build: OperatorBuilder = { context throws(ModelError) in
        let (type, x, y, dataInputs) = try QuantizedScalar.readOneInput(context)
        try context.checkAttributes(["auto_pad", "ceil_mode", "channels_last", "count_include_pad", "kernel_shape", "pads", "strides"])
        let channelsLast = try context.int("channels_last", default: 0, in: 0...1) == 1
        let countIncludesPad = try context.int("count_include_pad", default: 0, in: 0...1) == 1
        let ceilMode = try context.int("ceil_mode", default: 0, in: 0...1) == 1
        let shape = try context.shape(ofInput: 0)
        guard (3...5).contains(shape.count) else {
            throw context.error(.unsupported, "only 1-D, 2-D and 3-D pooling (rank 3 to 5 input) is supported, input has rank \(shape.count)")
        }
        let channels = channelsLast ? shape[shape.count - 1] : shape[1]
        let spatial = channelsLast ? Array(shape[1..<(shape.count - 1)]) : Array(shape[2...])
        let axes = try WindowGeometry.resolveSpatial(context, spatialShape: spatial, kernelFromWeights: nil, allowsDilations: false,
                                                     ceilMode: ceilMode)
        let pooled = WindowGeometry.spatialOutput(axes, rank: spatial.count)
        let output = channelsLast ? [shape[0]] + pooled + [channels] : [shape[0], channels] + pooled
        let global = zip(axes.suffix(spatial.count), spatial).allSatisfy { axis, length in
            axis.kernel == length && axis.padBegin == 0 && axis.padEnd == 0
        }
        if global {
            // onnxruntime's fallback: a window over each whole plane is its global average pool.
            return QLinearGlobalAveragePool(dataInputs: dataInputs, outputShapes: [output], outputTypes: [type], x: x, y: y,
                                            batch: shape[0], channels: channels, planeSize: spatial.reduce(1, *), channelsLast: channelsLast)
        }
        return QLinearAveragePool(dataInputs: dataInputs, outputShapes: [output], outputTypes: [type], x: x, y: y,
                                  batch: shape[0], channels: channels, depth: axes[0], height: axes[1], width: axes[2],
                                  countIncludesPad: countIncludesPad, channelsLast: channelsLast)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let type = outputTypes[0], range = Quantization.range(type)
        let source = UnsafeRawPointer(inputs[0]), target = UnsafeMutableRawPointer(outputs[0])
        let scaleX = x.scale.value(inputs, 0), zeroX = x.zero.value(inputs, 0)
        let scaleY = y.scale.value(inputs, 0), zeroY = Float(y.zero.value(inputs, 0))
        let (inD, inH, inW) = (depth.input, height.input, width.input)
        let (outD, outH, outW) = (depth.output, height.output, width.output)
        let inPlane = inD * inH * inW, outPlane = outD * outH * outW
        let kernelSize = depth.kernel * height.kernel * width.kernel
        // Element `pixel` of plane `c` of image `n`, in either layout.
        @inline(__always) func index(_ n: Int, _ c: Int, _ pixel: Int, plane: Int) -> Int {
            channelsLast ? (n * plane + pixel) * channels + c : (n * channels + c) * plane + pixel
        }
        @inline(__always) func window(_ axis: WindowAxis, _ o: Int) -> Swift.Range<Int> {
            let start = o * axis.stride - axis.padBegin
            return max(start, 0)..<min(start + axis.kernel, axis.input)
        }
        for n in 0..<batch {
            for c in 0..<channels {
                for od in 0..<outD {
                    let ds = window(depth, od)
                    for oh in 0..<outH {
                        let hs = window(height, oh)
                        for ow in 0..<outW {
                            let ws = window(width, ow)
                            var sum: Float = 0
                            for d in ds {
                                for h in hs {
                                    for w in ws {
                                        let value = Quantization.load(source, index(n, c, (d * inH + h) * inW + w, plane: inPlane), type)
                                        sum += Float(value &- zeroX) * scaleX
                                    }
                                }
                            }
                            let count = countIncludesPad ? kernelSize : ds.count * hs.count * ws.count
                            let average = sum / Float(count)
                            let rounded = (average / scaleY + zeroY).rounded(.toNearestOrEven)
                            // Held within the type's range before the conversion (NaN to the lower bound).
                            let value = rounded < Float(range.upperBound) ? (rounded > Float(range.lowerBound) ? Int32(rounded) : range.lowerBound)
                                : range.upperBound
                            Quantization.store(value, target, index(n, c, (od * outH + oh) * outW + ow, plane: outPlane), type)
                        }
                    }
                }
            }
        }
    }

    init(dataInputs: [Int], outputShapes: [[Int]], outputTypes: [ElementType], x: QuantizedScalar, y: QuantizedScalar,
         batch: Int, channels: Int, depth: WindowAxis, height: WindowAxis, width: WindowAxis, countIncludesPad: Bool,
         channelsLast: Bool) {
        self.dataInputs = dataInputs
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.x = x
        self.y = y
        self.batch = batch
        self.channels = channels
        self.depth = depth
        self.height = height
        self.width = width
        self.countIncludesPad = countIncludesPad
        self.channelsLast = channelsLast
    }
}
