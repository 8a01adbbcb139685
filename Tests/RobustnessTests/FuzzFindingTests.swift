import Inference
import Testing
import TestSupport

/// Regression tests for what the fuzzers found (Docs/Reliability.md lists each finding).
@Suite("Fuzz findings stay fixed")
struct FuzzFindingTests {
    /// `Y = Resize(X, sizes)` with X a graph input (or, with `constantInput`, an initializer of ones).
    static func resizeModel(input: [Int64], sizes: [Int64], constantInput: Bool = false) -> [UInt8] {
        let count = Int(input.reduce(1, *))
        let inputs = constantInput ? [ONNXBuilder.valueInfo("z", [1])] : [ONNXBuilder.valueInfo("x", input)]
        var nodes = [ONNXBuilder.node("Resize", inputs: ["x", "", "", "sizes"], outputs: ["y"],
                                      attributes: [.string("mode", "linear")])]
        var initializers = [ONNXBuilder.int64Tensor("sizes", [4], sizes)]
        var output = "y"
        if constantInput {
            initializers.append(ONNXBuilder.floatTensor("x", input, [Float](repeating: 1, count: count)))
            // Add a runtime input so the graph has one: out = y + z (z broadcast).
            nodes.append(ONNXBuilder.node("Add", inputs: ["y", "z"], outputs: ["out"]))
            output = "out"
        }
        return ONNXBuilder.model(nodes: nodes, initializers: initializers, inputs: inputs,
                                 outputs: [ONNXBuilder.valueInfo(output, sizes)])
    }

