import Foundation
import Testing
import TestSupport
@testable import Inference

@Suite("ModelError: every problem of a model at once")
struct ModelErrorListTests {
    /// x → Relu → a; a feeds three nodes that cannot run (an op of a custom domain, an op that
    /// opset 13 does not have, a Conv with an attribute value the engine refuses) and two nodes
    /// after them that read their outputs.
    static let threeProblems = ONNXBuilder.model(
        nodes: [
            ONNXBuilder.node("Relu", inputs: ["x"], outputs: ["a"], name: "n_relu"),
            ONNXBuilder.node("FancyOp", inputs: ["a"], outputs: ["b"], name: "n_custom", domain: "com.example"),
            ONNXBuilder.node("HardSwish", inputs: ["a"], outputs: ["c"], name: "n_hswish"),
            ONNXBuilder.node("Conv", inputs: ["a", "w"], outputs: ["d"], name: "n_conv", attributes: [.string("auto_pad", "BOGUS")]),
            ONNXBuilder.node("Add", inputs: ["b", "c"], outputs: ["e"], name: "n_add"),
            ONNXBuilder.node("Relu", inputs: ["d"], outputs: ["f"], name: "n_after_conv"),
        ],
        initializers: [ONNXBuilder.floatTensor("w", [2, 2, 1, 1], [1, 0, 0, 1])],
        inputs: [ONNXBuilder.valueInfo("x", [1, 2, 4, 4])],
        outputs: [ONNXBuilder.valueInfo("e", [1, 2, 4, 4]), ONNXBuilder.valueInfo("f", [1, 2, 4, 4])],
        opset: 13)

    @Test("one error lists every node that cannot run, each with its op, domain, opset and reason")
    func everyNode() throws {
        let error = try #require(loadError(Self.threeProblems))
        #expect(error.problems.map(\.node) == ["n_custom", "n_hswish", "n_conv"])
        #expect(error.problems.map(\.op) == ["FancyOp", "HardSwish", "Conv"])
        #expect(error.problems.map(\.domain) == ["com.example", "", ""])
        #expect(error.problems.map(\.opset) == [nil, 13, 13])
        #expect(error.problems.map(\.attribute) == [nil, nil, "auto_pad"])
        #expect(error.problems.allSatisfy { $0.kind == .unsupported && $0.problems.isEmpty })
        // The error's own fields are the first problem's.
        #expect(error.node == "n_custom" && error.op == "FancyOp" && error.kind == .unsupported)
        // n_add reads b and c, n_after_conv reads d: neither could be checked.
        #expect(error.uncheckedNodeCount == 2)
        let lines = error.description.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(error.description)")
        #expect(lines[0] == "3 nodes cannot run:")
        #expect(lines[1] == "  node 'n_custom' (FancyOp, com.example (not imported)): operator domain 'com.example' is not supported (only the default ONNX domain and some of com.microsoft)")
        #expect(lines[2] == "  node 'n_hswish' (HardSwish, ai.onnx opset 13): operator 'HardSwish' does not exist at opset 13 (it was introduced in opset 14)")
        #expect(lines[3].hasPrefix("  node 'n_conv' (Conv, ai.onnx opset 13), attribute 'auto_pad': "), "\(lines[3])")
        #expect(lines[4] == "  (2 more nodes depend on these and were not checked)")
    }

    @Test("a graph input that cannot be bound is listed with the nodes, and what reads it is not checked")
    func inputAndNodes() throws {
        let model = ONNXBuilder.model(
            nodes: [
                ONNXBuilder.node("Relu", inputs: ["x"], outputs: ["a"], name: "reads_x"),
                ONNXBuilder.node("MaxRoiPool", inputs: ["z"], outputs: ["b"], name: "pool"),
            ],
            inputs: [ONNXBuilder.valueInfo("x", dims: [.value(1), .value(3), .parameter("height"), .value(8)]),
                     ONNXBuilder.valueInfo("z", [1, 4])],
            outputs: [ONNXBuilder.valueInfo("a", dims: nil), ONNXBuilder.valueInfo("b", [1, 4])])
        let error = try #require(loadError(model))
        #expect(error.problems.count == 2, "\(error)")
        #expect(error.problems.first?.node == nil)
        #expect(error.problems.first?.message.contains("'height'; give the input's shape") == true, "\(error)")
        #expect(error.problems.last?.node == "pool" && error.problems.last?.op == "MaxRoiPool")
        #expect(error.uncheckedNodeCount == 1)
        #expect(error.description.hasPrefix("2 problems stop the model from loading:\n  graph input 'x' axis 2"), "\(error)")
    }

    @Test("a node that only fails after an unknown value is counted, not guessed at; one problem stays one line")
    func oneProblem() throws {
        let model = ONNXBuilder.model(
            nodes: [
                ONNXBuilder.node("MaxRoiPool", inputs: ["x"], outputs: ["a"], name: "pool"),
                ONNXBuilder.node("Relu", inputs: ["a"], outputs: ["y"], name: "after"),
            ],
            inputs: [ONNXBuilder.valueInfo("x", [1, 4])], outputs: [ONNXBuilder.valueInfo("y", [1, 4])])
        let error = try #require(loadError(model))
        #expect(error.problems.isEmpty)
        #expect(error.allProblems.map(\.node) == ["pool"])
        #expect(error.description == "node 'pool' (MaxRoiPool): operator 'MaxRoiPool' is not supported (1 more node depends on it and was not checked)")
        #expect(error.detailedDescription == "node 'pool' (MaxRoiPool, ai.onnx opset 17): operator 'MaxRoiPool' is not supported")
    }

    @Test("an op that is no ONNX operator, left in the default domain by a converter, says so")
    func notAnONNXOperator() throws {
        let error = try #require(loadError(oneNodeModel("TFL_Convolution2DTransposeBias")))
        #expect(error.message == "operator 'TFL_Convolution2DTransposeBias' is not an ONNX operator (the node's domain is the default one, ai.onnx)")
    }

    /// tf2onnx's export of MediaPipe's landscape model at opset 13
    /// (`Tools/make_tf2onnx_landscape.py`): 11 HardSwish nodes, an op HardSwish-14 brought, and
    /// the TFLite op TFL_Convolution2DTransposeBias, which tf2onnx left unconverted.
    @Test("the tf2onnx landscape model's refusal names every HardSwish node and the TFLite transposed convolution")
    func tf2onnxLandscape() throws {
        let bytes = try InferenceModel.readFile(Fixtures.url("model/landscape_tf2onnx/model.onnx").path)
        let error = try #require(loadError(bytes))
        #expect(error.problems.count == 12, "\(error)")
        #expect(error.problems.filter { $0.op == "HardSwish" }.map(\.node) == ["h_swish"] + (1...10).map { "h_swish_\($0)" })
        let transposed = try #require(error.problems.last)
        #expect(transposed.node == "conv2d_transpose" && transposed.op == "TFL_Convolution2DTransposeBias" && transposed.domain == "")
        #expect(error.problems.allSatisfy { $0.opset == 13 })
        #expect(error.description.contains("TFL_Convolution2DTransposeBias") && error.description.contains("'HardSwish' does not exist at opset 13"))
    }
}
