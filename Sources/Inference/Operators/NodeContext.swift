import ONNXFormat

/// What an operator builder knows about its node: the attributes, and for each input whether it
/// is absent, computed at run time (with its shape), constant (with its value), or a sequence or
/// optional value or a string tensor (`PlanTimeSequence`, `PlanTimeOptional`, `StringTensor`:
/// only the operators of `Operators/PlanTimeValues` take those; every tensor accessor here refuses
/// them, naming the input).
///
/// The attribute helpers check types, counts and ranges, and every error they throw names the
/// node, the op and the attribute.
struct NodeContext {
    enum Input {
        case absent
        case runtime(shape: [Int], type: ElementType)
        case constant(ConstantTensor)
        case sequence(PlanTimeSequence)
        case optional(PlanTimeOptional)
        case strings(StringTensor)
    }

    let node: NodeProto
    /// The version of the op's definition that the model's opset selects: the newest
    /// `since_version` at or below the opset, taken back past definitions that only added element
    /// types (so it is at most 21, but for `OperatorRegistry.implementedNewerDefinitions`).
    /// Builders branch on it where the semantics changed.
    let opVersion: Int
    /// One entry per `node.inputs` element.
    let inputs: [Input]

    /// The node's name for messages: its own, or its first output's when it has none.
    var displayName: String { node.name.isEmpty ? (node.outputs.first ?? "?") : node.name }

    func error(_ kind: ModelError.Kind, _ message: String, attribute: String? = nil) -> ModelError {
        ModelError(kind, message, node: displayName, op: node.opType, attribute: attribute)
    }

    // MARK: - Attributes

    /// Rejects attributes the builder does not know, so an unsupported option is never ignored.
    func checkAttributes(_ known: Set<String>) throws(ModelError) {
        for attribute in node.attributes where !known.contains(attribute.name) {
            throw error(.unsupported, "attribute is not supported by this engine", attribute: attribute.name)
        }
    }

    func attribute(_ name: String) -> AttributeProto? { node.attributes.last { $0.name == name } }

    private func check(_ attribute: AttributeProto, is type: AttributeProto.AttributeType) throws(ModelError) {
        guard attribute.type == type || attribute.type == .undefined else {
            throw error(.malformed, "expected a value of type \(type), got \(attribute.type)", attribute: attribute.name)
        }
    }

    /// An INT attribute within `range`, or `defaultValue` when absent.
    func int(_ name: String, default defaultValue: Int, in range: ClosedRange<Int> = -(1 << 40)...(1 << 40)) throws(ModelError) -> Int {
        guard let attribute = attribute(name) else { return defaultValue }
        try check(attribute, is: .int)
        guard attribute.i >= Int64(range.lowerBound), attribute.i <= Int64(range.upperBound) else {
            throw error(.unsupported, "value \(attribute.i) is outside \(range.lowerBound)...\(range.upperBound)", attribute: name)
        }
        return Int(attribute.i)
    }

    /// A FLOAT attribute, or `defaultValue` when absent; it must be finite.
    func float(_ name: String, default defaultValue: Float) throws(ModelError) -> Float {
        guard let attribute = attribute(name) else { return defaultValue }
        try check(attribute, is: .float)
        guard attribute.f.isFinite else { throw error(.invalidValue, "value \(attribute.f) is not finite", attribute: name) }
        return attribute.f
    }

    /// A STRING attribute, or `defaultValue` when absent.
    func string(_ name: String, default defaultValue: String) throws(ModelError) -> String {
        guard let attribute = attribute(name) else { return defaultValue }
        try check(attribute, is: .string)
        return String(decoding: attribute.s, as: UTF8.self)
    }

    /// A STRING attribute that must be one of `choices`.
    func choice(_ name: String, _ choices: [String], default defaultValue: String) throws(ModelError) -> String {
        let value = try string(name, default: defaultValue)
        guard choices.contains(value) else {
            throw error(.unsupported, "value '\(value)' is not supported (supported: \(choices.joined(separator: ", ")))", attribute: name)
        }
        return value
    }

    /// An INTS attribute, or nil when absent; with `count`, it must have exactly that many
    /// values; every value must lie in `range`.
    func ints(_ name: String, count: Int? = nil, in range: ClosedRange<Int> = -(1 << 40)...(1 << 40)) throws(ModelError) -> [Int]? {
        guard let attribute = attribute(name) else { return nil }
        try check(attribute, is: .ints)
        if let count, attribute.ints.count != count {
            throw error(.invalidShape, "expected \(count) values, got \(attribute.ints.count)", attribute: name)
        }
        for value in attribute.ints where value < Int64(range.lowerBound) || value > Int64(range.upperBound) {
            throw error(.unsupported, "value \(value) is outside \(range.lowerBound)...\(range.upperBound)", attribute: name)
        }
        return attribute.ints.map { Int($0) }
    }

    // MARK: - Inputs

