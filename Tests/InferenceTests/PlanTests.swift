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

/// x → Relu a, x → Sigmoid b; Concat(a, b, x) on channels → c; Split(c) → d, e; y = d + e.
private func concatSplitModel() -> [UInt8] {
    ONNXBuilder.model(
        nodes: [ONNXBuilder.node("Relu", inputs: ["x"], outputs: ["a"]),
                ONNXBuilder.node("Sigmoid", inputs: ["x"], outputs: ["b"]),
                ONNXBuilder.node("Concat", inputs: ["a", "b", "x"], outputs: ["c"], attributes: [.int("axis", 1)]),
                ONNXBuilder.node("Split", inputs: ["c", "lengths"], outputs: ["d", "e"], attributes: [.int("axis", 1)]),
                ONNXBuilder.node("Add", inputs: ["d", "e"], outputs: ["y"])],
        initializers: [ONNXBuilder.int64Tensor("lengths", [2], [6, 6])],
        inputs: [ONNXBuilder.valueInfo("x", [1, 4, 5, 7])],
        outputs: [ONNXBuilder.valueInfo("y", [1, 6, 5, 7])])
}

@Suite("Static plan: shapes, buffers, allocation-free runs")
struct PlanTests {
    @Test("a channel Concat's computed inputs live in their places in its output, a Split's outputs in its input; a graph input is copied")
    func concatAndSplitShareSlots() throws {
        let model = try InferenceModel(bytes: concatSplitModel())
        let graph = model.graph
        let id = { (name: String) in try #require(graph.values.firstIndex { $0.name == name }) }
        let plan = BufferPlan(graph, reusesBuffers: true)
        let (a, b, c, x) = (try id("a"), try id("b"), try id("c"), try id("x"))
        let plane = 4 * 5 * 7
        #expect(plan.offsets[a] == plan.offsets[c])
        #expect(plan.offsets[b] == plan.offsets[c] + plane)
        #expect(plan.offsets[x] != plan.offsets[c] + 2 * plane)
        #expect(plan.offsets[try id("d")] == plan.offsets[c])
        #expect(plan.offsets[try id("e")] == plan.offsets[c] + 6 * 5 * 7)
        // The inspection plan shares nothing.
        let apart = BufferPlan(graph, reusesBuffers: false)
        #expect(Set([a, b, c].map { apart.offsets[$0] }).count == 3)

        let input = (0..<plane).map { Float($0 % 11) - 5 }
        let expected = try InferenceSession(model: model, path: .reference, keepsIntermediates: true).run(inputs: ["x": input])["y"]
        for path in [ExecutionPath.reference, .fast] {
            #expect(try InferenceSession(model: model, path: path).run(inputs: ["x": input])["y"] == expected, "\(path)")
        }
    }

    @Test("a session makes steps only for nodes that do work: a fused step serves the nodes it absorbed, a view has none")
    func stepsOnlyForWork() throws {
        let model = try InferenceModel(bytes: concatSplitModel())
        let fast = try InferenceSession(model: model, path: .fast)
        let split = try #require(model.graph.nodes.firstIndex { $0.opType == "Split" })
        #expect(fast.stepOfNode[split] == nil, "the Split's outputs lie inside its input")
        #expect(fast.steps.count == model.graph.nodes.count - 1)

        let landscape = try InferenceModel(contentsOfFile: Fixtures.weights("selfie_segmentation_landscape.onnx").path)
        let session = try InferenceSession(model: landscape, path: .fast)
        let spans = session.fusionSpans
        #expect(!spans.isEmpty)
        for span in spans {
            let leader = try #require(session.stepOfNode[span[0]])
            for absorbed in span.dropFirst() { #expect(session.stepOfNode[absorbed] == leader) }
        }
        let absorbed = spans.reduce(0) { $0 + $1.count - 1 }
        let views = session.stepOfNode.filter { $0 == nil }.count
        #expect(session.steps.count == landscape.graph.nodes.count - absorbed - views)
        #expect(!session.steps.contains { $0 is NoMove })
        #expect(try InferenceSession(model: landscape, path: .reference).steps.count == landscape.graph.nodes.count)
    }

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
