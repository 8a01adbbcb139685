import AllocationCounter
import Foundation
import Testing
import TestSupport
@testable import Inference

/// The fast path's buffer plan over the lowered graph (`BufferPlan.init(_:lowered:)`): the rules
/// decide fusions on the graph alone, and the plan keeps every value a step reads apart from every
/// value it writes, so no rule needs to know where a value lives.
@Suite("Lowered plan: fusion before placement")
struct LoweredPlanTests {
    /// The built-in models and the quick corpus models.
    static func models() throws -> [(name: String, model: InferenceModel)] {
        var models = try ["selfie_segmentation.onnx", "selfie_segmentation_landscape.onnx"].map { name in
            (name, try InferenceModel(bytes: [UInt8](Data(contentsOf: Fixtures.weights(name)))))
        }
        for listed in ArchitectureCorpus.index where listed.quick {
            models.append((listed.name, try InferenceModel(bytes: try ArchitectureCorpus.model(named: listed.name).regeneratedModel())))
        }
        return models
    }

    /// Pairs of values that are alive during one lowered step and share a float of the arena,
    /// other than the sharing the plan states: slices of one Concat or Split, a view over its
    /// input, an output written over an input its step may overwrite.
    static func clashes(_ graph: LoadedGraph, _ fusions: FusionPlan, _ plan: BufferPlan) -> [String] {
        let nodes = BufferPlan.nodes(graph, lowered: fusions)
        var first = [Int](repeating: Int.max, count: graph.values.count), last = [Int](repeating: -1, count: graph.values.count)
        for id in graph.inputIDs { first[id] = -1 }
        for (step, node) in nodes.enumerated() {
            for value in node.reads + node.writes {
                first[value] = min(first[value], step)
                last[value] = step
            }
        }
        for id in graph.outputIDs { last[id] = Int.max }
        /// Where a value's floats are: its padded buffer or its dense slot.
        func range(_ value: Int) -> Swift.Range<Int> {
            let count = fusions.paddedValues[value].map { $0.layout.storageCount(channels: $0.channels) } ?? graph.values[value].floatCount
            return plan.offsets[value] ..< plan.offsets[value] + count
        }
        /// The value whose slot `value` took over (written over it, or a view of it), if any.
        func source(_ value: Int) -> Int? {
            plan.overwrites[value] ?? (plan.views.contains(value) ? graph.nodes.first { $0.outputs == [value] }?.inputs[0] : nil)
        }
        /// Whether `b` took its slot from `a` (or from a value that took it from `a`), each at
        /// the step where the one before was last used.
        func handedOver(_ a: Int, to b: Int) -> Bool {
            var value = b
            while let previous = source(value) {
                guard last[previous] == first[value] else { return false }
                if previous == a { return true }
                value = previous
            }
            return false
        }
        let live = graph.values.indices.filter { graph.values[$0].constant == nil && first[$0] <= last[$0] && graph.values[$0].floatCount > 0 }
        var clashes: [String] = []
        for (i, a) in live.enumerated() {
            for b in live[(i + 1)...] where first[a] <= last[b] && first[b] <= last[a] && range(a).overlaps(range(b)) {
                if plan.slices.slot(of: a) != nil && plan.slices.slot(of: a) == plan.slices.slot(of: b) { continue }
                if handedOver(a, to: b) || handedOver(b, to: a) { continue }
                clashes.append("\(graph.values[a].name) [\(first[a]), \(last[a])] and \(graph.values[b].name) [\(first[b]), \(last[b])]")
            }
        }
        return clashes
    }

    @Test("values alive during one lowered step never share memory, except slices, views and declared overwrites")
    func noClashes() throws {
        for (name, model) in try Self.models() {
            let plan = model.fastPath
            let clashes = Self.clashes(model.graph, plan.fusions, plan.buffers)
            #expect(clashes.isEmpty, "\(name): \(clashes.prefix(3))")
            #expect(!plan.fusions.fusions.isEmpty, "\(name): no fusion planned")
        }
    }

    @Test("a fast session runs the model's plan: its arena is the plan's, zero-bordered maps and gate values included, constants not")
    func sessionsShareTheModelsPlan() throws {
        for (name, model) in try Self.models().prefix(2) {
            let plan = model.fastPath
            let session = try InferenceSession(model: model, path: .fast)
            #expect(session.arenaBytes == plan.buffers.totalCount * MemoryLayout<Float>.size, "\(name)")
            // Zero-bordered maps of one geometry take turns in buffers: one buffer per offset.
            var bordered: [Int: Int] = [:]
            for (value, map) in plan.fusions.paddedValues {
                bordered[plan.buffers.offsets[value]] = BufferPlan.slotSize(map.layout.storageCount(channels: map.channels))
            }
            let padded = bordered.values.reduce(0, +)
            #expect(padded > 0, "\(name): no zero-bordered map")
            let gates = plan.fusions.takenOverGates.values.reduce(0) { $0 + BufferPlan.slotSize($1) }
            #expect(plan.buffers.totalCount == plan.buffers.activationCount + padded + gates, "\(name)")
            // The constants are the model's, read in place by every session.
            let constants = model.graph.values.filter { $0.constant != nil }.reduce(0) { $0 + BufferPlan.slotSize($1.floatCount) }
            #expect(model.constants.count == constants, "\(name)")
            // The reference path runs the graph as written, with a plan of its own.
            #expect(try InferenceSession(model: model, path: .reference).arenaBytes == model.bufferPlan.totalCount * MemoryLayout<Float>.size)
        }
    }

