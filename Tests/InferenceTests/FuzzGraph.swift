import TestSupport

extension SeededGenerator {
    /// A uniform float in [lower, upper).
    mutating func float(_ lower: Float, _ upper: Float) -> Float { Float.random(in: lower..<upper, using: &self) }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }

    /// The seed of case `index` of a run seeded with `base`: each case can be replayed alone.
    static func caseSeed(base: UInt64, index: Int) -> UInt64 {
        var mixer = SeededGenerator(seed: base ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
        return mixer.next()
    }
}

/// A small ONNX graph (opset 17 unless set, float32, batch 1) under construction, for the fusion fuzzer:
/// every op helper computes its output's shape, draws its weights from the graph's seeded
/// generator and adds one line to a readable listing, so a failing case prints what it ran.
struct FuzzGraph {
    typealias B = ONNXBuilder
    typealias Attribute = ONNXBuilder.Attribute

    var random: SeededGenerator
    var opset: Int64 = 17
    private(set) var nodes: [[UInt8]] = []
    private(set) var initializers: [[UInt8]] = []
    /// Graph inputs, in order.
    private(set) var inputs: [String] = []
    /// Graph outputs, in order (each named once).
    private(set) var outputs: [String] = []
    /// The shape of every value made so far (inputs, initializers, node outputs).
    private(set) var shapes: [String: [Int]] = [:]
    /// One line per graph input, node and output.
    private(set) var listing: [String] = []
    private var counter = 0

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    var bytes: [UInt8] {
        B.model(nodes: nodes, initializers: initializers,
                inputs: inputs.map { B.valueInfo($0, shapes[$0]!.map(Int64.init)) },
                outputs: outputs.map { B.valueInfo($0, shapes[$0]!.map(Int64.init)) }, opset: opset)
    }

    var description: String { ((opset == 17 ? [] : ["opset \(opset)"]) + listing).joined(separator: "\n") }

    mutating func fresh(_ prefix: String) -> String {
        counter += 1
        return "\(prefix)\(counter)"
    }

    /// A graph input of `shape`.
    mutating func input(_ shape: [Int]) -> String {
        let name = fresh("in")
        inputs.append(name)
        shapes[name] = shape
        listing.append("input \(name) \(shape)")
        return name
    }

    /// Makes `name` a graph output (once).
    mutating func output(_ name: String) {
        guard !outputs.contains(name) else { return }
        outputs.append(name)
        listing.append("output \(name) \(shapes[name]!)")
    }

    /// A float initializer of `shape` with the given values.
    mutating func constant(_ shape: [Int], _ values: [Float], prefix: String = "k") -> String {
        precondition(values.count == shape.reduce(1, *))
        let name = fresh(prefix)
        initializers.append(B.floatTensor(name, shape.map(Int64.init), values))
        shapes[name] = shape
        return name
    }

    /// A float initializer of `shape` uniform in [lower, upper).
    mutating func uniform(_ shape: [Int], _ lower: Float, _ upper: Float, prefix: String = "w") -> String {
        let values = (0..<shape.reduce(1, *)).map { _ in random.float(lower, upper) }
        return constant(shape, values, prefix: prefix)
    }

    mutating func int64s(_ values: [Int]) -> String {
        let name = fresh("i")
        initializers.append(B.int64Tensor(name, [Int64(values.count)], values.map(Int64.init)))
        shapes[name] = [values.count]
        return name
    }

    /// One node with one output of `shape`.
    @discardableResult
    mutating func node(_ op: String, _ inputs: [String], _ attributes: [Attribute] = [], shape: [Int],
                       note: String = "") -> String {
        let output = fresh(op.prefix(1).lowercased())
        nodes.append(B.node(op, inputs: inputs, outputs: [output], name: output, attributes: attributes))
        shapes[output] = shape
        listing.append("\(output) = \(op)(\(inputs.joined(separator: ", ")))\(attributes.isEmpty ? "" : " " + Self.describe(attributes))"
                       + "\(note.isEmpty ? "" : " " + note) → \(shape)")
        return output
    }

    static func describe(_ attributes: [Attribute]) -> String {
        attributes.map { attribute in
            switch attribute {
            case let .int(name, value): "\(name)=\(value)"
            case let .float(name, value): "\(name)=\(value)"
            case let .ints(name, values): "\(name)=\(values)"
            case let .floats(name, values): "\(name)=\(values)"
            case let .string(name, value): "\(name)=\(value)"
            case let .strings(name, values): "\(name)=\(values)"
            case let .tensor(name, _): "\(name)=<tensor>"
            }
        }.joined(separator: " ")
    }

