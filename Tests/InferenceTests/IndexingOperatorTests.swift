import Foundation
import Testing
import TestSupport
@testable import Inference

/// A one-node model named node_0 whose graph inputs have the given ONNX element types
/// (1 FLOAT, 6 INT32, 7 INT64, 10 FLOAT16, 11 DOUBLE) and shapes; its one output `y` has type `output` and no shape.
private func typedNode(_ op: String, _ inputs: [(String, Int64, [Int64])], output: Int64 = 1, nodeInputs: [String]? = nil,
                       attributes: [ONNXBuilder.Attribute] = [], initializers: [[UInt8]] = [], opset: Int64) -> [UInt8] {
    ONNXBuilder.model(
        nodes: [ONNXBuilder.node(op, inputs: nodeInputs ?? inputs.map(\.0), outputs: ["y"], name: "node_0", attributes: attributes)],
        initializers: initializers,
        inputs: inputs.map { ONNXBuilder.valueInfo($0.0, dims: $0.2.map { .value($0) }, elementType: $0.1) },
        outputs: [ONNXBuilder.valueInfo("y", dims: nil, elementType: output)],
        opset: opset)
}

private func int64s(_ values: [Int64]) -> [UInt8] { TensorElements.bytes(of: values, as: .int64) }
private func floats(_ values: [Float]) -> [UInt8] { TensorElements.bytes(of: values) }

@Suite("Indexing, scatter, triangle and post-21 ops: refused variants and out-of-range indices")
struct IndexingOperatorTests {
    @Test("the post-21 definitions that are implemented load; others newer than 21 are still refused")
    func newerDefinitions() throws {
        #expect(try OperatorRegistry.version(of: "RMSNormalization", opset: 23, node: "n") == 23)
        #expect(try OperatorRegistry.version(of: "CumProd", opset: 28, node: "n") == 26)
        #expect(try OperatorRegistry.version(of: "Swish", opset: 24, node: "n") == 24)
        #expect(throws: ModelError.self) { try OperatorRegistry.version(of: "RMSNormalization", opset: 22, node: "n") }
        #expect(try OperatorRegistry.version(of: "RotaryEmbedding", opset: 28, node: "n") == 23)
        #expect(try OperatorRegistry.version(of: "Attention", opset: 24, node: "n") == 24)
        #expect(throws: ModelError.self) { try OperatorRegistry.version(of: "LinearAttention", opset: 27, node: "n") }
    }

    @Test("refused attribute values name node, op and attribute")
    func refusedAttributes() {
        expectRefusal(oneNodeModel("RMSNormalization", inputs: ["x", "x"], attributes: [.int("stash_type", 0)], opset: 23),
                      op: "RMSNormalization", attribute: "stash_type")
        expectRefusal(oneNodeModel("ScatterElements", inputs: ["x", "x", "x"], attributes: [.string("reduction", "max")], opset: 16),
                      op: "ScatterElements", attribute: "reduction")
        expectRefusal(oneNodeModel("ScatterElements", inputs: ["x", "x", "x"], attributes: [.string("reduction", "add")], opset: 13),
                      op: "ScatterElements", attribute: "reduction")
        expectRefusal(oneNodeModel("ScatterND", inputs: ["x", "x", "x"], attributes: [.string("reduction", "min")], opset: 16),
                      op: "ScatterND", attribute: "reduction")
        expectRefusal(oneNodeModel("GatherND", inputs: ["x", "x"], attributes: [.int("batch_dims", 1)], opset: 11),
                      op: "GatherND", attribute: "batch_dims")
        expectRefusal(oneNodeModel("Trilu", attributes: [.int("upper", 2)], opset: 14), op: "Trilu", attribute: "upper")
        expectRefusal(oneNodeModel("ReverseSequence", inputs: ["x", "x"], attributes: [.int("batch_axis", 0)], opset: 10),
                      op: "ReverseSequence", attribute: "batch_axis", .invalidValue)
        expectRefusal(oneNodeModel("CumProd", inputs: ["x", "axis"], attributes: [.int("reverse", 2)],
                                   initializers: [ONNXBuilder.int64Tensor("axis", [], [1])], opset: 26),
                      op: "CumProd", attribute: "reverse")
        expectRefusal(oneNodeModel("GatherElements", inputs: ["x", "i"], attributes: [.int("axis", 4)],
                                   initializers: [ONNXBuilder.int64Tensor("i", [1, 1, 1, 1], [0])]),
                      op: "GatherElements", attribute: "axis", .invalidShape)
    }

