import ONNXFormat

/// The `com.microsoft` operators this engine implements (version 1 of that domain, the one
/// onnxruntime defines): the QOperator ops onnxruntime's quantizer writes beside the standard
/// `QLinearConv` and `QLinearMatMul`. Each is implemented as onnxruntime's CPU kernel computes it;
/// the messages of a node in this domain name it (`ModelError`).
enum MicrosoftOperators {
    static let domain = "com.microsoft"

    static let builders: [String: OperatorBuilder] = [
        "QGemm": QGemm.build,
        "QLinearAdd": QLinearBinary.buildAdd,
        "QLinearAveragePool": QLinearAveragePool.build,
        "QLinearConcat": QLinearConcat.build,
        "QLinearGlobalAveragePool": QLinearGlobalAveragePool.build,
        "QLinearLeakyRelu": QLinearLookup.buildLeakyRelu,
        "QLinearMul": QLinearBinary.buildMul,
        "QLinearSigmoid": QLinearLookup.buildSigmoid,
        "QLinearSoftmax": QLinearSoftmax.build,
    ]

    /// The one version of the domain whose definitions the builders implement.
    static let version = 1

    /// Checks that the node has `count` inputs (the trailing optional ones may be left off), that
    /// the inputs at `required` are not the empty name, and that it has one output.
    static func checkInputs(_ context: NodeContext, count: ClosedRange<Int>, required: [Int]) throws(ModelError) {
        try context.checkArity(inputs: 0, count.upperBound)
        guard count.contains(context.node.inputs.count) else {
            throw context.error(.malformed, "expected \(count.lowerBound) to \(count.upperBound) inputs, got \(context.node.inputs.count)")
        }
        for index in required where !context.hasInput(index) {
            throw context.error(.malformed, "input \(index) is required but empty")
        }
    }
}

/// A quantization parameter pair of a `com.microsoft` QLinear op: a scalar scale (float32) and
/// an optional scalar zero point of the tensor's type, both read at run time.
struct QuantizedScalar: Sendable {
    let scale: ScaleParameter
    let zero: ZeroPoint

    /// Reads the scale at node input `scaleInput` and the zero point at `scaleInput + 1` (may be
    /// absent: 0), whose buffers are `buffer` and the one after it when present.
    static func read(_ context: NodeContext, scaleInput: Int, type: ElementType, buffer: Int, role: String) throws(ModelError) -> (QuantizedScalar, [Int]) {
        let scale = try ScaleParameter.read(context, input: scaleInput, buffer: buffer, perIndexCount: nil, role: "\(role)_scale")
        let zero = try ZeroPoint.read(context, input: scaleInput + 1, buffer: buffer + 1, operandType: type,
                                                      perIndexCount: 1, role: "\(role)_zero_point")
        return (QuantizedScalar(scale: scale, zero: zero), context.hasInput(scaleInput + 1) ? [scaleInput, scaleInput + 1] : [scaleInput])
    }

    /// The inputs of a QLinear op of one tensor (X, x_scale, x_zero_point, y_scale, y_zero_point;
    /// the zero points may be omitted): X's type (int8 or uint8, Y's too), X's and Y's parameters,
    /// and the data inputs (X's buffer first).
    static func readOneInput(_ context: NodeContext, roles: (x: String, y: String) = ("x", "y"))
        throws(ModelError) -> (type: ElementType, x: QuantizedScalar, y: QuantizedScalar, dataInputs: [Int]) {
        try MicrosoftOperators.checkInputs(context, count: 4...5, required: [0, 1, 3])
        let type = try context.requireType(ofInput: 0, in: [.int8, .uint8])
        var dataInputs = [0]
        let (x, xInputs) = try read(context, scaleInput: 1, type: type, buffer: dataInputs.count, role: roles.x)
        dataInputs += xInputs
        let (y, yInputs) = try read(context, scaleInput: 3, type: type, buffer: dataInputs.count, role: roles.y)
        dataInputs += yInputs
        return (type, x, y, dataInputs)
    }
}
