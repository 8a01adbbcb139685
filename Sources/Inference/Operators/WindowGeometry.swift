/// The geometry of a sliding window (convolution or pooling) along one spatial axis.
struct WindowAxis: Sendable, Equatable {
    var input: Int
    var kernel: Int
    var stride: Int
    var dilation: Int
    var padBegin: Int
    var padEnd: Int
    var output: Int

    /// The window's extent with dilation: (kernel − 1)·dilation + 1.
    var effectiveKernel: Int { (kernel - 1) * dilation + 1 }

    /// An axis of length 1 with kernel 1 and no padding: the depth (and height) of a 2-D (1-D)
    /// window run as a 3-D one.
    static let unit = WindowAxis(input: 1, kernel: 1, stride: 1, dilation: 1, padBegin: 0, padEnd: 0, output: 1)
}

/// The padding rules shared by Conv, AveragePool and MaxPool (ONNX `auto_pad`, `pads`,
/// `ceil_mode`), in one place.
enum WindowGeometry {
    static let autoPadChoices = ["NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"]

    /// Reads `kernel_shape` (or uses `kernelFromWeights`), `strides`, `dilations`, `pads` and
    /// `auto_pad`, and computes each spatial axis.
    ///
    /// - SAME_UPPER / SAME_LOWER: output = ceil(input / stride); the total padding
    ///   max(0, (output − 1)·stride + effectiveKernel − input) is split with the extra pixel at the
    ///   end (UPPER) or the beginning (LOWER).
    /// - NOTSET: explicit `pads` [begin..., end...]; VALID: no padding.
    /// - output = floor((input + pads − effectiveKernel) / stride) + 1, or ceil when `ceilMode`,
    ///   dropping a last window that would start in the end padding.
    static func resolve(_ context: NodeContext, spatialShape: [Int], kernelFromWeights: [Int]?,
                        allowsDilations: Bool = true, ceilMode: Bool = false) throws(ModelError) -> [WindowAxis] {
        let rank = spatialShape.count
        let limit = 1 << 16
        let kernel: [Int]
        if let declared = try context.ints("kernel_shape", count: rank, in: 1...limit) {
            if let kernelFromWeights, declared != kernelFromWeights {
                throw context.error(.invalidShape, "\(declared) disagrees with the weights' kernel \(kernelFromWeights)", attribute: "kernel_shape")
            }
            kernel = declared
        } else if let kernelFromWeights {
            guard kernelFromWeights.allSatisfy({ (1...limit).contains($0) }) else {
                throw context.error(.invalidShape, "the weights' kernel \(kernelFromWeights) must be between 1 and \(limit) per axis")
            }
            kernel = kernelFromWeights
        } else {
            throw context.error(.malformed, "is required", attribute: "kernel_shape")
        }
        let strides = try context.ints("strides", count: rank, in: 1...limit) ?? Array(repeating: 1, count: rank)
        let dilations = allowsDilations ? try context.ints("dilations", count: rank, in: 1...limit) ?? Array(repeating: 1, count: rank)
                                        : Array(repeating: 1, count: rank)
        let autoPad = try context.choice("auto_pad", autoPadChoices, default: "NOTSET")
        let explicitPads = try context.ints("pads", count: 2 * rank, in: 0...limit)
        if explicitPads != nil && autoPad != "NOTSET" && explicitPads!.contains(where: { $0 != 0 }) {
            throw context.error(.malformed, "pads cannot be combined with auto_pad \(autoPad)", attribute: "pads")
        }
        var axes: [WindowAxis] = []
        for i in 0..<rank {
            var axis = WindowAxis(input: spatialShape[i], kernel: kernel[i], stride: strides[i], dilation: dilations[i],
                                  padBegin: 0, padEnd: 0, output: 0)
            switch autoPad {
            case "SAME_UPPER", "SAME_LOWER":
                axis.output = Shapes.ceilDivide(axis.input, axis.stride)
                let total = max(0, (axis.output - 1) * axis.stride + axis.effectiveKernel - axis.input)
                axis.padBegin = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2
                axis.padEnd = total - axis.padBegin
            default:
                if autoPad == "NOTSET", let explicitPads {
                    axis.padBegin = explicitPads[i]
                    axis.padEnd = explicitPads[i + rank]
                }
                let span = axis.input + axis.padBegin + axis.padEnd - axis.effectiveKernel
                guard span >= 0 else {
                    throw context.error(.invalidShape, "the window (\(axis.effectiveKernel)) is larger than the padded input (\(axis.input + axis.padBegin + axis.padEnd)) on spatial axis \(i)")
                }
                if ceilMode {
                    axis.output = Shapes.ceilDivide(span, axis.stride) + 1
                    // A window may not start inside the end padding (PyTorch / onnxruntime rule).
                    if (axis.output - 1) * axis.stride >= axis.input + axis.padBegin { axis.output -= 1 }
                } else {
                    axis.output = span / axis.stride + 1
                }
            }
            axes.append(axis)
        }
        return axes
    }

    /// `resolve` for one to three spatial axes, as (depth, height, width): the missing leading
    /// axes are the unit axis, so a 1-D or 2-D window runs as a 3-D one.
    static func resolveSpatial(_ context: NodeContext, spatialShape: [Int], kernelFromWeights: [Int]?,
                               allowsDilations: Bool = true, ceilMode: Bool = false) throws(ModelError) -> [WindowAxis] {
        let axes = try resolve(context, spatialShape: spatialShape, kernelFromWeights: kernelFromWeights,
                               allowsDilations: allowsDilations, ceilMode: ceilMode)
        return Array(repeating: .unit, count: 3 - axes.count) + axes
    }

    /// The output's spatial dimensions for `rank` (1 to 3) spatial axes of `resolveSpatial`'s axes.
    static func spatialOutput(_ axes: [WindowAxis], rank: Int) -> [Int] { axes.suffix(rank).map { $0.output } }
}
