/// Dropout's kernel with its mask output: a copy of input 0 of any stored type, and a second
/// output every byte of which is `maskByte`.
final class MaskedCopy: Operator {
    let dataInputs = [0]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    let byteCount: Int
    let maskByte: UInt8
    let maskByteCount: Int
    var checksInputTypes: Bool { true }

    init(_ context: NodeContext, maskType: ElementType, maskByte: UInt8) throws(ModelError) {
        let shape = try context.shape(ofInput: 0), type = try context.type(ofInput: 0)
        outputShapes = [shape, shape]
        outputTypes = [type, maskType]
        byteCount = shape.reduce(1, *) * type.byteSize
        self.maskByte = maskByte
        maskByteCount = shape.reduce(1, *) * maskType.byteSize
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        UnsafeMutableRawPointer(outputs[0]).copyMemory(from: inputs[0], byteCount: byteCount)
        UnsafeMutableRawPointer(outputs[1]).initializeMemory(as: UInt8.self, repeating: maskByte, count: maskByteCount)
    }
}

/// ONNX `Identity` (Identity-1 to -21): a copy of a tensor of any stored type (sequences and
/// optionals are not values this engine has).
enum Identity {
    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes([])
        return try ShapeView(context, shape: context.shape(ofInput: 0))
    }
}

/// ONNX `Dropout` in inference mode (Dropout-7, -10, -12, -13), float32, float16 or double data:
/// the output is the input. `ratio` (an attribute up to Dropout-10, an optional input after) and
/// `seed` only matter in training and are not read. Dropout-12/-13's `training_mode` input must be
/// absent or a constant false, or true with a constant `ratio` of 0 (training that drops nothing,
/// as onnx's `training_dropout_zero_ratio` tests); true with another ratio is refused.
///
/// The optional mask output: from Dropout-12 a bool tensor all true (nothing dropped). Dropout-7
/// (mask of the data's type) and Dropout-10 (bool mask) leave it unspecified; it is all zeros
/// (false), which is what onnxruntime writes.
enum Dropout {
    static let build: OperatorBuilder = { context throws(ModelError) in
        let version = context.opVersion
        let outputs = context.node.outputs.count
        try context.checkArity(inputs: 1, version >= 12 ? 3 : 1, outputs: min(max(outputs, 1), 2))
        try context.checkAttributes(version >= 12 ? ["seed"] : ["ratio"])
        let type = try context.requireType(ofInput: 0, in: [.float32, .float16, .double])
        if version >= 12, let training = try context.constant(2, "training_mode") {
            guard training.type == .bool, let values = training.integers, values.count == 1 else {
                throw context.error(.malformed, "input 2 ('training_mode') must be a bool scalar")
            }
            if values[0] != 0 {
                // Training with a ratio of 0 drops nothing and scales by 1 / (1 − 0): the inference output.
                let ratio = try context.constant(1, "ratio")
                guard let ratio, ratio.elementCount == 1,
                      ratio.bytes.withUnsafeBytes({ TensorElements.double($0.baseAddress!, at: 0, ratio.type) }) == 0 else {
                    throw context.error(.unsupported, "training_mode true (training-time dropout) is supported only with a constant ratio of 0",
                                        attribute: "training_mode")
                }
            }
        }
        guard outputs == 2 else { return try ShapeView(context, shape: context.shape(ofInput: 0)) }
        return try MaskedCopy(context, maskType: version >= 10 ? .bool : type, maskByte: version >= 12 ? 1 : 0)
    }
}
