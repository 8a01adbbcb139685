import Testing
import TestSupport
@testable import Inference
import Kernels

/// The fast path's rules and steps for the layers of transformer-style models (ConvNeXt, ViT,
/// SegFormer): a MatMul's bias and GELU, GELU spelled as nodes, Erf, Gelu and
/// LayerNormalization. Each runs on fast kernels and matches the reference path.
@Suite("Fast-path rules: MatMul epilogues, GELU, LayerNormalization")
struct TransformerRuleTests {
    typealias B = ONNXBuilder
    typealias R = FusionRuleTests

    /// How a GELU of "x" is spelled: the scaling node, and the order of the two products.
    enum Spelling: CaseIterable {
        /// PyTorch: Div(x, √2) → Erf → Add 1 → Mul(x, s) → Mul(·, ½).
        case productThenHalf
        /// TensorFlow: Mul(x, ½) and Div(x, √2) → Erf → Add 1 → Mul(·, s).
        case halfThenProduct
        /// Mul(x, 1/√2) → Erf → Add 1 → Mul(s, ½) → Mul(x, ·).
        case halvedSum
    }

    /// The GELU nodes of "x" into "y" (or into "g", then an Add of "g" and the erf into "y"),
    /// reading the constants of `geluConstants`.
    static func geluNodes(_ spelling: Spelling, erfReader: Bool = false) -> [[UInt8]] {
        let g = erfReader ? "g" : "y"
        var nodes: [[UInt8]]
        switch spelling {
        case .productThenHalf:
            nodes = [B.node("Div", inputs: ["x", "sqrt2"], outputs: ["t"]), B.node("Erf", inputs: ["t"], outputs: ["e"]),
                     B.node("Add", inputs: ["e", "one"], outputs: ["s"]), B.node("Mul", inputs: ["x", "s"], outputs: ["p"]),
                     B.node("Mul", inputs: ["p", "half"], outputs: [g])]
        case .halfThenProduct:
            nodes = [B.node("Mul", inputs: ["half", "x"], outputs: ["p"]), B.node("Div", inputs: ["x", "sqrt2"], outputs: ["t"]),
                     B.node("Erf", inputs: ["t"], outputs: ["e"]), B.node("Add", inputs: ["one", "e"], outputs: ["s"]),
                     B.node("Mul", inputs: ["p", "s"], outputs: [g])]
        case .halvedSum:
            nodes = [B.node("Mul", inputs: ["x", "inverse_sqrt2"], outputs: ["t"]), B.node("Erf", inputs: ["t"], outputs: ["e"]),
                     B.node("Add", inputs: ["e", "one"], outputs: ["s"]), B.node("Mul", inputs: ["s", "half"], outputs: ["h"]),
                     B.node("Mul", inputs: ["x", "h"], outputs: [g])]
        }
        if erfReader { nodes.append(B.node("Add", inputs: ["g", "e"], outputs: ["y"])) }
        return nodes
    }

    static func geluConstants(sqrt2: Float = 1.414_213_54, one: Float = 1, half: Float = 0.5) -> [[UInt8]] {
        [B.floatTensor("sqrt2", [], [sqrt2]), B.floatTensor("inverse_sqrt2", [], [0.707_106_769]),
         B.floatTensor("one", [], [one]), B.floatTensor("half", [], [half])]
    }

    /// MatMul of a [1, 5, 7, 24] input by a [24, 40] constant ("m"), an Add of a bias (`bias`
    /// its shape, `biasFirst` its operand order) into "x", then `tail` (nodes reading "x" and
    /// writing "y").
    static func productModel(bias: [Int64] = [40], biasFirst: Bool = false, tail: [[UInt8]], constants: [[UInt8]]) -> [UInt8] {
        let nodes = [B.node("MatMul", inputs: ["a", "w"], outputs: ["m"]),
                     B.node("Add", inputs: biasFirst ? ["b", "m"] : ["m", "b"], outputs: ["x"])] + tail
        return B.model(nodes: nodes, initializers: [R.tensor("w", [24, 40], seed: 2, scale: 0.8), R.tensor("b", bias, seed: 3)] + constants,
                       inputs: [B.valueInfo("a", [1, 5, 7, 24])], outputs: [B.valueInfo("y", [1, 5, 7, 40])])
    }

