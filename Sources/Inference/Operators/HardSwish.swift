/// ONNX `HardSwish` (HardSwish-14): x · max(0, min(1, x/6 + 0.5)), i.e. HardSigmoid with
/// alpha = 1/6, beta = 0.5, times x. Equals TFLite's x · relu6(x + 3) / 6.
enum HardSwish {
    static let build = ElementwiseUnary.builder { _ in
        (.hardSwish, { x in x * max(0, min(1, x * (1 / 6 as Float) + 0.5)) })
    }
}
