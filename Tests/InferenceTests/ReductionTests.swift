import Foundation
import Testing
import TestSupport
@testable import Inference

/// Runs `x -> op -> y` (float32) on the reference path.
private func runOneNode(_ op: String, _ x: [Float], shape: [Int64], inputs: [String] = ["x"],
                        attributes: [ONNXBuilder.Attribute] = [], initializers: [[UInt8]] = [],
                        outputShape: [Int64]? = nil, opset: Int64 = 17) throws -> [Float] {
    let bytes = oneNodeModel(op, inputs: inputs, attributes: attributes, initializers: initializers, inputShape: shape,
                             outputShape: outputShape, opset: opset)
    let session = try InferenceSession(model: try InferenceModel(bytes: bytes), path: .reference)
    return try #require(try session.run(inputs: ["x": x])["y"])
}

@Suite("Reductions, normalisations and the softmax family: what the fixtures cannot show")
struct ReductionTests {
    let x: [Float] = (0..<48).map { Float(sin(Double($0) * 1.7)) * 2 }

    @Test("GroupNormalization-18's per-group scale and bias equal version 21's repeated per channel")
    func groupNormalizationVersions() throws {
        let groupScale: [Float] = [0.5, -1.5], groupBias: [Float] = [0.25, 2]
        let perGroup = try runOneNode("GroupNormalization", x, shape: [2, 4, 6], inputs: ["x", "s", "b"],
                                      attributes: [.int("num_groups", 2)],
                                      initializers: [ONNXBuilder.floatTensor("s", [2], groupScale), ONNXBuilder.floatTensor("b", [2], groupBias)],
                                      opset: 18)
        let perChannel = try runOneNode("GroupNormalization", x, shape: [2, 4, 6], inputs: ["x", "s", "b"],
                                        attributes: [.int("num_groups", 2)],
                                        initializers: [ONNXBuilder.floatTensor("s", [4], groupScale.flatMap { [$0, $0] }),
                                                       ONNXBuilder.floatTensor("b", [4], groupBias.flatMap { [$0, $0] })],
                                        opset: 21)
        #expect(perGroup == perChannel)
    }

    @Test("MeanVarianceNormalization's default axes are [0, 2, 3]")
    func meanVarianceDefaultAxes() throws {
        let byDefault = try runOneNode("MeanVarianceNormalization", x, shape: [2, 3, 2, 4])
        let given = try runOneNode("MeanVarianceNormalization", x, shape: [2, 3, 2, 4], attributes: [.ints("axes", [0, 2, 3])])
        #expect(byDefault == given)
    }

    @Test("LRN with an even size sums one more channel after than before, as the spec's ceil says")
    func lrnEvenSize() throws {
        let y = try runOneNode("LRN", x, shape: [1, 6, 8], attributes: [.int("size", 4), .float("alpha", 0.5), .float("beta", 0.75)])
        for c in 0..<6 {
            for s in 0..<8 {
                let window = max(0, c - 1)...min(5, c + 2)
                let sum = window.reduce(0.0) { $0 + Double(x[$1 * 8 + s]) * Double(x[$1 * 8 + s]) }
                let expected = Double(x[c * 8 + s]) / pow(1 + 0.5 / 4 * sum, 0.75)
                #expect(abs(Double(y[c * 8 + s]) - expected) <= 1e-6 * max(1, abs(expected)))
            }
        }
    }

    @Test("ReduceMax and ReduceMin over an empty axis give -inf and +inf; ReduceMean gives 0")
    func emptyReductions() throws {
        let shape: [Int64] = [3, 0]
        let attributes: [ONNXBuilder.Attribute] = [.ints("axes", [1]), .int("keepdims", 0)]
        #expect(try runOneNode("ReduceMax", [], shape: shape, attributes: attributes, outputShape: [3]) == [-.infinity, -.infinity, -.infinity])
        #expect(try runOneNode("ReduceMin", [], shape: shape, attributes: attributes, outputShape: [3]) == [.infinity, .infinity, .infinity])
        #expect(try runOneNode("ReduceMean", [], shape: shape, attributes: attributes, outputShape: [3]) == [0, 0, 0])
    }

    @Test("refused variants name the node, the op and the attribute", arguments: [
        ("LayerNormalization", ["x", "s"], [ONNXBuilder.Attribute.int("stash_type", 0)], 17, "stash_type"),
        ("GroupNormalization", ["x", "s", "s"], [.int("num_groups", 2), .int("stash_type", 0)], 21, "stash_type"),
        ("GroupNormalization", ["x", "s", "s"], [.int("num_groups", 2), .int("stash_type", 1)], 18, "stash_type"),
        ("GroupNormalization", ["x", "s", "s"], [], 21, "num_groups"),
        ("LpNormalization", ["x"], [.int("p", 3)], 17, "p"),
        ("LRN", ["x"], [], 17, "size"),
        ("ReduceSum", ["x"], [.int("noop_with_empty_axes", 1)], 12, "noop_with_empty_axes"),
        ("ReduceMean", ["x"], [.ints("axes", [1])], 18, "axes"),
        ("ArgMax", ["x"], [.int("select_last_index", 1)], 11, "select_last_index"),
        ("Softmax", ["x"], [.int("axis", 4)], 13, "axis"),
    ] as [(String, [String], [ONNXBuilder.Attribute], Int64, String)])
    func refusedAttributes(op: String, inputs: [String], attributes: [ONNXBuilder.Attribute], opset: Int64, attribute: String) {
        let model = oneNodeModel(op, inputs: inputs, attributes: attributes,
                                 initializers: [ONNXBuilder.floatTensor("s", [4], [1, 1, 1, 1])], inputShape: [1, 4, 2, 2],
                                 outputShape: [1, 4, 2, 2], opset: opset)
        let error = loadError(model)
        #expect(error?.node == "node_0" && error?.op == op && error?.attribute == attribute, "\(String(describing: error))")
    }