    @Test("MatMul → bias Add → GELU, as PyTorch, TensorFlow or ONNX's Mul form spell it: one step, the product's epilogue",
          arguments: Spelling.allCases)
    func productBiasGelu(_ spelling: Spelling) throws {
        for biasFirst in [false, true] {
            let bytes = Self.productModel(biasFirst: biasFirst, tail: Self.geluNodes(spelling), constants: Self.geluConstants())
            let profile = try R().layers(bytes, input: [1, 5, 7, 24])
            #expect(profile.count == 1 && !profile[0].runsOnReference, "\(spelling): \(profile.map(\.operators))")
            #expect(profile.first?.operators.count == 7, "\(profile.map(\.operators))")
        }
    }

    @Test("GELU near misses keep the chain's nodes apart: √2 a little off, an Add of 2, a Mul by 0.49, the erf read outside the chain; a bias per row stays an Add")
    func geluNearMisses() throws {
        for constants in [Self.geluConstants(sqrt2: 1.4142), Self.geluConstants(one: 2), Self.geluConstants(half: 0.49)] {
            let profile = try R().layers(Self.productModel(tail: Self.geluNodes(.productThenHalf), constants: constants),
                                         input: [1, 5, 7, 24])
            #expect(profile.first?.operators == ["MatMul", "Add"], "\(profile.map(\.operators))")
            #expect(!profile.contains { $0.operators.contains("Erf") && $0.operators.count > 1 })
            #expect(profile.allSatisfy { !$0.runsOnReference }, "Erf, Div, Add and Mul have fast steps")
        }
        let shared = try R().layers(Self.productModel(tail: Self.geluNodes(.productThenHalf, erfReader: true),
                                                      constants: Self.geluConstants()), input: [1, 5, 7, 24])
        #expect(shared.first?.operators == ["MatMul", "Add"], "\(shared.map(\.operators))")
        // A bias of one value per row and column broadcasts like a map, not a row: not absorbed.
        let perRow = try R().layers(Self.productModel(bias: [7, 40], tail: [B.node("Relu", inputs: ["x"], outputs: ["y"])],
                                                      constants: []), input: [1, 5, 7, 24])
        #expect(perRow.first?.operators == ["MatMul"], "\(perRow.map(\.operators))")
    }

    @Test("MatMul → Relu, and MatMul → bias Add alone, fuse into the product")
    func productActivation() throws {
        let relu = try R().layers(Self.productModel(tail: [B.node("Relu", inputs: ["x"], outputs: ["y"])], constants: []),
                                  input: [1, 5, 7, 24])
        #expect(relu.map(\.operators) == [["MatMul", "Add", "Relu"]])
        let bias = try R().layers(Self.productModel(tail: [B.node("Sigmoid", inputs: ["x"], outputs: ["y"])], constants: []),
                                  input: [1, 5, 7, 24])
        #expect(bias.map(\.operators) == [["MatMul", "Add"], ["Sigmoid"]])
    }

    @Test("Conv → GELU spelled as nodes (SegFormer's feed-forward): the chain runs as one element-wise step after the convolution",
          arguments: Spelling.allCases)
    func geluAfterConvolution(_ spelling: Spelling) throws {
        let bytes = B.model(
            nodes: [B.node("Conv", inputs: ["i", "w", "b"], outputs: ["x"],
                           attributes: [.ints("kernel_shape", [3, 3]), .ints("pads", [1, 1, 1, 1]), .int("group", 8)])]
                + Self.geluNodes(spelling),
            initializers: [R.tensor("w", [8, 1, 3, 3], seed: 2, scale: 2), R.tensor("b", [8], seed: 3)] + Self.geluConstants(),
            inputs: [B.valueInfo("i", [1, 8, 9, 11])], outputs: [B.valueInfo("y", [1, 8, 9, 11])])
        let profile = try R().layers(bytes, input: [1, 8, 9, 11])
        #expect(profile.allSatisfy { !$0.runsOnReference })
        #expect(profile.count == 2 && profile[1].operators.count == 5, "\(profile.map(\.operators))")
    }

    @Test("Erf and Gelu (opset 20, approximate none) run on vector steps")
    func erfAndGeluOperators() throws {
        for op in ["Erf", "Gelu"] {
            let bytes = B.model(nodes: [B.node(op, inputs: ["x"], outputs: ["y"])], inputs: [B.valueInfo("x", [1, 3, 5, 7])],
                                outputs: [B.valueInfo("y", [1, 3, 5, 7])], opset: 20)
            let profile = try R().layers(bytes, input: [1, 3, 5, 7])
            #expect(profile.map(\.operators) == [[op]] && !profile[0].runsOnReference, "\(op)")
        }
    }

