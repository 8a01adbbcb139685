import ONNXFormat
import Testing
import TestSupport
@testable import Inference

/// The fast path's Transpose sinking (`TransposeSinking`): which nodes a Transpose moves past and
/// with what attributes and constants, the near misses that keep it, and that a fast session of a
/// rewritten model computes what the reference path computes of the graph as written.
@Suite("Transposes sunk through the nodes that commute with them until they cancel, fast path only")
struct TransposeSinkingTests {
    typealias B = ONNXBuilder

    static let (c, h, w): (Int64, Int64, Int64) = (6, 5, 7)

    static func tensor(_ name: String, _ dims: [Int64], seed: Int) -> [UInt8] {
        B.floatTensor(name, dims, FusionRuleTests.values(dims.reduce(1) { $0 * Int($1) }, seed: seed).map { $0 + 1.2 })
    }

    /// tf2onnx's channels-last block: x [1, C, H, W] → Conv → Transpose to NHWC → Mul by [C] →
    /// Add by [1, 1, 1, C] → Keras's hard_swish (Add 3, Clip 0 6, Mul 1/6, Mul) → ReduceMean over
    /// rows and columns → Sigmoid → Mul → Pad of rows and columns → Concat with its Relu along
    /// the last axis → Transpose back → y. `change` swaps in one node (a near miss).
    static func block(_ change: (inout [[UInt8]], inout [[UInt8]], inout [[UInt8]]) -> Void = { _, _, _ in }) -> [UInt8] {
        var nodes = [
            B.node("Conv", inputs: ["x", "wc"], outputs: ["conv"], attributes: [.ints("kernel_shape", [1, 1])]),
            B.node("Transpose", inputs: ["conv"], outputs: ["t"], attributes: [.ints("perm", [0, 2, 3, 1])]),
            B.node("Mul", inputs: ["t", "scale"], outputs: ["m"]),
            B.node("Add", inputs: ["shift", "m"], outputs: ["a"]),
            B.node("Add", inputs: ["a", "three"], outputs: ["a3"]),
            B.node("Clip", inputs: ["a3", "zero", "six"], outputs: ["r6"]),
            B.node("Mul", inputs: ["r6", "sixth"], outputs: ["hs"]),
            B.node("Mul", inputs: ["a", "hs"], outputs: ["s"]),
            B.node("ReduceMean", inputs: ["s"], outputs: ["mean"], attributes: [.ints("axes", [1, 2]), .int("keepdims", 1)]),
            B.node("Sigmoid", inputs: ["mean"], outputs: ["gate"]),
            B.node("Mul", inputs: ["s", "gate"], outputs: ["e"]),
            B.node("Pad", inputs: ["e", "pads"], outputs: ["p"]),
            B.node("Relu", inputs: ["p"], outputs: ["pr"]),
            B.node("Concat", inputs: ["p", "pr"], outputs: ["cat"], attributes: [.int("axis", 3)]),
            B.node("Transpose", inputs: ["cat"], outputs: ["y"], attributes: [.ints("perm", [0, 3, 1, 2])]),
        ]
        var initializers = [
            tensor("wc", [c, 4, 1, 1], seed: 1), tensor("scale", [c], seed: 2), tensor("shift", [1, 1, 1, c], seed: 3),
            B.floatTensor("three", [], [3]), B.floatTensor("zero", [], [0]), B.floatTensor("six", [], [6]),
            B.floatTensor("sixth", [], [Float(1) / 6]), B.int64Tensor("pads", [8], [0, 1, 0, 0, 0, 2, 1, 0]),
        ]
        var outputs = [B.valueInfo("y", [1, 2 * c, h + 3, w + 1])]
        change(&nodes, &initializers, &outputs)
        return B.model(nodes: nodes, initializers: initializers, inputs: [B.valueInfo("x", [1, 4, h, w])], outputs: outputs)
    }

    static func transposes(_ bytes: [UInt8]) throws -> (before: Int, after: Int?) {
        let model = try ModelProto(serializedBytes: bytes)
        func count(_ m: ModelProto) -> Int { m.graph!.nodes.count { $0.opType == "Transpose" } }
        return (count(model), TransposeSinking.rewrite(model).map(count))
    }

