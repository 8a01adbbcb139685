/// ONNX `Relu` (Relu-14; same float semantics since Relu-6): max(x, 0).
enum Relu {
    static let build = ElementwiseUnary.builder { _ in (.relu, { $0 > 0 ? $0 : 0 }) }
}
