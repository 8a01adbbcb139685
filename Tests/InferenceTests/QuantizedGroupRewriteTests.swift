import ONNXFormat
import Testing
import TestSupport
@testable import Inference

/// The fast path's QDQ rewrite (`QuantizedGroupRewrite`): which groups become QLinearConv or
/// QLinearMatMul and which near misses stay as written, and that a fast session of a rewritten
/// model computes exactly what the explicit QLinear node computes on the reference path, while
/// the reference path keeps the graph as written.
@Suite("QDQ groups rewritten for the integer kernels, fast path only")
struct QuantizedGroupRewriteTests {
    typealias B = ONNXBuilder

    struct Group {
        var perAxisWeights = false
        var perAxisActivation = false
        var bias = true
        var biasScaleMatches = true
        /// Another node reads the activation's dequantized value.
        var activationReadTwice = false
        /// The Conv's float output is also a graph output.
        var productReadTwice = false
        var weightsFed = false
        var reluBeforeQuantize = false
        /// The output QuantizeLinear's zero point type (2 uint8, 3 int8, 5 int16).
        var outputType: Int64 = 2
        var matMul = false
        var matMulAxis: Int64 = 1
    }

    static let (cin, cout, size) = (5, 7, 6)
    static let xScale: Float = 0.03, yScale: Float = 0.05

    static func int32Bytes(_ values: [Int32]) -> [UInt8] {
        values.flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    }

    /// x (float) → QuantizeLinear → DequantizeLinear → Conv (or MatMul) with dequantized int8
    /// weights (and int32 bias) → QuantizeLinear → DequantizeLinear → y; or, with `explicit`,
    /// the same with the QLinear node in the middle.
    static func model(_ g: Group, explicit: Bool = false) -> [UInt8] {
        var random = SeededGenerator(seed: 77)
        let channels = g.matMul ? cout : cout
        let wDims: [Int64] = g.matMul ? [Int64(cin), Int64(cout)] : [Int64(cout), Int64(cin), 3, 3]
        let w = (0..<wDims.reduce(1, *)).map { _ in UInt8(truncatingIfNeeded: Int8(truncatingIfNeeded: random.next() % 255) ) }
        let perAxis = g.perAxisWeights
        let wScales: [Float] = perAxis ? (0..<channels).map { _ in 0.004 * (1 + Float(random.next() % 50) / 50) } : [0.006]
        let wScaleDims: [Int64] = perAxis ? [Int64(g.matMul && g.matMulAxis == 0 ? cin : channels)] : []
        let wScaleValues = perAxis && g.matMul && g.matMulAxis == 0 ? Array(repeating: Float(0.005), count: cin) : wScales
        var initializers = [
            B.floatTensor("xs", g.perAxisActivation ? [Int64(cin)] : [], g.perAxisActivation ? Array(repeating: xScale, count: cin) : [xScale]),
            B.rawTensor("xz", elementType: 2, g.perAxisActivation ? [Int64(cin)] : [], Array(repeating: 128, count: g.perAxisActivation ? cin : 1)),
            B.floatTensor("ws", wScaleDims, wScaleValues),
            B.rawTensor("wz", elementType: 3, wScaleDims, Array(repeating: 0, count: wScaleValues.count)),
            B.floatTensor("ys", [], [yScale]),
            B.rawTensor("yz", elementType: g.outputType, [], g.outputType == 5 ? [0, 0] : [g.outputType == 2 ? 100 : 0]),
        ]
        if !g.weightsFed { initializers.append(B.rawTensor("w", elementType: 3, wDims, w)) }
        let useBias = g.bias && !g.matMul
        if useBias {
            let b = (0..<cout).map { _ in Int32(Int64(random.next() % 2001) - 1000) }
            initializers.append(B.rawTensor("b", elementType: 6, [Int64(cout)], int32Bytes(b)))
            let bScales = (0..<cout).map { m in (g.biasScaleMatches ? 1 : 1.5) * xScale * wScales[perAxis ? m : 0] }
            initializers.append(B.floatTensor("bs", perAxis ? [Int64(cout)] : [], perAxis ? bScales : [bScales[0]]))
        }
        let attributes: [B.Attribute] = g.matMul ? [] : [.ints("kernel_shape", [3, 3]), .ints("pads", [1, 1, 1, 1])]
        let axis: [B.Attribute] = g.perAxisActivation ? [.int("axis", 1)] : []
        let wAxis: [B.Attribute] = perAxis ? [.int("axis", g.matMul ? g.matMulAxis : 0)] : []
        var nodes = [B.node("QuantizeLinear", inputs: ["x", "xs", "xz"], outputs: ["xq"], attributes: axis)]
        if explicit {
            nodes.append(B.node(g.matMul ? "QLinearMatMul" : "QLinearConv",
                                inputs: ["xq", "xs", "xz", "w", "ws", "wz", "ys", "yz"] + (useBias ? ["b"] : []),
                                outputs: ["yq"], attributes: attributes))
        } else {
            nodes += [
                B.node("DequantizeLinear", inputs: ["xq", "xs", "xz"], outputs: ["xf"], attributes: axis),
                B.node("DequantizeLinear", inputs: ["w", "ws", "wz"], outputs: ["wf"], attributes: wAxis),
            ]
            if useBias { nodes.append(B.node("DequantizeLinear", inputs: ["b", "bs"], outputs: ["bf"], attributes: wAxis)) }
            nodes.append(B.node(g.matMul ? "MatMul" : "Conv", inputs: ["xf", "wf"] + (useBias ? ["bf"] : []), outputs: ["cf"],
                                name: "product", attributes: attributes))
            if g.reluBeforeQuantize { nodes.append(B.node("Relu", inputs: ["cf"], outputs: ["rf"])) }
            nodes.append(B.node("QuantizeLinear", inputs: [g.reluBeforeQuantize ? "rf" : "cf", "ys", "yz"], outputs: ["yq"]))
            if g.activationReadTwice { nodes.append(B.node("Relu", inputs: ["xf"], outputs: ["side"])) }
        }
        nodes.append(B.node("DequantizeLinear", inputs: ["yq", "ys", "yz"], outputs: ["y"]))
        let xDims: [Int64] = g.matMul ? [2, Int64(size), Int64(cin)] : [1, Int64(cin), Int64(size), Int64(size)]
        var inputs = [B.valueInfo("x", xDims)]
        if g.weightsFed { inputs.append(B.valueInfo("w", dims: wDims.map { .value($0) }, elementType: 3)) }
        var outputs = [B.valueInfo("y", dims: nil, elementType: 1)]
        if g.activationReadTwice && !explicit { outputs.append(B.valueInfo("side", dims: nil, elementType: 1)) }
        if g.productReadTwice && !explicit { outputs.append(B.valueInfo("cf", dims: nil, elementType: 1)) }
        return B.model(nodes: nodes, initializers: initializers, inputs: inputs, outputs: outputs, opset: 13)
    }