    @Test("Attention and RotaryEmbedding refuse what they do not compute, naming the node, op and attribute or input")
    func attentionRefusals() {
        let q: [(String, Int64, [Int64])] = [("q", 1, [1, 2, 3, 4]), ("k", 1, [1, 2, 3, 4]), ("v", 1, [1, 2, 3, 4])]
        expectRefusal(typedNode("Attention", q, attributes: [.int("softmax_precision", 10)], opset: 23),
                      op: "Attention", attribute: "softmax_precision")
        expectRefusal(typedNode("Attention", [("q", 1, [1, 3, 8]), ("k", 1, [1, 3, 8]), ("v", 1, [1, 3, 8])],
                                attributes: [.int("kv_num_heads", 2)], opset: 23),
                      op: "Attention", attribute: "q_num_heads", .malformed)
        expectRefusal(typedNode("Attention", q, attributes: [.int("q_num_heads", 2), .int("kv_num_heads", 2)], opset: 25),
                      op: "Attention", attribute: "q_num_heads", .malformed)
        // Double, which its definition allows but the engine has no double kernel for (nor computes in float32).
        let double = typedNode("Attention", [("q", 11, [1, 2, 3, 4]), ("k", 11, [1, 2, 3, 4]), ("v", 11, [1, 2, 3, 4])], output: 11, opset: 23)
        expectRefusal(double, op: "Attention", attribute: nil)
        #expect(loadError(double)?.message.contains("'q'") == true && loadError(double)?.message.contains("DOUBLE") == true,
                "\(String(describing: loadError(double)))")
        let integers = typedNode("RotaryEmbedding", [("x", 6, [1, 2, 3, 8]), ("c", 1, [1, 3, 4]), ("s", 1, [1, 3, 4])], output: 6, opset: 23)
        expectRefusal(integers, op: "RotaryEmbedding", attribute: nil)
        #expect(loadError(integers)?.message.contains("'x'") == true, "\(String(describing: loadError(integers)))")
        expectRefusal(typedNode("Attention", q + [("mask", 7, [3, 3])], opset: 23), op: "Attention", attribute: nil)
        expectRefusal(typedNode("RotaryEmbedding", [("x", 1, [1, 3, 8]), ("c", 1, [1, 3, 4]), ("s", 1, [1, 3, 4])], opset: 23),
                      op: "RotaryEmbedding", attribute: "num_heads", .malformed)
        expectRefusal(typedNode("RotaryEmbedding", [("x", 1, [1, 2, 3, 8]), ("c", 1, [1, 3, 3]), ("s", 1, [1, 3, 3])],
                                attributes: [.int("rotary_embedding_dim", 10)], opset: 23),
                      op: "RotaryEmbedding", attribute: "rotary_embedding_dim", .invalidShape)
    }

    @Test("float16 Attention and RotaryEmbedding run on float32 copies: the float32 graph's results rounded once to float16")
    func float16AttentionAndRotary() throws {
        func values(_ count: Int, _ phase: Double) -> [Double] { (0..<count).map { 1.5 * sin(Double($0) * 0.731 + phase) } }
        let shape: [Int64] = [1, 2, 3, 4]
        let qkv = ["q", "k", "v"].enumerated().map { index, name in
            (name, Tensor(type: .float16, shape: shape.map(Int.init), doubles: values(24, Double(index))))
        }
        try expectRoundedOnce(half: typedNode("Attention", qkv.map { ($0.0, 10, shape) }, output: 10, opset: 23),
                              single: typedNode("Attention", qkv.map { ($0.0, 1, shape) }, opset: 23),
                              inputs: Dictionary(uniqueKeysWithValues: qkv), outputs: ["y"])
        // A causal grouped-query case with a float16 additive mask (type parameter U, widened with the rest).
        let gqa: [(String, [Int64], Double)] = [("q", [1, 4, 3, 4], 0.1), ("k", [1, 2, 3, 4], 0.7), ("v", [1, 2, 3, 4], 1.9), ("mask", [3, 3], 2.3)]
        let gqaInputs = Dictionary(uniqueKeysWithValues: gqa.map { name, dims, phase in
            (name, Tensor(type: .float16, shape: dims.map(Int.init), doubles: values(Int(dims.reduce(1, *)), phase)))
        })
        try expectRoundedOnce(half: typedNode("Attention", gqa.map { ($0.0, 10, $0.1) }, output: 10, attributes: [.int("is_causal", 1)], opset: 23),
                              single: typedNode("Attention", gqa.map { ($0.0, 1, $0.1) }, attributes: [.int("is_causal", 1)], opset: 23),
                              inputs: gqaInputs, outputs: ["y"])
        // RotaryEmbedding on 4-D x with caches [batch, sequence, rotary / 2]: the cosines and sines of angles.
        let angles = values(12, 0.4).map { $0 * 2 }
        let rotary: [String: Tensor] = [
            "x": Tensor(type: .float16, shape: [1, 2, 3, 8], doubles: values(48, 0.3)),
            "c": Tensor(type: .float16, shape: [1, 3, 4], doubles: angles.map(cos)),
            "s": Tensor(type: .float16, shape: [1, 3, 4], doubles: angles.map(sin)),
        ]
        let dims: [(String, [Int64])] = [("x", [1, 2, 3, 8]), ("c", [1, 3, 4]), ("s", [1, 3, 4])]
        try expectRoundedOnce(half: typedNode("RotaryEmbedding", dims.map { ($0.0, 10, $0.1) }, output: 10, opset: 23),
                              single: typedNode("RotaryEmbedding", dims.map { ($0.0, 1, $0.1) }, opset: 23),
                              inputs: rotary, outputs: ["y"])
    }

    @Test("indices out of range at run time give zeros (gathers) or are skipped (scatters), on both paths")
    func outOfRangeIndices() throws {
        let gather = try InferenceModel(bytes: typedNode("GatherElements", [("x", 1, [2, 3]), ("i", 7, [2, 2])], opset: 13))
        let gatherND = try InferenceModel(bytes: typedNode("GatherND", [("x", 1, [2, 3]), ("i", 7, [2, 1])], opset: 13))
        let scatter = try InferenceModel(bytes: typedNode("ScatterND", [("x", 1, [2, 3]), ("i", 7, [2, 1]), ("u", 1, [2, 3])], opset: 13))
        let x = Tensor(type: .float32, shape: [2, 3], bytes: floats([1, 2, 3, 4, 5, 6]))
        for path in ExecutionPath.allCases {
            let gathered = try InferenceSession(model: gather, path: path).run([
                "x": x, "i": Tensor(type: .int64, shape: [2, 2], bytes: int64s([1, -1, 0, 9])),
            ])
            #expect(gathered["y"]?.bytes == floats([4, 5, 1, 0]), "\(path)")
            let sliced = try InferenceSession(model: gatherND, path: path).run([
                "x": x, "i": Tensor(type: .int64, shape: [2, 1], bytes: int64s([5, -1])),
            ])
            #expect(sliced["y"]?.bytes == floats([0, 0, 0, 4, 5, 6]), "\(path)")
            let scattered = try InferenceSession(model: scatter, path: path).run([
                "x": x, "i": Tensor(type: .int64, shape: [2, 1], bytes: int64s([-2, 2])),
                "u": Tensor(type: .float32, shape: [2, 3], bytes: floats([7, 8, 9, 10, 11, 12])),
            ])
            #expect(scattered["y"]?.bytes == floats([7, 8, 9, 4, 5, 6]), "\(path)")
        }
    }
}