    /// The first input of the node that produced `value` (from the listing).
    func inputOf(_ value: String) -> String {
        let line = listing.first { $0.hasPrefix("\(value) = ") }!
        return String(line.drop(while: { $0 != "(" }).dropFirst().prefix(while: { $0 != "," && $0 != ")" }))
    }

    /// The [C, H, W] of a [1, C, H, W] value.
    func planes(_ value: String) -> (c: Int, h: Int, w: Int)? {
        guard let shape = shapes[value], shape.count == 4, shape[0] == 1 else { return nil }
        return (shape[1], shape[2], shape[3])
    }
}

/// A convolution's attributes and weights.
struct ConvSpec: CustomStringConvertible {
    var outputChannels: Int
    var kernel: (h: Int, w: Int) = (1, 1)
    var stride: (h: Int, w: Int) = (1, 1)
    var dilation: (h: Int, w: Int) = (1, 1)
    /// top, left, bottom, right
    var pads: [Int] = [0, 0, 0, 0]
    var group = 1
    var bias = true
    /// An existing initializer to read as the weights (shared weights), or nil for new ones.
    var weights: String? = nil
    /// Taps kept only on every `lattice`-th row and column (a dilated filter written out with
    /// zeros), 1 for dense filters.
    var lattice = 1

    var description: String {
        "k\(kernel.h)x\(kernel.w) s\(stride.h)x\(stride.w) d\(dilation.h)x\(dilation.w) pads \(pads) g\(group) → \(outputChannels)"
    }

    /// The output length of one axis.
    static func outputLength(_ input: Int, kernel: Int, stride: Int, dilation: Int, before: Int, after: Int) -> Int {
        (input + before + after - dilation * (kernel - 1) - 1) / stride + 1
    }

    func outputSize(height: Int, width: Int) -> (h: Int, w: Int) {
        (Self.outputLength(height, kernel: kernel.h, stride: stride.h, dilation: dilation.h, before: pads[0], after: pads[2]),
         Self.outputLength(width, kernel: kernel.w, stride: stride.w, dilation: dilation.w, before: pads[1], after: pads[3]))
    }

    /// Whether every output axis has at least one element.
    func fits(height: Int, width: Int) -> Bool {
        height + pads[0] + pads[2] >= dilation.h * (kernel.h - 1) + 1 && width + pads[1] + pads[3] >= dilation.w * (kernel.w - 1) + 1
    }
}

/// The activations the fuzzer puts after producers: the ones kernels fuse and their near misses.
enum FuzzActivation: CustomStringConvertible {
    case relu
    case clip(Float?, Float?)
    case hardSwish
    case hardSigmoid(alpha: Float, beta: Float)
    case leakyRelu(Float)
    case sigmoid
    case tanh
    case prelu(perChannel: Bool)

    var description: String {
        switch self {
        case .relu: "Relu"
        case let .clip(lo, hi): "Clip(\(lo.map { "\($0)" } ?? "-"), \(hi.map { "\($0)" } ?? "-"))"
        case .hardSwish: "HardSwish"
        case let .hardSigmoid(alpha, beta): "HardSigmoid(\(alpha), \(beta))"
        case let .leakyRelu(alpha): "LeakyRelu(\(alpha))"
        case .sigmoid: "Sigmoid"
        case .tanh: "Tanh"
        case let .prelu(perChannel): "PRelu(\(perChannel ? "per channel" : "one slope"))"
        }
    }
}

extension FuzzGraph {
    /// Conv of the [1, C, H, W] value `x`; weights scaled so that outputs stay of the inputs' size.
    mutating func conv(_ x: String, _ spec: ConvSpec) -> String {
        let (c, h, w) = planes(x)!
        precondition(c % spec.group == 0 && spec.outputChannels % spec.group == 0 && spec.fits(height: h, width: w), "bad conv \(spec)")
        let perGroup = c / spec.group
        let fanIn = perGroup * spec.kernel.h * spec.kernel.w / (spec.lattice * spec.lattice)
        let bound = (3 / Float(max(fanIn, 1))).squareRoot()
        let weightShape = [spec.outputChannels, perGroup, spec.kernel.h, spec.kernel.w]
        let weights: String
        if let shared = spec.weights {
            precondition(shapes[shared] == weightShape, "shared weights of shape \(shapes[shared]!) for \(weightShape)")
            weights = shared
        } else {
            var values = (0..<weightShape.reduce(1, *)).map { _ in random.float(-bound, bound) }
            if spec.lattice > 1 {
                let (kh, kw) = spec.kernel
                for i in values.indices where (i % (kh * kw)) / kw % spec.lattice != 0 || i % kw % spec.lattice != 0 { values[i] = 0 }
            }
            weights = constant(weightShape, values)
        }
        var inputs = [x, weights]
        if spec.bias { inputs.append(uniform([spec.outputChannels], -0.5, 0.5, prefix: "b")) }
        let size = spec.outputSize(height: h, width: w)
        return node("Conv", inputs, [.ints("kernel_shape", [spec.kernel.h, spec.kernel.w].map(Int64.init)),
                                     .ints("strides", [spec.stride.h, spec.stride.w].map(Int64.init)),
                                     .ints("dilations", [spec.dilation.h, spec.dilation.w].map(Int64.init)),
                                     .ints("pads", spec.pads.map(Int64.init)), .int("group", Int64(spec.group))],
                    shape: [1, spec.outputChannels, size.h, size.w],
                    note: spec.weights != nil ? "(shared weights)" : spec.lattice > 1 ? "(taps on a lattice of \(spec.lattice))" : "")
    }

