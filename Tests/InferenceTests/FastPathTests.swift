import Foundation
import Testing
import NumpyFormat
import TestSupport
@testable import Inference
import AllocationCounter

@Suite("The fast path (SIMD kernels) matches onnxruntime and the reference path")
struct FastPathTests {
    func fastSession(_ model: ParityModel, threads: Int) throws -> InferenceSession {
        let inference = try InferenceModel(contentsOfFile: Fixtures.weights(model.weights).path)
        return try InferenceSession(model: inference, path: .fast, threads: threads, keepsIntermediates: true)
    }

    @Test("astronaut: fixture intermediates within relative 1e-4, mask within 1e-4, logits within 1e-5·max + 1e-3",
          arguments: ParityModel.allCases)
    func matchesOnnxruntime(model: ParityModel) throws {
        let session = try fastSession(model, threads: 1)
        let input = try Fixtures.floats("model/\(model.rawValue)/input.npy")
        let outputs = try session.run(inputs: [session.model.inputs[0].name: input.values])
        let mask = Difference(try #require(outputs[session.model.outputs[0].name]),
                              try Fixtures.floats("model/\(model.rawValue)/mask.npy").values)
        #expect(mask.maxAbsolute <= 1e-4, "mask: \(mask)")
        var worst: Float = 0
        for entry in try model.intermediates() {
            let expected = try Fixtures.floats("model/\(model.rawValue)/intermediates/\(entry.file)")
            let difference = Difference(try #require(session.value(named: entry.name)), expected.values)
            if entry.op == "ConvTranspose" {
                #expect(difference.maxAbsolute <= 1e-5 * difference.referenceScale + 1e-3, "logits \(entry.name): \(difference)")
                print("fast parity \(model.rawValue) logits: \(difference)")
            }
            #expect(difference.relative <= 1e-4, "\(entry.name) (\(entry.op)): \(difference)")
            worst = max(worst, difference.relative)
        }
        print("fast parity \(model.rawValue) mask: \(mask); worst intermediate relative \(worst)")
    }

    @Test("a convolution whose weights are graph inputs runs with the weights of each run, as on the reference path",
          arguments: [false, true])
    func runtimeWeights(keepsIntermediates: Bool) throws {
        let bytes = ONNXBuilder.model(
            nodes: [ONNXBuilder.node("Conv", inputs: ["x", "w"], outputs: ["y"], attributes: [.ints("kernel_shape", [3, 3]), .ints("pads", [1, 1, 1, 1])]),
                    ONNXBuilder.node("Relu", inputs: ["y"], outputs: ["z"])],
            inputs: [ONNXBuilder.valueInfo("x", [1, 3, 6, 5]), ONNXBuilder.valueInfo("w", [4, 3, 3, 3])],
            outputs: [ONNXBuilder.valueInfo("z", [1, 4, 6, 5])])
        let model = try InferenceModel(bytes: bytes)
        let fast = try InferenceSession(model: model, path: .fast, keepsIntermediates: keepsIntermediates)
        let reference = try InferenceSession(model: model, path: .reference)
        let x = (0..<90).map { Float($0 % 11) - 5 }
        for scale: Float in [1, -2] {
            let feeds = ["x": x, "w": (0..<108).map { scale * (Float($0 % 7) - 3) }]
            let expected = try #require(try reference.run(inputs: feeds)["z"])
            #expect(expected.contains { $0 != 0 })
            #expect(try fast.run(inputs: feeds)["z"] == expected)
        }
    }

    @Test("every node's output within relative 1e-4 of the reference path", arguments: ParityModel.allCases)
    func matchesReferenceNodeByNode(model: ParityModel) throws {
        let fast = try fastSession(model, threads: 1)
        let reference = try model.session()
        let input = try Fixtures.floats("model/\(model.rawValue)/input.npy").values
        _ = try fast.run(inputs: [fast.model.inputs[0].name: input])
        _ = try reference.run(inputs: [reference.model.inputs[0].name: input])
        var compared = 0
        var worst: (Float, String) = (0, "")
        for node in fast.model.graph.nodes {
            for id in node.outputs {
                let name = fast.model.graph.values[id].name
                guard let a = fast.value(named: name), let b = reference.value(named: name) else { continue }
                let difference = Difference(a, b)
                #expect(difference.relative <= 1e-4, "\(name) (\(node.opType)): \(difference)")
                if difference.relative > worst.0 { worst = (difference.relative, "\(name) (\(node.opType))") }
                compared += 1
            }
        }
        #expect(compared >= 100)
        print("fast vs reference \(model.rawValue): \(compared) values, worst relative \(worst.0) at \(worst.1)")
    }

    @Test("1 and 2 threads give bit-identical outputs", arguments: ParityModel.allCases)
    func threadsAgree(model: ParityModel) throws {
        let input = try Fixtures.floats("model/\(model.rawValue)/input.npy").values
        var results: [[Float]] = []
        for threads in [1, 2] {
            let session = try fastSession(model, threads: threads)
            let outputs = try session.run(inputs: [session.model.inputs[0].name: input])
            let logitsName = try #require(model.intermediates().first { $0.op == "ConvTranspose" }?.name)
            results.append(try #require(session.value(named: logitsName)) + (outputs.values.first ?? []))
        }
        #expect(results[0] == results[1])
    }
}

@Suite("The fused fast path (the no-allocation entry point)")
struct FusedFastPathTests {
    @Test("mask within 1e-4 of onnxruntime on 1 and 2 threads, bit-identical between them", arguments: ParityModel.allCases)
    func fusedMask(model: ParityModel) throws {
        let inference = try InferenceModel(contentsOfFile: Fixtures.weights(model.weights).path)
        let input = try Fixtures.floats("model/\(model.rawValue)/input.npy").values
        let expected = try Fixtures.floats("model/\(model.rawValue)/mask.npy").values
        var masks: [[Float]] = []
        for threads in [1, 2] {
            let session = try InferenceSession(model: inference, path: .fast, threads: threads)
            var output = [Float](repeating: .nan, count: inference.outputs[0].elementCount)
            try input.withUnsafeBufferPointer { source in
                try output.withUnsafeMutableBufferPointer { try session.run(input: source, output: $0) }
            }
            let difference = Difference(output, expected)
            #expect(difference.maxAbsolute <= 1e-4, "fused fast path, \(threads) thread(s): \(difference)")
            print("fused fast \(model.rawValue) \(threads) thread(s) mask: \(difference)")
            masks.append(output)
        }
        #expect(masks[0] == masks[1])
    }

    /// A released session returns its memory: nothing the fast path builds (steps, band and gate
    /// buffers, the executor) may keep itself alive through a closure it stores. Measured with
    /// glibc's `mallinfo2`; under a sanitizer LeakSanitizer checks the same at exit.
    @Test("creating and releasing fast sessions of both models returns their memory (no retain cycle)",
          .disabled(if: vbg_built_with_sanitizer() != 0, "mallinfo2 does not see a sanitizer's allocator"))
    func releasedSessionsReturnTheirMemory() throws {
        try #require(vbg_heap_bytes_in_use() >= 0, "mallinfo2 is not available on this platform")
        let models = try ParityModel.allCases.map { try InferenceModel(contentsOfFile: Fixtures.weights($0.weights).path) }
        func createAndRelease() throws {
            for model in models { _ = try InferenceSession(model: model, path: .fast, threads: 1) }
        }
        try createAndRelease()   // warm-up: lazily made caches and the allocator's own structures
        // The counter is process-wide and other tests run in parallel, allocating or freeing
        // while an attempt runs; so the smallest growth of up to three attempts counts. A leak
        // grows the heap in every attempt: one leaked fast session of either model holds more
        // than 1 MB of feature maps, and an attempt releases ten.
        var growth = Int64.max
        for _ in 0..<3 where growth >= 1 << 20 {
            let before = vbg_heap_bytes_in_use()
            for _ in 0..<5 { try createAndRelease() }
            growth = min(growth, vbg_heap_bytes_in_use() - before)
        }
        #expect(growth < 1 << 20, "the heap grew by \(growth) bytes over 10 released sessions (smallest of 3 attempts)")
    }

    /// 100 runs after one warm-up of the landscape network at a 48x80 input (the same nodes and
    /// weights, `Tools/make_small_landscape.py`: a tenth of the cost, so a debug build runs it in
    /// seconds) fuse into the same step kinds as the full model. With 2 threads the worker
    /// receives each kernel's job as a pointer plus a type, so no closure context is allocated.
    @Test("100 fused runs of the landscape network (48x80 input) allocate nothing on the calling thread",
          .disabled(if: vbg_built_with_sanitizer() != 0, "a sanitizer's allocator replaces the counted malloc"),
          arguments: [1, 2])
    func noAllocation(threads: Int) throws {
        let count = try allocations(Fixtures.url("model/landscape_small/model.onnx"), threads: threads, runs: 100)
        #expect(count == 0, "\(count) allocations in 100 runs on \(threads) thread(s)")
    }

    /// The full-size model (more row bands per fused step) after its warm-up.
    @Test("fused runs of the full-size landscape model allocate nothing on the calling thread",
          .disabled(if: vbg_built_with_sanitizer() != 0, "a sanitizer's allocator replaces the counted malloc"),
          arguments: [1, 2])
    func noAllocationFullSize(threads: Int) throws {
        let count = try allocations(Fixtures.weights(ParityModel.landscape.weights), threads: threads, runs: 3)
        #expect(count == 0, "\(count) allocations in 3 runs on \(threads) thread(s)")
    }

    func allocations(_ url: URL, threads: Int, runs: Int) throws -> Int {
        try #require(vbg_allocation_counting_is_active() == 1, "the allocation counter is not interposed on this platform")
        let model = try InferenceModel(contentsOfFile: url.path)
        let session = try InferenceSession(model: model, path: .fast, threads: threads)
        let input = [Float](repeating: 0.5, count: model.inputs[0].elementCount)
        var output = [Float](repeating: 0, count: model.outputs[0].elementCount)
        var count = 0
        try input.withUnsafeBufferPointer { source in
            try output.withUnsafeMutableBufferPointer { destination in
                try session.run(input: source, output: destination)  // warm-up
                let before = vbg_thread_allocation_count()
                for _ in 0..<runs { try session.run(input: source, output: destination) }
                count = Int(vbg_thread_allocation_count() - before)
            }
        }
        return count
    }
}