    @Test("LayerNormalization over the last axis runs on the row kernel, with and without B; over two axes it stays on the reference kernel",
          arguments: [(shape: [1, 6, 7, 96], axis: -1, bias: true), (shape: [1, 50, 33], axis: -1, bias: false),
                      (shape: [1, 4, 5, 17], axis: 2, bias: true)])
    func layerNormalization(shape: [Int], axis: Int, bias: Bool) throws {
        let normalized = shape[(axis < 0 ? shape.count + axis : axis)...].map(Int64.init)
        var initializers = [R.tensor("scale", normalized, seed: 5)]
        if bias { initializers.append(R.tensor("bias", normalized, seed: 6)) }
        let bytes = B.model(nodes: [B.node("LayerNormalization", inputs: bias ? ["x", "scale", "bias"] : ["x", "scale"],
                                           outputs: ["y"], attributes: [.int("axis", Int64(axis))])],
                            initializers: initializers, inputs: [B.valueInfo("x", shape.map(Int64.init))],
                            outputs: [B.valueInfo("y", shape.map(Int64.init))])
        let profile = try R().layers(bytes, input: shape)
        #expect(profile.map(\.operators) == [["LayerNormalization"]])
        #expect(profile[0].runsOnReference == (normalized.count > 1))
    }

    @Test("MatMul of two computed operands (attention's query · keyᵀ, with a broadcast batch), the Transpose of the last two axes and Softmax on the last axis run on fast steps")
    func attentionProducts() throws {
        // q [1, 3, 5, 8] from the input, kᵀ [1, 1, 8, 5] (broadcast over the 3 heads), softmax over the last axis.
        let bytes = B.model(
            nodes: [B.node("Mul", inputs: ["x", "two"], outputs: ["q"]),
                    B.node("Transpose", inputs: ["x"], outputs: ["t"], attributes: [.ints("perm", [0, 1, 3, 2])]),
                    B.node("Slice", inputs: ["t", "starts", "ends", "axes"], outputs: ["k"]),
                    B.node("MatMul", inputs: ["q", "k"], outputs: ["s"]),
                    B.node("Softmax", inputs: ["s"], outputs: ["y"], attributes: [.int("axis", -1)])],
            initializers: [B.floatTensor("two", [], [2]), B.int64Tensor("starts", [1], [0]), B.int64Tensor("ends", [1], [1]),
                           B.int64Tensor("axes", [1], [1])],
            inputs: [B.valueInfo("x", [1, 3, 5, 8])], outputs: [B.valueInfo("y", [1, 3, 5, 5])])
        let profile = try R().layers(bytes, input: [1, 3, 5, 8])
        for op in ["MatMul", "Softmax", "Transpose"] {
            let layer = try #require(profile.first { $0.operators.first == op })
            #expect(!layer.runsOnReference, "\(op)")
        }
    }

    /// A Conv ("w" [cout, 3, k, k], bias "b", stride k: patches) of a [1, 3, size, size] input
    /// into "c", `between` (nodes from "c" to "t"), then a Transpose of "t" by `perm` into "y"; with
    /// `secondReader`, "t" is also transposed after a Relu and the two Transposes added into "y".
    static func patchModel(cout: Int64, k: Int64, size: Int64, between: [[UInt8]] = [], perm: [Int64] = [0, 2, 3, 1],
                           secondReader: Bool = false) -> [UInt8] {
        let out = size / k
        let shape: [Int64] = perm.map { [1, cout, out, out][Int($0)] }
        let transposes = secondReader
            ? [B.node("Transpose", inputs: ["t"], outputs: ["p"], attributes: [.ints("perm", perm)]),
               B.node("Relu", inputs: ["t"], outputs: ["r"]),
               B.node("Transpose", inputs: ["r"], outputs: ["q"], attributes: [.ints("perm", perm)]),
               B.node("Add", inputs: ["p", "q"], outputs: ["y"])]
            : [B.node("Transpose", inputs: ["t"], outputs: ["y"], attributes: [.ints("perm", perm)])]
        return B.model(
            nodes: [B.node("Conv", inputs: ["i", "w", "b"], outputs: [between.isEmpty ? "t" : "c"],
                           attributes: [.ints("kernel_shape", [k, k]), .ints("strides", [k, k])])] + between + transposes,
            initializers: [R.tensor("w", [cout, 3, k, k], seed: 2), R.tensor("b", [cout], seed: 3)],
            inputs: [B.valueInfo("i", [1, 3, size, size])], outputs: [B.valueInfo("y", shape)])
    }