    @Test("runtime axes are refused, naming the input; so are rank 7, an empty ArgMax axis and integers for a float-only reduction")
    func refusedInputs() {
        let runtimeAxes = ONNXBuilder.model(
            nodes: [ONNXBuilder.node("ReduceSum", inputs: ["x", "axes"], outputs: ["y"], name: "node_0")],
            inputs: [ONNXBuilder.valueInfo("x", [2, 3]), ONNXBuilder.valueInfo("axes", [1])],
            outputs: [ONNXBuilder.valueInfo("y", [1, 3])], opset: 13)
        let error = loadError(runtimeAxes)
        #expect(error?.node == "node_0" && error?.op == "ReduceSum" && error?.message.contains("'axes'") == true, "\(String(describing: error))")

        let runtimeCumSumAxis = ONNXBuilder.model(
            nodes: [ONNXBuilder.node("CumSum", inputs: ["x", "axis"], outputs: ["y"], name: "node_0")],
            inputs: [ONNXBuilder.valueInfo("x", [2, 3]), ONNXBuilder.valueInfo("axis", [1])],
            outputs: [ONNXBuilder.valueInfo("y", [2, 3])], opset: 14)
        let cumSumError = loadError(runtimeCumSumAxis)
        #expect(cumSumError?.op == "CumSum" && cumSumError?.message.contains("'axis'") == true, "\(String(describing: cumSumError))")

        let rank7 = oneNodeModel("ReduceSum", inputShape: [1, 2, 1, 2, 1, 2, 1], outputShape: [1, 1, 1, 1, 1, 1, 1], opset: 13)
        #expect(loadError(rank7)?.kind == .unsupported, "\(String(describing: loadError(rank7)))")

        let emptyAxis = oneNodeModel("ArgMax", attributes: [.int("axis", 1)], inputShape: [3, 0], outputShape: [3, 1])
        #expect(loadError(emptyAxis)?.attribute == "axis", "\(String(describing: loadError(emptyAxis)))")

        let integerL2 = oneNodeModel("ReduceL2", inputs: ["i"], initializers: [ONNXBuilder.int64Tensor("i", [2], [3, 4])],
                                     outputShape: [1], opset: 18)
        let typeError = loadError(integerL2)
        #expect(typeError?.op == "ReduceL2" && typeError?.message.lowercased().contains("element type int64") == true, "\(String(describing: typeError))")
    }

    @Test("TopK names its k: a missing attribute (version 1), a k longer than the axis")
    func topKErrors() {
        func topK(_ inputs: [String], _ attributes: [ONNXBuilder.Attribute], initializers: [[UInt8]] = [], opset: Int64) -> ModelError? {
            loadError(ONNXBuilder.model(
                nodes: [ONNXBuilder.node("TopK", inputs: inputs, outputs: ["v", "i"], name: "node_0", attributes: attributes)],
                initializers: initializers, inputs: [ONNXBuilder.valueInfo("x", [2, 5])],
                outputs: [ONNXBuilder.valueInfo("v", [2, 3]), ONNXBuilder.valueInfo("i", [2, 3])], opset: opset))
        }
        let missing = topK(["x"], [], opset: 9)
        #expect(missing?.node == "node_0" && missing?.op == "TopK" && missing?.attribute == "k", "\(String(describing: missing))")
        let long = topK(["x"], [.int("k", 6)], opset: 9)
        #expect(long?.kind == .invalidShape && long?.attribute == "k", "\(String(describing: long))")
        let input = topK(["x", "k"], [], initializers: [ONNXBuilder.int64Tensor("k", [1], [6])], opset: 11)
        #expect(input?.kind == .invalidShape && input?.message.contains("k = 6") == true, "\(String(describing: input))")
    }

    @Test("Gemm before version 11 requires C")
    func gemmRequiresC() {
        let model = oneNodeModel("Gemm", inputs: ["x", "w"], initializers: [ONNXBuilder.floatTensor("w", [4, 2], Array(repeating: 1, count: 8))],
                                 inputShape: [3, 4], outputShape: [3, 2], opset: 10)
        let error = loadError(model)
        #expect(error?.kind == .malformed && error?.op == "Gemm", "\(String(describing: error))")
        #expect(loadError(oneNodeModel("Gemm", inputs: ["x", "w"], initializers: [ONNXBuilder.floatTensor("w", [4, 2], Array(repeating: 1, count: 8))],
                                       inputShape: [3, 4], outputShape: [3, 2], opset: 11)) == nil)
    }
}
