import Kernels

// The normalisation rule: a BatchNormalization no convolution absorbed (a pre-activation
// network's, DenseNet's norm → relu → conv) with the activation after it.

extension FusionRules {
    /// The activation a BatchNormalization's step applies to its own result: the BatchNormalization
    /// is one the single-node step takes (batch 1, constant parameters, float32) and the node
    /// right after it is an activation the kernels have (`absorbActivation(into:)`), the only
    /// reader of the normalised value, which is not a graph output. Only the activation is
    /// absorbed (no further affine node): each element is rounded as the two steps round it.
    func matchNormalizedActivation(_ norm: BatchNormalization, _ node: PlannedNode) -> Epilogue? {
        guard norm.batch == 1, hasConstantWeights(node), node.outputs.count == 1,
              graph.values[node.inputs[0]].type == .float32 else { return nil }
        var chain = Epilogue(output: node.outputs[0])
        return absorbActivation(into: &chain) ? chain : nil
    }
}
