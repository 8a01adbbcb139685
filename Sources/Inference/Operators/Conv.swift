/// ONNX `Conv` (Conv-1 and Conv-11, the same semantics; opsets 7–21): 2-D convolution of an NCHW input
/// with weights `[M, C/group, kH, kW]` and an optional bias `[M]`; any kernel size, stride,
/// dilation, explicit or automatic padding, and grouping (group = C is depthwise). A 1-D
/// convolution ([N, C, W] with weights [M, C/group, kW]) runs as a 2-D one of height 1.
struct Conv: Operator {
    let dataInputs: [Int]
    let outputShapes: [[Int]]
    let batch: Int, inputChannels: Int, outputChannels: Int, group: Int
    let height: WindowAxis, width: WindowAxis
    let hasBias: Bool

    var multiplyAccumulates: Int {
        batch * outputChannels * height.output * width.output * (inputChannels / group) * height.kernel * width.kernel
    }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 3)
        try context.checkAttributes(["auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"])
        let x = try context.shape(ofInput: 0), w = try context.shape(ofInput: 1)
        guard x.count == 3 || x.count == 4 else {
            throw context.error(.unsupported, "only 1-D and 2-D convolution (rank-3 or rank-4 input) is supported, input has rank \(x.count)")
        }
        guard w.count == x.count else { throw context.error(.invalidShape, "weights must have rank \(x.count), got \(w)") }
        let group = try context.int("group", default: 1, in: 1...(1 << 20))
        guard x[1] % group == 0, w[0] % group == 0, w[1] * group == x[1] else {
            throw context.error(.invalidShape, "input channels \(x[1]), weights \(w) and group \(group) disagree", attribute: "group")
        }
        let hasBias = context.hasInput(2)
        if hasBias {
            let b = try context.shape(ofInput: 2)
            guard b == [w[0]] else { throw context.error(.invalidShape, "bias shape \(b) must be [\(w[0])]") }
        }
        let axes = try WindowGeometry.resolvePlanar(context, spatialShape: Array(x[2...]), kernelFromWeights: Array(w[2...]))
        return Conv(dataInputs: hasBias ? [0, 1, 2] : [0, 1],
                    outputShapes: [[x[0], w[0]] + WindowGeometry.spatialOutput(axes, rank: x.count - 2)],
                    batch: x[0], inputChannels: x[1], outputChannels: w[0], group: group,
                    height: axes[0], width: axes[1], hasBias: hasBias)
    }

    /// The definition, output pixel by output pixel:
    /// y[n, m, oh, ow] = B[m] + Σ_c Σ_kh Σ_kw x[n, g·C/group + c, oh·sH − padTop + kh·dH, ow·sW − padLeft + kw·dW] · W[m, c, kh, kw]
    /// summed in Double (so the reference is more accurate than any float kernel it checks), over
    /// the taps that land inside the input (the others read padding, i.e. zero).
    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = inputs[0], weights = inputs[1], y = outputs[0]
        let bias: UnsafePointer<Float>? = hasBias ? inputs[2] : nil
        let (inH, inW, outH, outW) = (height.input, width.input, height.output, width.output)
        let (kH, kW) = (height.kernel, width.kernel)
        let (strideH, strideW, dilationH, dilationW) = (height.stride, width.stride, height.dilation, width.dilation)
        let channelsPerGroup = inputChannels / group, outputsPerGroup = outputChannels / group
        let inPlane = inH * inW, outPlane = outH * outW
        let kernelSize = kH * kW  // weights between consecutive input channels of one output channel

        for n in 0..<batch {
            for m in 0..<outputChannels {
                let out = y + (n * outputChannels + m) * outPlane
                let firstInput = x + (n * inputChannels + (m / outputsPerGroup) * channelsPerGroup) * inPlane
                let kernel = weights + m * channelsPerGroup * kernelSize
                let initial = Double(bias?[m] ?? 0)
                for oh in 0..<outH {
                    let top = oh * strideH - height.padBegin
                    // Kernel rows whose input row top + kh·dH lies in 0..<inH.
                    let firstRow = max(0, Shapes.ceilDivide(-top, dilationH))
                    let endRow = min(kH, Shapes.floorDivide(inH - 1 - top, dilationH) + 1)
                    for ow in 0..<outW {
                        let left = ow * strideW - width.padBegin
                        let firstColumn = max(0, Shapes.ceilDivide(-left, dilationW))
                        let endColumn = min(kW, Shapes.floorDivide(inW - 1 - left, dilationW) + 1)
                        var sum = initial
                        for kh in firstRow..<max(firstRow, endRow) {
                            for kw in firstColumn..<max(firstColumn, endColumn) {
                                // The tap's input pixel in channel 0 of the group, and its weight for channel 0.
                                let pixel = firstInput + (top + kh * dilationH) * inW + left + kw * dilationW
                                let tap = kernel + kh * kW + kw
                                for c in 0..<channelsPerGroup {
                                    sum += Double(tap[c * kernelSize]) * Double(pixel[c * inPlane])
                                }
                            }
                        }
                        out[oh * outW + ow] = Float(sum)
                    }
                }
            }
        }
    }
}