    @Test("fuzz/onnx timeout: a Resize to 1 x 2^31 - 1 is rejected before its tables are built")
    func resizeToHugeSide() {
        // Minimised from Fuzz/findings/onnx/timeout-d1bbb6de…: a 320-byte model whose `sizes`
        // made loading allocate 20 bytes per output column (43 GB for this one).
        let bytes = Self.resizeModel(input: [1, 1, 1, 1], sizes: [1, 1, 1, (1 << 31) - 1])
        #expect {
            _ = try InferenceModel(bytes: bytes)
        } throws: { error in
            (error as? ModelError)?.kind == .unsupported && String(describing: error).contains("axis longer than 65536")
        }
    }

    @Test("fuzz/onnx out-of-memory: a Pad or Tile with an axis of millions of positions is rejected before its tables are built",
          arguments: [("Pad", "wrap"), ("Tile", "")])
    func hugeGatherAxis(op: String, mode: String) {
        // Minimised from Fuzz/findings/onnx/oom-cb0d54e9…: Pad-19 with mode wrap and pads
        // [0, 16318464, 1728053253, -1, 0, 10752, 2, 1792] on a [1, 2, 4, 5] input: each axis fit
        // 2^31, but the index table of the third axis alone was 13.8 GB.
        let (inputs, initializer, attributes): ([String], [UInt8], [ONNXBuilder.Attribute]) = op == "Pad"
            ? (["x", "pads"], ONNXBuilder.int64Tensor("pads", [8], [0, 16318464, 1728053253, -1, 0, 10752, 2, 1792]), [.string("mode", mode)])
            : (["x", "repeats"], ONNXBuilder.int64Tensor("repeats", [4], [1, 1, 1, 50_000_000]), [])
        let bytes = ONNXBuilder.model(nodes: [ONNXBuilder.node(op, inputs: inputs, outputs: ["y"], attributes: attributes)],
                                      initializers: [initializer], inputs: [ONNXBuilder.valueInfo("x", [1, 2, 4, 5])],
                                      outputs: [ONNXBuilder.valueInfo("y", [])], opset: 19)
        #expect {
            _ = try InferenceModel(bytes: bytes)
        } throws: { error in
            // The total (Pad's case) or one axis (Tile's) is over its limit: an error naming the node.
            (error as? ModelError)?.op == op && ["more than 2^31", "longer than"].contains { String(describing: error).contains($0) }
        }
    }

    @Test("fuzz/onnx crash: a pad of Int64.min is an error, not an overflow trap")
    func padOfInt64Min() {
        // Minimised from Fuzz/findings/onnx/crash-2a50f7ea…: Pad-19 (wrap) with pads
        // [0, 0, 5, -1, Int64.min, 0, 2, 1792]; negating the pad trapped.
        let bytes = ONNXBuilder.model(
            nodes: [ONNXBuilder.node("Pad", inputs: ["x", "pads"], outputs: ["y"], attributes: [.string("mode", "wrap")])],
            initializers: [ONNXBuilder.int64Tensor("pads", [8], [0, 0, 5, -1, .min, 0, 2, 1792])],
            inputs: [ONNXBuilder.valueInfo("x", [1, 2, 4, 5])], outputs: [ONNXBuilder.valueInfo("y", [])], opset: 19)
        #expect {
            _ = try InferenceModel(bytes: bytes)
        } throws: { error in
            (error as? ModelError)?.kind == .invalidShape && (error as? ModelError)?.op == "Pad"
        }
    }

    @Test("fuzz/onnx crash: a tf_crop_and_resize roi of −8e33 loads, its taps outside the input")
    func hugeRoi() throws {
        // Minimised from Fuzz/findings/onnx/crash-5a0cfefb…: Resize-18 cubic tf_crop_and_resize,
        // axes [3, 2], roi [−8.3e33, 2.4e−38, 0.5, 1.54]; the source coordinate overflowed `Int`.
        let bytes = ONNXBuilder.model(
            nodes: [ONNXBuilder.node("Resize", inputs: ["x", "roi", "", "sizes"], outputs: ["y"],
                                     attributes: [.ints("axes", [3, 2]), .string("mode", "cubic"),
                                                  .string("coordinate_transformation_mode", "tf_crop_and_resize")])],
            initializers: [ONNXBuilder.floatTensor("roi", [4], [-8.3076751e33, 2.3509886e-38, 0.5, 1.540625]),
                           ONNXBuilder.int64Tensor("sizes", [2], [6, 5])],
            inputs: [ONNXBuilder.valueInfo("x", [1, 2, 6, 7])], outputs: [ONNXBuilder.valueInfo("y", [1, 2, 5, 6])], opset: 18)
        let session = try InferenceSession(model: try InferenceModel(bytes: bytes), path: .reference)
        let y = try #require(try session.run(inputs: ["x": (0..<84).map(Float.init)])["y"])
        #expect(y.count == 60 && y.allSatisfy(\.isFinite))
    }

    @Test("a Resize of a constant to 30000 x 30000 loads without folding 3.6 GB at load time")
    func hugeConstantIsNotFolded() throws {
        let bytes = Self.resizeModel(input: [1, 1, 1, 1], sizes: [1, 1, 30_000, 30_000], constantInput: true)
        let model = try InferenceModel(bytes: bytes)
        // The node stays in the plan (its output is an activation), instead of a folded constant.
        #expect(model.peakActivationBytes >= 30_000 * 30_000 * MemoryLayout<Float>.size)
    }

    @Test("one of 40000 x 40000 meets the 8 GiB plan limit as an error, not a 6.4 GB fold first")
    func hugerConstantHitsThePlanLimit() {
        let bytes = Self.resizeModel(input: [1, 1, 1, 1], sizes: [1, 1, 40_000, 40_000], constantInput: true)
        #expect {
            _ = try InferenceModel(bytes: bytes)
        } throws: { error in
            String(describing: error).contains("limit")
        }
    }

    @Test("a small constant-only Resize is still folded (nothing left to run but the Add)")
    func smallConstantIsFolded() throws {
        let bytes = Self.resizeModel(input: [1, 1, 1, 1], sizes: [1, 1, 4, 4], constantInput: true)
        let model = try InferenceModel(bytes: bytes)
        let session = try InferenceSession(model: model, path: .reference)
        let outputs = try session.run(inputs: ["z": [2]])
        #expect(outputs["out"] == [Float](repeating: 3, count: 16))
    }
}
