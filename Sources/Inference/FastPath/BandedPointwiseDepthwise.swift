import Kernels

/// A 1x1 convolution (+ its epilogue) and the depthwise convolution reading its output, run as
/// one step in bands of rows (`pointwiseThenDepthwise`): the expanded map lives only in a small
/// band buffer. The depthwise node keeps its own fusion (epilogue, residual Add, padded output).
struct BandedFusion {
    /// The 1x1 convolution's epilogue (it writes only the band buffer).
    let pointwise: Epilogue
    /// The depthwise node's index in `graph.nodes`, and its fusion.
    let depthwiseNode: Int
    let depthwise: ConvolutionFusion
    /// Whether the depthwise node's residual is the 1x1's output (then read from the band).
    let residualIsInput: Bool
    /// The attention gate (by its leading node) producing the 1x1's input, applied band by band:
    /// the gated map is never written, the band reads the gate's two inputs. Taken only when the
    /// 1x1 is the gated map's only reader (it is no graph output) and runs right after the gate.
    let gate: Int?
    /// That gate's two inputs, which the step reads (`FusionPlan.Fusion.extraReads`).
    let gateInputs: (skip: Int, upsampled: Int)?
    /// Output rows per band.
    let bandRows: Int
    let absorbed: [Int]
}

extension StepBuilder {
    func pointwiseDepthwiseStep(_ f: BandedFusion, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>]) -> any Step {
        let conv = node.operation as! Conv
        let dwNode = graph.nodes[f.depthwiseNode]
        let dw = dwNode.operation as! Conv
        let (channels, height, width) = (conv.outputChannels, conv.height.output, conv.width.output)
        let k = dw.height.kernel
        let constant = { (value: Int, count: Int) in Array(UnsafeBufferPointer(start: self.pointer(value), count: count)) }
        let (depthwise, latticeStep) = packed {
            let folded = f.depthwise.epilogue.folded(weights: constant(dwNode.inputs[1], channels * k * k),
                                                     bias: dw.hasBias ? constant(dwNode.inputs[2], channels) : nil,
                                                     outputChannels: channels)
            let lattice = StepBuilder.compactLattice(folded.weights, channels: channels, kernelSize: k)
            return (DepthwiseWeights(weights: lattice.weights, bias: folded.bias, channels: channels, kernelSize: lattice.kernelSize),
                    lattice.step)
        }
        let weights = packed {
            let folded = f.pointwise.folded(weights: Array(UnsafeBufferPointer(start: inputs[1], count: channels * conv.inputChannels)),
                                            bias: conv.hasBias ? Array(UnsafeBufferPointer(start: inputs[2], count: channels)) : nil,
                                            outputChannels: channels)
            return PointwiseWeights(weights: folded.weights, bias: folded.bias, outputChannels: channels,
                                    inputChannels: conv.inputChannels)
        }
        let pad = StepBuilder.kind(of: dw)!.inputPad!
        // The kernel's window as it runs (the compacted lattice), which sizes the band.
        let band = bandLayout(width: width, bandOutputRows: f.bandRows, stride: dw.height.stride,
                              kernelSpan: (depthwise.kernelSize - 1) * dw.height.dilation * latticeStep + 1, bandPad: pad)
        let ownBands = band.borderOutweighsInterior
            ? (0..<pool.threadCount).map { _ in FeatureMapStorage(channels: channels, layout: band) } : nil
        let (outH, outW) = (dw.height.output, dw.width.output)
        let residual = f.residualIsInput ? nil : f.depthwise.residual.map {
            StepBuilder.denseMap(pointer($0), channels: channels, height: outH, width: outW)
        }
        var gatedInput: GatedInput? = nil
        if let leader = f.gate, case .attentionGate(let gate)? = plan.fusions[leader], let values = gateValues(leader) {
            let (c, h, w) = StepBuilder.planes(graph.values[gate.output].shape)!
            gatedInput = GatedInput(skip: StepBuilder.denseMap(pointer(gate.skip), channels: c, height: h, width: w),
                                    upsampled: StepBuilder.denseMap(pointer(gate.upsampled), channels: c, height: h, width: w),
                                    gate: UnsafePointer(values))
        }
        return PointwiseDepthwiseStep(
            input: StepBuilder.denseMap(inputs[0], channels: conv.inputChannels, height: height, width: width), gatedInput: gatedInput,
            pointwise: weights, pointwiseActivation: f.pointwise.activation, bandRows: f.bandRows, bandPad: pad, ownBands: ownBands,
            depthwise: depthwise, stride: dw.height.stride, dilation: dw.height.dilation * latticeStep,
            padTop: dw.height.padBegin, padLeft: dw.width.padBegin, depthwiseActivation: f.depthwise.epilogue.activation,
            residualIsInput: f.residualIsInput, residual: residual,
            output: outputMap(f.depthwise.target, channels: channels, height: outH, width: outW), pool: pool)
    }
}

