/// ONNX `ConvTranspose` (semantics of ConvTranspose-11, unchanged through opset 18): the
/// gradient of a 2-D convolution. Input NCHW, weights `[C, M/group, kH, kW]`, optional bias
/// `[M]`; `strides`, `dilations`, explicit `pads`, `output_padding` and `group`.
///
/// Output size per axis: stride·(in − 1) + output_padding + (k − 1)·dilation + 1 − padBegin − padEnd.
/// `output_shape` and `auto_pad` SAME_* are not supported (rejected by name).
struct ConvTranspose: Operator {
    let dataInputs: [Int]
    let outputShapes: [[Int]]
    let batch: Int, inputChannels: Int, outputChannels: Int, group: Int
    let inH: Int, inW: Int, outH: Int, outW: Int
    let kH: Int, kW: Int, strideH: Int, strideW: Int, dilationH: Int, dilationW: Int, padTop: Int, padLeft: Int
    let hasBias: Bool

    var multiplyAccumulates: Int { batch * inputChannels * inH * inW * (outputChannels / group) * kH * kW }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 3)
        try context.checkAttributes(["auto_pad", "dilations", "group", "kernel_shape", "output_padding", "pads", "strides"])
        let x = try context.shape(ofInput: 0), w = try context.shape(ofInput: 1)
        guard x.count == 4 else { throw context.error(.unsupported, "only 2-D transposed convolution (4-D input) is supported") }
        guard w.count == 4 else { throw context.error(.invalidShape, "weights must have rank 4, got \(w)") }
        guard (1...(1 << 16)).contains(w[2]), (1...(1 << 16)).contains(w[3]) else {
            throw context.error(.invalidShape, "the weights' kernel \([w[2], w[3]]) must be between 1 and 65536 per axis")
        }
        let group = try context.int("group", default: 1, in: 1...(1 << 20))
        guard x[1] % group == 0, w[0] == x[1] else {
            throw context.error(.invalidShape, "input channels \(x[1]), weights \(w) and group \(group) disagree", attribute: "group")
        }
        let outputChannels = w[1] * group
        let autoPad = try context.choice("auto_pad", ["NOTSET", "VALID"], default: "NOTSET")
        let limit = 1 << 16
        if let kernel = try context.ints("kernel_shape", count: 2, in: 1...limit), kernel != [w[2], w[3]] {
            throw context.error(.invalidShape, "\(kernel) disagrees with the weights' kernel \([w[2], w[3]])", attribute: "kernel_shape")
        }
        let strides = try context.ints("strides", count: 2, in: 1...limit) ?? [1, 1]
        let dilations = try context.ints("dilations", count: 2, in: 1...limit) ?? [1, 1]
        let pads = autoPad == "VALID" ? [0, 0, 0, 0] : try context.ints("pads", count: 4, in: 0...limit) ?? [0, 0, 0, 0]
        let outputPadding = try context.ints("output_padding", count: 2, in: 0...limit) ?? [0, 0]
        for i in 0..<2 where outputPadding[i] >= max(strides[i], dilations[i]) {
            throw context.error(.invalidShape, "must be smaller than the stride or dilation", attribute: "output_padding")
        }
        let hasBias = context.hasInput(2)
        if hasBias {
            let b = try context.shape(ofInput: 2)
            guard b == [outputChannels] else { throw context.error(.invalidShape, "bias shape \(b) must be [\(outputChannels)]") }
        }
        var outputSize = [0, 0]
        for i in 0..<2 {
            outputSize[i] = strides[i] * (x[2 + i] - 1) + outputPadding[i] + (w[2 + i] - 1) * dilations[i] + 1 - pads[i] - pads[i + 2]
            guard outputSize[i] >= 1 else { throw context.error(.invalidShape, "the padding leaves an empty output", attribute: "pads") }
        }
        return ConvTranspose(dataInputs: hasBias ? [0, 1, 2] : [0, 1],
                             outputShapes: [[x[0], outputChannels, outputSize[0], outputSize[1]]],
                             batch: x[0], inputChannels: x[1], outputChannels: outputChannels, group: group,
                             inH: x[2], inW: x[3], outH: outputSize[0], outW: outputSize[1], kH: w[2], kW: w[3],
                             strideH: strides[0], strideW: strides[1], dilationH: dilations[0], dilationW: dilations[1],
                             padTop: pads[0], padLeft: pads[1], hasBias: hasBias)
    }

    /// The definition, gathered per output pixel: y[n, m, oh, ow] = B[m] + Σ x[n, c, ih, iw] · W[c, m_local, kh, kw]
    /// over the input channels c of m's group and the taps with oh = ih·sH − padTop + kh·dH and
    /// ow = iw·sW − padLeft + kw·dW for some in-range (ih, iw); summed in Double.
    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = inputs[0], weights = inputs[1], y = outputs[0]
        let channelsPerGroup = inputChannels / group, outputsPerGroup = outputChannels / group
        let inPlane = inH * inW, outPlane = outH * outW
        for n in 0..<batch {
            for m in 0..<outputChannels {
                let out = y + (n * outputChannels + m) * outPlane
                let g = m / outputsPerGroup, mLocal = m % outputsPerGroup
                let initial = hasBias ? Double(inputs[2][m]) : 0
                for oh in 0..<outH {
                    for ow in 0..<outW {
                        var sum = initial
                        for kh in 0..<kH {
                            let rowOffset = oh + padTop - kh * dilationH
                            if rowOffset < 0 || rowOffset % strideH != 0 { continue }
                            let ih = rowOffset / strideH
                            if ih >= inH { continue }
                            for kw in 0..<kW {
                                let columnOffset = ow + padLeft - kw * dilationW
                                if columnOffset < 0 || columnOffset % strideW != 0 { continue }
                                let iw = columnOffset / strideW
                                if iw >= inW { continue }
                                for cLocal in 0..<channelsPerGroup {
                                    let c = g * channelsPerGroup + cLocal
                                    let value = x[(n * inputChannels + c) * inPlane + ih * inW + iw]
                                    let weight = weights[((c * outputsPerGroup + mLocal) * kH + kh) * kW + kw]
                                    sum += Double(value) * Double(weight)
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
