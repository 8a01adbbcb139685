/// ONNX `ConvTranspose` (semantics of ConvTranspose-11, unchanged through opset 21): the
/// gradient of a convolution. Input [N, C, H, W] with weights `[C, M/group, kH, kW]`, or 1-D
/// [N, C, W] with weights `[C, M/group, kW]` (run as height 1); optional bias `[M]`; `strides`,
/// `dilations`, `pads`, `output_padding`, `group`, `output_shape` and `auto_pad`.
///
/// Per axis, with natural size n = stride·(in − 1) + output_padding + (k − 1)·dilation + 1:
/// - explicit pads: output n − padBegin − padEnd;
/// - `output_shape` (its spatial dimensions) or `auto_pad` SAME_UPPER / SAME_LOWER (output
///   in·stride): the total padding n − output is split with the larger half at the end for
///   SAME_UPPER and at the beginning otherwise (the spec's formulas, as onnxruntime computes).
///   An `output_shape` beyond n (by less than the stride) adds end positions that only the bias
///   reaches; SAME beyond n
///   (a kernel shorter than the stride) is refused, as onnxruntime and the spec disagree there.
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
        try context.checkAttributes(["auto_pad", "dilations", "group", "kernel_shape", "output_padding", "output_shape", "pads", "strides"])
        let x = try context.shape(ofInput: 0), w = try context.shape(ofInput: 1)
        guard x.count == 3 || x.count == 4 else {
            throw context.error(.unsupported,
                                "only 1-D and 2-D transposed convolution (rank-3 or rank-4 input) is supported, input has rank \(x.count)")
        }
        guard w.count == x.count else { throw context.error(.invalidShape, "weights must have rank \(x.count), got \(w)") }
        let rank = x.count - 2, limit = 1 << 16
        let input = Array(x[2...]), kernel = Array(w[2...])
        guard kernel.allSatisfy({ (1...limit).contains($0) }) else {
            throw context.error(.invalidShape, "the weights' kernel \(kernel) must be between 1 and \(limit) per axis")
        }
        let group = try context.int("group", default: 1, in: 1...(1 << 20))
        guard x[1] % group == 0, w[0] == x[1] else {
            throw context.error(.invalidShape, "input channels \(x[1]), weights \(w) and group \(group) disagree", attribute: "group")
        }
        let outputChannels = w[1] * group
        let autoPad = try context.choice("auto_pad", WindowGeometry.autoPadChoices, default: "NOTSET")
        if let declared = try context.ints("kernel_shape", count: rank, in: 1...limit), declared != kernel {
            throw context.error(.invalidShape, "\(declared) disagrees with the weights' kernel \(kernel)", attribute: "kernel_shape")
        }
        let strides = try context.ints("strides", count: rank, in: 1...limit) ?? Array(repeating: 1, count: rank)
        let dilations = try context.ints("dilations", count: rank, in: 1...limit) ?? Array(repeating: 1, count: rank)
        let outputPadding = try context.ints("output_padding", count: rank, in: 0...limit) ?? Array(repeating: 0, count: rank)
        for i in 0..<rank where outputPadding[i] >= max(strides[i], dilations[i]) {
            throw context.error(.invalidShape, "must be smaller than the stride or dilation", attribute: "output_padding")
        }
        var natural: [Int] = []
        for i in 0..<rank {
            natural.append(strides[i] * (input[i] - 1) + outputPadding[i] + (kernel[i] - 1) * dilations[i] + 1)
        }
        var outputSize = natural, padBegin = Array(repeating: 0, count: rank)
        let explicitPads = try context.ints("pads", count: 2 * rank, in: 0...limit)
        var requested = try context.ints("output_shape", count: rank, in: 1...(1 << 30))
        if let explicitPads, explicitPads.contains(where: { $0 != 0 }), autoPad != "NOTSET" || requested != nil {
            throw context.error(.malformed, "pads cannot be combined with auto_pad \(autoPad) or output_shape", attribute: "pads")
        }
        let extends = requested != nil
        if requested == nil && autoPad.hasPrefix("SAME") { requested = zip(input, strides).map { $0 * $1 } }
        if let requested {
            for i in 0..<rank {
                let total = natural[i] - requested[i]
                // A longer output_shape leaves the extra end positions to the bias (onnxruntime and
                // onnx's expected outputs); SAME with a longer in·stride is where they disagree.
                guard total >= 0 || extends else {
                    throw context.error(.unsupported, "SAME output length \(requested[i]) exceeds the natural \(natural[i]) on spatial axis \(i)",
                                        attribute: "auto_pad")
                }
                guard -total < strides[i] else {
                    throw context.error(.invalidShape, "output length \(requested[i]) is a stride or more past the natural \(natural[i]) on spatial axis \(i)",
                                        attribute: "output_shape")
                }
                padBegin[i] = total < 0 ? 0 : autoPad == "SAME_UPPER" ? total / 2 : total - total / 2
                outputSize[i] = requested[i]
            }
        } else if let pads = explicitPads {
            for i in 0..<rank {
                padBegin[i] = pads[i]
                outputSize[i] = natural[i] - pads[i] - pads[i + rank]
                guard outputSize[i] >= 1 else { throw context.error(.invalidShape, "the padding leaves an empty output", attribute: "pads") }
            }
        }
        let hasBias = context.hasInput(2)
        if hasBias {
            let b = try context.shape(ofInput: 2)
            guard b == [outputChannels] else { throw context.error(.invalidShape, "bias shape \(b) must be [\(outputChannels)]") }
        }
        // A 1-D transposed convolution is the 2-D one with a unit height axis in front.
        let planar = { (values: [Int], unit: Int) in rank == 1 ? [unit] + values : values }
        let (inputs2, outputs2, kernels2) = (planar(input, 1), planar(outputSize, 1), planar(kernel, 1))
        let (strides2, dilations2, pads2) = (planar(strides, 1), planar(dilations, 1), planar(padBegin, 0))
        return ConvTranspose(dataInputs: hasBias ? [0, 1, 2] : [0, 1],
                             outputShapes: [[x[0], outputChannels] + outputSize],
                             batch: x[0], inputChannels: x[1], outputChannels: outputChannels, group: group,
                             inH: inputs2[0], inW: inputs2[1], outH: outputs2[0], outW: outputs2[1], kH: kernels2[0], kW: kernels2[1],
                             strideH: strides2[0], strideW: strides2[1], dilationH: dilations2[0], dilationW: dilations2[1],
                             padTop: pads2[0], padLeft: pads2[1], hasBias: hasBias)
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
