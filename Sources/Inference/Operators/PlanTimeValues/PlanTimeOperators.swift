import ONNXFormat

/// What a node of a sequence, optional or string operator becomes when the plan is built: the
/// sequence, optional and string values it defines (`PlanTimeSequence`, `PlanTimeOptional`), the constants it
/// defines (a length, a presence flag, split lengths), and the tensor nodes that compute the
/// tensors it outputs, each with the version of its op's definition to build.
struct PlanTimeRewrite {
    var sequences: [(name: String, value: PlanTimeSequence)] = []
    var optionals: [(name: String, value: PlanTimeOptional)] = []
    var constants: [(name: String, value: ConstantTensor)] = []
    var strings: [(name: String, value: StringTensor)] = []
    var nodes: [(node: NodeProto, version: Int)] = []
}

/// Builds the rewrite of one node, or throws a `ModelError` naming the node, op and attribute.
typealias PlanTimeBuilder = @Sendable (NodeContext) throws(ModelError) -> PlanTimeRewrite

/// The ONNX operators on sequence and optional values and on strings, each rewritten at plan time
/// (`PlanTimeRewrite`): one file per op in `Operators/PlanTimeValues`.
enum PlanTimeOperators {
    static let builders: [String: PlanTimeBuilder] = [
        "ConcatFromSequence": ConcatFromSequence.build,
        "Optional": OptionalConstruct.build,
        "OptionalGetElement": OptionalGetElement.build,
        "OptionalHasElement": OptionalHasElement.build,
        "SequenceAt": SequenceAt.build,
        "SequenceConstruct": SequenceConstruct.build,
        "SequenceEmpty": SequenceEmpty.build,
        "SequenceErase": SequenceErase.build,
        "SequenceInsert": SequenceInsert.build,
        "SequenceLength": SequenceLength.build,
        "SplitToSequence": SplitToSequence.build,
        "StringConcat": StringConcat.build,
        "StringNormalizer": StringNormalizer.build,
        "StringSplit": StringSplit.build,
    ]

    /// The rewrite of `context`'s node when its op works on sequences or optionals (or is an
    /// `Identity` of one: Identity-14 and later copy those too; or an `Equal` of strings), else nil.
    static func rewrite(_ context: NodeContext) throws(ModelError) -> PlanTimeRewrite? {
        if context.node.opType == "Identity", context.hasInput(0), context.isPlanTimeValue(0) {
            return try IdentityOfContainer.build(context)
        }
        if context.node.opType == "Equal", (0..<min(context.inputs.count, 2)).contains(where: { context.hasInput($0) && context.isPlanTimeValue($0) }) {
            return try StringEqual.build(context)
        }
        return try builders[context.node.opType]?(context)
    }
}

extension NodeContext {
    /// Whether input `index` is a sequence or an optional value.
    func isPlanTimeValue(_ index: Int) -> Bool {
        switch inputs[index] {
        case .sequence, .optional, .strings: true
        default: false
        }
    }

    /// The sequence value of a required input.
    func sequence(ofInput index: Int) throws(ModelError) -> PlanTimeSequence {
        guard hasInput(index) else { throw error(.malformed, "input \(index) is required but empty") }
        guard case let .sequence(sequence) = inputs[index] else {
            throw error(.unsupported, "input \(index) ('\(node.inputs[index])') must be a sequence")
        }
        return sequence
    }

    /// A position input (`SequenceAt`, `SequenceInsert`, `SequenceErase`): a constant int32 or
    /// int64 scalar in `-count...last` (negative counts from the end), as an index from the
    /// front; nil when the input is absent.
    func position(ofInput index: Int, count: Int, last: Int) throws(ModelError) -> Int? {
        guard let tensor = try constant(index, "position") else { return nil }
        guard tensor.type == .int32 || tensor.type == .int64, tensor.shape.isEmpty, let value = tensor.integers?.first else {
            throw error(.malformed, "input \(index) ('position') must be an int32 or int64 scalar, got \(tensor.type) \(tensor.shape)")
        }
        guard value >= Int64(-count), value <= Int64(last) else {
            throw error(.invalidValue, "position \(value) is outside \(-count)...\(last) for a sequence of \(count) tensors")
        }
        return value < 0 ? Int(value) + count : Int(value)
    }

    /// A tensor node of the rewrite, named as this node (so its errors name it), reading
    /// `inputs` and writing `outputs`.
    func tensorNode(_ opType: String, inputs: [String], outputs: [String], attributes: [AttributeProto] = []) -> NodeProto {
        var rewritten = NodeProto()
        rewritten.name = displayName
        rewritten.opType = opType
        rewritten.inputs = inputs
        rewritten.outputs = outputs
        rewritten.attributes = attributes
        return rewritten
    }

    /// A name for a value of this node's rewrite, derived from its first output.
    func helperName(_ role: String) -> String { "\(node.outputs.first ?? displayName)::\(role)" }
}

extension AttributeProto {
    /// An INT attribute.
    static func int(_ name: String, _ value: Int) -> AttributeProto {
        var attribute = AttributeProto()
        attribute.name = name
        attribute.type = .int
        attribute.i = Int64(value)
        return attribute
    }
}

extension AttributeProto {
    /// An INTS attribute.
    static func ints(_ name: String, _ values: [Int]) -> AttributeProto {
        var attribute = AttributeProto()
        attribute.name = name
        attribute.type = .ints
        attribute.ints = values.map(Int64.init)
        return attribute
    }
}