    /// The op types of the rewritten model, or nil when nothing was rewritten.
    static func rewrittenOps(_ g: Group) throws -> [String]? {
        let proto = try ModelProto(serializedBytes: model(g))
        return QuantizedGroupRewrite.rewrite(proto).map { $0.graph!.nodes.map(\.opType) }
    }

    @Test("a Conv group (per-tensor or per-channel weights, with or without the int32 bias) becomes one QLinearConv; a MatMul group with per-column weights one QLinearMatMul")
    func matches() throws {
        for perAxis in [false, true] {
            for bias in [false, true] {
                let ops = try #require(try Self.rewrittenOps(Group(perAxisWeights: perAxis, bias: bias)))
                #expect(ops == ["QuantizeLinear", "QLinearConv", "DequantizeLinear"], "perAxis \(perAxis) bias \(bias): \(ops)")
            }
            let ops = try #require(try Self.rewrittenOps(Group(perAxisWeights: perAxis, matMul: true)))
            #expect(ops == ["QuantizeLinear", "QLinearMatMul", "DequantizeLinear"], "MatMul perAxis \(perAxis): \(ops)")
        }
        // The activation's DequantizeLinear stays when another node reads it.
        let ops = try #require(try Self.rewrittenOps(Group(activationReadTwice: true)))
        #expect(ops == ["QuantizeLinear", "DequantizeLinear", "QLinearConv", "Relu", "DequantizeLinear"], "\(ops)")
    }

    @Test("near misses stay as written: per-axis activation, product read twice, fed weights, Relu before the QuantizeLinear, bias scale not x·w, int16 output, per-row MatMul weights")
    func nearMisses() throws {
        let misses: [(String, Group)] = [
            ("per-axis activation scale", Group(perAxisActivation: true)),
            ("the Conv's output also a graph output", Group(productReadTwice: true)),
            ("weights fed as a graph input", Group(weightsFed: true)),
            ("a Relu between the Conv and the QuantizeLinear", Group(reluBeforeQuantize: true)),
            ("bias scale 1.5 x_scale · w_scale", Group(biasScaleMatches: false)),
            ("int16 output zero point", Group(outputType: 5)),
            ("MatMul weights per row (axis 0)", Group(perAxisWeights: true, matMul: true, matMulAxis: 0)),
        ]
        for (label, group) in misses {
            #expect(try Self.rewrittenOps(group) == nil, "\(label): rewritten")
            // Each still loads and runs on both paths as written.
            let model = try InferenceModel(bytes: Self.model(group))
            #expect(model.fastGraph == nil, "\(label): the model has a fast graph")
        }
    }