    /// The fast path's largest difference from the reference path, relative to the largest
    /// reference magnitude, and the fast session's layers.
    static func run(_ bytes: [UInt8]) throws -> (error: Float, layers: [[String]]) {
        let model = try InferenceModel(bytes: bytes)
        let x = FusionRuleTests.values(4 * Int(h * w), seed: 5)
        let expected = try #require(try InferenceSession(model: model, path: .reference).run(inputs: ["x": x])["y"])
        let fast = try InferenceSession(model: model, path: .fast)
        let actual = try #require(try fast.run(inputs: ["x": x])["y"])
        let largest = expected.map(abs).max() ?? 0
        return (zip(actual, expected).map { abs($0 - $1) }.max()! / largest, FusionFuzzRunner.layers(of: fast))
    }

    @Test("tf2onnx's channels-last block: every Transpose goes, the affine nodes and the spelled-out hard-swish fold into the convolution, and the output is the reference path's")
    func channelsLastBlock() throws {
        let bytes = Self.block()
        #expect(try Self.transposes(bytes) == (2, 0))
        let (error, layers) = try Self.run(bytes)
        #expect(error <= 1e-6)
        #expect(!layers.joined().contains { $0.hasSuffix("Transpose") }, "\(layers)")
        #expect(layers.first == ["Conv", "Mul", "Add", "Add", "Clip", "Mul", "Mul"], "\(layers)")
    }

    @Test("the rewrite moves axes as the permutation does: ReduceMean's axes, Pad's pads, Concat's axis, a constant's dims")
    func movedAttributes() throws {
        let model = try ModelProto(serializedBytes: Self.block())
        let graph = try #require(TransposeSinking.rewrite(model)?.graph)
        func node(_ op: String) -> NodeProto? { graph.nodes.first { $0.opType == op } }
        #expect(node("ReduceMean")?.attributes.first { $0.name == "axes" }?.ints == [2, 3])
        #expect(node("Concat")?.attributes.first { $0.name == "axis" }?.i == 1)
        let padsName = try #require(node("Pad")?.inputs[1])
        #expect(graph.initializers.first { $0.name == padsName }?.int64Data == [0, 0, 1, 0, 0, 0, 2, 1])
        let shiftName = try #require(graph.nodes.first { $0.opType == "Add" }?.inputs[0])
        #expect(graph.initializers.first { $0.name == shiftName }?.dims == [1, Self.c, 1, 1])
        // The graph output keeps its name: the Concat writes it.
        #expect(node("Concat")?.outputs == ["y"])
        #expect(graph.outputs.map(\.name) == ["y"])
    }

    @Test("opset 18's reductions take their axes as an input: a new constant of the moved axes, and ReduceSum of all axes keeps none")
    func reductionAxesInput() throws {
        let bytes = B.model(
            nodes: [B.node("Transpose", inputs: ["x"], outputs: ["t"], attributes: [.ints("perm", [0, 2, 3, 1])]),
                    B.node("ReduceMean", inputs: ["t", "axes"], outputs: ["m"], attributes: [.int("keepdims", 1)]),
                    B.node("Mul", inputs: ["t", "m"], outputs: ["p"]),
                    B.node("ReduceMax", inputs: ["p"], outputs: ["q"]),
                    B.node("Sub", inputs: ["p", "q"], outputs: ["d"]),
                    B.node("Transpose", inputs: ["d"], outputs: ["y"], attributes: [.ints("perm", [0, 3, 1, 2])])],
            initializers: [B.int64Tensor("axes", [2], [-3, 2])],
            inputs: [B.valueInfo("x", [1, 4, Self.h, Self.w])], outputs: [B.valueInfo("y", [1, 4, Self.h, Self.w])], opset: 18)
        let graph = try #require(TransposeSinking.rewrite(try ModelProto(serializedBytes: bytes))?.graph)
        #expect(!graph.nodes.contains { $0.opType == "Transpose" })
        let axesName = try #require(graph.nodes.first { $0.opType == "ReduceMean" }?.inputs[1])
        #expect(graph.initializers.first { $0.name == axesName }?.int64Data == [2, 3])
        #expect(graph.nodes.first { $0.opType == "ReduceMax" }?.inputs.count == 1)
        #expect(try Self.run(bytes).error <= 1e-6)
    }

