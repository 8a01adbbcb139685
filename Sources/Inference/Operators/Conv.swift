/// ONNX `Conv` (Conv-1 and Conv-11, the same semantics; opsets 7–21): 2-D convolution of an NCHW input
/// with weights `[M, C/group, kH, kW]` and an optional bias `[M]`; any kernel size, stride,
/// dilation, explicit or automatic padding, and grouping (group = C is depthwise). 1-D
/// ([N, C, W], weights [M, C/group, kW]) and 3-D ([N, C, D, H, W], weights [M, C/group, kD, kH,
/// kW]) convolutions run through the same kernel, with the unit axis for the missing ones.
final class Conv: Operator {
    let dataInputs: [Int]
    let outputShapes: [[Int]]
    let batch: Int, inputChannels: Int, outputChannels: Int, group: Int
    /// The spatial axes; a 1-D or 2-D convolution has the unit depth (and a 1-D one the unit height).
    let depth: WindowAxis, height: WindowAxis, width: WindowAxis
    let hasBias: Bool

    var multiplyAccumulates: Int {
        batch * outputChannels * depth.output * height.output * width.output * (inputChannels / group)
            * depth.kernel * height.kernel * width.kernel
    }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 3)
        try context.checkAttributes(ConvolutionGeometry.attributes)
        let geometry = try ConvolutionGeometry(context, x: 0, w: 1)
        let hasBias = context.hasInput(2)
        if hasBias {
            let b = try context.shape(ofInput: 2)
            guard b == [geometry.outputChannels] else {
                throw context.error(.invalidShape, "bias shape \(b) must be [\(geometry.outputChannels)]")
            }
        }
        return Conv(dataInputs: hasBias ? [0, 1, 2] : [0, 1], outputShapes: [geometry.outputShape],
                    batch: geometry.batch, inputChannels: geometry.inputChannels, outputChannels: geometry.outputChannels,
                    group: geometry.group, depth: geometry.depth, height: geometry.height, width: geometry.width,
                    hasBias: hasBias)
    }

    /// The definition, output pixel by output pixel:
    /// y[n, m, od, oh, ow] = B[m] + Σ_c Σ_kd Σ_kh Σ_kw x[n, g·C/group + c, od·sD − padFront + kd·dD,
    /// oh·sH − padTop + kh·dH, ow·sW − padLeft + kw·dW] · W[m, c, kd, kh, kw]
    /// summed in Double (so the reference is more accurate than any float kernel it checks), over
    /// the taps that land inside the input (the others read padding, i.e. zero).
    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = inputs[0], weights = inputs[1], y = outputs[0]
        let bias: UnsafePointer<Float>? = hasBias ? inputs[2] : nil
        let (inD, inH, inW) = (depth.input, height.input, width.input)
        let (kD, kH, kW) = (depth.kernel, height.kernel, width.kernel)
        let channelsPerGroup = inputChannels / group, outputsPerGroup = outputChannels / group
        let inPlane = inD * inH * inW, outPlane = depth.output * height.output * width.output
        let kernelSize = kD * kH * kW  // weights between consecutive input channels of one output channel
        /// The kernel indices along `axis` whose input index start + k·dilation lies in the input.
        func taps(_ axis: WindowAxis, start: Int) -> Swift.Range<Int> {
            let first = max(0, Shapes.ceilDivide(-start, axis.dilation))
            return first..<max(first, min(axis.kernel, Shapes.floorDivide(axis.input - 1 - start, axis.dilation) + 1))
        }

        for n in 0..<batch {
            for m in 0..<outputChannels {
                var out = y + (n * outputChannels + m) * outPlane
                let firstInput = x + (n * inputChannels + (m / outputsPerGroup) * channelsPerGroup) * inPlane
                let kernel = weights + m * channelsPerGroup * kernelSize
                let initial = Double(bias?[m] ?? 0)
                forEachWindowStart(depth, height, width) { front, top, left in
                    var sum = initial
                    for kd in taps(depth, start: front) {
                        for kh in taps(height, start: top) {
                            for kw in taps(width, start: left) {
                                // The tap's input pixel in channel 0 of the group, and its weight for channel 0.
                                let pixel = firstInput + ((front + kd * depth.dilation) * inH + top + kh * height.dilation) * inW
                                    + left + kw * width.dilation
                                let tap = kernel + (kd * kH + kh) * kW + kw
                                for c in 0..<channelsPerGroup {
                                    sum += Double(tap[c * kernelSize]) * Double(pixel[c * inPlane])
                                }
                            }
                        }
                    }
                    out.pointee = Float(sum)
                    out += 1
                }
            }
        }
    }

    init(dataInputs: [Int], outputShapes: [[Int]], batch: Int, inputChannels: Int, outputChannels: Int, group: Int,
         depth: WindowAxis, height: WindowAxis, width: WindowAxis, hasBias: Bool) {
        self.dataInputs = dataInputs
        self.outputShapes = outputShapes
        self.batch = batch
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        self.group = group
        self.depth = depth
        self.height = height
        self.width = width
        self.hasBias = hasBias
    }
}
