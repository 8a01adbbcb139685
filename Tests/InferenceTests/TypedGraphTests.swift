import Testing
import TestSupport
@testable import Inference

private typealias B = ONNXBuilder

private func int64s(_ tensor: Inference.Tensor?) -> [Int64]? {
    guard let tensor, tensor.type == .int64 else { return nil }
    return tensor.constant.integers
}

private func int64Tensor(_ shape: [Int], _ values: [Int64]) -> Inference.Tensor {
    Inference.Tensor(type: .int64, shape: shape, bytes: TensorElements.bytes(of: values, as: .int64))
}

@Suite("Graphs as exporters write them: integer tensors, shape subgraphs, dynamic dims")
struct TypedGraphTests {
    /// x [N, 3, 4] → Shape → Gather(0) → Unsqueeze → Concat([-1]) → Reshape(x): PyTorch's flatten.
    private func flattenBySubgraph(opset: Int64 = 13) -> [UInt8] {
        B.model(
            nodes: [B.node("Shape", inputs: ["x"], outputs: ["shape"]),
                    B.node("Gather", inputs: ["shape", "zero"], outputs: ["batch"], attributes: [.int("axis", 0)]),
                    B.node("Unsqueeze", inputs: ["batch", "axes"], outputs: ["batch1"]),
                    B.node("Concat", inputs: ["batch1", "minusOne"], outputs: ["target"], attributes: [.int("axis", 0)]),
                    B.node("Reshape", inputs: ["x", "target"], outputs: ["y"])],
            initializers: [B.int64Tensor("zero", [], [0]), B.int64Tensor("axes", [1], [0]), B.int64Tensor("minusOne", [1], [-1])],
            inputs: [B.valueInfo("x", dims: [.parameter("N"), .value(3), .value(4)])],
            outputs: [B.valueInfo("y", dims: [.parameter("N"), .unknown])],
            opset: opset)
    }

    @Test("a shape subgraph folds at plan time once the batch dim is bound, leaving one Reshape to run")
    func shapeSubgraphFolds() throws {
        let model = try InferenceModel(bytes: flattenBySubgraph(), inputShapes: ["x": [2, 3, 4]])
        #expect(model.inputs == [TensorDescription(name: "x", shape: [2, 3, 4])])
        #expect(model.outputs == [TensorDescription(name: "y", shape: [2, 12])])
        #expect(model.runningNodes.map(\.op) == ["Reshape"])
        let x = (0..<24).map(Float.init)
        for path in ExecutionPath.allCases {
            let y = try InferenceSession(model: model, path: path).run(inputs: ["x": x])["y"]
            #expect(y == x)
        }
    }

    @Test("an unbound leading dim is 1")
    func batchDefaultsToOne() throws {
        let model = try InferenceModel(bytes: flattenBySubgraph())
        #expect(model.outputs.first?.shape == [1, 12])
    }

    @Test("a symbolic dim that is not leading must be given; the error names the input and the axis")
    func unboundDim() {
        let bytes = B.model(nodes: [B.node("Relu", inputs: ["x"], outputs: ["y"])],
                            inputs: [B.valueInfo("x", dims: [.value(1), .parameter("width")])],
                            outputs: [B.valueInfo("y", dims: nil)])
        #expect(throws: ModelError.self) { try InferenceModel(bytes: bytes) }
        do {
            _ = try InferenceModel(bytes: bytes)
        } catch {
            #expect(error.kind == .unsupported)
            #expect(error.message.contains("'x'") && error.message.contains("axis 1") && error.message.contains("width"))
        }
        #expect((try? InferenceModel(bytes: bytes, inputShapes: ["x": [1, 5]]))?.outputs.first?.shape == [1, 5])
    }