    @Test("zero-bordered maps of one geometry (channels and layout) take turns in a buffer, never with another geometry, and every border stays zero")
    func borderedBuffersKeepOneGeometry() throws {
        // Four 1x1 → 3x3 pairs on one map size (each 1x1 writes its output zero-bordered for the
        // 3x3 after it), the third 3x3 a 5x5 (a border of 2: another geometry).
        var graph = FuzzGraph(seed: 7)
        var x = graph.input([1, 8, 10, 10])
        for index in 0..<4 {
            x = graph.activation(graph.conv(x, ConvSpec(outputChannels: 8)), .relu)
            let k = index == 2 ? 5 : 3, pad = k / 2
            x = graph.conv(x, ConvSpec(outputChannels: 8, kernel: (k, k), pads: [pad, pad, pad, pad]))
        }
        graph.output(x)
        let model = try InferenceModel(bytes: graph.bytes)
        let plan = model.fastPath
        var geometries: [Int: [BufferPlan.BorderedGeometry]] = [:]
        for (value, map) in plan.fusions.paddedValues {
            geometries[plan.buffers.offsets[value], default: []].append(BufferPlan.BorderedGeometry(channels: map.channels, layout: map.layout))
        }
        #expect(plan.fusions.paddedValues.count == 4, "every 1x1 writes for its K×K: \(plan.fusions.paddedValues.count)")
        #expect(geometries.count == 2, "the three 3x3 inputs in one buffer, the 5x5's in another: \(geometries)")
        for (offset, list) in geometries {
            #expect(Set(list).count == 1, "buffer at \(offset) holds maps of \(Set(list).count) geometries")
            #expect(offset >= plan.buffers.activationCount, "a zero-bordered map among the activations")
        }
        // Never two alive at once (`noClashes` for the models), and the borders stay zero: the
        // fused path equals the reference path on two runs in a row, 1 and 2 threads.
        #expect(Self.clashes(model.graph, plan.fusions, plan.buffers).isEmpty)
        let outcome = FusionFuzzRunner.check(FuzzCase(family: .paddedConvolution, seed: 7, graph: graph), tolerance: 1e-5)
        #expect(outcome.failure == nil, "\(outcome.failure ?? "")")
    }

    @Test("the rules decide on the graph alone: planning them twice gives the same lowered graph")
    func rulesArePure() throws {
        for (name, model) in try Self.models() {
            let again = FastPathPlan(model.graph, constants: model.constants)
            #expect(again.fusions.spans == model.fastPath.fusions.spans, "\(name)")
            #expect(again.buffers.offsets == model.fastPath.buffers.offsets, "\(name)")
        }
    }
}

extension LoweredPlanTests {
    @Test("values only the nodes of one fused step read get no buffer: the fast path's activations are below the reference path's")
    func intermediatesHaveNoBuffer() throws {
        for (name, model) in try Self.models() {
            let plan = model.fastPath
            let graph = model.graph
            // Each node of a fused step, but its last, whose output only that step's nodes read.
            var unplaced = 0
            for span in plan.fusions.spans {
                for index in span.dropLast() {
                    let output = graph.nodes[index].outputs[0]
                    let readers = graph.nodes.indices.filter { graph.nodes[$0].inputs.contains(output) }
                    if !graph.outputIDs.contains(output) && readers.allSatisfy(span.contains) {
                        #expect(plan.buffers.offsets[output] == -1, "\(name): \(graph.values[output].name)")
                        unplaced += 1
                    }
                }
            }
            #expect(unplaced > 0, "\(name)")
            print("lowered plan \(name): activations \(plan.buffers.activationCount * 4) bytes, reference plan \(model.bufferPlan.activationCount * 4) bytes, \(unplaced) values without a buffer")
            #expect(plan.buffers.activationCount <= model.bufferPlan.activationCount, "\(name)")
        }
    }
}


extension LoweredPlanTests {
    /// What `heldBytes` reports for a model and one fast session against the heap they take while
    /// they are made (`vbg_thread_heap_balance`: the usable bytes this thread's allocations keep,
    /// whatever other tests allocate meanwhile). The median of seven attempts counts.
    @Test("the memory a model and a fast session report is the heap they take, within 10%",
          .disabled(if: vbg_built_with_sanitizer() != 0, "a sanitizer's allocator replaces the counted malloc"),
          arguments: ["selfie_segmentation.onnx", "selfie_segmentation_landscape.onnx"])
    func reportedMemoryIsTheHeapTaken(weights: String) throws {
        try #require(vbg_allocation_counting_is_active() != 0, "the interposed allocator is not in use on this platform")
        let bytes = [UInt8](try Data(contentsOf: Fixtures.weights(weights)))
        _ = try InferenceSession(model: try InferenceModel(bytes: bytes), path: .fast)  // warm-up
        var growths: [Int64] = [], reported = 0
        for _ in 0..<7 {
            let before = vbg_thread_heap_balance()
            let model = try InferenceModel(bytes: bytes)
            let session = try InferenceSession(model: model, path: .fast)
            growths.append(vbg_thread_heap_balance() - before)
            reported = model.heldBytes + session.heldBytes
        }
        let growth = growths.sorted()[3]
        print("held memory \(weights): reported \(reported) bytes, heap growth \(growth) (attempts \(growths))")
        #expect(abs(Double(reported) - Double(growth)) <= 0.1 * Double(growth), "reported \(reported), heap growth \(growth)")
    }
}