    /// Whether input `index` exists and is not the empty name.
    func hasInput(_ index: Int) -> Bool {
        guard index < inputs.count else { return false }
        if case .absent = inputs[index] { return false }
        return true
    }

    /// The shape of a required input.
    func shape(ofInput index: Int) throws(ModelError) -> [Int] {
        guard index < inputs.count else { throw error(.malformed, "input \(index) is required but the node has \(inputs.count)") }
        switch inputs[index] {
        case .absent: throw error(.malformed, "input \(index) is required but empty")
        case let .runtime(shape, _): return shape
        case let .constant(tensor): return tensor.shape
        case .sequence, .optional, .strings: throw notATensor(index)
        }
    }

    /// The element type of a required input.
    func type(ofInput index: Int) throws(ModelError) -> ElementType {
        guard index < inputs.count else { throw error(.malformed, "input \(index) is required but the node has \(inputs.count)") }
        switch inputs[index] {
        case .absent: throw error(.malformed, "input \(index) is required but empty")
        case let .runtime(_, type): return type
        case let .constant(tensor): return tensor.type
        case .sequence, .optional, .strings: throw notATensor(index)
        }
    }

    /// The constant value of input `index`, or nil when it is absent.
    ///
    /// - Throws: when the input is computed at run time; the error names the value, so a graph
    ///   input offered at plan time can be fixed (see `InferenceModel(bytes:inputShapes:planTimeInputs:)`).
    func constant(_ index: Int, _ role: String) throws(ModelError) -> ConstantTensor? {
        guard hasInput(index) else { return nil }
        switch inputs[index] {
        case .sequence, .optional, .strings: throw notATensor(index)
        default: break
        }
        guard case let .constant(tensor) = inputs[index] else {
            var failure = error(.unsupported, "input \(index) ('\(role)') must be a constant (an initializer or Constant node)")
            failure.constantValue = node.inputs[index]
            throw failure
        }
        return tensor
    }

    /// The error for a sequence, an optional or a string tensor given where the operator takes a
    /// tensor of numbers.
    func notATensor(_ index: Int) -> ModelError {
        let kind = switch inputs[index] {
        case .sequence: "a sequence value"
        case .optional: "an optional value"
        default: "a string tensor"
        }
        return error(.unsupported, "input \(index) ('\(node.inputs[index])') is \(kind); this operator takes a tensor of numbers")
    }

    /// Requires input `index` to have one of `types`; the error names the input and its type.
    func requireType(ofInput index: Int, in types: Set<ElementType>) throws(ModelError) -> ElementType {
        let type = try type(ofInput: index)
        guard types.contains(type) else {
            throw error(.unsupported, "input \(index) ('\(node.inputs[index])') has element type \(type); supported: \(types.map { $0.description }.sorted().joined(separator: ", "))")
        }
        return type
    }

    /// Checks that the node has between `minimum` and `maximum` inputs and exactly `outputs` outputs
    /// (outputs beyond what the engine computes are unsupported).
    func checkArity(inputs minimum: Int, _ maximum: Int, outputs: Int = 1) throws(ModelError) {
        guard node.inputs.count >= minimum, node.inputs.count <= maximum else {
            throw error(.malformed, "expected \(minimum == maximum ? "\(minimum)" : "\(minimum) to \(maximum)") inputs, got \(node.inputs.count)")
        }
        for index in 0..<minimum where !hasInput(index) {
            throw error(.malformed, "input \(index) is required but empty")
        }
        guard node.outputs.count == outputs else {
            if node.outputs.count > outputs {
                throw error(.unsupported, "only \(outputs) output(s) are supported, the node has \(node.outputs.count)")
            }
            throw error(.malformed, "expected \(outputs) output(s), got \(node.outputs.count)")
        }
    }

    /// The value of a constant integer input (a shape, axes, sizes), or nil when absent.
    func constantIntegers(_ index: Int, _ role: String) throws(ModelError) -> [Int64]? {
        guard let tensor = try constant(index, role) else { return nil }
        guard let values = tensor.integers else { throw error(.malformed, "input \(index) ('\(role)') must hold integers") }
        return values
    }

    /// The value of a constant float input (scales, clip bounds), or nil when absent.
    func constantFloats(_ index: Int, _ role: String) throws(ModelError) -> [Float]? {
        guard let tensor = try constant(index, role) else { return nil }
        guard let values = tensor.floats else { throw error(.malformed, "input \(index) ('\(role)') must hold floats") }
        return values
    }

    /// Normalises an axis in `-rank..<rank` to `0..<rank`.
    func axis(_ value: Int, rank: Int, attribute: String? = nil) throws(ModelError) -> Int {
        guard value >= -rank, value < rank else {
            throw error(.invalidShape, "axis \(value) is out of range for rank \(rank)", attribute: attribute)
        }
        return value < 0 ? value + rank : value
    }
}