    @Test("a given shape that contradicts a declared dim is invalidInput")
    func contradictingShape() {
        do {
            _ = try InferenceModel(bytes: flattenBySubgraph(), inputShapes: ["x": [2, 5, 4]])
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .invalidInput)
            #expect(error.message.contains("axis 1"))
        }
    }

    @Test("integer tensors computed at run time: Gather by runtime indices, Cast, Concat, Unsqueeze")
    func runtimeIntegers() throws {
        let bytes = B.model(
            nodes: [B.node("Gather", inputs: ["table", "indices"], outputs: ["picked"], attributes: [.int("axis", 0)]),
                    B.node("Concat", inputs: ["indices", "indices"], outputs: ["twice"], attributes: [.int("axis", 0)]),
                    B.node("Unsqueeze", inputs: ["twice", "axes"], outputs: ["row"]),
                    B.node("Cast", inputs: ["row"], outputs: ["asFloat"], attributes: [.int("to", 1)])],
            initializers: [B.int64Tensor("axes", [1], [0])],
            inputs: [B.valueInfo("table", [4, 2]), B.valueInfo("indices", dims: [.value(3)], elementType: 7)],
            outputs: [B.valueInfo("picked", [3, 2]), B.valueInfo("row", dims: nil), B.valueInfo("asFloat", dims: nil)])
        let model = try InferenceModel(bytes: bytes)
        #expect(model.inputs.map(\.type) == [.float32, .int64])
        #expect(model.outputs.map(\.type) == [.float32, .int64, .float32])
        let session = try InferenceSession(model: model, path: .fast)
        let results = try session.run(["table": Inference.Tensor(shape: [4, 2], floats: [0, 1, 10, 11, 20, 21, 30, 31]),
                                       "indices": int64Tensor([3], [3, -4, 1])])
        #expect(results["picked"]?.floats == [30, 31, 0, 1, 10, 11])
        #expect(results["row"]?.shape == [1, 6])
        #expect(int64s(results["row"]) == [3, -4, 1, 3, -4, 1])
        #expect(results["asFloat"]?.floats == [3, -4, 1, 3, -4, 1])
    }

    @Test("Range of float16 and bfloat16 bounds fixed at plan time, summed in stash_type's precision")
    func narrowFloatRange() throws {
        func range(_ elementType: Int64, stash: Int64? = nil) -> [UInt8] {
            B.model(nodes: [B.node("Range", inputs: ["s", "l", "d"], outputs: ["y"], name: "node_0",
                                   attributes: stash.map { [.int("stash_type", $0)] } ?? [])],
                    inputs: ["s", "l", "d"].map { B.valueInfo($0, dims: [], elementType: elementType) },
                    outputs: [B.valueInfo("y", dims: nil, elementType: elementType)], opset: 27)
        }
        for (type, code) in [(ElementType.float16, Int64(10)), (.bfloat16, 16)] {
            let bounds = ["s": 1.0, "l": 10.0, "d": 2.0].mapValues { Inference.Tensor(type: type, shape: [], doubles: [$0]) }
            for stash in [nil, Int64(11)] {
                let model = try InferenceModel(bytes: range(code, stash: stash), planTimeInputs: bounds)
                let y = try #require(try InferenceSession(model: model, path: .reference).run([:])["y"])
                #expect(y.type == type && y.doubles == [1, 3, 5, 7, 9], "\(type), stash_type \(String(describing: stash))")
            }
            do {
                _ = try InferenceModel(bytes: range(code, stash: 10), planTimeInputs: bounds)
                Issue.record("expected stash_type FLOAT16 to be refused")
            } catch {
                #expect(error.attribute == "stash_type" && error.kind == .unsupported, "\(error)")
            }
        }
    }

    @Test("a float-only operator refuses an integer input, naming the input and its type")
    func floatOnlyOperator() {
        let bytes = B.model(nodes: [B.node("Sigmoid", inputs: ["x"], outputs: ["y"], name: "gate")],
                            inputs: [B.valueInfo("x", dims: [.value(3)], elementType: 7)],
                            outputs: [B.valueInfo("y", dims: nil)])
        do {
            _ = try InferenceModel(bytes: bytes)
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .unsupported && error.node == "gate" && error.op == "Sigmoid")
            #expect(error.message.contains("'x'") && error.message.contains("INT64"))
        }
    }

    @Test("a shape fed as a graph input is fixed at plan time when offered, and is then no longer an input")
    func planTimeInput() throws {
        let bytes = B.model(nodes: [B.node("Reshape", inputs: ["x", "shape"], outputs: ["y"], name: "reshape")],
                            inputs: [B.valueInfo("x", [2, 6]), B.valueInfo("shape", dims: [.value(2)], elementType: 7)],
                            outputs: [B.valueInfo("y", dims: nil)])
        do {
            _ = try InferenceModel(bytes: bytes)
            Issue.record("expected an error")
        } catch {
            #expect(error.node == "reshape" && error.message.contains("must be a constant"))
        }
        let model = try InferenceModel(bytes: bytes, planTimeInputs: ["shape": int64Tensor([2], [3, 4])])
        #expect(model.fixedInputs == ["shape"])
        #expect(model.inputs.map(\.name) == ["x"])
        #expect(model.outputs.first?.shape == [3, 4])
    }

    /// RVM's shrink: Resize(x, roi, Concat([1, 1], ratio, ratio)) with `ratio` a graph input.
    private func resizeByRatioInput() -> [UInt8] {
        B.model(nodes: [B.node("Concat", inputs: ["ones", "ratio", "ratio"], outputs: ["scales"], attributes: [.int("axis", 0)]),
                        B.node("Resize", inputs: ["x", "roi", "scales"], outputs: ["y"], name: "shrink",
                               attributes: [.string("mode", "linear"), .string("coordinate_transformation_mode", "pytorch_half_pixel")])],
                initializers: [B.floatTensor("ones", [2], [1, 1]), B.floatTensor("roi", [0], [])],
                inputs: [B.valueInfo("x", [1, 1, 4, 8]), B.valueInfo("ratio", [1])],
                outputs: [B.valueInfo("y", dims: nil)], opset: 12)
    }

    @Test("scales computed at run time from a graph input: fixed with the offered value, then folded")
    func planTimeValueThroughConcat() throws {
        do {
            _ = try InferenceModel(bytes: resizeByRatioInput())
            Issue.record("expected an error")
        } catch {
            #expect(error.node == "shrink" && error.message.contains("must be a constant"))
            #expect(error.message.contains("computed at run time from graph input 'ratio'"), "\(error)")
            #expect(error.needsPlanTimeValue)
        }
        let half = Inference.Tensor(shape: [1], floats: [0.5])
        let model = try InferenceModel(bytes: resizeByRatioInput(), planTimeInputs: ["ratio": half])
        #expect(model.fixedInputs == ["ratio"])
        #expect(model.inputs.map(\.name) == ["x"])
        #expect(model.outputs.first?.shape == [1, 1, 2, 4])
        #expect(model.runningNodes.map(\.op) == ["Resize"])
        let quarter = try InferenceModel(bytes: resizeByRatioInput(), planTimeInputs: ["ratio": Inference.Tensor(shape: [1], floats: [0.25])])
        #expect(quarter.outputs.first?.shape == [1, 1, 1, 2])
        // Each 2x2 block's mean (half-pixel positions at a 0.5 scale fall between the pixels).
        let x = (0..<32).map(Float.init)
        for path in ExecutionPath.allCases {
            let y = try InferenceSession(model: model, path: path).run(inputs: ["x": x])["y"]
            #expect(y == [4.5, 6.5, 8.5, 10.5, 20.5, 22.5, 24.5, 26.5])
        }
    }

    @Test("Slice bounds and a Reshape's shape computed from graph inputs (Add, Concat) are planned from their values")
    func planTimeBoundsAndShape() throws {
        // y = Reshape(Slice(x, [0], n + 1, [1]), Concat([-1], width)) with n and width graph inputs.
        let bytes = B.model(
            nodes: [B.node("Add", inputs: ["n", "one"], outputs: ["end"]),
                    B.node("Slice", inputs: ["x", "zero", "end", "axis"], outputs: ["cut"]),
                    B.node("Concat", inputs: ["minusOne", "width"], outputs: ["shape"], attributes: [.int("axis", 0)]),
                    B.node("Reshape", inputs: ["cut", "shape"], outputs: ["y"])],
            initializers: [B.int64Tensor("one", [1], [1]), B.int64Tensor("zero", [1], [0]), B.int64Tensor("axis", [1], [1]),
                           B.int64Tensor("minusOne", [1], [-1])],
            inputs: [B.valueInfo("x", [2, 6]), B.valueInfo("n", dims: [.value(1)], elementType: 7),
                     B.valueInfo("width", dims: [.value(1)], elementType: 7)],
            outputs: [B.valueInfo("y", dims: nil)], opset: 13)
        let model = try InferenceModel(bytes: bytes, planTimeInputs: ["n": int64Tensor([1], [3]), "width": int64Tensor([1], [2])])
        #expect(model.fixedInputs == ["n", "width"])
        #expect(model.outputs.first?.shape == [4, 2])
        let x = (0..<12).map(Float.init)
        #expect(try InferenceSession(model: model).run(inputs: ["x": x])["y"] == [0, 1, 2, 3, 6, 7, 8, 9])
    }

    @Test("an offered input read at run time before a node needs its value: fixed there, and read as a constant by the nodes before")
    func planTimeValueAfterRunTimeReaders() throws {
        // y = Reshape(x + Cast(width), Concat([-1], width)): the Add, planned first, reads width
        // at run time; the Reshape then needs the Concat's value.
        let bytes = B.model(
            nodes: [B.node("Cast", inputs: ["width"], outputs: ["offset"], attributes: [.int("to", 1)]),
                    B.node("Add", inputs: ["x", "offset"], outputs: ["shifted"]),
                    B.node("Concat", inputs: ["minusOne", "width"], outputs: ["shape"], attributes: [.int("axis", 0)]),
                    B.node("Reshape", inputs: ["shifted", "shape"], outputs: ["y"], name: "fold")],
            initializers: [B.int64Tensor("minusOne", [1], [-1])],
            inputs: [B.valueInfo("x", [2, 6]), B.valueInfo("width", dims: [.value(1)], elementType: 7)],
            outputs: [B.valueInfo("y", dims: nil)], opset: 13)
        let model = try InferenceModel(bytes: bytes, inputShapes: ["width": [1]], planTimeInputs: ["width": int64Tensor([1], [4])])
        #expect(model.fixedInputs == ["width"])
        #expect(model.inputs.map(\.name) == ["x"])
        #expect(model.outputs.first?.shape == [3, 4])
        // The Cast and the Add were planned before the Reshape needed width: they stay; the Concat,
        // computed when the Reshape needed it and read by nothing else, is dropped.
        #expect(model.runningNodes.map(\.op) == ["Cast", "Add", "Reshape"])
        let x = (0..<12).map(Float.init)
        for path in ExecutionPath.allCases {
            #expect(try InferenceSession(model: model, path: path).run(inputs: ["x": x])["y"] == x.map { $0 + 4 }, "\(path)")
        }
    }

    @Test("dim names are labels: two inputs may give one name different sizes (a warning, as onnxruntime takes it)")
    func dimNamesAreLabels() throws {
        // RVM: src [batch, 3, height, width] and r1i [batch, channels, height, width], r1i at 1x1.
        let bytes = B.model(nodes: [B.node("ReduceMean", inputs: ["src"], outputs: ["m"], attributes: [.ints("axes", [1]), .int("keepdims", 1)]),
                                    B.node("Add", inputs: ["m", "state"], outputs: ["y"])],
                            inputs: [B.valueInfo("src", dims: [.parameter("batch"), .value(3), .parameter("height"), .parameter("width")]),
                                     B.valueInfo("state", dims: [.parameter("batch"), .parameter("channels"), .parameter("height"), .parameter("width")])],
                            outputs: [B.valueInfo("y", dims: [.parameter("batch"), .unknown, .parameter("height"), .parameter("width")])],
                            opset: 13)
        let model = try InferenceModel(bytes: bytes, inputShapes: ["src": [1, 3, 4, 6], "state": [1, 1, 1, 1]])
        #expect(model.inputs.map(\.shape) == [[1, 3, 4, 6], [1, 1, 1, 1]])
        #expect(model.outputs.first?.shape == [1, 1, 4, 6])
        #expect(model.warnings.count == 2, "\(model.warnings)")
        #expect(model.warnings.first?.contains("'height'") == true)
    }

    @Test("a dim name given by one input sizes it in an input given no shape")
    func dimNameSizesAnotherInput() throws {
        let bytes = B.model(nodes: [B.node("Add", inputs: ["a", "b"], outputs: ["y"])],
                            inputs: [B.valueInfo("a", dims: [.value(1), .parameter("n")]), B.valueInfo("b", dims: [.parameter("n")])],
                            outputs: [B.valueInfo("y", dims: nil)])
        let model = try InferenceModel(bytes: bytes, inputShapes: ["a": [1, 5]])
        #expect(model.inputs.map(\.shape) == [[1, 5], [5]])
        #expect(model.warnings.isEmpty)
    }

    @Test("an initializer listed as a graph input is a constant unless the caller gives its shape")
    func initializerAsInput() throws {
        let bytes = B.model(nodes: [B.node("Add", inputs: ["x", "bias"], outputs: ["y"])],
                            initializers: [B.floatTensor("bias", [2], [1, 2])],
                            inputs: [B.valueInfo("x", [2]), B.valueInfo("bias", [2])],
                            outputs: [B.valueInfo("y", [2])])
        let constant = try InferenceModel(bytes: bytes)
        #expect(constant.inputs.map(\.name) == ["x"])
        #expect(try InferenceSession(model: constant).run(inputs: ["x": [10, 20]])["y"] == [11, 22])
        let fed = try InferenceModel(bytes: bytes, inputShapes: ["bias": [2]])
        #expect(fed.inputs.map(\.name) == ["x", "bias"])
        #expect(try InferenceSession(model: fed).run(inputs: ["x": [10, 20], "bias": [5, 5]])["y"] == [15, 25])
    }

    @Test("a graph output may be a constant (a folded Shape)")
    func constantOutput() throws {
        let bytes = B.model(nodes: [B.node("Shape", inputs: ["x"], outputs: ["dims"])],
                            inputs: [B.valueInfo("x", [2, 3, 5])], outputs: [B.valueInfo("dims", dims: nil)])
        let model = try InferenceModel(bytes: bytes)
        let results = try InferenceSession(model: model).run(["x": Inference.Tensor(shape: [2, 3, 5], floats: Array(repeating: 0, count: 30))])
        #expect(int64s(results["dims"]) == [2, 3, 5])
    }

    @Test("opset 8 graphs read Clip's bounds from attributes and Slice's from attributes")
    func legacyAttributes() throws {
        let bytes = B.model(nodes: [B.node("Clip", inputs: ["x"], outputs: ["c"], attributes: [.float("min", 0), .float("max", 6)]),
                                    B.node("Slice", inputs: ["c"], outputs: ["y"],
                                           attributes: [.ints("starts", [1]), .ints("ends", [3]), .ints("axes", [0])])],
                            inputs: [B.valueInfo("x", [4])], outputs: [B.valueInfo("y", [2])], opset: 8)
        let session = try InferenceSession(model: try InferenceModel(bytes: bytes), path: .reference)
        #expect(try session.run(inputs: ["x": [-1, 3, 9, 2]])["y"] == [3, 6])
    }

    @Test("Slice-1 takes INT64_MIN and INT64_MAX bounds (PyTorch writes x[:, k:] with ends INT64_MAX), clamped to the axis")
    func legacySliceExtremeBounds() throws {
        let bytes = B.model(nodes: [B.node("Slice", inputs: ["x"], outputs: ["y"],
                                           attributes: [.ints("starts", [Int64.min, 1]), .ints("ends", [Int64.max, Int64.max]), .ints("axes", [0, 1])])],
                            inputs: [B.valueInfo("x", [2, 3])], outputs: [B.valueInfo("y", [2, 2])], opset: 9)
        let session = try InferenceSession(model: try InferenceModel(bytes: bytes), path: .reference)
        #expect(try session.run(inputs: ["x": [0, 1, 2, 3, 4, 5]])["y"] == [1, 2, 4, 5])
    }

    @Test("float16 and double values round-trip through Cast", arguments: [(ElementType.float16, Int64(10)), (.double, Int64(11))])
    func castRoundTrip(type: ElementType, code: Int64) throws {
        let bytes = B.model(nodes: [B.node("Cast", inputs: ["x"], outputs: ["wide"], attributes: [.int("to", code)]),
                                    B.node("Cast", inputs: ["wide"], outputs: ["y"], attributes: [.int("to", 1)])],
                            inputs: [B.valueInfo("x", [4])], outputs: [B.valueInfo("wide", dims: nil), B.valueInfo("y", [4])])
        let model = try InferenceModel(bytes: bytes)
        #expect(model.outputs.first?.type == type)
        let values: [Float] = [0.5, -2, 65504, 1.0009765625]
        let results = try InferenceSession(model: model, path: .reference).run(["x": Inference.Tensor(shape: [4], floats: values)])
        #expect(results["y"]?.floats == values)
        #expect(results["wide"]?.bytes.count == 4 * type.byteSize)
    }
}