    /// BatchNormalization with constant parameters (variance positive), or parameters the graph
    /// takes as inputs (then the runner's inputs in [-1, 1) make the variance |v| + 0.5 through an Abs and an Add).
    mutating func batchNorm(_ x: String, epsilon: Float = 1e-5, parametersAsInputs: Bool = false) -> String {
        let c = shapes[x]![1]
        if parametersAsInputs {
            let variance = node("Add", [node("Abs", [input([c])], shape: [c]), constant([], [0.5])], shape: [c])
            return node("BatchNormalization", [x, input([c]), input([c]), input([c]), variance],
                        epsilon == 1e-5 ? [] : [.float("epsilon", epsilon)], shape: shapes[x]!)
        }
        let scale = uniform([c], 0.5, 1.5), bias = uniform([c], -0.5, 0.5)
        let mean = uniform([c], -0.3, 0.3), variance = uniform([c], 0.5, 1.5)
        return node("BatchNormalization", [x, scale, bias, mean, variance],
                    epsilon == 1e-5 ? [] : [.float("epsilon", epsilon)], shape: shapes[x]!)
    }

    mutating func activation(_ x: String, _ kind: FuzzActivation) -> String {
        let shape = shapes[x]!
        switch kind {
        case .relu: return node("Relu", [x], shape: shape)
        case let .clip(lo, hi):
            let inputs = [x, lo.map { constant([], [$0], prefix: "lo") } ?? "", hi.map { constant([], [$0], prefix: "hi") } ?? ""]
            return node("Clip", hi == nil ? Array(inputs.prefix(2)) : inputs, shape: shape, note: kind.description)
        case .hardSwish: return node("HardSwish", [x], shape: shape)
        case let .hardSigmoid(alpha, beta):
            return node("HardSigmoid", [x], [.float("alpha", alpha), .float("beta", beta)], shape: shape)
        case let .leakyRelu(alpha): return node("LeakyRelu", [x], [.float("alpha", alpha)], shape: shape)
        case .sigmoid: return node("Sigmoid", [x], shape: shape)
        case .tanh: return node("Tanh", [x], shape: shape)
        case let .prelu(perChannel):
            let slopeShape = perChannel && shape.count >= 2 ? [shape[1]] + Array(repeating: 1, count: shape.count - 2) : [1]
            return node("PRelu", [x, uniform(slopeShape, 0, 0.5, prefix: "slope")], shape: shape)
        }
    }

    /// Add, Sub, Mul or Div with numpy broadcasting.
    mutating func binary(_ op: String, _ a: String, _ b: String) -> String {
        let sa = shapes[a]!, sb = shapes[b]!
        let rank = max(sa.count, sb.count)
        let pa = Array(repeating: 1, count: rank - sa.count) + sa, pb = Array(repeating: 1, count: rank - sb.count) + sb
        let shape = zip(pa, pb).map { x, y in
            precondition(x == y || x == 1 || y == 1, "\(sa) and \(sb) do not broadcast")
            return max(x, y)
        }
        return node(op, [a, b], shape: shape)
    }

    mutating func globalAveragePool(_ x: String) -> String {
        let (c, _, _) = planes(x)!
        return node("GlobalAveragePool", [x], shape: [1, c, 1, 1])
    }

    /// Pad of a rank-4 value: `pads` [begin × 4, end × 4], mode, and an optional constant value.
    mutating func pad(_ x: String, _ pads: [Int], mode: String = "constant", value: Float? = nil) -> String {
        let shape = shapes[x]!
        let out = (0..<4).map { shape[$0] + pads[$0] + pads[4 + $0] }
        var inputs = [x, int64s(pads)]
        if let value { inputs.append(constant([], [value], prefix: "fill")) }
        return node("Pad", inputs, mode == "constant" ? [] : [.string("mode", mode)], shape: out, note: "pads \(pads)")
    }

