import Kernels

// The dynamic form's epilogue rule: what a ConvInteger or MatMulInteger absorbs after its int32
// sums. onnxruntime's `quantize_dynamic` writes each quantized Conv and MatMul as
// DynamicQuantizeLinear → ConvInteger / MatMulInteger → Cast(float) → Mul(x_scale · w_scale) →
// Add(bias); the step (`IntegerProductSteps.swift`) computes the Cast, Mul and Add (and an
// activation after them) in its store, in the graph's order.

/// The float epilogue an integer product absorbs.
struct IntegerSumsFusion: Sendable {
    /// The Mul's other operand: one value, or one per output channel (the convolution's axis 1,
    /// the matrix product's last axis).
    var scale: Int, scalePerChannel: Bool
    /// The Add's other operand, likewise, if an Add is absorbed.
    var bias: Int? = nil, biasPerChannel = false
    var activation: Activation = .none
    /// The value the step writes, and the output values of the nodes it absorbs.
    var target: Int
    var absorbed: [Int]
}

extension FusionRules {
    /// The chain after the integer product `node` (ConvInteger or MatMulInteger) whose int32
    /// output is `value`: a Cast to float32, a Mul by a float32 value that is one value or one
    /// per channel, then maybe an Add of such a value, then maybe an activation (Relu, Clip(0, 6),
    /// HardSwish), each the only reader of the value before it and run right after it. Nil when
    /// there is no Cast and Mul.
    func matchIntegerSums(_ node: PlannedNode) -> IntegerSumsFusion? {
        let value = node.outputs[0], shape = graph.values[value].shape
        guard shape.count >= 2, let cast = follower(of: value), let castOp = cast.operation as? Cast,
              castOp.source == .int32, castOp.outputTypes == [.float32],
              let mul = follower(of: cast.outputs[0]),
              let scale = perChannelOperand(of: mul, reading: cast.outputs[0], kind: .mul, shape: shape) else { return nil }
        var fusion = IntegerSumsFusion(scale: scale.value, scalePerChannel: scale.perChannel, target: mul.outputs[0],
                                       absorbed: [cast.outputs[0], mul.outputs[0]])
        if let add = follower(of: fusion.target),
           let bias = perChannelOperand(of: add, reading: fusion.target, kind: .add, shape: shape) {
            fusion.bias = bias.value
            fusion.biasPerChannel = bias.perChannel
            fusion.target = add.outputs[0]
            fusion.absorbed.append(add.outputs[0])
        }
        if let next = follower(of: fusion.target), let activation = Self.kernelActivation(of: next) {
            fusion.activation = activation
            fusion.target = next.outputs[0]
            fusion.absorbed.append(next.outputs[0])
        }
        return fusion
    }

    /// For a float32 binary `node` of `kind` with `value` (of `shape`) as one operand and an
    /// output of that shape: its other operand when that is one value, or one per channel (axis 1
    /// of a rank-4 or rank-3 map, the last axis of a matrix product's output).
    func perChannelOperand(of node: PlannedNode, reading value: Int, kind: ElementwiseBinary.Kind,
                           shape: [Int]) -> (value: Int, perChannel: Bool)? {
        guard let binary = node.operation as? ElementwiseBinary, binary.kind == kind, node.inputs.count == 2,
              binary.outputShapes == [shape], graph.values[node.outputs[0]].type == .float32 else { return nil }
        let other = node.inputs[0] == value ? node.inputs[1] : node.inputs[0]
        guard other != value, node.inputs.contains(value), graph.values[other].type == .float32 else { return nil }
        let operand = graph.values[other].shape
        if operand.reduce(1, *) == 1 && operand.count <= shape.count { return (other, false) }
        guard operand.count <= shape.count else { return nil }
        let aligned = [Int](repeating: 1, count: shape.count - operand.count) + operand
        let channelAxis = graph.nodes[nodeIndex[value]!].operation is ConvInteger ? 1 : shape.count - 1
        let expected = shape.indices.map { $0 == channelAxis ? shape[$0] : 1 }
        return aligned == expected ? (other, true) : nil
    }
}