    @Test("near misses keep Transposes: a mean that drops its axes, an operand the graph takes in NHWC, two permutations, a Transpose only back to another layout, subgraph-free but out-of-order nodes")
    func nearMisses() throws {
        // ReduceMean with keepdims 0: the sinking stops before it (and after it the Mul's operands differ).
        let droppedAxes = Self.block { nodes, _, _ in
            nodes[8] = B.node("ReduceMean", inputs: ["s"], outputs: ["mean"], attributes: [.ints("axes", [1, 2]), .int("keepdims", 0)])
        }
        // An Add of a graph input in NHWC: not a constant and not transposed.
        let fedOperand = B.model(
            nodes: [B.node("Transpose", inputs: ["x"], outputs: ["t"], attributes: [.ints("perm", [0, 2, 3, 1])]),
                    B.node("Add", inputs: ["t", "z"], outputs: ["a"]),
                    B.node("Transpose", inputs: ["a"], outputs: ["y"], attributes: [.ints("perm", [0, 3, 1, 2])])],
            inputs: [B.valueInfo("x", [1, 4, Self.h, Self.w]), B.valueInfo("z", [1, Self.h, Self.w, 4])],
            outputs: [B.valueInfo("y", [1, 4, Self.h, Self.w])])
        // Mul of two values transposed by different permutations.
        let twoPermutations = B.model(
            nodes: [B.node("Transpose", inputs: ["x"], outputs: ["t"], attributes: [.ints("perm", [0, 2, 3, 1])]),
                    B.node("Transpose", inputs: ["z"], outputs: ["u"], attributes: [.ints("perm", [0, 3, 2, 1])]),
                    B.node("Mul", inputs: ["t", "u"], outputs: ["y"])],
            inputs: [B.valueInfo("x", [1, 4, Self.h, Self.h]), B.valueInfo("z", [1, 4, Self.h, Self.h])],
            outputs: [B.valueInfo("y", [1, Self.h, Self.h, 4])])
        // NHWC output: the one Transpose moves to the end, no fewer remain.
        let channelsLastOutput = B.model(
            nodes: [B.node("Transpose", inputs: ["x"], outputs: ["t"], attributes: [.ints("perm", [0, 2, 3, 1])]),
                    B.node("Relu", inputs: ["t"], outputs: ["y"])],
            inputs: [B.valueInfo("x", [1, 4, Self.h, Self.w])], outputs: [B.valueInfo("y", [1, Self.h, Self.w, 4])])
        for (name, bytes) in [("keepdims 0", droppedAxes), ("fed operand", fedOperand), ("two permutations", twoPermutations),
                              ("NHWC output", channelsLastOutput)] {
            let (before, after) = try Self.transposes(bytes)
            #expect(after.map { $0 >= 1 && $0 < before } ?? true, "\(name): \(before) → \(String(describing: after))")
            #expect(after == nil || name == "keepdims 0", "\(name): \(before) → \(String(describing: after))")
        }
        // Where it sinks part of the way, the result is still the reference path's.
        let (error, _) = try Self.run(droppedAxes)
        #expect(error <= 1e-6)
        // Nodes out of topological order: left as written.
        var outOfOrder = try ModelProto(serializedBytes: Self.block())
        outOfOrder.graph!.nodes.reverse()
        #expect(TransposeSinking.rewrite(outOfOrder) == nil)
    }

