/// Why a model could not be loaded, planned or run.
///
/// The message names the node, its operator and the attribute when they apply, so one line tells
/// a user what to fix: `node 'conv2d_3' (Conv), attribute 'strides': expected 2 values, got 3`.
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
    /// The value a node needed as a plan-time constant but found computed at run time (lets the
    /// loader fix a graph input offered at plan time, then load again).
    var constantValue: String?

    package init(_ kind: Kind, _ message: String, node: String? = nil, op: String? = nil, attribute: String? = nil) {
        self.kind = kind
        self.message = message
        self.node = node
        self.op = op
        self.attribute = attribute
    }

    package var description: String {
        var location: [String] = []
        if let node { location.append("node '\(node)'" + (op.map { " (\($0))" } ?? "")) } else if let op { location.append(op) }
        if let attribute { location.append("attribute '\(attribute)'") }
        let prefix = location.isEmpty ? "" : location.joined(separator: ", ") + ": "
        switch kind {
        case let .fileNotFound(path): return "model not found: \(path)"
        case let .unreadable(path): return "model cannot be read: \(path): \(message)"
        default: return prefix + message
        }
    }
}
