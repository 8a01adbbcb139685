import Foundation
import Testing
import TestSupport
@testable import Inference

private typealias B = ONNXBuilder

/// Fixed values in [-1.5, 1.5) that no rounding pattern favours.
private func values(_ count: Int, phase: Double) -> [Double] {
    (0..<count).map { 1.5 * sin(Double($0) * 0.731 + phase) }
}

/// The distance in float16 steps between two finite float16 values (bit patterns), as ordered integers.
func float16Steps(_ a: UInt16, _ b: UInt16) -> Int {
    func ordered(_ bits: UInt16) -> Int { bits & 0x8000 != 0 ? -Int(bits & 0x7FFF) : Int(bits) }
    return abs(ordered(a) - ordered(b))
}

/// The elements of a float16 tensor as bit patterns.
func halves(_ tensor: Inference.Tensor) -> [UInt16] {
    tensor.bytes.withUnsafeBytes { raw in (0..<tensor.elementCount).map { raw.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self) } }
}

/// The float16 contract of a float operator: the float16 model `half`, run on `inputs`, gives for
/// each of `outputs` the result of `single` (the same graph in float32) run on the same values
/// widened, rounded once to float16. On the reference path exactly (the float32 graph's reference
/// kernels compute the same float32 values); on the fast path within 1 float16 step, since its
/// kernels may sum in another order, a few float32 ulps away, and a value near a float16 rounding
/// boundary can then round the other way. Inputs that are not float16 (targets, indices) are
/// given to both models as they are.
func expectRoundedOnce(half: [UInt8], single: [UInt8], inputs: [String: Inference.Tensor], outputs: [String],
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
    let halfModel = try InferenceModel(bytes: half), singleModel = try InferenceModel(bytes: single)
    let widened = inputs.mapValues { $0.type == .float16 ? Inference.Tensor(type: .float32, shape: $0.shape, doubles: $0.doubles) : $0 }
    let reference = try InferenceSession(model: singleModel, path: .reference).run(widened)
    for path in ExecutionPath.allCases {
        let results = try InferenceSession(model: halfModel, path: path).run(inputs)
        for name in outputs {
            let expectedFloat = try #require(reference[name], sourceLocation: sourceLocation)
            let actual = try #require(results[name], "\(name) (\(path))", sourceLocation: sourceLocation)
            #expect(actual.type == .float16, "\(name) (\(path))", sourceLocation: sourceLocation)
            #expect(actual.shape == expectedFloat.shape, "\(name) (\(path))", sourceLocation: sourceLocation)
            let expected = halves(Inference.Tensor(type: .float16, shape: expectedFloat.shape, doubles: expectedFloat.doubles))
            let steps = zip(halves(actual), expected).map(float16Steps)
            #expect(steps.count == expected.count, sourceLocation: sourceLocation)
            #expect(steps.allSatisfy { $0 <= (path == .reference ? 0 : 1) },
                    "\(name) (\(path)): up to \(steps.max() ?? 0) float16 steps from the float32 graph rounded once", sourceLocation: sourceLocation)
        }
    }
}

@Suite("float16 inputs of float32 operators: widened, computed in float32, narrowed; double refused")
struct FloatWideningTests {
    @Test("bfloat16 inputs take the same route: computed in float32, rounded once to bfloat16 (Celu-28 allows it)")
    func bfloat16() throws {
        func celu(_ elementType: Int64) -> [UInt8] {
            B.model(nodes: [B.node("Celu", inputs: ["x"], outputs: ["y"], name: "node_0", attributes: [.float("alpha", 0.7)])],
                    inputs: [B.valueInfo("x", dims: [.value(12)], elementType: elementType)],
                    outputs: [B.valueInfo("y", dims: nil, elementType: elementType)], opset: 28)
        }
        let x = Inference.Tensor(type: .bfloat16, shape: [12], doubles: values(12, phase: 0.1).map { $0 * 3 })
        let y = try #require(try InferenceSession(model: InferenceModel(bytes: celu(16)), path: .reference).run(["x": x])["y"])
        let widened = Inference.Tensor(type: .float32, shape: [12], doubles: x.doubles)
        let single = try #require(try InferenceSession(model: InferenceModel(bytes: celu(1)), path: .reference).run(["x": widened])["y"])
        #expect(y.type == .bfloat16)
        #expect(y == Inference.Tensor(type: .bfloat16, shape: [12], doubles: single.doubles))
    }