    /// A channels-last quantized block (`onnxruntime`'s QOperator form of a tf2onnx model): x
    /// [1, C, H, W] → QuantizeLinear → Transpose to NHWC → QLinearMul by [C] bytes → QLinearAdd
    /// by [1, 1, 1, C] bytes → QLinearSigmoid → DequantizeLinear → QuantizeLinear → QLinearMul of
    /// the Add and that gate → Transpose back → DequantizeLinear → y.
    static func quantizedBlock() -> [UInt8] {
        let channels = [Int64(c)], lastAxis: [Int64] = [1, 1, 1, c]
        func bytes(_ seed: Int) -> [UInt8] { (0..<Int(c)).map { UInt8(truncatingIfNeeded: 53 &* $0 &+ seed) } }
        func scale(_ name: String, _ value: Float, zero: UInt8) -> [[UInt8]] {
            [B.floatTensor(name + "s", [], [value]), B.rawTensor(name + "z", elementType: 2, [], [zero])]
        }
        let initializers = scale("x", 0.02, zero: 128) + scale("m", 0.01, zero: 100) + scale("p", 0.03, zero: 120)
            + scale("a", 0.015, zero: 90) + scale("q", 0.04, zero: 110) + scale("g", 1.0 / 256, zero: 0)
            + scale("h", 1.0 / 200, zero: 3) + scale("o", 0.05, zero: 125)
            + [B.rawTensor("mb", elementType: 2, channels, bytes(7)), B.rawTensor("ab", elementType: 2, lastAxis, bytes(91))]
        let ms = "com.microsoft"
        let nodes = [
            B.node("QuantizeLinear", inputs: ["x", "xs", "xz"], outputs: ["xq"]),
            B.node("Transpose", inputs: ["xq"], outputs: ["t"], attributes: [.ints("perm", [0, 2, 3, 1])]),
            B.node("QLinearMul", inputs: ["t", "xs", "xz", "mb", "ms", "mz", "ps", "pz"], outputs: ["m"], domain: ms),
            B.node("QLinearAdd", inputs: ["m", "ps", "pz", "ab", "as", "az", "qs", "qz"], outputs: ["a"], domain: ms),
            B.node("QLinearSigmoid", inputs: ["a", "qs", "qz", "gs", "gz"], outputs: ["g"], domain: ms),
            B.node("DequantizeLinear", inputs: ["g", "gs", "gz"], outputs: ["gf"]),
            B.node("QuantizeLinear", inputs: ["gf", "hs", "hz"], outputs: ["gq"]),
            B.node("QLinearMul", inputs: ["a", "qs", "qz", "gq", "hs", "hz", "os", "oz"], outputs: ["e"], domain: ms),
            B.node("Transpose", inputs: ["e"], outputs: ["et"], attributes: [.ints("perm", [0, 3, 1, 2])]),
            B.node("DequantizeLinear", inputs: ["et", "os", "oz"], outputs: ["y"]),
        ]
        return B.model(nodes: nodes, initializers: initializers, inputs: [B.valueInfo("x", [1, c, h, w])],
                       outputs: [B.valueInfo("y", [1, c, h, w])], opset: 13)
    }

    @Test("a channels-last quantized block (QLinearMul / QLinearAdd by per-channel bytes, QLinearSigmoid, QuantizeLinear and DequantizeLinear per tensor): every Transpose goes, the constants are permuted, and the fast path equals the reference path exactly")
    func quantizedChannelsLastBlock() throws {
        let bytes = Self.quantizedBlock()
        #expect(try Self.transposes(bytes) == (2, 0))
        let graph = try #require(TransposeSinking.rewrite(try ModelProto(serializedBytes: bytes))?.graph)
        for op in ["QLinearMul", "QLinearAdd"] {
            let name = try #require(graph.nodes.first { $0.opType == op }?.inputs[3])
            #expect(graph.initializers.first { $0.name == name }?.dims == [1, Self.c, 1, 1], "\(op)")
        }
        let model = try InferenceModel(bytes: bytes)
        let x = FusionRuleTests.values(Int(Self.c * Self.h * Self.w), seed: 9)
        let expected = try #require(try InferenceSession(model: model, path: .reference).run(inputs: ["x": x])["y"])
        for threads in [1, 2] {
            let fast = try InferenceSession(model: model, path: .fast, threads: threads)
            #expect(!fast.nodeKernels.contains { $0.op == "Transpose" }, "\(fast.nodeKernels.map(\.op))")
            let actual = try #require(try fast.run(inputs: ["x": x])["y"])
            #expect(actual == expected, "\(threads) thread(s): \(zip(actual, expected).filter { $0 != $1 }.count) of \(expected.count) differ")
        }
    }

