import Inference

/// Why a model could not be loaded, or a run could not be done.
///
/// The description names where the problem is, so one line tells the user what to fix:
/// `node 'conv2d_3' (Conv), attribute 'strides': expected 2 values, got 3`, or
/// `input 'x' axis 1: the model needs 3, the tensor has 4`. A model with several nodes that
/// cannot run lists each of them in ``problems``.
public struct InferenceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The category of failure.
    public enum Kind: Sendable, Hashable {
        /// No file at the path.
        case fileNotFound
        /// A file exists but cannot be read (a directory, no permission, an I/O error).
        case unreadable
        /// The bytes are not a well-formed ONNX model.
        case malformed
        /// Valid ONNX that this engine does not implement: an op, an attribute value, a type, an opset.
        case unsupported
        /// Shapes that disagree, or a tensor too large to plan.
        case invalidShape
        /// A value that cannot be used, such as NaN or infinity in a weight.
        case invalidValue
        /// A graph that is not a DAG over defined values (a dangling input, a cycle, a duplicate name).
        case invalidGraph
        /// Inputs or options that do not match the model: a missing or unknown name, a wrong
        /// element type or shape.
        case invalidInput
    }

    public let kind: Kind
    /// What went wrong, without the location.
    public let message: String
    /// The file, for `fileNotFound` and `unreadable`.
    public let path: String?
    /// The node's name (its first output's name when it has none).
    public let node: String?
    /// The node's operator type.
    public let op: String?
    /// The domain of the node's operator as the model writes it (`""` is the default ONNX
    /// domain); nil when the problem is not a node's.
    public let domain: String?
    /// The version of `domain` the model imports, when it imports it.
    public let opset: Int?
    /// The attribute concerned.
    public let attribute: String?
    /// The graph input or output concerned.
    public let input: String?
    /// The axis of `input` concerned.
    public let axis: Int?
    /// Every problem found when there is more than one (each node that cannot run, say), this
    /// error's own first; empty otherwise.
    public let problems: [InferenceError]
    /// The engine's own wording, when the engine found the problem.
    private let engineDescription: String?
    /// The engine's line for each problem with the op's domain and opset, when it found them.
    private let engineProblemLines: [String]
    /// Nodes that depend on the problems and were not checked (not counted as problems).
    package let uncheckedNodeCount: Int
    /// Planning failed only because a node needs the value of a graph input (a shape or scales
    /// fed at run time), which a run brings.
    let needsInputValue: Bool

    init(_ kind: Kind, _ message: String, path: String? = nil, node: String? = nil, op: String? = nil,
         domain: String? = nil, opset: Int? = nil, attribute: String? = nil, input: String? = nil, axis: Int? = nil,
         problems: [InferenceError] = [], needsInputValue: Bool = false, engineDescription: String? = nil,
         engineProblemLines: [String] = [], uncheckedNodeCount: Int = 0) {
        self.kind = kind
        self.message = message
        self.path = path
        self.node = node
        self.op = op
        self.domain = domain
        self.opset = opset
        self.attribute = attribute
        self.input = input
        self.axis = axis
        self.problems = problems
        self.needsInputValue = needsInputValue
        self.engineDescription = engineDescription
        self.engineProblemLines = engineProblemLines
        self.uncheckedNodeCount = uncheckedNodeCount
    }

    /// Each problem on one line (``problems``, or this error alone), naming the op's domain and
    /// opset where the engine knows them: `vbg inspect`'s list.
    package var detailedProblemLines: [String] {
        engineProblemLines.isEmpty ? (problems.isEmpty ? [self] : problems).map(\.description) : engineProblemLines
    }

    /// This error as thrown to the caller (without the planning detail).
    var withoutCause: InferenceError {
        InferenceError(kind, message, path: path, node: node, op: op, domain: domain, opset: opset, attribute: attribute,
                       input: input, axis: axis, problems: problems, engineDescription: engineDescription,
                       engineProblemLines: engineProblemLines, uncheckedNodeCount: uncheckedNodeCount)
    }

    init(_ error: ModelError, needsInputValue: Bool = false) {
        let kind: Kind, path: String?
        switch error.kind {
        case let .fileNotFound(file): (kind, path) = (.fileNotFound, file)
        case let .unreadable(file): (kind, path) = (.unreadable, file)
        case .malformed: (kind, path) = (.malformed, nil)
        case .unsupported: (kind, path) = (.unsupported, nil)
        case .invalidShape: (kind, path) = (.invalidShape, nil)
        case .invalidValue: (kind, path) = (.invalidValue, nil)
        case .invalidGraph: (kind, path) = (.invalidGraph, nil)
        case .invalidInput: (kind, path) = (.invalidInput, nil)
        }
        self.init(kind, error.message, path: path, node: error.node, op: error.op, domain: error.domain, opset: error.opset,
                  attribute: error.attribute, problems: error.problems.map { InferenceError($0) },
                  needsInputValue: needsInputValue, engineDescription: error.description,
                  engineProblemLines: error.allProblems.map(\.detailedDescription), uncheckedNodeCount: error.uncheckedNodeCount)
    }

    public var description: String {
        if let engineDescription { return engineDescription }
        var location: [String] = []
        if let node { location.append("node '\(node)'" + (op.map { " (\($0))" } ?? "")) } else if let op { location.append(op) }
        if let attribute { location.append("attribute '\(attribute)'") }
        if let input { location.append("'\(input)'" + (axis.map { " axis \($0)" } ?? "")) }
        let prefix = location.isEmpty ? "" : location.joined(separator: ", ") + ": "
        let head: String
        switch kind {
        case .fileNotFound: head = "model not found: \(path ?? "?")"
        case .unreadable: head = "model cannot be read: \(path ?? "?"): \(message)"
        default: head = prefix + message
        }
        guard problems.count > 1 else { return head }
        return "\(problems.count) problems:\n" + problems.map { "  " + $0.description }.joined(separator: "\n")
    }
}