    /// x [1, 3, 6, 5] → Conv(W [4, 3, 3, 3], B [4], pads 1) → Relu → y, with elementType 10 (FLOAT16)
    /// or 1 (FLOAT) for x, W, B and y.
    private func convRelu(elementType: Int64) -> [UInt8] {
        let type: ElementType = elementType == 10 ? .float16 : .float32
        // The float16 values in both graphs, so they compute on the same numbers.
        let weights = Inference.Tensor(type: type, shape: [4, 3, 3, 3],
                                       doubles: Inference.Tensor(type: .float16, shape: [108], doubles: values(108, phase: 0.3).map { $0 / 3 }).doubles)
        let bias = Inference.Tensor(type: type, shape: [4], doubles: Inference.Tensor(type: .float16, shape: [4], doubles: values(4, phase: 1.1)).doubles)
        return B.model(
            nodes: [B.node("Conv", inputs: ["x", "W", "B"], outputs: ["c"], attributes: [.ints("pads", [1, 1, 1, 1])]),
                    B.node("Relu", inputs: ["c"], outputs: ["y"])],
            initializers: [B.rawTensor("W", elementType: elementType, [4, 3, 3, 3], weights.bytes),
                           B.rawTensor("B", elementType: elementType, [4], bias.bytes)],
            inputs: [B.valueInfo("x", dims: [.value(1), .value(3), .value(6), .value(5)], elementType: elementType)],
            outputs: [B.valueInfo("y", dims: [.value(1), .value(4), .value(6), .value(5)], elementType: elementType)],
            opset: 13)
    }

    @Test("a float16 Conv → Relu plans its conversions as Cast nodes and rounds each result once, on both paths")
    func float16ModelOnBothPaths() throws {
        let model = try InferenceModel(bytes: convRelu(elementType: 10))
        // x widened; Conv; Relu reads Conv's float32 result directly (a widened region keeps float32
        // between its nodes), so the Cast rounding it to c, which nothing reads, is dropped; y narrowed.
        #expect(model.runningNodes.map(\.op) == ["Cast", "Conv", "Relu", "Cast"])
        #expect(model.outputs.map(\.name) == ["y"])
        let x = Inference.Tensor(type: .float16, shape: [1, 3, 6, 5], doubles: values(90, phase: 0))

        // The same graph in float32 on the float16 values: its result rounded to float16 is what
        // the float16 graph must give (Relu of a rounded value is the rounded Relu).
        let float32Model = try InferenceModel(bytes: convRelu(elementType: 1))
        let widenedX = Inference.Tensor(type: .float32, shape: x.shape, doubles: x.doubles)
        let reference = try #require(try InferenceSession(model: float32Model, path: .reference).run(["x": widenedX])["y"])
        let expected = halves(Inference.Tensor(type: .float16, shape: reference.shape, doubles: reference.doubles))

        let onReference = try #require(try InferenceSession(model: model, path: .reference).run(["x": x])["y"])
        #expect(onReference.type == .float16)
        #expect(onReference.shape == [1, 4, 6, 5])
        #expect(halves(onReference) == expected, "the reference path computes the float32 graph's values, rounded once")

        // The fast path's convolution sums in another order: its float32 sums are within a few
        // float32 ulps of the reference's, so a rounding to float16 may land one step away.
        let onFast = try #require(try InferenceSession(model: model, path: .fast).run(["x": x])["y"])
        #expect(onFast.type == .float16)
        let steps = zip(halves(onFast), expected).map(float16Steps)
        #expect(steps.allSatisfy { $0 <= 1 }, "fast path: \(steps.max() ?? 0) float16 steps from the reference")
        print("float16 Conv → Relu, fast path: \(steps.filter { $0 != 0 }.count) of \(steps.count) elements one float16 step from the reference path")
    }

