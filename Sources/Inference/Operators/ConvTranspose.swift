/// ONNX `ConvTranspose` (semantics of ConvTranspose-11, unchanged through opset 21): the
/// gradient of a convolution. Input [N, C, H, W] with weights `[C, M/group, kH, kW]`, 1-D
/// [N, C, W] with weights `[C, M/group, kW]` or 3-D [N, C, D, H, W] with weights
/// `[C, M/group, kD, kH, kW]` (one kernel, with unit axes for the missing ones); optional bias `[M]`; `strides`,
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
final class ConvTranspose: Operator {
    let dataInputs: [Int]
    let outputShapes: [[Int]]
    let batch: Int, inputChannels: Int, outputChannels: Int, group: Int
    let inH: Int, inW: Int, outH: Int, outW: Int
    let kH: Int, kW: Int, strideH: Int, strideW: Int, dilationH: Int, dilationW: Int, padTop: Int, padLeft: Int
    let hasBias: Bool
    /// The depth axis of a 3-D transposed convolution (1, 1, 1, 1, 1 and 0 for 1-D and 2-D).
    let inD: Int, outD: Int, kD: Int, strideD: Int, dilationD: Int, padFront: Int

    var multiplyAccumulates: Int { batch * inputChannels * inD * inH * inW * (outputChannels / group) * kD * kH * kW }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 3)
        try context.checkAttributes(["auto_pad", "dilations", "group", "kernel_shape", "output_padding", "output_shape", "pads", "strides"])
        let x = try context.shape(ofInput: 0), w = try context.shape(ofInput: 1)
        guard (3...5).contains(x.count) else {
            throw context.error(.unsupported, "only 1-D, 2-D and 3-D transposed convolution (rank 3 to 5 input) is supported, input has rank \(x.count)")
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
        // 1-D and 2-D transposed convolutions are the 3-D one with unit axes in front.
        let pad = { (values: [Int], unit: Int) in Array(repeating: unit, count: 3 - rank) + values }
        let (inputs3, outputs3, kernels3) = (pad(input, 1), pad(outputSize, 1), pad(kernel, 1))
        let (strides3, dilations3, pads3) = (pad(strides, 1), pad(dilations, 1), pad(padBegin, 0))
        return ConvTranspose(dataInputs: hasBias ? [0, 1, 2] : [0, 1],
                             outputShapes: [[x[0], outputChannels] + outputSize],
                             batch: x[0], inputChannels: x[1], outputChannels: outputChannels, group: group,
                             inH: inputs3[1], inW: inputs3[2], outH: outputs3[1], outW: outputs3[2], kH: kernels3[1], kW: kernels3[2],
                             strideH: strides3[1], strideW: strides3[2], dilationH: dilations3[1], dilationW: dilations3[2],
                             padTop: pads3[1], padLeft: pads3[2], hasBias: hasBias,
                             inD: inputs3[0], outD: outputs3[0], kD: kernels3[0], strideD: strides3[0], dilationD: dilations3[0],
                             padFront: pads3[0])
    }

    /// The definition, gathered per output pixel: y[n, m, od, oh, ow] = B[m] + Σ x[n, c, id, ih, iw] · W[c, m_local, kd, kh, kw]
    /// over the input channels c of m's group and the taps with od = id·sD − padFront + kd·dD,
    /// oh = ih·sH − padTop + kh·dH and ow = iw·sW − padLeft + kw·dW for some in-range (id, ih, iw);
    /// summed in Double.
    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = inputs[0], weights = inputs[1], y = outputs[0]
        let channelsPerGroup = inputChannels / group, outputsPerGroup = outputChannels / group
        let inPlane = inD * inH * inW, outPlane = outD * outH * outW, kernelSize = kD * kH * kW
        /// The input index that output index `o` reads through kernel tap `k`, or nil.
        func source(_ o: Int, _ k: Int, pad: Int, dilation: Int, stride: Int, input: Int) -> Int? {
            let offset = o + pad - k * dilation
            guard offset >= 0, offset % stride == 0, offset / stride < input else { return nil }
            return offset / stride
        }
        for n in 0..<batch {
            for m in 0..<outputChannels {
                var out = y + (n * outputChannels + m) * outPlane
                let g = m / outputsPerGroup, mLocal = m % outputsPerGroup
                let initial = hasBias ? Double(inputs[2][m]) : 0
                for od in 0..<outD {
                    for oh in 0..<outH {
                        for ow in 0..<outW {
                            var sum = initial
                            for kd in 0..<kD {
                                guard let id = source(od, kd, pad: padFront, dilation: dilationD, stride: strideD, input: inD) else { continue }
                                for kh in 0..<kH {
                                    guard let ih = source(oh, kh, pad: padTop, dilation: dilationH, stride: strideH, input: inH) else { continue }
                                    for kw in 0..<kW {
                                        guard let iw = source(ow, kw, pad: padLeft, dilation: dilationW, stride: strideW, input: inW) else { continue }
                                        for cLocal in 0..<channelsPerGroup {
                                            let c = g * channelsPerGroup + cLocal
                                            let value = x[(n * inputChannels + c) * inPlane + (id * inH + ih) * inW + iw]
                                            let weight = weights[(c * outputsPerGroup + mLocal) * kernelSize + (kd * kH + kh) * kW + kw]
                                            sum += Double(value) * Double(weight)
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
        }
    }

    init(dataInputs: [Int], outputShapes: [[Int]], batch: Int, inputChannels: Int, outputChannels: Int, group: Int,
         inH: Int, inW: Int, outH: Int, outW: Int, kH: Int, kW: Int, strideH: Int, strideW: Int, dilationH: Int,
         dilationW: Int, padTop: Int, padLeft: Int, hasBias: Bool, inD: Int, outD: Int, kD: Int, strideD: Int,
         dilationD: Int, padFront: Int) {
        self.dataInputs = dataInputs
        self.outputShapes = outputShapes
        self.batch = batch
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        self.group = group
        self.inH = inH
        self.inW = inW
        self.outH = outH
        self.outW = outW
        self.kH = kH
        self.kW = kW
        self.strideH = strideH
        self.strideW = strideW
        self.dilationH = dilationH
        self.dilationW = dilationW
        self.padTop = padTop
        self.padLeft = padLeft
        self.hasBias = hasBias
        self.inD = inD
        self.outD = outD
        self.kD = kD
        self.strideD = strideD
        self.dilationD = dilationD
        self.padFront = padFront
    }
}