    /// The QDQ form of a channels-last batch normalisation: x [1, C, H, W] → QuantizeLinear →
    /// DequantizeLinear → Transpose to NHWC → QuantizeLinear → DequantizeLinear → Mul by the
    /// DequantizeLinear of [C] bytes → QuantizeLinear → DequantizeLinear → Add of that of [C] bytes
    /// → QuantizeLinear → DequantizeLinear → Transpose back → QuantizeLinear → DequantizeLinear →
    /// y; with `explicit` the QOperator nodes in NCHW ([C, 1, 1] bytes) the fast path should run.
    static func quantizedAffine(explicit: Bool = false) -> [UInt8] {
        func scale(_ name: String, _ value: Float, zero: UInt8) -> [[UInt8]] {
            [B.floatTensor(name + "s", [], [value]), B.rawTensor(name + "z", elementType: 2, [], [zero])]
        }
        let dims: [Int64] = explicit ? [c, 1, 1] : [c]
        let initializers = scale("x", 0.02, zero: 128) + scale("m", 0.01, zero: 100) + scale("p", 0.03, zero: 120)
            + scale("a", 0.015, zero: 90) + scale("q", 0.04, zero: 110)
            + [B.rawTensor("mb", elementType: 2, dims, (0..<Int(c)).map { UInt8(40 + 31 * $0) }),
               B.rawTensor("ab", elementType: 2, dims, (0..<Int(c)).map { UInt8(200 - 29 * $0) })]
        func dq(_ v: String, _ s: String, _ out: String) -> [UInt8] { B.node("DequantizeLinear", inputs: [v, s + "s", s + "z"], outputs: [out]) }
        func q(_ v: String, _ s: String, _ out: String) -> [UInt8] { B.node("QuantizeLinear", inputs: [v, s + "s", s + "z"], outputs: [out]) }
        var nodes = [q("x", "x", "xq")]
        if explicit {
            nodes += [B.node("QLinearMul", inputs: ["xq", "xs", "xz", "mb", "ms", "mz", "ps", "pz"], outputs: ["m"], domain: "com.microsoft"),
                      B.node("QLinearAdd", inputs: ["m", "ps", "pz", "ab", "as", "az", "qs", "qz"], outputs: ["aq"], domain: "com.microsoft"),
                      dq("aq", "q", "y")]
        } else {
            nodes += [dq("xq", "x", "xd"), B.node("Transpose", inputs: ["xd"], outputs: ["t"], attributes: [.ints("perm", [0, 2, 3, 1])]),
                      q("t", "x", "tq"), dq("tq", "x", "td"), dq("mb", "m", "md"), B.node("Mul", inputs: ["td", "md"], outputs: ["m"]),
                      q("m", "p", "mq"), dq("mq", "p", "mdd"), dq("ab", "a", "ad"), B.node("Add", inputs: ["mdd", "ad"], outputs: ["a"]),
                      q("a", "q", "aq"), dq("aq", "q", "af"), B.node("Transpose", inputs: ["af"], outputs: ["u"], attributes: [.ints("perm", [0, 3, 1, 2])]),
                      q("u", "q", "uq"), dq("uq", "q", "y")]
        }
        return B.model(nodes: nodes, initializers: initializers, inputs: [B.valueInfo("x", [1, c, h, w])],
                       outputs: [B.valueInfo("y", [1, c, h, w])], opset: 13)
    }

    @Test("QDQ: DequantizeLinear → Transpose → QuantizeLinear becomes a Transpose of the bytes, the Transposes sink through the per-tensor DequantizeLinear and QuantizeLinear, the constants' DequantizeLinear is permuted, and the Mul and Add groups then become QLinearMul and QLinearAdd, equal to the explicit NCHW nodes")
    func quantizedChannelsLastGroups() throws {
        let model = try InferenceModel(bytes: Self.quantizedAffine())
        let explicit = try InferenceModel(bytes: Self.quantizedAffine(explicit: true))
        let x = FusionRuleTests.values(Int(Self.c * Self.h * Self.w), seed: 10).map { $0 * 2 }
        let expected = try #require(try InferenceSession(model: explicit, path: .reference).run(inputs: ["x": x])["y"])
        for threads in [1, 2] {
            let fast = try InferenceSession(model: model, path: .fast, threads: threads)
            let ops = fast.nodeKernels.map(\.op)
            #expect(!ops.contains("Transpose") && fast.nodeKernels.contains { $0.op == "QLinearAdd" && !$0.runsOnReference }
                    && fast.nodeKernels.contains { $0.op == "QLinearMul" && !$0.runsOnReference }, "\(ops)")
            let actual = try #require(try fast.run(inputs: ["x": x])["y"])
            #expect(actual == expected, "\(threads) thread(s): \(zip(actual, expected).filter { $0 != $1 }.count) of \(expected.count) differ")
        }
        // The reference path computes the graph as written.
        #expect(try InferenceSession(model: model, path: .reference).nodeKernels.contains { $0.op == "Transpose" })
    }
}
