import ONNXFormat

/// The definitions of opsets 1–6 that differ from the ones opset 7 selects, each rewritten into
/// nodes of the opset-7 definitions that compute the same, so the builders implement opsets 7+
/// only.
///
/// What each old definition becomes (every other one is the same as at opset 7):
/// - `consumed_inputs` (a legacy in-place hint, version 1 of many ops): dropped.
/// - `broadcast` / `axis` on Add, Sub, Mul, Div, Pow, And, Or, Xor, Equal, Greater, Less (before
///   7): with `broadcast` = 0 the shapes must be equal; with 1, B is broadcast to A's shape,
///   its dimensions aligned with A's from `axis` (suffix-aligned when `axis` is absent), each
///   equal to A's or 1: B is reshaped with trailing 1s, then broadcast as numpy does.
/// - Gemm's `broadcast` (before 7): with 1, C broadcasts to `[M, N]` (as from 7); with 0, C must
///   be `[M, N]`.
/// - PRelu before 7: a 1-D slope of length C = x's dimension 1 is per channel (reshaped to
///   `[C, 1, …]`); a slope of one element or of x's shape is elementwise.
/// - BatchNormalization and Dropout before 7: `is_test` must be 1 (inference; 0 means training,
///   refused), and is dropped (a Dropout with ratio 0 is inference either way).
/// - Cast-1: `to` as a string (a TensorProto.DataType name) becomes the type's number.
/// - Concat-1: `axis` defaults to 1. Selu-1: its own `alpha` / `gamma` defaults.
/// - LpPool-1 / GlobalLpPool-1: the float `p` must be a whole number, and becomes an int.
/// - Pad-1: `paddings` is `pads`. Reshape-1: the `shape` attribute becomes the shape input.
/// - Split-1: an optional second input (constant) is `split`; `axis` has no default and must be given.
/// - Tile-1: inputs `tiles` and `axis` (constant scalars) become the `repeats` input.
/// - Upsample-1: `height_scale` / `width_scale` on a 4-D input become `scales`
///   `[1, 1, height_scale, width_scale]`; mode `bilinear` is `linear`.
enum LegacyDefinitions {
    /// A node rewritten for opset 7: constants it needs (new names), then its nodes in order.
    struct Upgrade {
        var constants: [(name: String, value: ConstantTensor)] = []
        var nodes: [NodeProto] = []
    }

    /// The opset whose definitions the rewritten nodes use.
    static let targetOpset = 7

    /// The ops whose version-1 definition has `consumed_inputs`.
    static let consumedInputsOps: Set<String> = [
        "Abs", "Add", "BatchNormalization", "Ceil", "Clip", "Div", "Dropout", "Elu", "Exp", "Floor", "HardSigmoid",
        "InstanceNormalization", "LeakyRelu", "Log", "Max", "Mean", "Min", "Mul", "Neg", "PRelu", "Reciprocal", "Relu",
        "Reshape", "Selu", "Sigmoid", "Sqrt", "Sub", "Sum", "Tanh",
    ]

    static let oldBroadcastOps: Set<String> = ["Add", "Sub", "Mul", "Div", "Pow", "And", "Or", "Xor", "Equal", "Greater", "Less"]

