import Testing
import TestSupport
@testable import Inference

/// Each fusion rule of the fast path on a small graph that has its pattern: the rule fires (its
/// nodes run as one layer on fast kernels) and the outputs match the reference path.
@Suite("Fast-path fusion rules")
struct FusionRuleTests {
    typealias B = ONNXBuilder

    /// Deterministic values in [-scale, scale).
    static func values(_ count: Int, seed: Int, scale: Float = 1) -> [Float] {
        var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (Float(state >> 40) / Float(1 << 24) * 2 - 1) * scale
        }
    }

    /// Runs the single-input, single-output model on both paths and returns the fast path's
    /// layers after checking its output within relative `tolerance` of the reference path's
    /// (relative to the largest reference magnitude) on 1 and 2 threads.
    func layers(_ bytes: [UInt8], input shape: [Int], tolerance: Float = 1e-5,
                sourceLocation: SourceLocation = #_sourceLocation) throws -> [LayerProfile] {
        let model = try InferenceModel(bytes: bytes)
        let x = Self.values(shape.reduce(1, *), seed: 1)
        let reference = try InferenceSession(model: model, path: .reference)
        let inputName = model.inputs[0].name, outputName = model.outputs[0].name
        let expected = try #require(try reference.run(inputs: [inputName: x])[outputName])
        let largest = expected.map(abs).max() ?? 0
        #expect(largest > 0, sourceLocation: sourceLocation)
        var profile: [LayerProfile] = []
        for threads in [1, 2] {
            let fast = try InferenceSession(model: model, path: .fast, threads: threads)
            let actual = try #require(try fast.run(inputs: [inputName: x])[outputName])
            let worst = zip(actual, expected).map { abs($0 - $1) }.max() ?? .infinity
            #expect(worst <= tolerance * largest, "threads \(threads): max |Δ| \(worst), largest \(largest)",
                    sourceLocation: sourceLocation)
            var output = [Float](repeating: 0, count: expected.count)
            try x.withUnsafeBufferPointer { source in
                try output.withUnsafeMutableBufferPointer { destination in
                    profile = try fast.profileLayers(input: source, output: destination, runs: 1)
                }
            }
        }
        return profile
    }

    static func tensor(_ name: String, _ dims: [Int64], seed: Int, scale: Float = 0.5) -> [UInt8] {
        B.floatTensor(name, dims, values(dims.reduce(1) { $0 * Int($1) }, seed: seed, scale: scale))
    }

    /// BatchNormalization parameters for `c` channels (variance positive).
    static func batchNorm(_ prefix: String, channels c: Int64) -> [[UInt8]] {
        [tensor("\(prefix)_scale", [c], seed: 21), tensor("\(prefix)_bias", [c], seed: 22),
         tensor("\(prefix)_mean", [c], seed: 23),
         B.floatTensor("\(prefix)_var", [c], values(Int(c), seed: 24).map { abs($0) + 0.5 })]
    }

    @Test("Conv → BatchNormalization → Clip(0, 6) → Add: the normalisation folds into the weights, ReLU6 and the residual into the store")
    func convolutionEpilogue() throws {
        let bytes = B.model(
            nodes: [B.node("Conv", inputs: ["x", "w", "b"], outputs: ["c"], attributes: [.ints("kernel_shape", [1, 1])]),
                    B.node("BatchNormalization", inputs: ["c", "bn_scale", "bn_bias", "bn_mean", "bn_var"], outputs: ["n"]),
                    B.node("Clip", inputs: ["n", "lo", "hi"], outputs: ["r"]),
                    B.node("Add", inputs: ["r", "x"], outputs: ["y"])],
            initializers: [Self.tensor("w", [8, 8, 1, 1], seed: 2), Self.tensor("b", [8], seed: 3),
                           B.floatTensor("lo", [], [0]), B.floatTensor("hi", [], [6])] + Self.batchNorm("bn", channels: 8),
            inputs: [B.valueInfo("x", [1, 8, 9, 13])], outputs: [B.valueInfo("y", [1, 8, 9, 13])])
        let profile = try layers(bytes, input: [1, 8, 9, 13])
        #expect(profile.map(\.operators) == [["Conv", "BatchNormalization", "Clip", "Add"]])
        #expect(!profile[0].runsOnReference)
    }

    /// Conv (1x1, or a depthwise 3x3 with `depthwise`) of x on [1, channels, h, w] → Add of x →
    /// `after` (a Relu, or Clip(0, 6) for `"Clip"`), then a Mul of that by the sum when
    /// `sumReadAgain`.
    static func residualModel(channels c: Int64, height h: Int64, width w: Int64, depthwise: Bool = false,
                              after: String = "Relu", sumReadAgain: Bool = false) -> [UInt8] {
        let conv = depthwise
            ? B.node("Conv", inputs: ["x", "w", "b"], outputs: ["c"],
                     attributes: [.ints("kernel_shape", [3, 3]), .ints("pads", [1, 1, 1, 1]), .int("group", c)])
            : B.node("Conv", inputs: ["x", "w", "b"], outputs: ["c"], attributes: [.ints("kernel_shape", [1, 1])])
        var nodes = [conv, B.node("Add", inputs: ["c", "x"], outputs: ["a"]),
                     B.node(after, inputs: after == "Clip" ? ["a", "lo", "hi"] : ["a"], outputs: [sumReadAgain ? "r" : "y"])]
        if sumReadAgain { nodes.append(B.node("Mul", inputs: ["r", "a"], outputs: ["y"])) }
        return B.model(nodes: nodes,
                       initializers: [Self.tensor("w", depthwise ? [c, 1, 3, 3] : [c, c, 1, 1], seed: 2), Self.tensor("b", [c], seed: 3),
                                      B.floatTensor("lo", [], [0]), B.floatTensor("hi", [], [6])],
                       inputs: [B.valueInfo("x", [1, c, h, w])], outputs: [B.valueInfo("y", [1, c, h, w])])
    }

    @Test("1x1 Conv → Add of a residual → Relu (a ResNet block's end): the Relu rectifies the sum in the 1x1's store, on large and small maps")
    func reluAfterResidual() throws {
        for (c, h, w) in [(8, 9, 13), (24, 20, 20), (64, 3, 3), (520, 2, 2)] as [(Int64, Int64, Int64)] {
            let profile = try layers(Self.residualModel(channels: c, height: h, width: w), input: [1, Int(c), Int(h), Int(w)])
            #expect(profile.map(\.operators) == [["Conv", "Add", "Relu"]], "\(c) channels on \(h)x\(w)")
            #expect(!profile[0].runsOnReference)
        }
    }

    @Test("Near misses of the Relu after a residual Add stay separate: the sum also read later, a Clip(0, 6) after it, a depthwise convolution's residual")
    func reluAfterResidualNearMisses() throws {
        let shared = try layers(Self.residualModel(channels: 8, height: 9, width: 13, sumReadAgain: true), input: [1, 8, 9, 13])
        #expect(shared.map(\.operators).first == ["Conv", "Add"], "\(shared.map(\.operators))")
        #expect(!shared.contains { $0.operators.contains("Relu") && $0.operators.contains("Conv") })
        let clipped = try layers(Self.residualModel(channels: 8, height: 9, width: 13, after: "Clip"), input: [1, 8, 9, 13])
        #expect(clipped.map(\.operators) == [["Conv", "Add"], ["Clip"]])
        let depthwise = try layers(Self.residualModel(channels: 8, height: 9, width: 13, depthwise: true), input: [1, 8, 9, 13])
        #expect(depthwise.map(\.operators) == [["Conv", "Add"], ["Relu"]])
    }

    /// Conv → Sigmoid → Mul (of `mulInputs`: "c" the convolution, "s" the sigmoid), then an Add
    /// of the sigmoid (`extraSigmoidReader`) or a depthwise 3x3, on a [1, 8, 32, 32] input.
    static func siluModel(mulInputs: [String], extraSigmoidReader: Bool = false, depthwise: Bool = false) -> [UInt8] {
        var nodes = [B.node("Conv", inputs: ["x", "w", "b"], outputs: ["c"], attributes: [.ints("kernel_shape", [1, 1])]),
                     B.node("Sigmoid", inputs: ["c"], outputs: ["s"]),
                     B.node("Mul", inputs: mulInputs, outputs: [depthwise || extraSigmoidReader ? "m" : "y"])]
        if extraSigmoidReader { nodes.append(B.node("Add", inputs: ["m", "s"], outputs: ["y"])) }
        var initializers = [Self.tensor("w", [8, 8, 1, 1], seed: 2), Self.tensor("b", [8], seed: 3)]
        if depthwise {
            nodes.append(B.node("Conv", inputs: ["m", "dw"], outputs: ["y"],
                                attributes: [.ints("kernel_shape", [3, 3]), .ints("pads", [1, 1, 1, 1]), .int("group", 8)]))
            initializers.append(Self.tensor("dw", [8, 1, 3, 3], seed: 4))
        }
        return B.model(nodes: nodes, initializers: initializers, inputs: [B.valueInfo("x", [1, 8, 32, 32])],
                       outputs: [B.valueInfo("y", [1, 8, 32, 32])])
    }

    @Test("Conv → Sigmoid → Mul of the two (SiLU, either operand order): the sigmoid and the product fuse into the convolution's store")
    func siluEpilogue() throws {
        for order in [["c", "s"], ["s", "c"]] {
            let profile = try layers(Self.siluModel(mulInputs: order), input: [1, 8, 32, 32])
            #expect(profile.map(\.operators) == [["Conv", "Sigmoid", "Mul"]], "Mul(\(order))")
        }
    }

    @Test("SiLU near misses stay separate nodes: the Mul of the sigmoid by itself, the sigmoid also read by a later Add")
    func siluNearMisses() throws {
        let squared = try layers(Self.siluModel(mulInputs: ["s", "s"]), input: [1, 8, 32, 32])
        #expect(squared.map(\.operators) == [["Conv"], ["Sigmoid"], ["Mul"]])
        let shared = try layers(Self.siluModel(mulInputs: ["c", "s"], extraSigmoidReader: true), input: [1, 8, 32, 32])
        #expect(!shared.contains { $0.operators.contains("Sigmoid") && $0.operators.contains("Conv") })
    }

    @Test("1x1 → SiLU → depthwise: the banded pair takes the 1x1's SiLU as its epilogue")
    func siluBeforeDepthwise() throws {
        let profile = try layers(Self.siluModel(mulInputs: ["c", "s"], depthwise: true), input: [1, 8, 32, 32])
        #expect(profile.map(\.operators) == [["Conv", "Sigmoid", "Mul", "Conv"]])
    }

    /// An inverted residual block on a [1, 16, side, side] map: 1x1 16 → 96, Clip(0, 6),
    /// depthwise 3x3 (stride `stride`), Clip(0, 6), 1x1 96 → 16 (+ the block input when
    /// `residual`); `alsoOutput` makes that value a second graph output.
    static func invertedResidualModel(side: Int64, stride: Int64 = 1, residual: Bool = true, alsoOutput: String? = nil) -> [UInt8] {
        let out = (side + 2 - 3) / stride + 1
        var nodes = [B.node("Conv", inputs: ["x", "we", "be"], outputs: ["e"], attributes: [.ints("kernel_shape", [1, 1])]),
                     B.node("Clip", inputs: ["e", "lo", "hi"], outputs: ["e6"]),
                     B.node("Conv", inputs: ["e6", "wd", "bd"], outputs: ["d"],
                            attributes: [.ints("kernel_shape", [3, 3]), .ints("pads", [1, 1, 1, 1]), .ints("strides", [stride, stride]),
                                         .int("group", 96)]),
                     B.node("Clip", inputs: ["d", "lo", "hi"], outputs: ["d6"]),
                     B.node("Conv", inputs: ["d6", "wp", "bp"], outputs: [residual ? "p" : "y"], attributes: [.ints("kernel_shape", [1, 1])])]
        if residual { nodes.append(B.node("Add", inputs: ["p", "x"], outputs: ["y"])) }
        let initializers = [Self.tensor("we", [96, 16, 1, 1], seed: 41), Self.tensor("be", [96], seed: 42),
                            Self.tensor("wd", [96, 1, 3, 3], seed: 43), Self.tensor("bd", [96], seed: 44),
                            Self.tensor("wp", [16, 96, 1, 1], seed: 45, scale: 0.1), Self.tensor("bp", [16], seed: 46),
                            B.floatTensor("lo", [], [0]), B.floatTensor("hi", [], [6])]
        var outputs = [B.valueInfo("y", [1, 16, out, out])]
        if let alsoOutput { outputs.append(B.valueInfo(alsoOutput, [1, 96, alsoOutput.hasPrefix("e") ? side : out, alsoOutput.hasPrefix("e") ? side : out])) }
        return B.model(nodes: nodes, initializers: initializers, inputs: [B.valueInfo("x", [1, 16, side, side])], outputs: outputs)
    }

    @Test("an inverted residual block on a small map (1x1 → Clip → depthwise → Clip → 1x1 → Add) runs as one step: the 1x1s as GEMMs, the expanded and depthwise values pixel-major in scratch")
    func smallMapInvertedResidual() throws {
        for side: Int64 in [2, 3, 6] {
            let block = try layers(Self.invertedResidualModel(side: side), input: [1, 16, Int(side), Int(side)])
            #expect(block.map(\.operators) == [["Conv", "Clip", "Conv", "Clip", "Conv", "Add"]], "side \(side)")
        }
        // Stride 2, no residual: the three convolutions still one step.
        let strided = try layers(Self.invertedResidualModel(side: 6, stride: 2, residual: false), input: [1, 16, 6, 6])
        #expect(strided.map(\.operators) == [["Conv", "Clip", "Conv", "Clip", "Conv"]])
        // A 7x7 map runs its 1x1s on the pixel-vectorised kernel (the GEMM's 12-row panels fill
        // too few more lanes, `runsAsMatrixProduct`): no small-map step takes them.
        let wide = try layers(Self.invertedResidualModel(side: 7), input: [1, 16, 7, 7])
        #expect(wide.count >= 2)
    }

    @Test("small-map block near misses: the expanded value or the depthwise output also a graph output keeps it a written value of its own")
    func smallMapInvertedResidualNearMisses() throws {
        let model = try InferenceModel(bytes: Self.invertedResidualModel(side: 6, alsoOutput: "d6"))
        let x = Self.values(16 * 36, seed: 1)
        let reference = try InferenceSession(model: model, path: .reference).run(inputs: ["x": x])
        for threads in [1, 2] {
            let fast = try InferenceSession(model: model, path: .fast, threads: threads).run(inputs: ["x": x])
            for name in ["y", "d6"] {
                let (a, e) = (try #require(fast[name]), try #require(reference[name]))
                let worst = zip(a, e).map { abs($0 - $1) }.max() ?? .infinity
                #expect(worst <= 1e-5 * (e.map(abs).max() ?? 0), "\(name), \(threads) threads: max |Δ| \(worst)")
            }
        }
        let expandedOut = try InferenceModel(bytes: Self.invertedResidualModel(side: 6, alsoOutput: "e6"))
        let e = try InferenceSession(model: expandedOut, path: .reference).run(inputs: ["x": x])
        let f = try InferenceSession(model: expandedOut, path: .fast, threads: 1).run(inputs: ["x": x])
        for name in ["y", "e6"] {
            let worst = zip(try #require(f[name]), try #require(e[name])).map { abs($0 - $1) }.max() ?? .infinity
            #expect(worst <= 1e-5 * (try #require(e[name]).map(abs).max() ?? 0), "\(name): max |Δ| \(worst)")
        }
    }

    /// A depthwise 3x3 on a [1, 8, 8, 10] input (8 channels, 10 columns), then `affine` (op and
    /// the shape of its constant, `nil` for a graph input of shape [1, 8, 1, 1]) in order, then
    /// Clip(0, 6): tf2onnx writes a Keras depthwise layer's BatchNormalization as Mul and Add.
    static func affineModel(_ affine: [(op: String, constant: [Int64]?)]) -> [UInt8] {
        var nodes = [B.node("Conv", inputs: ["x", "w"], outputs: ["v0"],
                            attributes: [.ints("kernel_shape", [3, 3]), .ints("pads", [1, 1, 1, 1]), .int("group", 8)])]
        var initializers = [Self.tensor("w", [8, 1, 3, 3], seed: 2), B.floatTensor("lo", [], [0]), B.floatTensor("hi", [], [6])]
        var inputs = [B.valueInfo("x", [1, 8, 8, 10])]
        for (i, step) in affine.enumerated() {
            if let shape = step.constant {
                // Scales in [0.5, 1.5), shifts in [-0.5, 0.5).
                let count = Int(shape.reduce(1, *))
                let values = Self.values(count, seed: 30 + i, scale: 0.5).map { step.op == "Mul" ? $0 + 1 : $0 }
                initializers.append(B.floatTensor("k\(i)", shape, values))
            } else {
                inputs.append(B.valueInfo("k\(i)", [1, 8, 1, 1]))
            }
            nodes.append(B.node(step.op, inputs: ["v\(i)", "k\(i)"], outputs: ["v\(i + 1)"]))
        }
        nodes.append(B.node("Clip", inputs: ["v\(affine.count)", "lo", "hi"], outputs: ["y"]))
        // numpy broadcasting of the map with every constant.
        var shape: [Int64] = [1, 8, 8, 10]
        for constant in affine.compactMap(\.constant) {
            let aligned = Array(repeating: 1, count: 4 - constant.count) + constant
            shape = zip(shape, aligned).map { max($0, $1) }
        }
        return B.model(nodes: nodes, initializers: initializers, inputs: inputs, outputs: [B.valueInfo("y", shape)])
    }

    @Test("Conv → Mul → Add by per-channel or scalar constants (tf2onnx's BatchNormalization) → Clip(0, 6): the affine nodes fold into the weights and bias",
          arguments: [[("Mul", [1, 8, 1, 1]), ("Add", [1, 8, 1, 1])], [("Mul", [8, 1, 1]), ("Sub", [8, 1, 1])],
                      [("Add", [1, 8, 1, 1])], [("Mul", [])], [("Mul", [1]), ("Add", [1, 1, 1, 1]), ("Mul", [1, 8, 1, 1])]]
                     as [[(String, [Int64])]])
    func affineEpilogue(affine: [(String, [Int64])]) throws {
        let profile = try layers(Self.affineModel(affine.map { ($0.0, $0.1) }), input: [1, 8, 8, 10])
        #expect(profile.map(\.operators) == [["Conv"] + affine.map(\.0) + ["Clip"]])
        #expect(!profile[0].runsOnReference)
    }

    @Test("affine near misses stay separate nodes: a constant along the columns ([8] on 8 channels broadcasts over W), one per pixel, one that widens the batch, a Div, a graph input")
    func affineNearMisses() throws {
        let misses: [[(op: String, constant: [Int64]?)]] = [
            [("Mul", [10])], [("Mul", [1, 1, 8, 10])], [("Add", [2, 8, 1, 1])], [("Div", [1, 8, 1, 1])], [("Mul", nil)]]
        for affine in misses {
            let bytes = Self.affineModel(affine)
            let model = try InferenceModel(bytes: bytes)
            var inputs: [String: [Float]] = [:]
            for input in model.inputs {
                inputs[input.name] = Self.values(input.elementCount, seed: 1).map { $0 + 1 }
            }
            let reference = try InferenceSession(model: model, path: .reference).run(inputs: inputs)["y"]!
            let fast = try InferenceSession(model: model, path: .fast)
            let actual = try fast.run(inputs: inputs)["y"]!
            let worst = zip(actual, reference).map { abs($0 - $1) }.max() ?? .infinity
            #expect(worst <= 1e-5 * (reference.map(abs).max() ?? 0), "\(affine): max |Δ| \(worst)")
            let layers = fast.layers.map { $0.nodes.map { fast.graph.nodes[$0].opType } }
            #expect(layers.first == ["Conv"], "\(affine): \(layers)")
        }
    }

    @Test("a 9x9 depthwise filter with taps only on every 4th row and column runs as a 3x3 of dilation 4, BatchNormalization folded")
    func latticeFilter() throws {
        let c = 6
        var w = [Float](repeating: 0, count: c * 81)
        let taps = Self.values(c * 9, seed: 5)
        for ch in 0..<c {
            for ky in 0..<3 { for kx in 0..<3 { w[ch * 81 + ky * 4 * 9 + kx * 4] = taps[ch * 9 + ky * 3 + kx] } }
        }
        let bytes = B.model(
            nodes: [B.node("Conv", inputs: ["x", "w"], outputs: ["c"],
                           attributes: [.ints("kernel_shape", [9, 9]), .ints("pads", [4, 4, 4, 4]), .int("group", Int64(c))]),
                    B.node("BatchNormalization", inputs: ["c", "bn_scale", "bn_bias", "bn_mean", "bn_var"], outputs: ["y"])],
            initializers: [B.floatTensor("w", [Int64(c), 1, 9, 9], w)] + Self.batchNorm("bn", channels: Int64(c)),
            inputs: [B.valueInfo("x", [1, Int64(c), 17, 21])], outputs: [B.valueInfo("y", [1, Int64(c), 17, 21])])
        let profile = try layers(bytes, input: [1, c, 17, 21])
        #expect(profile.map(\.operators) == [["Conv", "BatchNormalization"]])
        #expect(!profile[0].runsOnReference)
    }

    @Test("grouped 1x1 and K×K convolutions and dilated dense convolutions run on fast kernels",
          arguments: [(group: 2, kernel: 1, dilation: 1), (group: 3, kernel: 1, dilation: 1),
                      (group: 1, kernel: 3, dilation: 2), (group: 1, kernel: 3, dilation: 4), (group: 3, kernel: 3, dilation: 1),
                      (group: 4, kernel: 5, dilation: 1)])
    func groupedAndDilated(group: Int, kernel: Int, dilation: Int) throws {
        let pad = Int64((kernel - 1) * dilation / 2)
        let bytes = B.model(
            nodes: [B.node("Conv", inputs: ["x", "w", "b"], outputs: ["c"],
                           attributes: [.ints("kernel_shape", [Int64(kernel), Int64(kernel)]), .int("group", Int64(group)),
                                        .ints("dilations", [Int64(dilation), Int64(dilation)]), .ints("pads", [pad, pad, pad, pad])]),
                    B.node("Relu", inputs: ["c"], outputs: ["y"])],
            initializers: [Self.tensor("w", [12, Int64(12 / group), Int64(kernel), Int64(kernel)], seed: 7),
                           Self.tensor("b", [12], seed: 8)],
            inputs: [B.valueInfo("x", [1, 12, 11, 19])], outputs: [B.valueInfo("y", [1, 12, 11, 19])])
        let profile = try layers(bytes, input: [1, 12, 11, 19])
        #expect(profile.map(\.operators) == [["Conv", "Relu"]])
        #expect(!profile[0].runsOnReference)
    }

    @Test("Transpose → Softmax over the last axis → the inverse Transpose runs as one softmax over channels")
    func softmaxBetweenTransposes() throws {
        let bytes = B.model(
            nodes: [B.node("Transpose", inputs: ["x"], outputs: ["t"], attributes: [.ints("perm", [0, 3, 2, 1])]),
                    B.node("Softmax", inputs: ["t"], outputs: ["s"], attributes: [.int("axis", 3)]),
                    B.node("Transpose", inputs: ["s"], outputs: ["y"], attributes: [.ints("perm", [0, 3, 2, 1])])],
            inputs: [B.valueInfo("x", [1, 3, 7, 20])], outputs: [B.valueInfo("y", [1, 3, 7, 20])])
        let profile = try layers(bytes, input: [1, 3, 7, 20], tolerance: 1e-6)
        #expect(profile.map(\.operators) == [["Transpose", "Softmax", "Transpose"]])
        #expect(!profile[0].runsOnReference)
    }

    @Test("a channel shuffle (Reshape → Transpose(0, 2, 1, 3, 4) → Reshape) moves whole planes on the fast path")
    func channelShuffle() throws {
        let bytes = B.model(
            nodes: [B.node("Reshape", inputs: ["x", "split"], outputs: ["g"]),
                    B.node("Transpose", inputs: ["g"], outputs: ["t"], attributes: [.ints("perm", [0, 2, 1, 3, 4])]),
                    B.node("Reshape", inputs: ["t", "merge"], outputs: ["y"])],
            initializers: [B.int64Tensor("split", [5], [1, 2, 3, 5, 7]), B.int64Tensor("merge", [4], [1, 6, 5, 7])],
            inputs: [B.valueInfo("x", [1, 6, 5, 7])], outputs: [B.valueInfo("y", [1, 6, 5, 7])])
        let profile = try layers(bytes, input: [1, 6, 5, 7], tolerance: 0)
        // The second Reshape is a view of the Transpose's output: it runs nothing, in the Transpose's layer.
        let transpose = try #require(profile.first { $0.operators.first == "Transpose" })
        #expect(!transpose.runsOnReference)
        #expect(transpose.operators == ["Transpose", "Reshape"])
    }

    @Test("NCHW → NHWC → NCHW Transposes cancel, with or without an activation between them, the last one a graph output")
    func cancelledTransposes() throws {
        for between in [false, true] {
            var nodes = [B.node("Conv", inputs: ["x", "w"], outputs: ["c"], attributes: [.ints("kernel_shape", [1, 1])]),
                         B.node("Sigmoid", inputs: ["c"], outputs: ["g"]),
                         B.node("Transpose", inputs: ["g"], outputs: ["t"], attributes: [.ints("perm", [0, 2, 3, 1])])]
            if between { nodes.append(B.node("Relu", inputs: ["t"], outputs: ["r"])) }
            nodes.append(B.node("Transpose", inputs: [between ? "r" : "t"], outputs: ["y"], attributes: [.ints("perm", [0, 3, 1, 2])]))
            let bytes = B.model(nodes: nodes, initializers: [Self.tensor("w", [4, 3, 1, 1], seed: 9)],
                                inputs: [B.valueInfo("x", [1, 3, 6, 10])], outputs: [B.valueInfo("y", [1, 4, 6, 10])])
            let profile = try layers(bytes, input: [1, 3, 6, 10], tolerance: 1e-6)
            #expect(profile.allSatisfy { !$0.runsOnReference }, "activation between: \(between)")
            #expect(!profile.flatMap(\.operators).contains("Transpose"), "\(profile.map(\.operators))")
        }
    }

    /// Conv (8 → 6 channels on a [1, 8, 5, 7] input) → Transpose to NHWC → Mul and Add by
    /// constants of the shapes given → Relu → Transpose by `back`, tf2onnx's channels-last round
    /// trip.
    static func roundTripModel(mul: [Int64], add: [Int64], back: [Int64] = [0, 3, 1, 2]) -> [UInt8] {
        let shape: [Int64] = back == [0, 3, 1, 2] ? [1, 6, 5, 7] : [1, 6, 7, 5]
        return B.model(
            nodes: [B.node("Conv", inputs: ["x", "w"], outputs: ["c"], attributes: [.ints("kernel_shape", [1, 1])]),
                    B.node("Transpose", inputs: ["c"], outputs: ["t"], attributes: [.ints("perm", [0, 2, 3, 1])]),
                    B.node("Mul", inputs: ["t", "m"], outputs: ["p"]), B.node("Add", inputs: ["a", "p"], outputs: ["s"]),
                    B.node("Relu", inputs: ["s"], outputs: ["r"]),
                    B.node("Transpose", inputs: ["r"], outputs: ["y"], attributes: [.ints("perm", back)])],
            initializers: [Self.tensor("w", [6, 8, 1, 1], seed: 2), Self.tensor("m", mul, seed: 3), Self.tensor("a", add, seed: 4)],
            inputs: [B.valueInfo("x", [1, 8, 5, 7])], outputs: [B.valueInfo("y", shape)])
    }

    @Test("Conv → Transpose to NHWC → Mul and Add by per-channel or scalar constants along the last axis → Relu → Transpose back (tf2onnx): the Transposes sink and cancel, and the convolution absorbs the rest")
    func channelsLastRoundTrip() throws {
        for (mul, add) in [([6], [6]), ([1, 1, 1, 6], [1]), ([], [1, 6])] as [([Int64], [Int64])] {
            let profile = try layers(Self.roundTripModel(mul: mul, add: add), input: [1, 8, 5, 7])
            #expect(profile.map(\.operators) == [["Conv", "Mul", "Add", "Relu"]], "Mul \(mul), Add \(add)")
        }
    }

    @Test("channels-last near misses: a constant along the columns or one per pixel stays a node of its own on the NCHW map, a Transpose back by another permutation leaves one Transpose")
    func channelsLastRoundTripNearMisses() throws {
        let cases: [([Int64], [Int64], [Int64], [[String]])] = [
            ([7, 1], [6], [0, 3, 1, 2], [["Conv"], ["Mul"], ["Add"], ["Relu"]]),
            // The constant per pixel is the 1x1's residual (added after its activation), and the
            // Relu after it rectifies that sum in the store.
            ([6], [5, 7, 6], [0, 3, 1, 2], [["Conv", "Mul", "Add", "Relu"]]),
            ([6], [6], [0, 3, 2, 1], [["Conv", "Mul", "Add", "Relu"], ["Transpose"]]),
        ]
        for (mul, add, back, expected) in cases {
            let profile = try layers(Self.roundTripModel(mul: mul, add: add, back: back), input: [1, 8, 5, 7])
            #expect(profile.map(\.operators) == expected, "Mul \(mul), Add \(add), back \(back)")
        }
    }

    /// Conv (5 → 6 channels on [1, 5, 7, 9]) → Add of the bias `b` → the hard-swish written in
    /// nodes as `spelling` says, reading the Add's output `a`; `three`, `sixth` and `alpha` are the
    /// constants it uses (near misses change them), and `alsoRead` makes `a` a graph output too.
    static func spelledHardSwishModel(_ spelling: Int, three: Float = 3, sixth: Float = 1.0 / 6, alpha: Float = 1.0 / 6,
                                      alsoRead: Bool = false) -> [UInt8] {
        var nodes = [B.node("Conv", inputs: ["x", "w"], outputs: ["c"], attributes: [.ints("kernel_shape", [1, 1])]),
                     B.node("Add", inputs: ["c", "b"], outputs: ["a"])]
        switch spelling {
        case 0:  // tf2onnx's Keras hard_swish: Add 3, Clip, Mul 1/6, Mul by the input.
            nodes += [B.node("Add", inputs: ["a", "three"], outputs: ["t"]), B.node("Clip", inputs: ["t", "zero", "six"], outputs: ["r"]),
                      B.node("Mul", inputs: ["sixth", "r"], outputs: ["g"]), B.node("Mul", inputs: ["g", "a"], outputs: ["y"])]
        case 1:  // x · relu6(x + 3) / 6.
            nodes += [B.node("Add", inputs: ["three", "a"], outputs: ["t"]), B.node("Clip", inputs: ["t", "zero", "six"], outputs: ["r"]),
                      B.node("Mul", inputs: ["a", "r"], outputs: ["p"]), B.node("Div", inputs: ["p", "sixk"], outputs: ["y"])]
        default:  // Older PyTorch exports: HardSigmoid, Mul by the input.
            nodes += [B.node("HardSigmoid", inputs: ["a"], outputs: ["g"], attributes: [.float("alpha", alpha), .float("beta", 0.5)]),
                      B.node("Mul", inputs: ["a", "g"], outputs: ["y"])]
        }
        var outputs = [B.valueInfo("y", [1, 6, 7, 9])]
        if alsoRead { outputs.append(B.valueInfo("a", [1, 6, 7, 9])) }
        return B.model(nodes: nodes,
                       initializers: [Self.tensor("w", [6, 5, 1, 1], seed: 31, scale: 2), Self.tensor("b", [1, 6, 1, 1], seed: 32),
                                      B.floatTensor("three", [], [three]), B.floatTensor("zero", [], [0]), B.floatTensor("six", [], [6]),
                                      B.floatTensor("sixth", [1], [sixth]), B.floatTensor("sixk", [], [6])],
                       inputs: [B.valueInfo("x", [1, 5, 7, 9])], outputs: outputs)
    }

    @Test("a hard-swish written in nodes (Add 3 → Clip → Mul 1/6 → Mul, Mul → Div 6, HardSigmoid(1/6, 1/2) → Mul) fuses into the convolution's store")
    func spelledHardSwish() throws {
        for spelling in 0..<3 {
            let profile = try layers(Self.spelledHardSwishModel(spelling), input: [1, 5, 7, 9])
            #expect(profile.count == 1 && profile[0].operators.first == "Conv" && profile[0].operators.last == (spelling == 1 ? "Div" : "Mul"),
                    "spelling \(spelling): \(profile.map(\.operators))")
        }
    }

    @Test("spelled hard-swish near misses stay separate nodes and correct: x + 2.5, a factor of 0.2, HardSigmoid alpha 0.2, its input also a graph output")
    func spelledHardSwishNearMisses() throws {
        let misses: [(String, [UInt8])] = [
            ("Add 2.5", Self.spelledHardSwishModel(0, three: 2.5)),
            ("Mul 0.2", Self.spelledHardSwishModel(0, sixth: 0.2)),
            ("alpha 0.2", Self.spelledHardSwishModel(2, alpha: 0.2)),
        ]
        for (name, bytes) in misses {
            let profile = try layers(bytes, input: [1, 5, 7, 9])
            #expect(profile.count > 1, "\(name): \(profile.map(\.operators))")
        }
        // Its input read by the caller too: checked on both paths, and not fused.
        for spelling in 0..<3 {
            let bytes = Self.spelledHardSwishModel(spelling, alsoRead: true)
            try PathComparison.check(bytes, feeds: ["x": Self.values(5 * 7 * 9, seed: 3)], "spelling \(spelling), input also an output")
            let session = try InferenceSession(model: try InferenceModel(bytes: bytes), path: .fast)
            #expect(FusionFuzzRunner.layers(of: session).allSatisfy { !($0.contains("Clip") || $0.contains("HardSigmoid")) || $0.first != "Conv" },
                    "spelling \(spelling): \(FusionFuzzRunner.layers(of: session))")
        }
    }

    @Test("a zero Pad of rows and columns folds into the depthwise or dense convolution after it, its borders added to the convolution's",
          arguments: [(group: 6, pads: [1, 1, 1, 1], convolutionPad: 0, stride: 1),
                      (group: 1, pads: [0, 0, 1, 1], convolutionPad: 0, stride: 2),
                      (group: 6, pads: [2, 1, 0, 3], convolutionPad: 1, stride: 2),
                      (group: 2, pads: [1, 2, 1, 2], convolutionPad: 1, stride: 1)])
    func padFoldsIntoConvolution(group: Int, pads: [Int64], convolutionPad: Int64, stride: Int64) throws {
        let (c, h, w): (Int64, Int64, Int64) = (6, 9, 14)
        let (top, left, bottom, right) = (pads[0], pads[1], pads[2], pads[3])
        let outH = (h + top + bottom + 2 * convolutionPad - 3) / stride + 1
        let outW = (w + left + right + 2 * convolutionPad - 3) / stride + 1
        let p = convolutionPad
        let bytes = B.model(
            nodes: [B.node("Pad", inputs: ["x", "pads"], outputs: ["p"]),
                    B.node("Conv", inputs: ["p", "w", "b"], outputs: ["c"],
                           attributes: [.ints("kernel_shape", [3, 3]), .int("group", Int64(group)),
                                        .ints("strides", [stride, stride]), .ints("pads", [p, p, p, p])]),
                    B.node("Relu", inputs: ["c"], outputs: ["y"])],
            initializers: [B.int64Tensor("pads", [8], [0, 0, top, left, 0, 0, bottom, right]),
                           Self.tensor("w", [c, c / Int64(group), 3, 3], seed: 11), Self.tensor("b", [c], seed: 12)],
            inputs: [B.valueInfo("x", [1, c, h, w])], outputs: [B.valueInfo("y", [1, c, outH, outW])])
        let profile = try layers(bytes, input: [1, Int(c), Int(h), Int(w)])
        #expect(profile.map(\.operators) == [["Pad", "Conv", "Relu"]])
        #expect(!profile[0].runsOnReference)
    }

    @Test("a 1x1 before a zero Pad folded into a stride-2 depthwise (tf2onnx's TF-SAME) writes its output zero-bordered: the depthwise reads it where it is",
          arguments: [([0, 0, 1, 1], 64), ([1, 1, 1, 1], 53), ([0, 2, 1, 0], 52)] as [([Int64], Int64)])
    func padReaderWrittenZeroBordered(pads: [Int64], width: Int64) throws {
        let (c, h): (Int64, Int64) = (24, 11)
        let outH = (h + pads[0] + pads[2] - 3) / 2 + 1, outW = (width + pads[1] + pads[3] - 3) / 2 + 1
        let bytes = B.model(
            nodes: [B.node("Conv", inputs: ["x", "pw", "pb"], outputs: ["e"], attributes: [.ints("kernel_shape", [1, 1])]),
                    B.node("Relu", inputs: ["e"], outputs: ["r"]),
                    B.node("Pad", inputs: ["r", "pads"], outputs: ["p"]),
                    B.node("Conv", inputs: ["p", "w"], outputs: ["y"],
                           attributes: [.ints("kernel_shape", [3, 3]), .int("group", c), .ints("strides", [2, 2])])],
            initializers: [Self.tensor("pw", [c, 8, 1, 1], seed: 13), Self.tensor("pb", [c], seed: 14),
                           B.int64Tensor("pads", [8], [0, 0, pads[0], pads[1], 0, 0, pads[2], pads[3]]),
                           Self.tensor("w", [c, 1, 3, 3], seed: 15)],
            inputs: [B.valueInfo("x", [1, 8, h, width])], outputs: [B.valueInfo("y", [1, c, outH, outW])])
        let profile = try layers(bytes, input: [1, 8, Int(h), Int(width)])
        #expect(profile.map(\.operators) == [["Conv", "Relu"], ["Pad", "Conv"]])
        let session = try InferenceSession(model: try InferenceModel(bytes: bytes), path: .fast)
        let depthwise = try #require(session.steps.compactMap { $0 as? DepthwiseStep }.first)
        guard case .written = depthwise.source else {
            Issue.record("the depthwise step copies its input: \(depthwise.source)")
            return
        }
    }

    @Test("a bilinear ×2 Resize read only by a 1x1 convolution runs as the convolution at the low resolution, then the resize")
    func resizeBeforePointwise() throws {
        let bytes = B.model(
            nodes: [B.node("Resize", inputs: ["x", "", "scales"], outputs: ["r"], attributes: [.string("mode", "linear")]),
                    B.node("Conv", inputs: ["r", "w", "b"], outputs: ["y"], attributes: [.ints("kernel_shape", [1, 1])])],
            initializers: [B.floatTensor("scales", [4], [1, 1, 2, 2]), Self.tensor("w", [5, 8, 1, 1], seed: 13),
                           Self.tensor("b", [5], seed: 14)],
            inputs: [B.valueInfo("x", [1, 8, 7, 10])], outputs: [B.valueInfo("y", [1, 5, 14, 20])])
        let profile = try layers(bytes, input: [1, 8, 7, 10])
        #expect(profile.map(\.operators) == [["Resize", "Conv"]])
        #expect(!profile[0].runsOnReference)
    }

    @Test("PRelu of a [1, C] row with per-channel or one slope, and Expand of one plane to C channels, run on fast kernels")
    func rowPReluAndExpand() throws {
        for slopeDims in [[Int64(9)], [Int64(1)]] {
            let bytes = B.model(
                nodes: [B.node("Gemm", inputs: ["x", "w"], outputs: ["g"]),
                        B.node("PRelu", inputs: ["g", "slope"], outputs: ["y"])],
                initializers: [Self.tensor("w", [5, 9], seed: 15), Self.tensor("slope", slopeDims, seed: 16)],
                inputs: [B.valueInfo("x", [1, 5])], outputs: [B.valueInfo("y", [1, 9])])
            let profile = try layers(bytes, input: [1, 5])
            #expect(profile.allSatisfy { !$0.runsOnReference }, "slope \(slopeDims)")
        }
        let bytes = B.model(
            nodes: [B.node("Relu", inputs: ["x"], outputs: ["r"]),
                    B.node("Expand", inputs: ["r", "shape"], outputs: ["y"])],
            initializers: [B.int64Tensor("shape", [4], [1, 3, 6, 11])],
            inputs: [B.valueInfo("x", [1, 1, 6, 11])], outputs: [B.valueInfo("y", [1, 3, 6, 11])])
        let profile = try layers(bytes, input: [1, 1, 6, 11], tolerance: 0)
        #expect(profile.map(\.operators) == [["Relu"], ["Expand"]])
        #expect(profile.allSatisfy { !$0.runsOnReference })
        let columns = B.model(
            nodes: [B.node("Expand", inputs: ["x", "shape"], outputs: ["y"])],
            initializers: [B.int64Tensor("shape", [4], [1, 2, 5, 7])],
            inputs: [B.valueInfo("x", [1, 2, 5, 1])], outputs: [B.valueInfo("y", [1, 2, 5, 7])])
        #expect(try layers(columns, input: [1, 2, 5, 1], tolerance: 0).allSatisfy { !$0.runsOnReference })
    }

    @Test("a Transpose moving leading axes behind the others (NCHW → NHWC, [1, C, N] → [1, N, C]) runs as one interleave",
          arguments: [([1, 5, 6, 7], [0, 2, 3, 1]), ([1, 16, 40], [0, 2, 1]), ([1, 40, 16], [0, 2, 1]), ([1, 3, 1, 9], [0, 2, 3, 1]),
                      ([2, 3, 4], [1, 2, 0])])
    func interleavingTranspose(shape: [Int], perm: [Int]) throws {
        let bytes = B.model(
            nodes: [B.node("Transpose", inputs: ["x"], outputs: ["y"], attributes: [.ints("perm", perm.map(Int64.init))])],
            inputs: [B.valueInfo("x", shape.map(Int64.init))], outputs: [B.valueInfo("y", perm.map { Int64(shape[$0]) })])
        let profile = try layers(bytes, input: shape, tolerance: 0)
        #expect(profile.allSatisfy { !$0.runsOnReference })
    }

    @Test("Inception's 1×7 then 7×1 convolutions (and 1×3, 3×1 on 8×8) on small maps run on the small-map kernel with their Relu, not as patches: one Conv+Relu layer each, the reference path's values; with 3 channels (tiles over channels mostly idle) as patches",
          arguments: [(7, 17, 48, true), (3, 8, 40, true), (7, 17, 3, false), (3, 5, 33, true)])
    func unequalWindows(k: Int64, size: Int64, channels: Int64, direct: Bool) throws {
        let c = channels
        let bytes = B.model(
            nodes: [B.node("Conv", inputs: ["x", "w1", "b1"], outputs: ["c1"],
                           attributes: [.ints("kernel_shape", [1, k]), .ints("pads", [0, k / 2, 0, k / 2])]),
                    B.node("Relu", inputs: ["c1"], outputs: ["r1"]),
                    B.node("Conv", inputs: ["r1", "w2", "b2"], outputs: ["c2"],
                           attributes: [.ints("kernel_shape", [k, 1]), .ints("pads", [k / 2, 0, k / 2, 0])]),
                    B.node("Relu", inputs: ["c2"], outputs: ["y"])],
            initializers: [Self.tensor("w1", [c, c, 1, k], seed: 21), Self.tensor("b1", [c], seed: 22),
                           Self.tensor("w2", [c, c, k, 1], seed: 23), Self.tensor("b2", [c], seed: 24)],
            inputs: [B.valueInfo("x", [1, c, size, size])], outputs: [B.valueInfo("y", [1, c, size, size])])
        let profile = try layers(bytes, input: [1, Int(c), Int(size), Int(size)])
        let layers = direct ? [["Conv", "Relu"], ["Conv", "Relu"]] : [["Conv"], ["Relu"], ["Conv"], ["Relu"]]
        #expect(profile.map(\.operators) == layers, "\(profile.map(\.operators))")
        #expect(profile.allSatisfy { !$0.runsOnReference })
    }

    struct PatchCase: Sendable, CustomTestStringConvertible {
        let kernel: [Int64], strides: [Int64], pads: [Int64], group: Int64
        var testDescription: String { "kernel \(kernel), strides \(strides), pads \(pads), group \(group)" }
    }

    static let patchCases: [PatchCase] = [
        PatchCase(kernel: [4, 4], strides: [4, 4], pads: [0, 0, 0, 0], group: 1),
        PatchCase(kernel: [9, 9], strides: [1, 1], pads: [4, 4, 4, 4], group: 1),
        PatchCase(kernel: [1, 1], strides: [2, 2], pads: [0, 0, 0, 0], group: 1),
        PatchCase(kernel: [3, 5], strides: [2, 1], pads: [1, 2, 0, 3], group: 2),
        PatchCase(kernel: [3, 3], strides: [3, 3], pads: [1, 1, 1, 1], group: 6),
    ]

    @Test("a convolution no direct kernel takes runs as gathered patches times the weights", arguments: patchCases)
    func patchConvolution(_ p: PatchCase) throws {
        let (kernel, strides, pads, group) = (p.kernel, p.strides, p.pads, p.group)
        let (c, h, w): (Int64, Int64, Int64) = (6, 17, 23)
        let outH = (h + pads[0] + pads[2] - kernel[0]) / strides[0] + 1, outW = (w + pads[1] + pads[3] - kernel[1]) / strides[1] + 1
        let bytes = B.model(
            nodes: [B.node("Conv", inputs: ["x", "w", "b"], outputs: ["y"],
                           attributes: [.ints("kernel_shape", kernel), .ints("strides", strides), .ints("pads", pads), .int("group", group)])],
            initializers: [Self.tensor("w", [8 * group, c / group] + kernel, seed: 17), Self.tensor("b", [8 * group], seed: 18)],
            inputs: [B.valueInfo("x", [1, c, h, w])], outputs: [B.valueInfo("y", [1, 8 * group, outH, outW])])
        let profile = try layers(bytes, input: [1, Int(c), Int(h), Int(w)])
        #expect(profile.allSatisfy { !$0.runsOnReference })
    }
}
