/// The ONNX operators this engine implements (default domain, opsets 11–18), by op type.
///
/// Adding an op: write `Operators/<Op>.swift` with a builder, add one line here, and add its
/// one-node fixtures (`Tools/make_fixtures.py`). `Constant` is not listed: its value is folded
/// into the plan by the graph loader.
enum OperatorRegistry {
    static let builders: [String: OperatorBuilder] = [
        "Add": Add.build,
        "AveragePool": AveragePool.build,
        "BatchNormalization": BatchNormalization.build,
        "Clip": Clip.build,
        "Concat": Concat.build,
        "Conv": Conv.build,
        "ConvTranspose": ConvTranspose.build,
        "Div": Div.build,
        "GlobalAveragePool": GlobalAveragePool.build,
        "HardSigmoid": HardSigmoid.build,
        "HardSwish": HardSwish.build,
        "MaxPool": MaxPool.build,
        "Mul": Mul.build,
        "PRelu": PRelu.build,
        "ReduceMean": ReduceMean.build,
        "Relu": Relu.build,
        "Reshape": Reshape.build,
        "Resize": Resize.build,
        "Sigmoid": Sigmoid.build,
        "Slice": Slice.build,
        "Softmax": Softmax.build,
        "Sub": Sub.build,
        "Transpose": Transpose.build,
    ]

    /// Every op type accepted in a model, `Constant` included.
    static var supportedOpTypes: Set<String> { Set(builders.keys).union(["Constant"]) }

    /// The default-domain opset versions whose semantics are implemented.
    static let supportedOpsets: ClosedRange<Int> = 11...18
}