    /// The rewrite of `context`'s node, or nil when its definition is the one opset 7 selects.
    ///
    /// - Throws: `ModelError` naming the node, op and attribute when the old definition's use is
    ///   unsupported (training mode) or malformed.
    static func upgrade(_ context: NodeContext) throws(ModelError) -> Upgrade? {
        var node = context.node
        guard let current = OperatorVersions.sinceVersions[node.opType]?.last(where: { $0 <= targetOpset }),
              context.opVersion < current else { return nil }
        if context.opVersion == 1, consumedInputsOps.contains(node.opType) { node.remove("consumed_inputs") }
        var upgrade = Upgrade()
        switch node.opType {
        case let op where oldBroadcastOps.contains(op):
            try broadcastB(context, &node, &upgrade)
        case "Gemm":
            let broadcast = try context.int("broadcast", default: 0, in: 0...1)
            node.remove("broadcast")
            if broadcast == 0, context.hasInput(2) {
                let a = try context.shape(ofInput: 0), b = try context.shape(ofInput: 1), c = try context.shape(ofInput: 2)
                let transA = try context.int("transA", default: 0, in: 0...1) == 1
                let transB = try context.int("transB", default: 0, in: 0...1) == 1
                if a.count == 2, b.count == 2 {
                    let expected = [transA ? a[1] : a[0], transB ? b[0] : b[1]]
                    guard c == expected else {
                        throw context.error(.invalidShape, "C has shape \(c), not \(expected), and broadcast is 0", attribute: "broadcast")
                    }
                }
            }
        case "PRelu":
            let x = try context.shape(ofInput: 0), slope = try context.shape(ofInput: 1)
            let count = slope.reduce(1, *)
            if count != 1, slope != x {
                guard slope.count == 1, x.count >= 2, slope[0] == x[1] else {
                    throw context.error(.invalidShape, "slope of shape \(slope) is neither one value, per channel (\(x.count >= 2 ? x[1] : 0)) nor x's shape \(x)")
                }
                if x.count > 2 { try reshape(&node, input: 1, to: [x[1]] + Array(repeating: 1, count: x.count - 2), &upgrade) }
            }
        case "BatchNormalization", "Dropout":
            let isTest = try context.int("is_test", default: 0)
            node.remove("is_test")
            let inert = node.opType == "Dropout" ? try context.float("ratio", default: 0.5) == 0 : false
            if isTest == 0, !inert {
                throw context.error(.unsupported, "training mode (is_test = 0) is not supported; only inference (is_test = 1)", attribute: "is_test")
            }
        case "Cast":
            guard let attribute = context.attribute("to"), attribute.type == .string else { break }
            let name = String(decoding: attribute.s, as: UTF8.self)
            guard let code = castTypeNames[name.uppercased()] else {
                throw context.error(.unsupported, "type '\(name)' is not a TensorProto data type this engine casts to", attribute: "to")
            }
            node.set("to", int: code)
        case "Concat":
            if context.attribute("axis") == nil { node.set("axis", int: 1) }
        case "Selu":
            if context.attribute("alpha") == nil { node.set("alpha", float: 1.6732) }
            if context.attribute("gamma") == nil { node.set("gamma", float: 1.0507) }
        case "LpPool", "GlobalLpPool":
            let p = try context.float("p", default: 2)
            guard p == p.rounded(), p >= 1, p <= 1_048_576 else {
                throw context.error(.unsupported, "p = \(p) is not a whole number ≥ 1", attribute: "p")
            }
            node.set("p", int: Int64(p))
        case "Pad":
            if let attribute = context.attribute("paddings") {
                guard context.attribute("pads") == nil else { throw context.error(.malformed, "both paddings and pads are given", attribute: "paddings") }
                node.remove("paddings")
                node.set("pads", ints: attribute.ints)
            }
        case "Reshape":
            guard node.inputs.count == 1 else {
                throw context.error(.malformed, "Reshape-1 takes the shape as an attribute, not an input")
            }
            guard let shape = try context.ints("shape") else { throw context.error(.malformed, "is required", attribute: "shape") }
            node.remove("shape")
            let name = helperName(node, "shape")
            upgrade.constants.append((name, ConstantTensor(shape: [shape.count], integers: shape.map(Int64.init))))
            node.inputs.append(name)
        case "Split":
            guard context.attribute("axis") != nil else {
                throw context.error(.unsupported, "Split-1 without axis is not supported (it has no default)", attribute: "axis")
            }
            if node.inputs.count >= 2 {
                if let split = try context.constantIntegers(1, "split") {
                    guard context.attribute("split") == nil else {
                        throw context.error(.malformed, "split is given both as an input and as an attribute", attribute: "split")
                    }
                    node.set("split", ints: split)
                }
                node.inputs.removeSubrange(1...)
            }
        case "Tile":
            try context.checkArity(inputs: 3, 3)
            guard let tiles = try context.constantIntegers(1, "tiles"), tiles.count == 1,
                  let axis = try context.constantIntegers(2, "axis"), axis.count == 1 else {
                throw context.error(.malformed, "Tile-1's tiles and axis must be one integer each")
            }
            let rank = try context.shape(ofInput: 0).count
            let dimension = try context.axis(Int(axis[0]), rank: rank)
            var repeats = [Int64](repeating: 1, count: rank)
            repeats[dimension] = tiles[0]
            let name = helperName(node, "repeats")
            upgrade.constants.append((name, ConstantTensor(shape: [rank], integers: repeats)))
            node.inputs = [node.inputs[0], name]
        case "Upsample":
            let x = try context.shape(ofInput: 0)
            guard x.count == 4 else { throw context.error(.invalidShape, "Upsample-1 takes a 4-D input, got \(x)") }
            guard context.attribute("height_scale") != nil, context.attribute("width_scale") != nil else {
                throw context.error(.malformed, "height_scale and width_scale are required", attribute: "height_scale")
            }
            let height = try context.float("height_scale", default: 1), width = try context.float("width_scale", default: 1)
            let mode = try context.choice("mode", ["nearest", "bilinear"], default: "nearest")
            node.remove("height_scale")
            node.remove("width_scale")
            node.set("mode", string: mode == "bilinear" ? "linear" : "nearest")
            node.set("scales", floats: [1, 1, height, width])
        default:
            break
        }
        upgrade.nodes.append(node)
        return upgrade
    }