    @Test("the fast path runs the rewritten group on its integer step and equals the explicit QLinear node exactly; the reference path computes the graph as written")
    func fastPathEqualsExplicitNode() throws {
        var random = SeededGenerator(seed: 78)
        for group in [Group(), Group(perAxisWeights: true), Group(bias: false), Group(perAxisWeights: true, matMul: true),
                      Group(outputType: 3), Group(activationReadTwice: true)] {
            let label = "\(group)"
            let written = try InferenceModel(bytes: Self.model(group))
            let explicit = try InferenceModel(bytes: Self.model(group, explicit: true))
            #expect(written.fastGraph != nil, "\(label): no fast graph")
            let count = written.inputs[0].shape.reduce(1, *)
            let feeds = ["x": random.floats(count, scale: 4)]
            let want = try #require(try InferenceSession(model: explicit, path: .reference).run(inputs: feeds)["y"])
            for threads in [1, 2] {
                let fast = try InferenceSession(model: written, path: .fast, threads: threads)
                let kernels = fast.nodeKernels
                let op = group.matMul ? "QLinearMatMul" : "QLinearConv"
                #expect(kernels.contains { $0.op == op && !$0.runsOnReference }, "\(label): \(kernels.map(\.op))")
                let got = try #require(try fast.run(inputs: feeds)["y"])
                #expect(got == want, "\(label), \(threads) thread(s): \(zip(got, want).filter { $0 != $1 }.count) of \(want.count) differ")
            }
            // The reference path runs the group as written: the float Conv between dequantize and
            // quantize, within one output quantum of the integer result.
            let reference = try InferenceSession(model: written, path: .reference)
            #expect(reference.nodeKernels.contains { $0.op == (group.matMul ? "MatMul" : "Conv") }, "\(label): reference graph rewritten")
            let asWritten = try #require(try reference.run(inputs: feeds)["y"])
            let worst = zip(asWritten, want).map { abs($0 - $1) }.max() ?? 0
            #expect(worst <= Self.yScale * 1.0001, "\(label): as written and rewritten differ by \(worst)")
        }
    }

    /// x → QuantizeLinear → DequantizeLinear → MaxPool (3x3, stride 2, padding 1) → QuantizeLinear
    /// (scale `outScale`, zero point `outZero`, type `type`) → DequantizeLinear → y; `alsoOutput`
    /// makes the pooled floats a graph output too, `indices` adds MaxPool's Indices output.
    static func poolModel(type: Int64 = 2, outScale: Float = xScale, outZero: UInt8 = 128, alsoOutput: Bool = false,
                          indices: Bool = false) -> [UInt8] {
        let zero: UInt8 = type == 2 ? 128 : 0
        return B.model(
            nodes: [B.node("QuantizeLinear", inputs: ["x", "xs", "xz"], outputs: ["xq"]),
                    B.node("DequantizeLinear", inputs: ["xq", "xs", "xz"], outputs: ["xd"]),
                    B.node("MaxPool", inputs: ["xd"], outputs: indices ? ["p", "i"] : ["p"], name: "pool",
                           attributes: [.ints("kernel_shape", [3, 3]), .ints("strides", [2, 2]), .ints("pads", [1, 1, 1, 1])]),
                    B.node("QuantizeLinear", inputs: ["p", "ys", "yz"], outputs: ["yq"]),
                    B.node("DequantizeLinear", inputs: ["yq", "ys", "yz"], outputs: ["y"])],
            initializers: [B.floatTensor("xs", [], [xScale]), B.rawTensor("xz", elementType: type, [], [zero]),
                           B.floatTensor("ys", [], [outScale]), B.rawTensor("yz", elementType: type, [], [type == 2 ? outZero : 0])],
            inputs: [B.valueInfo("x", [1, Int64(cin), Int64(size), Int64(size)])],
            outputs: [B.valueInfo("y", dims: nil, elementType: 1)]
                + (alsoOutput ? [B.valueInfo("p", dims: nil, elementType: 1)] : [])
                + (indices ? [B.valueInfo("i", dims: nil, elementType: 7)] : []),
            opset: 13)
    }

    @Test("DequantizeLinear → MaxPool → QuantizeLinear with one scale and zero point becomes the MaxPool of the bytes (uint8 and int8), equal to the graph as written; near misses stay")
    func maxPoolOfBytes() throws {
        var random = SeededGenerator(seed: 79)
        for type in [Int64(2), 3] {
            let proto = try ModelProto(serializedBytes: Self.poolModel(type: type))
            let ops = try #require(QuantizedGroupRewrite.rewrite(proto)).graph!.nodes.map(\.opType)
            #expect(ops == ["QuantizeLinear", "MaxPool", "DequantizeLinear"], "type \(type): \(ops)")
            let model = try InferenceModel(bytes: Self.poolModel(type: type))
            let feeds = ["x": random.floats(Self.cin * Self.size * Self.size, scale: 5)]
            let want = try #require(try InferenceSession(model: model, path: .reference).run(inputs: feeds)["y"])
            for threads in [1, 2] {
                let fast = try InferenceSession(model: model, path: .fast, threads: threads)
                #expect(fast.nodeKernels.contains { $0.op == "MaxPool" && !$0.runsOnReference }, "\(fast.nodeKernels.map(\.op))")
                let got = try #require(try fast.run(inputs: feeds)["y"])
                #expect(got == want, "type \(type), \(threads) thread(s): \(zip(got, want).filter { $0 != $1 }.count) of \(want.count) differ")
            }
        }
        let misses: [(String, [UInt8])] = [
            ("another output scale", Self.poolModel(outScale: Self.xScale * 1.5)), ("another output zero point", Self.poolModel(outZero: 127)),
            ("the pooled floats also a graph output", Self.poolModel(alsoOutput: true)), ("an Indices output", Self.poolModel(indices: true)),
        ]
        for (label, bytes) in misses {
            #expect(QuantizedGroupRewrite.rewrite(try ModelProto(serializedBytes: bytes)) == nil, "\(label): rewritten")
        }
    }

