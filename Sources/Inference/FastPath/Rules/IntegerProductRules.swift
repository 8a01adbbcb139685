import Kernels

// The dynamic form's epilogue rule: what a ConvInteger or MatMulInteger absorbs after its int32
// sums. onnxruntime's `quantize_dynamic` writes each quantized Conv and MatMul as
// DynamicQuantizeLinear → ConvInteger / MatMulInteger → Cast(float) → Mul(x_scale · w_scale) →
// Add(bias); the step (`IntegerProductSteps.swift`) computes the Cast, Mul and Add (and an
// activation after them) in its store, in the graph's order.

/// The float epilogue an integer product absorbs.
struct IntegerSumsFusion: Sendable {
    /// The scale the sums are multiplied by: `scale` (one value, or one per output channel: the
    /// convolution's axis 1, the matrix product's last axis) times `scaleFactor` (one value) when
    /// the rule absorbed the Mul computing it from them, as the graph multiplies them.
    var scale: Int, scalePerChannel: Bool, scaleFactor: Int? = nil
    /// The Add's other operand, likewise, if an Add is absorbed.
    var bias: Int? = nil, biasPerChannel = false
    var activation: Activation = .none
    /// The value the step writes, and the output values of the nodes it absorbs.
    var target: Int
    var absorbed: [Int]
}

extension FusionRules {
    /// The chain after the integer product `node` (ConvInteger or MatMulInteger, at `index`): a
    /// Cast of its int32 output to float32; a Mul of that by a float32 scale that is one value or
    /// one per channel; then maybe an Add of such a value, then maybe an activation (Relu,
    /// Clip(0, 6), HardSwish). Each is the only reader of the value before it and runs right
    /// after it, and every operand is there when the product runs (a constant, or made before
    /// it), except a scale made right before its Mul by a Mul of two such values (one of them one
    /// value), as onnxruntime's quantizer writes x_scale · w_scale once the nodes are in the order
    /// they run: that Mul is absorbed too, its product computed by the step. Nil when there is no
    /// Cast and Mul.
    func matchIntegerSums(_ node: PlannedNode, at index: Int) -> IntegerSumsFusion? {
        let value = node.outputs[0], shape = graph.values[value].shape
        let axis = node.operation is ConvInteger ? 1 : shape.count - 1
        /// Whether `value` is there when the product runs.
        func isReady(_ value: Int) -> Bool { constants.contains(value) || (nodeIndex[value].map { $0 < index } ?? true) }
        guard shape.count >= 2, let cast = follower(of: value), let castOp = cast.operation as? Cast,
              castOp.source == .int32, castOp.outputTypes == [.float32] else { return nil }
        let casted = cast.outputs[0]
        var absorbed = [casted]
        var mul = follower(of: casted)
        if mul == nil, index + 3 < graph.nodes.count, let next = soleConsumer(of: casted),
           next.outputs == graph.nodes[index + 3].outputs {
            // A Mul computing the scale between the Cast and its Mul.
            let between = graph.nodes[index + 2]
            if between.operation is ElementwiseBinary, between.outputs.count == 1, soleConsumer(of: between.outputs[0])?.outputs == next.outputs {
                mul = next
            }
        }
        guard let mul, let scale = channelOperand(of: mul, reading: casted, kind: .mul, shape: shape, axis: axis) else { return nil }
        var fusion = IntegerSumsFusion(scale: scale.value, scalePerChannel: scale.perChannel, target: mul.outputs[0], absorbed: [])
        if !isReady(scale.value) {
            // Made by the Mul between: its operands, one of them one value, must be there.
            let maker = graph.nodes[nodeIndex[scale.value]!]
            guard let product = maker.operation as? ElementwiseBinary, product.kind == .mul, maker.inputs.count == 2,
                  maker.inputs.allSatisfy({ isReady($0) && graph.values[$0].type == .float32 }) else { return nil }
            let counts = maker.inputs.map { graph.values[$0].elementCount }, total = graph.values[scale.value].elementCount
            guard let one = counts.firstIndex(of: 1), counts[1 - one] == total else { return nil }
            fusion.scale = maker.inputs[1 - one]
            fusion.scaleFactor = maker.inputs[one]
            absorbed.append(scale.value)
        }
        absorbed.append(mul.outputs[0])
        if let add = follower(of: fusion.target),
           let bias = channelOperand(of: add, reading: fusion.target, kind: .add, shape: shape, axis: axis), isReady(bias.value) {
            fusion.bias = bias.value
            fusion.biasPerChannel = bias.perChannel
            fusion.target = add.outputs[0]
            absorbed.append(add.outputs[0])
        }
        if let next = follower(of: fusion.target), let activation = Self.kernelActivation(of: next) {
            fusion.activation = activation
            fusion.target = next.outputs[0]
            absorbed.append(next.outputs[0])
        }
        fusion.absorbed = absorbed
        return fusion
    }

    /// For a float32 binary `node` of `kind` with `value` (of `shape`) as one operand and an
    /// output of that shape: its other operand when that is one value, or one per element of
    /// axis `axis` (its shape, leading 1s added, `shape` with every other axis 1).
    func channelOperand(of node: PlannedNode, reading value: Int, kind: ElementwiseBinary.Kind,
                        shape: [Int], axis: Int) -> (value: Int, perChannel: Bool)? {
        guard let binary = node.operation as? ElementwiseBinary, binary.kind == kind, node.inputs.count == 2,
              node.inputs.contains(value), binary.outputShapes == [shape], graph.values[node.outputs[0]].type == .float32 else { return nil }
        let other = node.inputs[0] == value ? node.inputs[1] : node.inputs[0]
        let operand = graph.values[other].shape
        guard other != value, graph.values[other].type == .float32, operand.count <= shape.count else { return nil }
        if operand.reduce(1, *) == 1 { return (other, false) }
        let aligned = [Int](repeating: 1, count: shape.count - operand.count) + operand
        return aligned == shape.indices.map({ $0 == axis ? shape[$0] : 1 }) ? (other, true) : nil
    }
}