    @Test("Conv on the small-map kernel → Transpose to NHWC (ConvNeXt's 4x4 stride-4 stem before its channels-last LayerNormalization): one step writing its pixel-major sums as the Transpose's output; an activation between them, another perm or a second reader of the convolution keep the Transpose a step of its own",
          .enabled(if: smallMapTilesSpanRows))
    func channelsLastPatches() throws {
        for (cout, k, size) in [(Int64(96), Int64(4), Int64(32)), (17, 4, 28), (40, 4, 4)] {
            let profile = try R().layers(Self.patchModel(cout: cout, k: k, size: size), input: [1, 3, Int(size), Int(size)])
            #expect(profile.map(\.operators) == [["Conv", "Transpose"]] && !profile[0].runsOnReference,
                    "\(cout) channels k\(k) on \(size): \(profile.map(\.operators))")
        }
        let relu = try R().layers(Self.patchModel(cout: 32, k: 4, size: 32, between: [B.node("Relu", inputs: ["c"], outputs: ["t"])]),
                                  input: [1, 3, 32, 32])
        #expect(relu.map(\.operators) == [["Conv", "Relu"], ["Transpose"]], "\(relu.map(\.operators))")
        let perm = try R().layers(Self.patchModel(cout: 32, k: 4, size: 32, perm: [0, 3, 2, 1]), input: [1, 3, 32, 32])
        #expect(perm.map(\.operators) == [["Conv"], ["Transpose"]], "\(perm.map(\.operators))")
        let read = try R().layers(Self.patchModel(cout: 32, k: 4, size: 32, secondReader: true), input: [1, 3, 32, 32])
        #expect(!read.contains { $0.operators.contains("Conv") && $0.operators.contains("Transpose") }, "\(read.map(\.operators))")
        // A 3x3 at stride 1 on rows of 17 that Winograd's tiles would also take: the small-map kernel writes the Transpose.
        let winograd = B.model(
            nodes: [B.node("Conv", inputs: ["i", "w", "b"], outputs: ["t"], attributes: [.ints("kernel_shape", [3, 3]), .ints("pads", [1, 1, 1, 1])]),
                    B.node("Transpose", inputs: ["t"], outputs: ["y"], attributes: [.ints("perm", [0, 2, 3, 1])])],
            initializers: [R.tensor("w", [32, 32, 3, 3], seed: 2, scale: 0.2), R.tensor("b", [32], seed: 3)],
            inputs: [B.valueInfo("i", [1, 32, 17, 17])], outputs: [B.valueInfo("y", [1, 17, 17, 32])])
        let square = try R().layers(winograd, input: [1, 32, 17, 17])
        #expect(square.allSatisfy { !$0.runsOnReference }, "\(square.map(\.operators))")
    }

    @Test("depthwise 7x7 vectorised over channels (28x28, 14x14 and 7x7 maps, ConvNeXt's later stages) → Transpose to NHWC: one step storing its outputs pixel-major as the Transpose's output, with the activation between them; on a 56x56 map (the pixel kernel) the Transpose stays a step of its own",
          .enabled(if: smallMapTilesSpanRows))
    func channelsLastDepthwise() throws {
        for (size, relu, fused) in [(28, false, true), (14, false, true), (7, true, true), (56, false, false)] {
            let shape: [Int64] = [1, 24, Int64(size), Int64(size)]
            let bytes = B.model(
                nodes: [B.node("Conv", inputs: ["i", "w", "b"], outputs: [relu ? "c" : "t"],
                               attributes: [.ints("kernel_shape", [7, 7]), .ints("pads", [3, 3, 3, 3]), .int("group", 24)])]
                    + (relu ? [B.node("Relu", inputs: ["c"], outputs: ["t"])] : [])
                    + [B.node("Transpose", inputs: ["t"], outputs: ["y"], attributes: [.ints("perm", [0, 2, 3, 1])])],
                initializers: [R.tensor("w", [24, 1, 7, 7], seed: 2), R.tensor("b", [24], seed: 3)],
                inputs: [B.valueInfo("i", shape)], outputs: [B.valueInfo("y", [1, Int64(size), Int64(size), 24])])
            let profile = try R().layers(bytes, input: shape.map(Int.init))
            #expect(profile.allSatisfy { !$0.runsOnReference }, "\(size)")
            #expect(profile.count == (fused ? 1 : 2) && profile.last?.operators.last == "Transpose", "\(size): \(profile.map(\.operators))")
        }
    }
}