    /// x → Conv → Relu → Pad (`mode`, a float16 constant value where it is "constant") → Conv → y,
    /// in float16 (`elementType` 10) or float32 (1), on the same float16 values: the Keras
    /// mobilenet_v2 shape of a padded stride-2 depthwise layer.
    private func convPadConv(elementType: Int64, mode: String) -> [UInt8] {
        let type: ElementType = elementType == 10 ? .float16 : .float32
        func tensor(_ name: String, _ dims: [Int64], _ doubles: [Double]) -> [UInt8] {
            let rounded = Inference.Tensor(type: .float16, shape: dims.map(Int.init), doubles: doubles).doubles
            return B.rawTensor(name, elementType: elementType, dims, Inference.Tensor(type: type, shape: dims.map(Int.init), doubles: rounded).bytes)
        }
        let constant = mode == "constant" ? [tensor("v", [], [0.75])] : []
        return B.model(
            nodes: [B.node("Conv", inputs: ["x", "W", "B"], outputs: ["c"], attributes: [.ints("pads", [1, 1, 1, 1])]),
                    B.node("Relu", inputs: ["c"], outputs: ["r"]),
                    B.node("Pad", inputs: ["r", "p"] + (mode == "constant" ? ["v"] : []), outputs: ["q"], attributes: [.string("mode", mode)]),
                    B.node("Conv", inputs: ["q", "D"], outputs: ["y"], attributes: [.ints("strides", [2, 2]), .int("group", 4)])],
            initializers: [tensor("W", [4, 3, 3, 3], values(108, phase: 0.3).map { $0 / 3 }), tensor("B", [4], values(4, phase: 1.1)),
                           B.int64Tensor("p", [8], [0, 0, 0, 0, 0, 0, 1, 1]), tensor("D", [4, 1, 3, 3], values(36, phase: 0.7).map { $0 / 2 })] + constant,
            inputs: [B.valueInfo("x", dims: [.value(1), .value(3), .value(6), .value(5)], elementType: elementType)],
            outputs: [B.valueInfo("y", dims: [.value(1), .value(4), .value(3), .value(2)], elementType: elementType)],
            opset: 13)
    }

    @Test("a Pad inside a widened region moves the float32 values: no Casts around it, the result rounded once", arguments: ["constant", "reflect", "edge"])
    func padKeepsFloat32(mode: String) throws {
        let model = try InferenceModel(bytes: convPadConv(elementType: 10, mode: mode))
        // Pad commutes with the rounding (it only moves values, and its float16 constant widens
        // exactly), so the second Conv reads the first's float32 results, as in onnxruntime,
        // whose inserted Casts surround the whole region; the rounding of q nothing reads is dropped.
        #expect(model.runningNodes.map(\.op) == ["Cast", "Conv", "Relu", "Pad", "Conv", "Cast"], "\(mode)")
        let x = Inference.Tensor(type: .float16, shape: [1, 3, 6, 5], doubles: values(90, phase: 0.4))
        try expectRoundedOnce(half: convPadConv(elementType: 10, mode: mode), single: convPadConv(elementType: 1, mode: mode),
                              inputs: ["x": x], outputs: ["y"])
    }

