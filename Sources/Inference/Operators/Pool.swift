import Foundation

/// Sliding-window pooling over [N, C, W] (1-D, run as a height-1 window) or [N, C, H, W],
/// shared by `AveragePool`, `MaxPool` and `LpPool`.
struct Pool: Operator {
    enum Kind: Sendable, Equatable {
        /// `countIncludesPad`: divide by the window's taps inside the padded input (true) or inside
        /// the input itself (false).
        case average(countIncludesPad: Bool)
        case max
        /// (Σ |x|^p)^(1/p) over the window's taps inside the input.
        case lp(p: Int)
    }

    /// How MaxPool's `Indices` output flattens the input position of each maximum: C order
    /// ((n·C + c)·H + h)·W + w, or with h and w swapped ((n·C + c)·H·W + w·H + h).
    enum IndexOrder: Sendable, Equatable { case rowMajor, columnMajor }

    let kind: Kind
    let dataInputs = [0]
    let outputShapes: [[Int]]
    let planes: Int
    let height: WindowAxis, width: WindowAxis
    /// Set when the node has MaxPool's second (int64) output.
    let indexOrder: IndexOrder?

    var outputTypes: [ElementType] { indexOrder == nil ? [.float32] : [.float32, .int64] }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = inputs[0], y = outputs[0]
        let indices = indexOrder == nil ? nil : UnsafeMutableRawPointer(outputs[1]).assumingMemoryBound(to: Int64.self)
        let (inH, inW, outH, outW) = (height.input, width.input, height.output, width.output)
        for p in 0..<planes {
            let plane = x + p * inH * inW
            let out = y + p * outH * outW
            for oh in 0..<outH {
                let top = oh * height.stride - height.padBegin
                for ow in 0..<outW {
                    let left = ow * width.stride - width.padBegin
                    var maximum = -Float.infinity, sum: Float = 0, inside = 0, argmax = (h: 0, w: 0)
                    for kh in 0..<height.kernel {
                        let ih = top + kh * height.dilation
                        if ih < 0 || ih >= inH { continue }
                        for kw in 0..<width.kernel {
                            let iw = left + kw * width.dilation
                            if iw < 0 || iw >= inW { continue }
                            let value = plane[ih * inW + iw]
                            if value > maximum || inside == 0 { maximum = value; argmax = (ih, iw) }
                            switch kind {
                            case let .lp(p): sum += powf(abs(value), Float(p))
                            default: sum += value
                            }
                            inside += 1
                        }
                    }
                    let o = oh * outW + ow
                    switch kind {
                    case .max:
                        out[o] = maximum
                    case let .lp(p):
                        out[o] = powf(sum, 1 / Float(p))
                    case let .average(countIncludesPad):
                        var divisor = inside
                        if countIncludesPad {
                            // The taps inside the padded extent (onnxruntime's rule).
                            divisor = Self.tapsBefore(height.input + height.padEnd - top, height)
                                * Self.tapsBefore(width.input + width.padEnd - left, width)
                        }
                        out[o] = divisor > 0 ? sum / Float(divisor) : 0
                    }
                    if let indices {
                        indices[p * outH * outW + o] = Int64(p * inH * inW
                            + (indexOrder == .rowMajor ? argmax.h * inW + argmax.w : argmax.w * inH + argmax.h))
                    }
                }
            }
        }
    }

    /// How many of the window's taps lie less than `extent` past its start.
    private static func tapsBefore(_ extent: Int, _ axis: WindowAxis) -> Int {
        Swift.min(axis.kernel, Swift.max(0, Shapes.ceilDivide(extent, axis.dilation)))
    }

    /// Reads the window attributes (`ceil_mode` when `allowsCeilMode`, `dilations` when
    /// `allowsDilations`) for a rank-3 or rank-4 input.
    static func build(_ context: NodeContext, kind: Kind, allowsDilations: Bool, allowsCeilMode: Bool = true,
                      indexOrder: IndexOrder? = nil) throws(ModelError) -> Pool {
        let x = try context.shape(ofInput: 0)
        guard x.count == 3 || x.count == 4 else {
            throw context.error(.unsupported, "only 1-D and 2-D pooling (rank-3 or rank-4 input) is supported, input has rank \(x.count)")
        }
        let ceilMode = allowsCeilMode ? try context.int("ceil_mode", default: 0, in: 0...1) == 1 : false
        let axes = try WindowGeometry.resolvePlanar(context, spatialShape: Array(x[2...]), kernelFromWeights: nil,
                                                    allowsDilations: allowsDilations, ceilMode: ceilMode)
        let output = [x[0], x[1]] + WindowGeometry.spatialOutput(axes, rank: x.count - 2)
        return Pool(kind: kind, outputShapes: indexOrder == nil ? [output] : [output, output],
                    planes: x[0] * x[1], height: axes[0], width: axes[1], indexOrder: indexOrder)
    }
}