    /// x1 → QuantizeLinear → DequantizeLinear (A) and, as B, x2 likewise or (`constantB`) the
    /// DequantizeLinear of a [cin, 1, 1] uint8 / int8 initializer (a BatchNorm's per-channel
    /// factor) → `op` → QuantizeLinear (type `outputType`) → DequantizeLinear → y; with `explicit`
    /// the com.microsoft QLinear node instead; `alsoOutput` makes the float result a graph output.
    static func binaryModel(_ op: String, type: Int64 = 2, outputType: Int64? = nil, constantB: Bool, explicit: Bool = false,
                            alsoOutput: Bool = false) -> [UInt8] {
        let zero: UInt8 = type == 2 ? 128 : 0, yType = outputType ?? type
        let shape: [Int64] = [1, Int64(cin), Int64(size), Int64(size)]
        let bBytes: [UInt8] = (0..<cin).map { UInt8(truncatingIfNeeded: 37 &* $0 &+ 11) }
        var nodes = [B.node("QuantizeLinear", inputs: ["x1", "as", "az"], outputs: ["a"])]
        if !constantB { nodes.append(B.node("QuantizeLinear", inputs: ["x2", "bs", "bz"], outputs: ["b"])) }
        if explicit {
            nodes.append(B.node("QLinear" + op, inputs: ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], outputs: ["yq"], name: "binary",
                                domain: "com.microsoft"))
        } else {
            nodes += [B.node("DequantizeLinear", inputs: ["a", "as", "az"], outputs: ["ad"]),
                      B.node("DequantizeLinear", inputs: ["b", "bs", "bz"], outputs: ["bd"]),
                      B.node(op, inputs: ["ad", "bd"], outputs: ["f"], name: "binary"),
                      B.node("QuantizeLinear", inputs: ["f", "ys", "yz"], outputs: ["yq"])]
        }
        nodes.append(B.node("DequantizeLinear", inputs: ["yq", "ys", "yz"], outputs: ["y"]))
        return B.model(
            nodes: nodes,
            initializers: [B.floatTensor("as", [], [xScale]), B.rawTensor("az", elementType: type, [], [zero]),
                           B.floatTensor("bs", [], [op == "Mul" ? 0.011 : 0.045]), B.rawTensor("bz", elementType: type, [], [type == 2 ? 120 : 3]),
                           B.floatTensor("ys", [], [op == "Mul" ? 0.02 : yScale]), B.rawTensor("yz", elementType: yType, [], [yType == 2 ? 128 : 0])]
                + (constantB ? [B.rawTensor("b", elementType: type, [Int64(cin), 1, 1], bBytes)] : []),
            inputs: [B.valueInfo("x1", shape)] + (constantB ? [] : [B.valueInfo("x2", shape)]),
            outputs: [B.valueInfo("y", dims: nil, elementType: 1)] + (alsoOutput ? [B.valueInfo("f", dims: nil, elementType: 1)] : []),
            opset: 13)
    }

    @Test("DequantizeLinear → Add / Mul → QuantizeLinear (B run time or a per-channel constant, uint8 and int8) becomes QLinearAdd / QLinearMul on the fast path, equal to the explicit node; near misses stay")
    func binaryGroups() throws {
        var random = SeededGenerator(seed: 80)
        let count = Self.cin * Self.size * Self.size
        for op in ["Add", "Mul"] {
            for type in [Int64(2), 3] {
                for constantB in [false, true] {
                    let label = "\(op) type \(type) constant B \(constantB)"
                    let proto = try ModelProto(serializedBytes: Self.binaryModel(op, type: type, constantB: constantB))
                    let shapes = Self.binaryShapes(constantB: constantB)
                    let ops = try #require(QuantizedGroupRewrite.rewrite(proto, shapes: shapes), "\(label): not rewritten").graph!.nodes.map(\.opType)
                    #expect(ops == (constantB ? [] : ["QuantizeLinear"]) + ["QuantizeLinear", "QLinear" + op, "DequantizeLinear"], "\(label): \(ops)")
                    let written = try InferenceModel(bytes: Self.binaryModel(op, type: type, constantB: constantB))
                    let explicit = try InferenceModel(bytes: Self.binaryModel(op, type: type, constantB: constantB, explicit: true))
                    var feeds = ["x1": random.floats(count, scale: 3)]
                    if !constantB { feeds["x2"] = random.floats(count, scale: 3) }
                    let want = try #require(try InferenceSession(model: explicit, path: .reference).run(inputs: feeds)["y"])
                    for threads in [1, 2] {
                        let fast = try InferenceSession(model: written, path: .fast, threads: threads)
                        #expect(fast.nodeKernels.contains { $0.op == "QLinear" + op && !$0.runsOnReference }, "\(label): \(fast.nodeKernels.map(\.op))")
                        let got = try #require(try fast.run(inputs: feeds)["y"])
                        #expect(got == want, "\(label), \(threads) thread(s): \(zip(got, want).filter { $0 != $1 }.count) of \(want.count) differ")
                    }
                    // The reference path computes the graph as written.
                    let reference = try InferenceSession(model: written, path: .reference)
                    #expect(reference.nodeKernels.contains { $0.op == op }, "\(label): reference graph rewritten")
                }
            }
        }
        let full = [1, Self.cin, Self.size, Self.size]
        let misses: [(String, [UInt8], [String: [Int]])] = [
            ("the float result also a graph output", Self.binaryModel("Add", constantB: true, alsoOutput: true), Self.binaryShapes(constantB: true)),
            ("an int8 output of uint8 operands", Self.binaryModel("Mul", outputType: 3, constantB: false), Self.binaryShapes(constantB: false)),
            ("B one value per row of each plane (neither one per plane nor one row repeated)", Self.binaryModel("Mul", constantB: false),
             ["ad": full, "bd": [Self.size, 1], "f": full]),
            ("the shapes unknown", Self.binaryModel("Add", constantB: false), [:]),
        ]
        for (label, bytes, shapes) in misses {
            #expect(QuantizedGroupRewrite.rewrite(try ModelProto(serializedBytes: bytes), shapes: shapes) == nil, "\(label): rewritten")
        }
        // One row of B repeated along A (a channels-last layer scale) takes the fast step's row case
        // where the row has 16 values or more (here a whole plane's 36).
        let row = QuantizedGroupRewrite.rewrite(try ModelProto(serializedBytes: Self.binaryModel("Mul", constantB: false)),
                                                shapes: ["ad": full, "bd": [1, Self.size, Self.size], "f": full])
        #expect(row?.graph?.nodes.map(\.opType).contains("QLinearMul") == true, "B one row of 36 repeated: not rewritten")
        let shortRow = QuantizedGroupRewrite.rewrite(try ModelProto(serializedBytes: Self.binaryModel("Mul", constantB: false)),
                                                     shapes: ["ad": full, "bd": [Self.size], "f": full])
        #expect(shortRow == nil, "B one row of 6 repeated: rewritten")
    }

    /// x1, x2, x3 → QuantizeLinear (three scales and zero points) → DequantizeLinear → Concat
    /// (channels) → QuantizeLinear (type `outputType`) → DequantizeLinear → y; with `explicit` the
    /// com.microsoft QLinearConcat instead; `alsoOutput` makes the float result a graph output;
    /// `constantInput` makes the third a constant's DequantizeLinear.
    static func concatModel(type: Int64 = 2, outputType: Int64? = nil, explicit: Bool = false, alsoOutput: Bool = false,
                            constantInput: Bool = false) -> [UInt8] {
        let yType = outputType ?? type
        let channels: [Int64] = [2, 3, 5]
        let scales: [Float] = [0.03, 0.05, 0.021], zeros: [UInt8] = type == 2 ? [128, 100, 140] : [0, 5, 250]
        var nodes: [[UInt8]] = []
        var initializers = [B.floatTensor("ys", [], [0.04]), B.rawTensor("yz", elementType: yType, [], [yType == 2 ? 120 : 2])]
        for i in 0..<3 {
            initializers += [B.floatTensor("s\(i)", [], [scales[i]]), B.rawTensor("z\(i)", elementType: type, [], [zeros[i]])]
            if constantInput && i == 2 {
                initializers.append(B.rawTensor("q2", elementType: type, [1, channels[2], Int64(size), Int64(size)],
                                                (0..<(Int(channels[2]) * size * size)).map { UInt8(truncatingIfNeeded: 29 &* $0 &+ 7) }))
            } else {
                nodes.append(B.node("QuantizeLinear", inputs: ["x\(i)", "s\(i)", "z\(i)"], outputs: ["q\(i)"]))
            }
        }
        if explicit {
            nodes.append(B.node("QLinearConcat", inputs: ["ys", "yz", "q0", "s0", "z0", "q1", "s1", "z1", "q2", "s2", "z2"], outputs: ["yq"],
                                name: "concat", attributes: [.int("axis", 1)], domain: "com.microsoft"))
        } else {
            for i in 0..<3 { nodes.append(B.node("DequantizeLinear", inputs: ["q\(i)", "s\(i)", "z\(i)"], outputs: ["d\(i)"])) }
            nodes += [B.node("Concat", inputs: ["d0", "d1", "d2"], outputs: ["f"], name: "concat", attributes: [.int("axis", 1)]),
                      B.node("QuantizeLinear", inputs: ["f", "ys", "yz"], outputs: ["yq"])]
        }
        nodes.append(B.node("DequantizeLinear", inputs: ["yq", "ys", "yz"], outputs: ["y"]))
        return B.model(
            nodes: nodes, initializers: initializers,
            inputs: (0..<(constantInput ? 2 : 3)).map { B.valueInfo("x\($0)", [1, channels[$0], Int64(size), Int64(size)]) },
            outputs: [B.valueInfo("y", dims: nil, elementType: 1)] + (alsoOutput ? [B.valueInfo("f", dims: nil, elementType: 1)] : []),
            opset: 13)
    }

    @Test("DequantizeLinear values → Concat → QuantizeLinear (uint8 and int8, three scales and zero points) becomes QLinearConcat on the fast path, equal to the explicit node; near misses stay")
    func concatGroups() throws {
        var random = SeededGenerator(seed: 81)
        for type in [Int64(2), 3] {
            let label = "Concat type \(type)"
            let proto = try ModelProto(serializedBytes: Self.concatModel(type: type))
            let ops = try #require(QuantizedGroupRewrite.rewrite(proto), "\(label): not rewritten").graph!.nodes.map(\.opType)
            #expect(ops == ["QuantizeLinear", "QuantizeLinear", "QuantizeLinear", "QLinearConcat", "DequantizeLinear"], "\(label): \(ops)")
            let written = try InferenceModel(bytes: Self.concatModel(type: type))
            let explicit = try InferenceModel(bytes: Self.concatModel(type: type, explicit: true))
            var feeds: [String: [Float]] = [:]
            for (i, c) in [2, 3, 5].enumerated() { feeds["x\(i)"] = random.floats(c * Self.size * Self.size, scale: 4) }
            let want = try #require(try InferenceSession(model: explicit, path: .reference).run(inputs: feeds)["y"])
            for threads in [1, 2] {
                let fast = try InferenceSession(model: written, path: .fast, threads: threads)
                #expect(fast.nodeKernels.contains { $0.op == "QLinearConcat" }, "\(label): \(fast.nodeKernels.map(\.op))")
                let got = try #require(try fast.run(inputs: feeds)["y"])
                #expect(got == want, "\(label), \(threads) thread(s): \(zip(got, want).filter { $0 != $1 }.count) of \(want.count) differ")
            }
            let reference = try InferenceSession(model: written, path: .reference)
            #expect(reference.nodeKernels.contains { $0.op == "Concat" }, "\(label): reference graph rewritten")
        }
        let misses: [(String, [UInt8])] = [
            ("the float result also a graph output", Self.concatModel(alsoOutput: true)),
            ("an int8 output of uint8 inputs", Self.concatModel(outputType: 3)),
            ("a constant input", Self.concatModel(constantInput: true)),
        ]
        for (label, bytes) in misses {
            #expect(QuantizedGroupRewrite.rewrite(try ModelProto(serializedBytes: bytes)) == nil, "\(label): rewritten")
        }
    }

    /// x [1, cin, size, size] → QuantizeLinear → DequantizeLinear → `op` (Sigmoid or
    /// GlobalAveragePool) → QuantizeLinear (type `outputType`) → DequantizeLinear → y; with
    /// `explicit` the com.microsoft QLinear node instead; `alsoOutput` makes the float result a
    /// graph output; `readTwice` has a Mul read the dequantized x too (SiLU's x · Sigmoid(x)).
    static func unaryModel(_ op: String, type: Int64 = 2, outputType: Int64? = nil, explicit: Bool = false,
                           alsoOutput: Bool = false, readTwice: Bool = false) -> [UInt8] {
        let yType = outputType ?? type
        var nodes = [B.node("QuantizeLinear", inputs: ["x", "xs", "xz"], outputs: ["q"])]
        if explicit {
            nodes.append(B.node("QLinear" + op, inputs: ["q", "xs", "xz", "ys", "yz"], outputs: ["yq"], name: "unary", domain: "com.microsoft"))
        } else {
            nodes += [B.node("DequantizeLinear", inputs: ["q", "xs", "xz"], outputs: ["d"]),
                      B.node(op, inputs: ["d"], outputs: ["f"], name: "unary"),
                      B.node("QuantizeLinear", inputs: ["f", "ys", "yz"], outputs: ["yq"])]
        }
        nodes.append(B.node("DequantizeLinear", inputs: ["yq", "ys", "yz"], outputs: ["y"]))
        if readTwice { nodes.append(B.node("Mul", inputs: ["d", "d"], outputs: ["m"])) }
        return B.model(
            nodes: nodes,
            initializers: [B.floatTensor("xs", [], [0.047]), B.rawTensor("xz", elementType: type, [], [type == 2 ? 131 : 9]),
                           B.floatTensor("ys", [], [op == "Sigmoid" ? 1 / 256 : 0.021]), B.rawTensor("yz", elementType: yType, [], [yType == 2 ? 3 : 250])],
            inputs: [B.valueInfo("x", [1, Int64(cin), Int64(size), Int64(size)])],
            outputs: [B.valueInfo("y", dims: nil, elementType: 1)] + (alsoOutput ? [B.valueInfo("f", dims: nil, elementType: 1)] : [])
                + (readTwice ? [B.valueInfo("m", dims: nil, elementType: 1)] : []),
            opset: 13)
    }

    @Test("DequantizeLinear → Sigmoid / GlobalAveragePool → QuantizeLinear (uint8 and int8) becomes QLinearSigmoid / QLinearGlobalAveragePool on the fast path, equal to the explicit node; near misses stay")
    func unaryGroups() throws {
        var random = SeededGenerator(seed: 83)
        for op in ["Sigmoid", "GlobalAveragePool"] {
            for type in [Int64(2), 3] {
                for readTwice in [false, true] {
                    let label = "\(op) type \(type)\(readTwice ? ", x read by a Mul too" : "")"
                    let proto = try ModelProto(serializedBytes: Self.unaryModel(op, type: type, readTwice: readTwice))
                    let ops = try #require(QuantizedGroupRewrite.rewrite(proto), "\(label): not rewritten").graph!.nodes.map(\.opType)
                    // The DequantizeLinear of x stays only for the other reader.
                    let expected = ["QuantizeLinear"] + (readTwice ? ["DequantizeLinear"] : []) + ["QLinear" + op, "DequantizeLinear"] + (readTwice ? ["Mul"] : [])
                    #expect(ops == expected, "\(label): \(ops)")
                    let written = try InferenceModel(bytes: Self.unaryModel(op, type: type, readTwice: readTwice))
                    let explicit = try InferenceModel(bytes: Self.unaryModel(op, type: type, explicit: true))
                    let feeds = ["x": random.floats(Self.cin * Self.size * Self.size, scale: 5)]
                    let want = try #require(try InferenceSession(model: explicit, path: .reference).run(inputs: feeds)["y"])
                    for threads in [1, 2] {
                        let fast = try InferenceSession(model: written, path: .fast, threads: threads)
                        #expect(fast.nodeKernels.contains { $0.op == "QLinear" + op }, "\(label): \(fast.nodeKernels.map(\.op))")
                        let got = try #require(try fast.run(inputs: feeds)["y"])
                        #expect(got == want, "\(label), \(threads) thread(s): \(zip(got, want).filter { $0 != $1 }.count) of \(want.count) differ")
                    }
                    let reference = try InferenceSession(model: written, path: .reference)
                    #expect(reference.nodeKernels.contains { $0.op == op }, "\(label): reference graph rewritten")
                }
            }
            let misses: [(String, [UInt8])] = [
                ("the float result also a graph output", Self.unaryModel(op, alsoOutput: true)),
                ("an int8 output of a uint8 input", Self.unaryModel(op, outputType: 3)),
            ]
            for (label, bytes) in misses {
                #expect(QuantizedGroupRewrite.rewrite(try ModelProto(serializedBytes: bytes)) == nil, "\(op), \(label): rewritten")
            }
        }
    }

    /// x [1, cin, size, size] → Relu → QuantizeLinear (zero point `zero` of type `type`) →
    /// DequantizeLinear → y; `alsoOutput` makes the Relu's result a graph output.
    static func reluQuantizeModel(type: Int64, zero: UInt8, alsoOutput: Bool = false) -> [UInt8] {
        B.model(
            nodes: [B.node("Relu", inputs: ["x"], outputs: ["r"]), B.node("QuantizeLinear", inputs: ["r", "ys", "yz"], outputs: ["q"]),
                    B.node("DequantizeLinear", inputs: ["q", "ys", "yz"], outputs: ["y"])],
            initializers: [B.floatTensor("ys", [], [0.013]), B.rawTensor("yz", elementType: type, [], [zero])],
            inputs: [B.valueInfo("x", [1, Int64(cin), Int64(size), Int64(size)])],
            outputs: [B.valueInfo("y", dims: nil, elementType: 1)] + (alsoOutput ? [B.valueInfo("r", dims: nil, elementType: 1)] : []),
            opset: 13)
    }

    @Test("a Relu read only by a QuantizeLinear whose zero point is the type's least value (uint8 0, int8 −128) is dropped on the fast path, the bytes unchanged; other zero points keep it")
    func reluBeforeQuantize() throws {
        var random = SeededGenerator(seed: 84)
        for (type, zero) in [(Int64(2), UInt8(0)), (3, 0x80)] {
            let label = "type \(type)"
            let bytes = Self.reluQuantizeModel(type: type, zero: zero)
            let ops = try #require(QuantizedGroupRewrite.rewrite(try ModelProto(serializedBytes: bytes)), "\(label): not rewritten").graph!.nodes.map(\.opType)
            #expect(ops == ["QuantizeLinear", "DequantizeLinear"], "\(label): \(ops)")
            let model = try InferenceModel(bytes: bytes)
            // Half the values negative, some past the range's far end.
            let feeds = ["x": random.floats(Self.cin * Self.size * Self.size, scale: 4)]
            let want = try #require(try InferenceSession(model: model, path: .reference).run(inputs: feeds)["y"])
            let fast = try InferenceSession(model: model, path: .fast)
            #expect(!fast.nodeKernels.contains { $0.op == "Relu" }, "\(label): \(fast.nodeKernels.map(\.op))")
            let got = try #require(try fast.run(inputs: feeds)["y"])
            #expect(got == want, "\(label): \(zip(got, want).filter { $0 != $1 }.count) of \(want.count) differ")
            #expect(want.contains(0) && want.contains { $0 > 0 })
        }
        let misses: [(String, [UInt8])] = [
            ("uint8 zero point 3", Self.reluQuantizeModel(type: 2, zero: 3)),
            ("int8 zero point 0", Self.reluQuantizeModel(type: 3, zero: 0)),
            ("the Relu's result also a graph output", Self.reluQuantizeModel(type: 2, zero: 0, alsoOutput: true)),
        ]
        for (label, bytes) in misses {
            #expect(QuantizedGroupRewrite.rewrite(try ModelProto(serializedBytes: bytes)) == nil, "\(label): rewritten")
        }
    }

    /// The shapes of `binaryModel`'s float values, as the loaded graph gives them to the rewrite.
    static func binaryShapes(constantB: Bool) -> [String: [Int]] {
        let full = [1, cin, size, size]
        return ["ad": full, "bd": constantB ? [cin, 1, 1] : full, "f": full]
    }

    /// x [3, 6] → QuantizeLinear → DequantizeLinear → Gemm (transB 1, int8 weights [5, 6] per
    /// tensor or per row, int32 bias at x_scale · w_scale[j] or none) → QuantizeLinear →
    /// DequantizeLinear → y; with `explicit` the com.microsoft QGemm instead; `alpha` on the Gemm.
    static func gemmModel(perAxis: Bool, bias: Bool, explicit: Bool = false, alpha: Float = 1) -> [UInt8] {
        let (m, k, n) = (3, 6, 5)
        let wBytes: [UInt8] = (0..<(n * k)).map { UInt8(bitPattern: Int8(truncatingIfNeeded: ($0 * 37 + 11) % 200 - 100)) }
        let wScales: [Float] = perAxis ? (0..<n).map { 0.004 + 0.001 * Float($0) } : [0.005]
        let biasValues: [Int32] = (0..<n).map { Int32($0 * 97 - 200) }
        let biasScales = wScales.map { xScale * $0 }
        var initializers = [B.floatTensor("xs", [], [xScale]), B.rawTensor("xz", elementType: 2, [], [128]),
                            B.rawTensor("w", elementType: 3, [Int64(n), Int64(k)], wBytes),
                            B.floatTensor("ws", perAxis ? [Int64(n)] : [], wScales),
                            B.rawTensor("wz", elementType: 3, perAxis ? [Int64(n)] : [], [UInt8](repeating: 0, count: wScales.count)),
                            B.floatTensor("ys", [], [0.04]), B.rawTensor("yz", elementType: 2, [], [128])]
        if bias {
            initializers += [B.rawTensor("bq", elementType: 6, [Int64(n)], int32Bytes(biasValues)),
                             B.floatTensor("bs", perAxis ? [Int64(n)] : [], biasScales)]
        }
        var nodes = [B.node("QuantizeLinear", inputs: ["x", "xs", "xz"], outputs: ["xq"])]
        if explicit {
            nodes.append(B.node("QGemm", inputs: ["xq", "xs", "xz", "w", "ws", "wz", bias ? "bq" : "", "ys", "yz"], outputs: ["yq"],
                                attributes: [.int("transB", 1)], domain: "com.microsoft"))
        } else {
            nodes += [B.node("DequantizeLinear", inputs: ["xq", "xs", "xz"], outputs: ["xd"]),
                      B.node("DequantizeLinear", inputs: ["w", "ws", "wz"], outputs: ["wd"], attributes: [.int("axis", 0)])]
            if bias { nodes.append(B.node("DequantizeLinear", inputs: ["bq", "bs"], outputs: ["bd"], attributes: [.int("axis", 0)])) }
            nodes += [B.node("Gemm", inputs: ["xd", "wd"] + (bias ? ["bd"] : []), outputs: ["g"],
                             attributes: [.int("transB", 1), .float("alpha", alpha)]),
                      B.node("QuantizeLinear", inputs: ["g", "ys", "yz"], outputs: ["yq"])]
        }
        nodes.append(B.node("DequantizeLinear", inputs: ["yq", "ys", "yz"], outputs: ["y"]))
        return B.model(nodes: nodes, initializers: initializers, inputs: [B.valueInfo("x", [Int64(m), Int64(k)])],
                       outputs: [B.valueInfo("y", dims: nil, elementType: 1)], opset: 13)
    }

    @Test("a Gemm group (per-tensor or per-row weights, with or without the int32 bias) becomes one QGemm on the fast path, equal to the explicit node; alpha ≠ 1 stays")
    func gemmGroups() throws {
        var random = SeededGenerator(seed: 81)
        for perAxis in [false, true] {
            for bias in [false, true] {
                let label = "perAxis \(perAxis) bias \(bias)"
                let ops = try #require(QuantizedGroupRewrite.rewrite(try ModelProto(serializedBytes: Self.gemmModel(perAxis: perAxis, bias: bias))),
                                       "\(label): not rewritten").graph!.nodes.map(\.opType)
                #expect(ops == ["QuantizeLinear", "QGemm", "DequantizeLinear"], "\(label): \(ops)")
                let written = try InferenceModel(bytes: Self.gemmModel(perAxis: perAxis, bias: bias))
                let explicit = try InferenceModel(bytes: Self.gemmModel(perAxis: perAxis, bias: bias, explicit: true))
                let feeds = ["x": random.floats(18, scale: 3)]
                let want = try #require(try InferenceSession(model: explicit, path: .reference).run(inputs: feeds)["y"])
                #expect(Set(want).count > 3, "\(label): the output is nearly constant")
                for threads in [1, 2] {
                    let fast = try InferenceSession(model: written, path: .fast, threads: threads)
                    #expect(fast.nodeKernels.contains { $0.op == "QGemm" && !$0.runsOnReference }, "\(label): \(fast.nodeKernels.map(\.op))")
                    let got = try #require(try fast.run(inputs: feeds)["y"])
                    #expect(got == want, "\(label), \(threads) thread(s): \(zip(got, want).filter { $0 != $1 }.count) of \(want.count) differ")
                }
                let reference = try InferenceSession(model: written, path: .reference)
                #expect(reference.nodeKernels.contains { $0.op == "Gemm" }, "\(label): reference graph rewritten")
            }
        }
        #expect(QuantizedGroupRewrite.rewrite(try ModelProto(serializedBytes: Self.gemmModel(perAxis: true, bias: true, alpha: 0.5))) == nil)
    }
}