    /// Resize of the spatial axes of a [1, C, H, W] value by `scales` (or to `sizes`).
    mutating func resize(_ x: String, mode: String, transform: String, scales: [Float]?, sizes: [Int]?) -> String {
        let shape = shapes[x]!
        var inputs = [x, ""]
        let out: [Int]
        if let scales {
            inputs.append(constant([4], scales, prefix: "scales"))
            out = (0..<4).map { Int((Float(shape[$0]) * scales[$0]).rounded(.down)) }
        } else {
            inputs += ["", int64s(sizes!)]
            out = sizes!
        }
        return node("Resize", inputs, [.string("mode", mode), .string("coordinate_transformation_mode", transform)], shape: out,
                    note: scales.map { "scales \($0)" } ?? "sizes \(sizes!)")
    }

    mutating func transpose(_ x: String, _ perm: [Int]) -> String {
        let shape = shapes[x]!
        return node("Transpose", [x], [.ints("perm", perm.map(Int64.init))], shape: perm.map { shape[$0] })
    }

    mutating func softmax(_ x: String, axis: Int, log: Bool = false) -> String {
        node(log ? "LogSoftmax" : "Softmax", [x], [.int("axis", Int64(axis))], shape: shapes[x]!)
    }

    mutating func reshape(_ x: String, _ shape: [Int]) -> String {
        precondition(shape.reduce(1, *) == shapes[x]!.reduce(1, *))
        return node("Reshape", [x, int64s(shape)], shape: shape)
    }

    /// Concat along `axis` (negative counts from the end).
    mutating func concat(_ values: [String], axis: Int) -> String {
        var shape = shapes[values[0]]!
        let a = axis < 0 ? axis + shape.count : axis
        shape[a] = values.reduce(0) { $0 + shapes[$1]![a] }
        return node("Concat", values, [.int("axis", Int64(axis))], shape: shape)
    }

    /// Split along `axis` into pieces of `lengths`.
    mutating func split(_ x: String, axis: Int, lengths: [Int]) -> [String] {
        let shape = shapes[x]!
        precondition(lengths.reduce(0, +) == shape[axis])
        let names = lengths.map { _ in fresh("split") }
        nodes.append(B.node("Split", inputs: [x, int64s(lengths)], outputs: names, name: names[0], attributes: [.int("axis", Int64(axis))]))
        for (name, length) in zip(names, lengths) {
            var piece = shape
            piece[axis] = length
            shapes[name] = piece
        }
        listing.append("\(names.joined(separator: ", ")) = Split(\(x)) axis=\(axis) lengths \(lengths)")
        return names
    }

    /// Cast to an ONNX element type (1 float, 6 int32, 7 int64).
    mutating func cast(_ x: String, to type: Int) -> String {
        node("Cast", [x], [.int("to", Int64(type))], shape: shapes[x]!, note: type == 1 ? "to float" : "to int\(type == 6 ? 32 : 64)")
    }

    /// ConvTranspose of a [1, C, H, W] value (2-D).
    mutating func convTranspose(_ x: String, outputChannels: Int, kernel: Int, stride: Int, dilation: Int = 1,
                                pads: [Int] = [0, 0, 0, 0], outputPadding: Int = 0, group: Int = 1, bias: Bool) -> String {
        let (c, h, w) = planes(x)!
        let bound = (3 / Float(c / group * kernel * kernel)).squareRoot()
        var inputs = [x, uniform([c, outputChannels / group, kernel, kernel], -bound, bound)]
        if bias { inputs.append(uniform([outputChannels], -0.5, 0.5, prefix: "b")) }
        let length = { (n: Int, before: Int, after: Int) in
            (n - 1) * stride + dilation * (kernel - 1) + 1 + outputPadding - before - after
        }
        var attributes: [Attribute] = [.ints("kernel_shape", [Int64(kernel), Int64(kernel)]),
                                       .ints("strides", [Int64(stride), Int64(stride)]), .ints("pads", pads.map(Int64.init)),
                                       .ints("dilations", [Int64(dilation), Int64(dilation)]), .int("group", Int64(group))]
        if outputPadding > 0 { attributes.append(.ints("output_padding", [Int64(outputPadding), Int64(outputPadding)])) }
        return node("ConvTranspose", inputs, attributes,
                    shape: [1, outputChannels, length(h, pads[0], pads[2]), length(w, pads[1], pads[3])])
    }
}
