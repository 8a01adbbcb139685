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