/// A 1x1 convolution (+ its epilogue) on a small map, run as the GEMM over output channels, and
/// the small-map depthwise convolution reading its output, as one step
/// (`smallMapPointwiseThenDepthwise`): the expanded map stays pixel-major in scratch. The
/// depthwise node keeps its own fusion (epilogue, residual Add, padded output). Maybe also the
/// small-map 1x1 reading the depthwise output, which then stays pixel-major in scratch too.
struct SmallMapPairFusion {
    /// The 1x1 convolution's epilogue (its output is never written).
    let pointwise: Epilogue
    /// The depthwise node's index in `graph.nodes`, and its fusion.
    let depthwiseNode: Int
    let depthwise: ConvolutionFusion
    /// The 1x1 convolution reading the depthwise output (its only reader, which it reads
    /// pixel-major from scratch), by index, and its fusion (epilogue, residual, the step's target).
    var projectionNode: Int? = nil
    var projection: ConvolutionFusion? = nil
    let absorbed: [Int]

    /// The value the step writes.
    var target: Int { projection?.target ?? depthwise.target }
}

extension StepBuilder {
    func smallMapPointwiseDepthwiseStep(_ f: SmallMapPairFusion, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>]) -> any Step {
        let conv = node.operation as! Conv
        let dwNode = graph.nodes[f.depthwiseNode]
        let dw = dwNode.operation as! Conv
        let (cin, channels, height, width) = (conv.inputChannels, conv.outputChannels, conv.height.output, conv.width.output)
        let k = dw.height.kernel
        let constant = { (value: Int, count: Int) in Array(UnsafeBufferPointer(start: self.pointer(value), count: count)) }
        // Packed as the single-node steps pack them (`convolutionStep`), so each value is theirs.
        let pointwise = packed {
            let folded = f.pointwise.folded(weights: Array(UnsafeBufferPointer(start: inputs[1], count: channels * cin)),
                                            bias: conv.hasBias ? Array(UnsafeBufferPointer(start: inputs[2], count: channels)) : nil,
                                            outputChannels: channels)
            var columns = [Float](repeating: 0, count: cin * channels)
            for o in 0..<channels {
                for i in 0..<cin { columns[i * channels + o] = folded.weights[o * cin + i] }
            }
            return MatrixWeights(values: columns, bias: folded.bias, inner: cin, columns: channels)
        }
        let (depthwise, latticeStep) = packed {
            let folded = f.depthwise.epilogue.folded(weights: constant(dwNode.inputs[1], channels * k * k),
                                                     bias: dw.hasBias ? constant(dwNode.inputs[2], channels) : nil,
                                                     outputChannels: channels)
            let lattice = StepBuilder.compactLattice(folded.weights, channels: channels, kernelSize: k)
            return (ChannelLaneDepthwiseWeights(weights: lattice.weights, bias: folded.bias, channels: channels,
                                                kernelSize: lattice.kernelSize), lattice.step)
        }
        let (outH, outW) = (dw.height.output, dw.width.output)
        let residual = f.depthwise.residual.map { StepBuilder.denseMap(pointer($0), channels: channels, height: outH, width: outW) }
        var projection: SmallMapProjection? = nil
        if let index = f.projectionNode, let fusion = f.projection {
            let projectionNode = graph.nodes[index]
            let cout = (projectionNode.operation as! Conv).outputChannels
            let weights = packed {
                let folded = fusion.epilogue.folded(weights: constant(projectionNode.inputs[1], cout * channels),
                                                    bias: (projectionNode.operation as! Conv).hasBias
                                                        ? constant(projectionNode.inputs[2], cout) : nil,
                                                    outputChannels: cout)
                var columns = [Float](repeating: 0, count: channels * cout)
                for o in 0..<cout {
                    for i in 0..<channels { columns[i * cout + o] = folded.weights[o * channels + i] }
                }
                return MatrixWeights(values: columns, bias: folded.bias, inner: channels, columns: cout)
            }
            projection = SmallMapProjection(
                weights: weights, activation: fusion.epilogue.activation,
                residual: fusion.residual.map { StepBuilder.denseMap(pointer($0), channels: cout, height: outH, width: outW) },
                rectifiesSum: fusion.rectifiesSum, output: outputMap(fusion.target, channels: cout, height: outH, width: outW))
        }
        return SmallMapPointwiseDepthwiseStep(
            input: StepBuilder.denseMap(inputs[0], channels: cin, height: height, width: width),
            pointwise: pointwise, pointwiseActivation: f.pointwise.activation, depthwise: depthwise, stride: dw.height.stride,
            dilation: dw.height.dilation * latticeStep, padTop: dw.height.padBegin, padLeft: dw.width.padBegin,
            activation: f.depthwise.epilogue.activation, residual: residual,
            // With a projection the depthwise output is in scratch: the map gives its size only.
            output: projection.map { FeatureMap(base: $0.output.base, channels: channels, layout: .dense(width: outW, height: outH)) }
                ?? outputMap(f.depthwise.target, channels: channels, height: outH, width: outW),
            projection: projection, pool: pool)
    }
}