    /// x (float32) → Cast to float16 → Conv (float16 W, B) → c → Cast to float32 → y, the graph
    /// `convert_float_to_float16(keep_io_types=True)` writes; with `cAlsoOutput`, c is a graph
    /// output too.
    private func keptIOTypes(cAlsoOutput: Bool) -> [UInt8] {
        let weights = Inference.Tensor(type: .float16, shape: [4, 3, 3, 3], doubles: values(108, phase: 0.3).map { $0 / 3 })
        let bias = Inference.Tensor(type: .float16, shape: [4], doubles: values(4, phase: 1.1))
        return B.model(
            nodes: [B.node("Cast", inputs: ["x"], outputs: ["x16"], attributes: [.int("to", 10)]),
                    B.node("Conv", inputs: ["x16", "W", "B"], outputs: ["c"], attributes: [.ints("pads", [1, 1, 1, 1])]),
                    B.node("Cast", inputs: ["c"], outputs: ["y"], attributes: [.int("to", 1)])],
            initializers: [B.rawTensor("W", elementType: 10, [4, 3, 3, 3], weights.bytes), B.rawTensor("B", elementType: 10, [4], bias.bytes)],
            inputs: [B.valueInfo("x", dims: [.value(1), .value(3), .value(6), .value(5)], elementType: 1)],
            outputs: [B.valueInfo("y", dims: [.value(1), .value(4), .value(6), .value(5)], elementType: 1)]
                + (cAlsoOutput ? [B.valueInfo("c", dims: [.value(1), .value(4), .value(6), .value(5)], elementType: 10)] : []),
            opset: 13)
    }

    /// onnxruntime's CPU provider has no float16 Conv: it inserts a Cast to float32 before the
    /// node and one back after it, and its RemoveDuplicateCastTransformer then cancels each against
    /// the model's Cast beside it, so neither the input nor the result is rounded to float16.
    @Test("the model's Casts around a widened node cancel against its widening as in onnxruntime: float32 in, float32 out, unrounded")
    func castsAroundWidenedNodeCancel() throws {
        let x = Inference.Tensor(type: .float32, shape: [1, 3, 6, 5], doubles: values(90, phase: 0.2).map { $0 * 1.0001 })
        let weights = Inference.Tensor(type: .float16, shape: [4, 3, 3, 3], doubles: values(108, phase: 0.3).map { $0 / 3 })
        let bias = Inference.Tensor(type: .float16, shape: [4], doubles: values(4, phase: 1.1))
        let single = B.model(
            nodes: [B.node("Conv", inputs: ["x", "W", "B"], outputs: ["y"], attributes: [.ints("pads", [1, 1, 1, 1])])],
            initializers: [B.rawTensor("W", elementType: 1, [4, 3, 3, 3], Inference.Tensor(type: .float32, shape: [4, 3, 3, 3], doubles: weights.doubles).bytes),
                           B.rawTensor("B", elementType: 1, [4], Inference.Tensor(type: .float32, shape: [4], doubles: bias.doubles).bytes)],
            inputs: [B.valueInfo("x", dims: [.value(1), .value(3), .value(6), .value(5)], elementType: 1)],
            outputs: [B.valueInfo("y", dims: [.value(1), .value(4), .value(6), .value(5)], elementType: 1)], opset: 13)
        let expected = try #require(try InferenceSession(model: InferenceModel(bytes: single), path: .reference).run(["x": x])["y"])
        #expect(Inference.Tensor(type: .float16, shape: x.shape, doubles: x.doubles).doubles != x.doubles, "x must not be float16 values")
        let model = try InferenceModel(bytes: keptIOTypes(cAlsoOutput: false))
        for path in ExecutionPath.allCases {
            let y = try #require(try InferenceSession(model: model, path: path).run(["x": x])["y"])
            #expect(y.type == .float32)
            let worst = zip(y.doubles, expected.doubles).map { abs($0 - $1) }.max() ?? .infinity
            // The reference path computes the float32 graph's values; the fast path's convolution sums in another order.
            #expect(worst <= (path == .reference ? 0 : 1e-6), "\(path): \(worst) from the float32 Conv on x unrounded")
        }
        // With c a graph output as well, its readers are not all Casts: y is c rounded to float16, then widened.
        let both = try InferenceSession(model: InferenceModel(bytes: keptIOTypes(cAlsoOutput: true)), path: .reference).run(["x": x])
        let c = try #require(both["c"]), y = try #require(both["y"])
        #expect(y.doubles == c.doubles, "y is the rounded c")
        #expect(y.doubles != expected.doubles)
    }

