import AllocationCounter
import Foundation
import Testing
import TestSupport
@testable import Inference

/// A chain x → Relu → Sigmoid → Relu → Sigmoid → y over [1, 8, 16, 16] plus a constant-folded
/// Reshape shape, to exercise buffer reuse.
private func chainModel() -> [UInt8] {
    ONNXBuilder.model(
        nodes: [ONNXBuilder.node("Relu", inputs: ["x"], outputs: ["a"], name: "r1"),
                ONNXBuilder.node("Sigmoid", inputs: ["a"], outputs: ["b"], name: "s1"),
                ONNXBuilder.node("Relu", inputs: ["b"], outputs: ["c"], name: "r2"),
                ONNXBuilder.node("Sigmoid", inputs: ["c"], outputs: ["d"], name: "s2"),
                ONNXBuilder.node("Reshape", inputs: ["d", "shape"], outputs: ["y"], name: "flatten")],
        initializers: [ONNXBuilder.int64Tensor("shape", [2], [1, -1])],
        inputs: [ONNXBuilder.valueInfo("x", [1, 8, 16, 16])],
        outputs: [ONNXBuilder.valueInfo("y", [1, 2048])])
}

@Suite("Static plan: shapes, buffers, allocation-free runs")
struct PlanTests {
    @Test("the Reshape's shape is folded at plan time and its output shape inferred")
    func folding() throws {
        let model = try InferenceModel(bytes: chainModel())
        #expect(model.outputs == [TensorDescription(name: "y", shape: [1, 2048])])
        #expect(model.opCounts == ["Relu": 2, "Sigmoid": 2, "Reshape": 1])
    }

    @Test("buffers are reused once a value's last reader ran")
    func reuse() throws {
        let model = try InferenceModel(bytes: chainModel())
        let tensorBytes = 2048 * 4
        // Without reuse: 6 values of 8 KiB. With reuse a chain needs two live buffers plus the output.
        #expect(model.peakActivationBytes <= 3 * tensorBytes)
        let inspecting = try InferenceSession(model: model, keepsIntermediates: true)
        #expect(inspecting.arenaBytes >= 6 * tensorBytes)
    }

    @Test("intermediates are readable in inspection mode only")
    func inspection() throws {
        let model = try InferenceModel(bytes: chainModel())
        let input = (0..<2048).map { Float($0 % 7) - 3 }
        let inspecting = try InferenceSession(model: model, keepsIntermediates: true)
        _ = try inspecting.run(inputs: ["x": input])
        #expect(inspecting.value(named: "a") == input.map { max($0, 0) })
        let plain = try InferenceSession(model: model)
        _ = try plain.run(inputs: ["x": input])
        #expect(plain.value(named: "a") == nil)
        #expect(plain.value(named: "y") != nil)
    }

    @Test("running the plan 100 times allocates nothing (malloc calls counted on this thread)",
          .disabled(if: vbg_built_with_sanitizer() != 0, "a sanitizer's allocator replaces the counted malloc"))
    func noAllocation() throws {
        try #require(vbg_allocation_counting_is_active() == 1, "the allocation counter is not interposed on this platform")
        let model = try InferenceModel(contentsOfFile: Fixtures.weights("selfie_segmentation_landscape.onnx").path)
        // A small graph for 100 runs (the real model is run a few times: debug builds are slow).
        let small = try InferenceModel(bytes: chainModel())
        for (candidate, runs) in [(small, 100), (model, 3)] {
            let session = try InferenceSession(model: candidate, path: .fast)
            let input = [Float](repeating: 0.5, count: candidate.inputs[0].elementCount)
            var output = [Float](repeating: 0, count: candidate.outputs[0].elementCount)
            try input.withUnsafeBufferPointer { source in
                try output.withUnsafeMutableBufferPointer { destination in
                    try session.run(input: source, output: destination)  // warm-up
                    let before = vbg_thread_allocation_count()
                    for _ in 0..<runs { try session.run(input: source, output: destination) }
                    let after = vbg_thread_allocation_count()
                    #expect(after - before == 0, "\(after - before) allocations in \(runs) runs")
                }
            }
        }
        // The counter does see allocations (so a zero above means something).
        let before = vbg_thread_allocation_count()
        let array = [Float](repeating: 1, count: Int.random(in: 100...200))
        #expect(vbg_thread_allocation_count() > before && array.count >= 100)
    }

    @Test("a session made on one thread runs on another")
    func otherThread() async throws {
        let session = try InferenceSession(model: InferenceModel(bytes: chainModel()))
        let input = [Float](repeating: 1, count: 2048)
        let output = try await Task.detached { try session.run(inputs: ["x": input])["y"] }.value
        let expected = Float(1 / (1 + exp(-Double(1 / (1 + exp(-1.0))))))
        #expect(output?.allSatisfy { abs($0 - expected) < 1e-6 } == true)
    }
}
