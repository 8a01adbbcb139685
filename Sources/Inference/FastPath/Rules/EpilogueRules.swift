import Kernels

// The epilogue rule: what a convolution absorbs after its sums (`Epilogue.swift`).

extension FusionRules {
    /// The epilogue after `value` (`channels` per-channel values, batch 1): a BatchNormalization
    /// of it with constant parameters when `foldsBatchNorm`, then an activation.
    func epilogue(after value: Int, channels: Int, foldsBatchNorm: Bool) -> Epilogue {
        var chain = Epilogue(output: value)
        if foldsBatchNorm, let next = follower(of: value), let norm = next.operation as? BatchNormalization,
           norm.batch == 1, norm.channels == channels, next.inputs.first == value,
           let scale = constantFloats(next.inputs[1], count: channels), let bias = constantFloats(next.inputs[2], count: channels),
           let mean = constantFloats(next.inputs[3], count: channels),
           let variance = constantFloats(next.inputs[4], count: channels) {
            // The reference kernel's factor and shift, computed the same way.
            let factor = (0..<channels).map { c in scale[c] / (variance[c] + norm.epsilon).squareRoot() }
            chain.batchNorm = (factor, (0..<channels).map { c in bias[c] - mean[c] * factor[c] })
            chain.output = next.outputs[0]
            chain.absorbed.append(chain.output)
        }
        if let next = follower(of: chain.output), let activation = Self.kernelActivation(of: next) {
            chain.activation = activation
            chain.output = next.outputs[0]
            chain.absorbed.append(chain.output)
        }
        return chain
    }
}
