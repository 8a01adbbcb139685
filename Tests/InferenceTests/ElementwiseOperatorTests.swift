import Testing
import TestSupport
@testable import Inference

/// A tensor initializer of ONNX element type `type` with its data in `raw_data`.
private func rawTensor(_ name: String, type: Int64, _ dims: [Int64], _ bytes: [UInt8]) -> [UInt8] {
    ONNXBuilder.rawTensor(name, elementType: type, dims, bytes)
}

/// A tensor value_info of ONNX element type `type` (1 FLOAT, 6 INT32, 7 INT64, 9 BOOL, ...), with
/// a static shape or none.
private func valueInfo(_ name: String, type: Int64, _ shape: [Int64]?) -> [UInt8] {
    ONNXBuilder.valueInfo(name, dims: shape?.map { .value($0) }, elementType: type)
}

/// A one-node model whose inputs and outputs have the given ONNX element types and shapes.
private func typedModel(_ op: String, inputs: [(String, Int64, [Int64])], outputs: [(String, Int64)],
                        attributes: [ONNXBuilder.Attribute] = [], initializers: [[UInt8]] = [], nodeInputs: [String]? = nil,
                        opset: Int64 = 17) -> [UInt8] {
    ONNXBuilder.model(
        nodes: [ONNXBuilder.node(op, inputs: nodeInputs ?? inputs.map(\.0), outputs: outputs.map(\.0), name: "node_0",
                                 attributes: attributes)],
        initializers: initializers,
        inputs: inputs.map { valueInfo($0.0, type: $0.1, $0.2) },
        outputs: outputs.map { valueInfo($0.0, type: $0.1, nil) },
        opset: opset)
}

private func int64s(_ values: [Int64]) -> [UInt8] { TensorElements.bytes(of: values, as: .int64) }
private func int32s(_ values: [Int64]) -> [UInt8] { TensorElements.bytes(of: values, as: .int32) }

@Suite("Element-wise ops: refused variants and behaviour beyond the fixtures")
struct ElementwiseOperatorTests {
    @Test("refused attribute values name node, op and attribute")
    func refusedAttributes() {
        expectRefusal(oneNodeModel("Gelu", attributes: [.string("approximate", "erf")], opset: 20), op: "Gelu", attribute: "approximate")
        expectRefusal(oneNodeModel("Celu", attributes: [.float("alpha", 0)]), op: "Celu", attribute: "alpha", .invalidValue)
        expectRefusal(oneNodeModel("IsInf", attributes: [.int("detect_negative", 2)]), op: "IsInf", attribute: "detect_negative")
        expectRefusal(oneNodeModel("Mod", inputs: ["x", "x"], attributes: [.int("fmod", 2)]), op: "Mod", attribute: "fmod")
        expectRefusal(oneNodeModel("Dropout", attributes: [.int("is_test", 1)], opset: 7), op: "Dropout", attribute: "is_test")
        expectRefusal(oneNodeModel("Dropout", attributes: [.float("ratio", 0.5)], opset: 13), op: "Dropout", attribute: "ratio")
        expectRefusal(oneNodeModel("LeakyRelu", attributes: [.float("beta", 0.5)]), op: "LeakyRelu", attribute: "beta")
        let shift = [("a", Int64(2), [Int64(3)]), ("b", 2, [3])]  // uint8
        expectRefusal(typedModel("BitShift", inputs: shift, outputs: [("y", 2)]), op: "BitShift", attribute: "direction", .malformed)
        expectRefusal(typedModel("BitShift", inputs: shift, outputs: [("y", 2)], attributes: [.string("direction", "UP")]),
                      op: "BitShift", attribute: "direction")
    }