    /// The constants of `mulNormMul`, float16 values stored as `type`.
    private func normConstants(_ type: ElementType) -> [String: [UInt8]] {
        let doubles = ["a": values(8, phase: 0.5).map { $0 * 1.7 }, "scale": values(8, phase: 1.3),
                       "bias": values(8, phase: 2.1).map { $0 / 4 }, "b": values(8, phase: 0.8).map { $0 * 2.3 }]
        return doubles.mapValues { Inference.Tensor(type: type, shape: [8], doubles: Inference.Tensor(type: .float16, shape: [8], doubles: $0).doubles).bytes }
    }

    /// `nodes` over [3, 8] values of `elementType` (10 FLOAT16 or 1 FLOAT) with `normConstants` as
    /// initializers, `inputs` and `outputs` named.
    private func normGraph(_ nodes: [[UInt8]], inputs: [String], outputs: [String], elementType: Int64) -> [UInt8] {
        let constants = normConstants(elementType == 10 ? .float16 : .float32)
        return B.model(nodes: nodes, initializers: constants.keys.sorted().map { B.rawTensor($0, elementType: elementType, [8], constants[$0]!) },
                       inputs: inputs.map { B.valueInfo($0, dims: [.value(3), .value(8)], elementType: elementType) },
                       outputs: outputs.map { B.valueInfo($0, dims: [.value(3), .value(8)], elementType: elementType) }, opset: 17)
    }

    private let firstMul = B.node("Mul", inputs: ["x", "a"], outputs: ["m"])
    private let norm = B.node("LayerNormalization", inputs: ["m", "scale", "bias"], outputs: ["n"], attributes: [.int("axis", -1)])
    private let secondMul = B.node("Mul", inputs: ["n", "b"], outputs: ["y"])

    /// onnxruntime's CPU provider has a float16 LayerNormalization (it widens inside and rounds its
    /// result), so it inserts no Casts around it: the node reads the float16 value its input was
    /// rounded to, and the next widened node reads its rounded result, not the float32 values of a
    /// widened region (`FloatWidening.roundedLikeOnnxruntime`).
    @Test("a float16 LayerNormalization reads its input rounded and its readers read its result rounded, as in onnxruntime")
    func layerNormalizationRounds() throws {
        // x → Mul(a) → m → LayerNormalization → n → Mul(b) → y, in float16; n is an output too.
        let model = try InferenceModel(bytes: normGraph([firstMul, norm, secondMul], inputs: ["x"], outputs: ["y", "n"], elementType: 10))
        // x widened, Mul, m rounded and widened, LayerNormalization, n rounded and widened, Mul, y rounded.
        #expect(model.runningNodes.map(\.op) == ["Cast", "Mul", "Cast", "Cast", "LayerNormalization", "Cast", "Cast", "Mul", "Cast"])
        let x = Inference.Tensor(type: .float16, shape: [3, 8], doubles: values(24, phase: 0.6).map { $0 * 1.9 })

        /// One node of the graph in float32 on the reference path, fed float16 values, its result rounded to float16.
        func rounded(_ node: [UInt8], _ input: String, _ value: Inference.Tensor, _ output: String) throws -> Inference.Tensor {
            let single = try InferenceModel(bytes: normGraph([node], inputs: [input], outputs: [output], elementType: 1))
            let widened = Inference.Tensor(type: .float32, shape: value.shape, doubles: value.doubles)
            let result = try #require(try InferenceSession(model: single, path: .reference).run([input: widened])[output])
            return Inference.Tensor(type: .float16, shape: result.shape, doubles: result.doubles)
        }
        let m = try rounded(firstMul, "x", x, "m"), n = try rounded(norm, "m", m, "n")
        // Widening the region through the norm would give another n: the rounding of m matters here.
        let regionModel = try InferenceModel(bytes: normGraph([firstMul, norm], inputs: ["x"], outputs: ["n"], elementType: 1))
        let region = try #require(try InferenceSession(model: regionModel, path: .reference)
            .run(["x": Inference.Tensor(type: .float32, shape: x.shape, doubles: x.doubles)])["n"])
        #expect(halves(Inference.Tensor(type: .float16, shape: region.shape, doubles: region.doubles)) != halves(n))