/// A small-map 1x1 convolution and the small-map depthwise convolution reading its output
/// (`SmallMapPairFusion`).
final class SmallMapPointwiseDepthwiseStep: Step {
    let input: FeatureMap, pointwise: MatrixWeights, pointwiseActivation: Activation
    let depthwise: ChannelLaneDepthwiseWeights, stride: Int, dilation: Int, padTop: Int, padLeft: Int
    let activation: Activation, residual: FeatureMap?, output: FeatureMap, projection: SmallMapProjection?, pool: WorkerPool
    var scratch: ScratchSize {
        smallMapPointwiseDepthwiseScratch(inputWidth: input.layout.width, inputHeight: input.layout.height,
                                          outputWidth: output.layout.width, outputHeight: output.layout.height, pointwise: pointwise,
                                          projection: projection?.weights)
    }
    func run() {
        smallMapPointwiseThenDepthwise(input, pointwise: pointwise, pointwiseActivation: pointwiseActivation, depthwise: depthwise,
                                       stride: stride, dilation: dilation, padTop: padTop, padLeft: padLeft,
                                       activation: activation, residual: residual, output: output, projection: projection,
                                       pool: pool)
    }

    init(input: FeatureMap, pointwise: MatrixWeights, pointwiseActivation: Activation, depthwise: ChannelLaneDepthwiseWeights,
         stride: Int, dilation: Int, padTop: Int, padLeft: Int, activation: Activation, residual: FeatureMap?, output: FeatureMap,
         projection: SmallMapProjection?, pool: WorkerPool) {
        self.input = input
        self.pointwise = pointwise
        self.pointwiseActivation = pointwiseActivation
        self.depthwise = depthwise
        self.stride = stride
        self.dilation = dilation
        self.padTop = padTop
        self.padLeft = padLeft
        self.activation = activation
        self.residual = residual
        self.output = output
        self.projection = projection
        self.pool = pool
    }
}