    @Test("Dropout with a constant training_mode true is refused, naming training_mode, unless the ratio is a constant 0")
    func dropoutTraining() throws {
        let model = oneNodeModel("Dropout", inputs: ["x", "", "t"], initializers: [rawTensor("t", type: 9, [], [1])])
        expectRefusal(model, op: "Dropout", attribute: "training_mode")
        let half = oneNodeModel("Dropout", inputs: ["x", "r", "t"], initializers: [rawTensor("t", type: 9, [], [1]), ONNXBuilder.floatTensor("r", [], [0.5])])
        expectRefusal(half, op: "Dropout", attribute: "training_mode")
        // Ratio 0 drops nothing and scales by 1: the output is the input.
        let zero = oneNodeModel("Dropout", inputs: ["x", "r", "t"], initializers: [rawTensor("t", type: 9, [], [1]), ONNXBuilder.floatTensor("r", [], [0])],
                                inputShape: [2, 3])
        let x = Tensor(shape: [2, 3], floats: [1, -2, 3, -4, 5, -6])
        #expect(try InferenceSession(model: InferenceModel(bytes: zero), path: .reference).run(["x": x])["y"] == x)
        let runtime = typedModel("Dropout", inputs: [("x", 1, [2, 3]), ("t", 9, [])], outputs: [("y", 1)], nodeInputs: ["x", "", "t"])
        #expect(loadError(runtime)?.kind == .unsupported)
    }

    @Test("element types outside an op's set are refused, naming the input")
    func refusedTypes() {
        let int32Pair = [("a", Int64(6), [Int64(3)]), ("b", 6, [3])]
        // Pow's int8 bases and Pow-7's int32 ones, integer Shrink, integer Min before Min-12, mixed integer widths.
        let int8Pair = [("a", Int64(3), [Int64(3)]), ("b", 3, [3])]
        #expect(loadError(typedModel("Pow", inputs: int8Pair, outputs: [("y", 3)]))?.message.lowercased().contains("int8") == true)
        #expect(loadError(typedModel("Pow", inputs: int32Pair, outputs: [("y", 6)], opset: 11))?.kind == .unsupported)
        #expect(loadError(typedModel("Shrink", inputs: [("a", 6, [3])], outputs: [("y", 6)]))?.kind == .unsupported)
        #expect(loadError(typedModel("Min", inputs: int32Pair, outputs: [("y", 6)], opset: 8))?.kind == .unsupported)
        #expect(loadError(typedModel("Min", inputs: int32Pair, outputs: [("y", 6)], opset: 12)) == nil)
        let mixed = loadError(typedModel("Add", inputs: [("a", 6, [3]), ("b", 7, [3])], outputs: [("y", 6)]))
        #expect(mixed?.op == "Add" && mixed?.message.contains("must match") == true)
        #expect(loadError(typedModel("Equal", inputs: [("a", 1, [3]), ("b", 1, [3])], outputs: [("y", 9)], opset: 7))?.kind == .unsupported)
        #expect(loadError(typedModel("Not", inputs: [("a", 1, [3])], outputs: [("y", 9)]))?.kind == .unsupported)
    }

    @Test("integer Div truncates toward zero, wraps the minimum over -1, and gives 0 for x/0; Mod by 0 is 0")
    func integerDivision() throws {
        for op in ["Div", "Mod"] {
            let model = try InferenceModel(bytes: typedModel(op, inputs: [("a", 6, [6]), ("b", 6, [6])], outputs: [("y", 6)]))
            for path in ExecutionPath.allCases {
                let session = try InferenceSession(model: model, path: path)
                let outputs = try session.run([
                    "a": Tensor(type: .int32, shape: [6], bytes: int32s([7, -7, 7, -7, Int64(Int32.min), 5])),
                    "b": Tensor(type: .int32, shape: [6], bytes: int32s([2, 2, -2, -2, -1, 0])),
                ])
                let expected: [Int64] = op == "Div" ? [3, -3, -3, 3, Int64(Int32.min), 0] : [1, 1, -1, -1, 0, 0]
                #expect(outputs["y"]?.bytes == int32s(expected), "\(op) \(path)")
            }
        }
    }

