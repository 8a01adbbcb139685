import Kernels

/// A constant Pad of the spatial axes folded into the quantized convolution reading it: a
/// QLinearConv pads its input with the input's zero point, so a Pad whose value is that zero
/// point only widens the convolution's own padding. The step reads the Pad's input and runs the
/// QLinearConv with the Pad's borders added to its pads (`quantizedConvolutionStep`); the Pad's
/// output is never written.
///
/// Two forms, both written by onnxruntime's quantizer around Keras' explicit `ZeroPadding2D`:
/// - QOperator: Pad of the 8-bit map with the constant value x_zero_point → QLinearConv;
/// - QDQ: DequantizeLinear → Pad of the float map with 0 → QuantizeLinear → QLinearConv (the
///   QLinearConv the QDQ group rewrite made), where the QuantizeLinear has the DequantizeLinear's
///   scale and zero point (bit for bit) and type: then QuantizeLinear(DequantizeLinear(x)) = x
///   for every byte x (|x − z| ≤ 255, so (x − z)·s / s is within 255 · 2^−22 of x − z before
///   rounding to an integer, for a positive normal s with 255·s finite), and the padding 0
///   quantizes to z: the chain is the byte Pad with z.
/// Batch and channel axes copied through, non-negative borders (no crop), each intermediate
/// value read only by the next node, the nodes consecutive in the run order, and the QLinearConv
/// one the fast path takes (2-D, constant weights and quantization parameters).
struct PaddedQuantizedConvolution {
    /// The QLinearConv's node (index into `graph.nodes`).
    let convolutionNode: Int
    /// The QLinearConv with the Pad's borders added to its pads and the Pad's input size.
    let conv: QLinearConv
    /// The 8-bit map the step reads (the Pad's input, or the DequantizeLinear's).
    let input: Int
    /// The outputs of the nodes after the leader.
    let absorbed: [Int]
}

extension FusionRules {
    /// QOperator: the byte Pad `node` and the QLinearConv after it.
    func matchPaddedQuantizedConvolution(_ gather: AxisGather, _ node: PlannedNode) -> PaddedQuantizedConvolution? {
        let type = gather.outputTypes[0]
        guard type == .uint8 || type == .int8, let borders = spatialBorders(gather, node),
              let next = follower(of: node.outputs[0]), let conv = next.operation as? QLinearConv,
              next.inputs.first == node.outputs[0], conv.xType == type,
              let zero = constantByte(next.inputs[2]), zero == UInt8(truncatingIfNeeded: gather.fill) else { return nil }
        return paddedQuantizedConvolution(conv, next, borders, input: node.inputs[0], absorbed: [next.outputs[0]])
    }

    /// QDQ: the DequantizeLinear `node`, the float Pad, the QuantizeLinear and the QLinearConv after it.
    func matchPaddedQuantizedConvolution(_ dequantize: DequantizeLinear, _ node: PlannedNode) -> PaddedQuantizedConvolution? {
        let type = dequantize.inputType
        guard type == .uint8 || type == .int8, dequantize.layout == .perTensor, dequantize.scaleType == .float32,
              dequantize.outputTypes[0] == .float32, hasConstantWeights(node),
              let padNode = follower(of: node.outputs[0]), let gather = padNode.operation as? AxisGather,
              padNode.inputs.first == node.outputs[0], gather.outputTypes[0] == .float32, gather.fill == 0,
              let borders = spatialBorders(gather, padNode),
              let quantizeNode = follower(of: padNode.outputs[0]), let quantize = quantizeNode.operation as? QuantizeLinear,
              quantizeNode.inputs.first == padNode.outputs[0], quantize.inputType == .float32, quantize.scaleType == .float32,
              quantize.layout == .perTensor, quantize.outputTypes[0] == type, hasConstantWeights(quantizeNode),
              let scale = constantFloats(node.inputs[1], count: 1)?.first,
              let quantizeScale = constantFloats(quantizeNode.inputs[1], count: 1)?.first,
              scale.bitPattern == quantizeScale.bitPattern, scale > 0, scale.isNormal, (scale * 255).isFinite,
              (dequantize.hasZeroPoint ? constantByte(node.inputs[2]) : 0)
                == (quantize.hasZeroPoint ? constantByte(quantizeNode.inputs[2]) : 0),
              let next = follower(of: quantizeNode.outputs[0]), let conv = next.operation as? QLinearConv,
              next.inputs.first == quantizeNode.outputs[0], conv.xType == type,
              constantByte(next.inputs[2]) != nil else { return nil }
        return paddedQuantizedConvolution(conv, next, borders, input: node.inputs[0],
                                          absorbed: [padNode.outputs[0], quantizeNode.outputs[0], next.outputs[0]])
    }

    /// The byte of a one-element 8-bit constant.
    func constantByte(_ value: Int) -> UInt8? {
        let v = graph.values[value]
        guard v.type == .uint8 || v.type == .int8, v.elementCount == 1, let pointer = store.pointer(value) else { return nil }
        return UnsafeRawPointer(pointer).load(as: UInt8.self)
    }

    /// The QLinearConv `conv` (node `next`) reading `input` with the borders added to its pads,
    /// when the fast path runs it (`quantizedConvolutionStep`).
    func paddedQuantizedConvolution(_ conv: QLinearConv, _ next: PlannedNode, _ borders: (rows: (before: Int, after: Int), columns: (before: Int, after: Int)),
                input: Int, absorbed: [Int]) -> PaddedQuantizedConvolution? {
        let g = conv.convolution
        guard hasConstantWeights(next), g.depth == .unit, let index = nodeIndex[next.outputs[0]] else { return nil }
        let shape = graph.values[input].shape
        var height = g.height, width = g.width
        height.input = shape[2]
        height.padBegin += borders.rows.before
        height.padEnd += borders.rows.after
        width.input = shape[3]
        width.padBegin += borders.columns.before
        width.padEnd += borders.columns.after
        let geometry = ConvolutionGeometry(g, height: height, width: width)
        let folded = QLinearConv(dataInputs: conv.dataInputs, outputShapes: conv.outputShapes, outputTypes: conv.outputTypes,
                                 convolution: geometry, xType: conv.xType, wType: conv.wType, xScale: conv.xScale,
                                 wScale: conv.wScale, yScale: conv.yScale, xZero: conv.xZero, wZero: conv.wZero, yZero: conv.yZero,
                                 hasBias: conv.hasBias)
        return PaddedQuantizedConvolution(convolutionNode: index, conv: folded, input: input, absorbed: absorbed)
    }
}

extension ConvolutionGeometry {
    /// `g` with other heights and widths (its input's size and padding; the same output).
    init(_ g: ConvolutionGeometry, height: WindowAxis, width: WindowAxis) {
        batch = g.batch; inputChannels = g.inputChannels; outputChannels = g.outputChannels; group = g.group
        depth = g.depth; self.height = height; self.width = width
        outputShape = g.outputShape
    }
}
