/// 2-D sliding-window pooling over NCHW, shared by `AveragePool` and `MaxPool`.
struct Pool: Operator {
    enum Kind: Sendable, Equatable {
        /// `countIncludesPad`: divide by the window clipped to the padded input (true) or to the
        /// input itself (false).
        case average(countIncludesPad: Bool)
        case max
    }

    let kind: Kind
    let dataInputs = [0]
    let outputShapes: [[Int]]
    let planes: Int
    let height: WindowAxis, width: WindowAxis

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = inputs[0], y = outputs[0]
        let (inH, inW, outH, outW) = (height.input, width.input, height.output, width.output)
        for p in 0..<planes {
            let plane = x + p * inH * inW
            let out = y + p * outH * outW
            for oh in 0..<outH {
                let top = oh * height.stride - height.padBegin
                for ow in 0..<outW {
                    let left = ow * width.stride - width.padBegin
                    var maximum = -Float.infinity, sum: Float = 0, inside = 0
                    for kh in 0..<height.kernel {
                        let ih = top + kh * height.dilation
                        if ih < 0 || ih >= inH { continue }
                        for kw in 0..<width.kernel {
                            let iw = left + kw * width.dilation
                            if iw < 0 || iw >= inW { continue }
                            let value = plane[ih * inW + iw]
                            maximum = Swift.max(maximum, value)
                            sum += value
                            inside += 1
                        }
                    }
                    switch kind {
                    case .max:
                        out[oh * outW + ow] = maximum
                    case let .average(countIncludesPad):
                        var divisor = inside
                        if countIncludesPad {
                            // The window clipped to the padded extent (onnxruntime's rule).
                            let bottom = Swift.min(top + height.effectiveKernel, inH + height.padEnd)
                            let right = Swift.min(left + width.effectiveKernel, inW + width.padEnd)
                            divisor = (bottom - top) * (right - left)
                        }
                        out[oh * outW + ow] = divisor > 0 ? sum / Float(divisor) : 0
                    }
                }
            }
        }
    }

    static func build(_ context: NodeContext, kind: Kind, allowsDilations: Bool) throws(ModelError) -> Pool {
        let x = try context.shape(ofInput: 0)
        guard x.count == 4 else { throw context.error(.unsupported, "only 2-D pooling (4-D input) is supported, input has rank \(x.count)") }
        let ceilMode = try context.int("ceil_mode", default: 0, in: 0...1) == 1
        let axes = try WindowGeometry.resolve(context, spatialShape: [x[2], x[3]], kernelFromWeights: nil,
                                              allowsDilations: allowsDilations, ceilMode: ceilMode)
        return Pool(kind: kind, outputShapes: [[x[0], x[1], axes[0].output, axes[1].output]],
                    planes: x[0] * x[1], height: axes[0], width: axes[1])
    }
}