        for path in ExecutionPath.allCases {
            let results = try InferenceSession(model: model, path: path).run(["x": x])
            let actualN = try #require(results["n"]), y = try #require(results["y"])
            // The reference path equals the norm of m rounded; the fast path's norm sums in another order.
            let steps = zip(halves(actualN), halves(n)).map(float16Steps)
            #expect(steps.allSatisfy { $0 <= (path == .reference ? 0 : 1) }, "\(path): n up to \(steps.max() ?? 0) steps from the norm of m rounded")
            // The second Mul reads n as rounded (whatever this path's n is), and its product is exact in float32.
            #expect(halves(y) == halves(try rounded(secondMul, "n", actualN, "y")), "\(path)")
        }
    }

    @Test("a double input of an operator without a double kernel is refused naming node, op and input, not computed in float32")
    func doubleRefused() {
        let bytes = B.model(nodes: [B.node("Sqrt", inputs: ["x"], outputs: ["y"], name: "node_0")],
                            inputs: [B.valueInfo("x", dims: [.value(3), .value(7)], elementType: 11)],
                            outputs: [B.valueInfo("y", dims: [.value(3), .value(7)], elementType: 11)], opset: 13)
        let error = loadError(bytes)
        #expect(error?.node == "node_0" && error?.op == "Sqrt", "\(String(describing: error))")
        #expect(error?.message == "input 'x' has element type DOUBLE; this operator computes float32 only", "\(String(describing: error))")
    }

    /// Attention checks its input types before its attributes: the float16 node as written fails
    /// on the type of `q`, its float32 copy on `softmax_precision`. The loader reports the first,
    /// the error of the node as written, as it did before float16 was widened.
    @Test("a float16 node that fails on float32 copies too gets the error of the node as written")
    func widenedFailureKeepsTheOriginalError() throws {
        func attention(_ elementType: Int64, attributes: [B.Attribute]) -> [UInt8] {
            B.model(nodes: [B.node("Attention", inputs: ["q", "k", "v"], outputs: ["y"], name: "node_0", attributes: attributes)],
                    inputs: ["q", "k", "v"].map { B.valueInfo($0, dims: [.value(1), .value(2), .value(3), .value(4)], elementType: elementType) },
                    outputs: [B.valueInfo("y", dims: nil, elementType: elementType)], opset: 23)
        }
        let precision: [B.Attribute] = [.int("softmax_precision", 10)]
        // The float32 node fails on the attribute; the float16 node as written, before the widening, on q's type.
        #expect(loadError(attention(1, attributes: precision))?.attribute == "softmax_precision")
        let error = try #require(loadError(attention(10, attributes: precision)))
        #expect(error.node == "node_0" && error.op == "Attention" && error.attribute == nil, "\(error)")
        #expect(error.message == "input 0 ('q') has element type FLOAT16; supported: FLOAT", "\(error)")
        // Without the attribute the same float16 node loads (widened).
        #expect(try InferenceModel(bytes: attention(10, attributes: [])).runningNodes.map(\.op) == ["Cast", "Cast", "Cast", "Attention", "Cast"])
    }

    /// Celu's float16 arrived with Celu-28, a change of types only: the builder implements
    /// Celu-12, and the widening takes the type constraints of the definition the opset selects.
    @Test("float16 is allowed by the definition the model's opset selects, past changes that only added types")
    func typeOnlyDefinitions() throws {
        func celu(_ elementType: Int64, opset: Int64) -> [UInt8] {
            B.model(nodes: [B.node("Celu", inputs: ["x"], outputs: ["y"], name: "node_0", attributes: [.float("alpha", 0.7)])],
                    inputs: [B.valueInfo("x", dims: [.value(9)], elementType: elementType)],
                    outputs: [B.valueInfo("y", dims: [.value(9)], elementType: elementType)], opset: opset)
        }
        let refused = loadError(celu(10, opset: 27))
        #expect(refused?.node == "node_0" && refused?.op == "Celu", "\(String(describing: refused))")
        #expect(refused?.message == "input 'x' has element type FLOAT16, which Celu-12 does not allow there", "\(String(describing: refused))")
        let x = Inference.Tensor(type: .float16, shape: [9], doubles: values(9, phase: 0.2).map { $0 * 2 })
        try expectRoundedOnce(half: celu(10, opset: 28), single: celu(1, opset: 28), inputs: ["x": x], outputs: ["y"])
    }

    /// onnx's expanded functions make a constant of the input's type with CastLike (Celu's body:
    /// `Div(X, CastLike(alpha, X))`), which the loader folds into a float16 constant. alpha is a
    /// float16 value, so the float16 and float32 graphs divide by the same number.
    @Test("a float16 constant input (a folded CastLike) is widened with the run-time ones")
    func float16Constant() throws {
        func scaled(_ elementType: Int64) -> [UInt8] {
            B.model(nodes: [B.node("Constant", inputs: [], outputs: ["alpha"], attributes: [.float("value_float", 0.3125)]),
                            B.node("CastLike", inputs: ["alpha", "x"], outputs: ["a"]),
                            B.node("Div", inputs: ["x", "a"], outputs: ["y"])],
                    inputs: [B.valueInfo("x", dims: [.value(2), .value(5)], elementType: elementType)],
                    outputs: [B.valueInfo("y", dims: [.value(2), .value(5)], elementType: elementType)], opset: 19)
        }
        #expect(try InferenceModel(bytes: scaled(10)).runningNodes.map(\.op) == ["Cast", "Div", "Cast"])
        let x = Inference.Tensor(type: .float16, shape: [2, 5], doubles: values(10, phase: 0.9))
        try expectRoundedOnce(half: scaled(10), single: scaled(1), inputs: ["x": x], outputs: ["y"])
    }

    @Test("a float16 value read by two float nodes is widened once")
    func sharedWidening() throws {
        let bytes = B.model(nodes: [B.node("Sigmoid", inputs: ["x"], outputs: ["a"]), B.node("Tanh", inputs: ["x"], outputs: ["b"])],
                            inputs: [B.valueInfo("x", dims: [.value(5)], elementType: 10)],
                            outputs: [B.valueInfo("a", dims: [.value(5)], elementType: 10), B.valueInfo("b", dims: [.value(5)], elementType: 10)])
        let model = try InferenceModel(bytes: bytes)
        #expect(model.runningNodes.map(\.op) == ["Cast", "Sigmoid", "Cast", "Tanh", "Cast"])
        #expect(model.opCounts == ["Sigmoid": 1, "Tanh": 1])
    }

    @Test("inputs of one type parameter with float16 and float32 are refused, naming the parameter")
    func mixedTypesRefused() {
        let bytes = B.model(nodes: [B.node("Add", inputs: ["x", "z"], outputs: ["y"])],
                            inputs: [B.valueInfo("x", dims: [.value(4)], elementType: 10), B.valueInfo("z", dims: [.value(4)], elementType: 1)],
                            outputs: [B.valueInfo("y", dims: [.value(4)], elementType: 10)])
        do {
            _ = try InferenceModel(bytes: bytes)
            Issue.record("a float16 + float32 Add loaded")
        } catch {
            #expect(error.description.contains("type parameter T"), "\(error)")
        }
    }
}