    @Test("integer Add of same-shaped NCHW tensors runs on both paths (the fast path leaves it to the reference kernel)")
    func integerAddFastPath() throws {
        let shape: [Int64] = [1, 2, 3, 3]
        let model = try InferenceModel(bytes: typedModel("Add", inputs: [("a", 7, shape), ("b", 7, shape)], outputs: [("y", 7)]))
        #expect(!(model.graph.nodes[0].operation is ElementwiseBinary))
        let a = (0..<18).map { Int64($0) - 9 }, b = (0..<18).map { Int64($0) * 1_000_000_000_000 }
        for path in ExecutionPath.allCases {
            let outputs = try InferenceSession(model: model, path: path).run([
                "a": Tensor(type: .int64, shape: [1, 2, 3, 3], bytes: int64s(a)),
                "b": Tensor(type: .int64, shape: [1, 2, 3, 3], bytes: int64s(b)),
            ])
            #expect(outputs["y"]?.bytes == int64s(zip(a, b).map { $0 + $1 }), "\(path)")
        }
    }

    @Test("integer shape arithmetic is folded at plan time into a Reshape's constant shape")
    func foldedShapeArithmetic() throws {
        let bytes = ONNXBuilder.model(
            nodes: [ONNXBuilder.node("Div", inputs: ["dims", "two"], outputs: ["half"], name: "div"),
                    ONNXBuilder.node("Mul", inputs: ["half", "one"], outputs: ["shape"], name: "mul"),
                    ONNXBuilder.node("Reshape", inputs: ["x", "shape"], outputs: ["y"], name: "reshape")],
            initializers: [ONNXBuilder.int64Tensor("dims", [2], [4, 32]), ONNXBuilder.int64Tensor("two", [2], [2, 2]),
                           ONNXBuilder.int64Tensor("one", [2], [1, 1])],
            inputs: [ONNXBuilder.valueInfo("x", [1, 2, 4, 4])], outputs: [ONNXBuilder.valueInfo("y", [2, 16])])
        let model = try InferenceModel(bytes: bytes)
        #expect(model.graph.nodes.map(\.opType) == ["Reshape"])
    }

    @Test("Dropout-7 and -10 masks are zeros as onnxruntime writes them; Dropout-13's is all true")
    func dropoutMasks() throws {
        for (opset, maskType, expected) in [(Int64(7), Int64(1), [UInt8](repeating: 0, count: 24)),
                                            (10, 9, [UInt8](repeating: 0, count: 6)), (13, 9, [UInt8](repeating: 1, count: 6))] {
            let model = try InferenceModel(bytes: typedModel("Dropout", inputs: [("x", 1, [2, 3])], outputs: [("y", 1), ("mask", maskType)],
                                                             opset: opset))
            let x = Tensor(shape: [2, 3], floats: [1, -2, 3, -4, 5, -6])
            let outputs = try InferenceSession(model: model, path: .reference).run(["x": x])
            #expect(outputs["y"] == x, "opset \(opset)")
            #expect(outputs["mask"]?.bytes == expected, "opset \(opset)")
        }
    }

    @Test("Min and Max propagate NaN, as onnxruntime does")
    func nanPropagation() throws {
        for op in ["Min", "Max"] {
            let model = try InferenceModel(bytes: typedModel(op, inputs: [("a", 1, [3]), ("b", 1, [3])], outputs: [("y", 1)]))
            let outputs = try InferenceSession(model: model, path: .reference).run([
                "a": Tensor(shape: [3], floats: [.nan, 1, 2]), "b": Tensor(shape: [3], floats: [1, .nan, 3]),
            ])
            let values = try #require(outputs["y"]?.floats)
            #expect(values[0].isNaN && values[1].isNaN && values[2] == (op == "Min" ? 2 : 3), "\(op)")
        }
    }
}