    /// Old-style broadcasting of input 1 to input 0 (`broadcast`, `axis`).
    private static func broadcastB(_ context: NodeContext, _ node: inout NodeProto, _ upgrade: inout Upgrade) throws(ModelError) {
        let broadcast = try context.int("broadcast", default: 0, in: 0...1)
        let axisGiven = context.attribute("axis") != nil
        node.remove("broadcast")
        node.remove("axis")
        guard context.node.inputs.count == 2 else { return }  // the builder reports the arity
        let a = try context.shape(ofInput: 0), b = try context.shape(ofInput: 1)
        guard broadcast == 1 else {
            guard a == b else {
                throw context.error(.invalidShape, "shapes \(a) and \(b) differ and broadcast is 0", attribute: "broadcast")
            }
            guard !axisGiven else { throw context.error(.malformed, "axis is given without broadcast = 1", attribute: "axis") }
            return
        }
        let axis = try context.int("axis", default: a.count - b.count)
        let start = axis < 0 ? axis + a.count : axis
        guard start >= 0, start + b.count <= a.count,
              b.indices.allSatisfy({ b[$0] == a[start + $0] || b[$0] == 1 }) else {
            throw context.error(.invalidShape, "B of shape \(b) does not broadcast to A of shape \(a) from axis \(axis)",
                                attribute: axisGiven ? "axis" : "broadcast")
        }
        let trailing = a.count - start - b.count
        if trailing > 0 { try reshape(&node, input: 1, to: b + Array(repeating: 1, count: trailing), &upgrade) }
    }

    /// Routes `node`'s input `input` through a Reshape to `shape` (same elements).
    private static func reshape(_ node: inout NodeProto, input: Int, to shape: [Int], _ upgrade: inout Upgrade) throws(ModelError) {
        let shapeName = helperName(node, "shape\(input)"), reshaped = helperName(node, "input\(input)")
        upgrade.constants.append((shapeName, ConstantTensor(shape: [shape.count], integers: shape.map(Int64.init))))
        var reshape = NodeProto()
        reshape.name = node.name.isEmpty ? reshaped : node.name
        reshape.opType = "Reshape"
        reshape.inputs = [node.inputs[input], shapeName]
        reshape.outputs = [reshaped]
        upgrade.nodes.append(reshape)
        node.inputs[input] = reshaped
    }

    /// A value name for a helper of `node`'s rewrite, derived from its first output.
    private static func helperName(_ node: NodeProto, _ role: String) -> String {
        "\(node.outputs.first ?? node.name)::opset7-\(role)"
    }

    /// TensorProto.DataType names Cast-1 may give as `to`, with their numbers.
    static let castTypeNames: [String: Int64] = [
        "FLOAT": 1, "UINT8": 2, "INT8": 3, "UINT16": 4, "INT16": 5, "INT32": 6, "INT64": 7, "STRING": 8, "BOOL": 9,
        "FLOAT16": 10, "DOUBLE": 11, "UINT32": 12, "UINT64": 13,
    ]
}

extension NodeProto {
    fileprivate mutating func remove(_ name: String) { attributes.removeAll { $0.name == name } }

    fileprivate mutating func set(_ name: String, _ fill: (inout AttributeProto) -> Void) {
        remove(name)
        var attribute = AttributeProto()
        attribute.name = name
        fill(&attribute)
        attributes.append(attribute)
    }

    fileprivate mutating func set(_ name: String, int value: Int64) { set(name) { $0.type = .int; $0.i = value } }
    fileprivate mutating func set(_ name: String, float value: Float) { set(name) { $0.type = .float; $0.f = value } }
    fileprivate mutating func set(_ name: String, ints value: [Int64]) { set(name) { $0.type = .ints; $0.ints = value } }
    fileprivate mutating func set(_ name: String, floats value: [Float]) { set(name) { $0.type = .floats; $0.floats = value } }
    fileprivate mutating func set(_ name: String, string value: String) { set(name) { $0.type = .string; $0.s = Array(value.utf8) } }
}
