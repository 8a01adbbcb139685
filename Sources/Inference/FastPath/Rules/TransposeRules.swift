import Kernels

// The Transpose rules: a Transpose cancelled against its inverse (built in `MatrixProducts.swift`),
// Transpose → Softmax → inverse Transpose (`SingleNodeLayers.swift`) and the image input's
// NHWC → NCHW (`StepBuilder.swift`).

extension FusionRules {
    /// A Transpose whose only reader is the inverse Transpose right after it (an exporter's
    /// NCHW → NHWC → NCHW round trip), maybe with an elementwise activation between them.
    func matchCancelledTransposes(_ t: Transpose, _ node: PlannedNode) -> CancelledTransposes? {
        guard let value = node.outputs.first, var next = follower(of: value) else { return nil }
        var activation: (value: Int, kind: Activation)? = nil
        if t.outputTypes == [.float32], let kind = Self.kernelActivation(of: next), let after = follower(of: next.outputs[0]) {
            activation = (next.outputs[0], kind)
            next = after
        }
        guard let inverse = next.operation as? Transpose, inverse.perm.count == t.perm.count,
              inverse.perm.indices.allSatisfy({ t.perm[inverse.perm[$0]] == $0 }), let output = next.outputs.first else { return nil }
        return CancelledTransposes(activation: activation, output: output)
    }

}

extension FusionRules {
    /// Transpose → Softmax → the inverse Transpose, where the softmax axis is the channel axis of
    /// the first Transpose's [1, C, H, W] input (an NHWC softmax written around an NCHW model):
    /// one softmax over channels from the first input to the last output. Returns the Softmax's
    /// and the last Transpose's outputs.
    func matchChannelSoftmax(_ t: Transpose, _ node: PlannedNode) -> (softmax: Int, output: Int)? {
        guard let value = node.outputs.first, let softmaxNode = follower(of: value),
              let softmax = softmaxNode.operation as? Softmax, case .softmax = softmax.kind, softmax.type == .float32,
              let back = follower(of: softmaxNode.outputs[0]), let inverse = back.operation as? Transpose,
              let (c, _, _) = Self.planes(t.inputShape), c > 1,
              inverse.perm.indices.allSatisfy({ t.perm[inverse.perm[$0]] == $0 }) else { return nil }
        // The softmax runs over one axis of the transposed tensor: axis a with outer · length · inner.
        let shape = t.outputShapes[0]
        guard let axis = shape.indices.first(where: { shape[$0] == softmax.length
                  && shape[..<$0].reduce(1, *) == softmax.outer && shape[($0 + 1)...].reduce(1, *) == softmax.inner }),
              t.perm[axis] == 1, softmax.length == c else { return nil }
        return (softmaxNode.outputs[0], back.outputs[0])
    }
}

extension FusionRules {
    /// The image input's NHWC → NCHW, read straight from the caller's buffer when it is the
    /// graph's single input and this is its only reader.
    func matchDeinterleave(_ t: Transpose, _ node: PlannedNode) -> DeinterleaveFusion? {
        guard Self.isDeinterleave(t) else { return nil }
        let input = graph.inputIDs.count == 1 ? graph.inputIDs[0] : -1
        return DeinterleaveFusion(readsCallerBuffer: node.inputs.first == input && consumers[input].count == 1
                                    && !graph.outputIDs.contains(input))
    }
}
