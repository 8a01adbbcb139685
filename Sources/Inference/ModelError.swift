/// Why a model could not be loaded, planned or run.
///
/// The message names the node, its operator and the attribute when they apply, so one line tells
/// a user what to fix: `node 'conv2d_3' (Conv), attribute 'strides': expected 2 values, got 3`.
///
/// Loading checks the whole graph before it gives up: a model with several nodes that cannot run
/// gets one error listing every one of them (`problems`), each with its node, op, domain, opset
/// and reason; the error's own fields are those of the first.
package struct ModelError: Error, CustomStringConvertible, Sendable {
    /// The category of failure; the SDK maps `fileNotFound` to "model not found" and the others
    /// to "session failed".
    package enum Kind: Sendable, Equatable {
        /// No file at the path.
        case fileNotFound(path: String)
        /// A file exists but cannot be read (a directory, no permission, ...).
        case unreadable(path: String)
        /// The bytes are not a well-formed ONNX model (protobuf errors, missing graph, bad tensors).
        case malformed
        /// Valid ONNX that this engine does not implement (op, attribute value, type, opset).
        case unsupported
        /// Shapes that disagree, or a tensor with more than 2^31 elements.
        case invalidShape
        /// A value that cannot be used, such as NaN or infinity in an initializer.
        case invalidValue
        /// A graph that is not a DAG over defined values (dangling input, cycle, duplicate name).
        case invalidGraph
        /// Run-time input that does not match the model (wrong size, unknown name).
        case invalidInput
    }

    package var kind: Kind
    /// What went wrong, without the node/op/attribute prefix.
    package var message: String
    /// The node's name (or its first output's name when the node is unnamed).
    package var node: String?
    /// The node's operator type.
    package var op: String?
    /// The attribute concerned.
    package var attribute: String?
    /// The domain of the node's operator as the model writes it (`""` is the default ONNX domain,
    /// also written `ai.onnx`); set by the loader on every node's problem.
    package var domain: String?
    /// The version of `domain` the model imports (for the default domain: the model's opset); nil
    /// when the model does not import that domain, or the problem is not a node's.
    package var opset: Int?
    /// Every problem loading found, when it found more than one: graph inputs that cannot be bound
    /// first, then the nodes that cannot run in the order the model lists them, then graph outputs. Each is an
    /// error of its own (its `problems` empty); this error's other fields are those of the first.
    /// Empty when there was one problem (this error is it).
    package var problems: [ModelError] = []
    /// Nodes that were not checked because they read a value that a node with a problem (or a
    /// graph input that could not be bound) should have computed: they may have problems too.
    package var uncheckedNodeCount = 0
    /// The value a node needed as a plan-time constant but found computed at run time (lets the
    /// loader compute it from graph inputs offered at plan time, and build the node again).
    var constantValue: String?

    /// Whether the failure is a node needing, as a plan-time constant, a value computed from a
    /// graph input: planning again with that input's value offered may succeed.
    package var needsPlanTimeValue: Bool { constantValue != nil }

    package init(_ kind: Kind, _ message: String, node: String? = nil, op: String? = nil, attribute: String? = nil) {
        self.kind = kind
        self.message = message
        self.node = node
        self.op = op
        self.attribute = attribute
    }

    /// One error for `problems` (at least one), found by one pass over a model.
    package init(collecting problems: [ModelError], uncheckedNodeCount: Int = 0) {
        precondition(!problems.isEmpty, "an error needs at least one problem")
        self = problems[0]
        self.problems = problems.count > 1 ? problems : []
        self.uncheckedNodeCount = uncheckedNodeCount
    }

    /// Each problem, one per entry: `problems`, or this error alone.
    package var allProblems: [ModelError] { problems.isEmpty ? [self] : problems }

    /// One line: `node 'N' (Op), attribute 'A': message`.
    package var description: String {
        switch kind {
        case let .fileNotFound(path): return "model not found: \(path)"
        case let .unreadable(path): return "model cannot be read: \(path): \(message)"
        default: break
        }
        guard problems.count > 1 else { return line(withDomain: false) + uncheckedNote }
        let nodeCount = problems.filter { $0.node != nil }.count
        let header = nodeCount == problems.count ? "\(nodeCount) nodes cannot run:" : "\(problems.count) problems stop the model from loading:"
        return ([header] + problems.map { "  " + $0.line(withDomain: true) }).joined(separator: "\n") + uncheckedNote
    }

    /// This problem alone on one line, its op's domain and opset included:
    /// `node 'N' (Op, ai.onnx opset 13), attribute 'A': message` (how `description` lists each of
    /// several problems).
    package var detailedDescription: String { line(withDomain: true) }

    /// `node 'N' (Op[, domain opset V]), attribute 'A': message`.
    private func line(withDomain: Bool) -> String {
        var location: [String] = []
        if let node {
            var operatorText = op ?? ""
            // The default domain is named only where asked; any other domain always.
            if let domain, withDomain || !(domain.isEmpty || domain == "ai.onnx") {
                let version = opset.map { " opset \($0)" } ?? " (not imported)"
                operatorText += (operatorText.isEmpty ? "" : ", ") + (domain.isEmpty ? "ai.onnx" : domain) + version
            }
            location.append("node '\(node)'" + (operatorText.isEmpty ? "" : " (\(operatorText))"))
        } else if let op {
            location.append(op)
        }
        if let attribute { location.append("attribute '\(attribute)'") }
        return (location.isEmpty ? "" : location.joined(separator: ", ") + ": ") + message
    }

    private var uncheckedNote: String {
        guard uncheckedNodeCount > 0 else { return "" }
        let nodes = uncheckedNodeCount == 1 ? "1 more node depends on" : "\(uncheckedNodeCount) more nodes depend on"
        return problems.count > 1 ? "\n  (\(nodes) these and \(uncheckedNodeCount == 1 ? "was" : "were") not checked)"
            : " (\(nodes) it and \(uncheckedNodeCount == 1 ? "was" : "were") not checked)"
    }
}
