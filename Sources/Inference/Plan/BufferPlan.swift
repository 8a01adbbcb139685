import Kernels

/// Where each value lives in one float arena, decided once before any step is built.
///
/// The plan runs over the graph's nodes (the reference path, and sessions that keep their
/// intermediates) or over the fast path's lowered graph (`init(_:lowered:)`), where a fused step
/// is one node that reads the inputs of every node it does and writes all their outputs. Values
/// computed at run time (graph inputs, node outputs) get a slot when they are produced and give
/// it back after their last reader ran, so a later value can reuse it (first fit, neighbouring
/// free slots merge). A node's outputs are placed before its inputs are given back, so nothing a
/// node writes shares memory with anything it reads, except where it says its kernel may write
/// over an input (a fusion's `mayOverwrite`, taken when that input has no reader after it) and
/// the views below. Graph outputs are never given back. Slots are 64-byte aligned.
///
/// Some values share one slot:
/// - `Slices`: the float inputs of a `Concat` along its outermost non-unit axis live in their
///   places inside its output, and the outputs of such a `Split` inside its input, so neither node
///   moves anything. A shared slot is given back after the last reader of any value in it.
/// - views: a Reshape, Flatten, Squeeze or Unsqueeze that is its input's last reader takes its
///   input's slot (`views`).
///
/// After the activations come the zero-bordered maps that fused producers write for the
/// convolution reading them, and the values of attention gates a banded step applies (never
/// reused). A zero-bordered map's border must stay zero, so its buffer only ever holds maps of
/// its geometry (channel count and layout), whose producers write interiors alone: maps of one
/// geometry take turns in buffers as activations do in the arena, which keeps the memory a
/// network touches per run small enough to stay in cache. Constants are not in the arena: every
/// session reads them from the model's `ConstantStore`.
struct BufferPlan: Sendable {
    /// Offset of each value in the arena, in floats (4-byte units), by value id. A value kept
    /// zero-bordered (`FusionPlan.paddedValues`) has its padded buffer here; a constant (in the
    /// model's `ConstantStore`) and a value no step writes (inside a fused step) have none: -1.
    var offsets: [Int]
    /// Floats needed by activations at the peak (the high-water mark of the slots).
    var activationCount: Int
    /// Floats in the arena: activations, then the zero-bordered buffers and the gate values.
    var totalCount: Int
    /// The outputs of the nodes laid over their input (views): they move nothing.
    var views: Set<Int> = []
    /// For each output laid in the slot of an input its step may write over, that input.
    var overwrites: [Int: Int] = [:]
    /// Offset of the per-channel values of each attention gate a banded step took over (by the
    /// gate's leading node).
    var gateOffsets: [Int: Int] = [:]
    /// The values that share a slot.
    var slices = Slices()

    /// A node of the graph as the plan sees it: the values it reads and writes, the outputs it
    /// may write over one of its inputs, and whether it may be a view.
    struct Node {
        var reads: [Int]
        var writes: [Int]
        var mayOverwrite: [(output: Int, input: Int)] = []
        var mayBeView = false
    }

    /// The plan over the graph's nodes, as the reference path runs them.
    ///
    /// - Parameter reusesBuffers: false gives every value its own slot, so every intermediate can
    ///   be read after a run (inspection mode).
    init(_ graph: LoadedGraph, reusesBuffers: Bool) {
        let nodes = graph.nodes.map { node in
            Node(reads: node.inputs, writes: node.outputs, mayBeView: node.operation is Reshape || node.operation is ShapeView)
        }
        self.init(graph, nodes: nodes, reusesBuffers: reusesBuffers)
    }

    /// The plan over the fast path's lowered graph: each fused step one node, the zero-bordered
    /// maps and gate values the plan names placed for good.
    init(_ graph: LoadedGraph, lowered plan: FusionPlan) {
        self.init(graph, nodes: Self.nodes(graph, lowered: plan), reusesBuffers: true,
                  padded: plan.paddedValues.mapValues { BorderedGeometry(channels: $0.channels, layout: $0.layout) },
                  gates: plan.takenOverGates)
    }

    /// What zero-bordered maps sharing a buffer have in common: their border positions.
    struct BorderedGeometry: Hashable {
        let channels: Int
        let layout: PlaneLayout
        var floatCount: Int { layout.storageCount(channels: channels) }
    }

    /// The lowered graph's nodes in the order they run: each node not absorbed; a fused step
    /// reading the inputs of every node it does (and its `extraReads`) and writing the outputs of
    /// those nodes that something after it reads (a graph output, a later node) and the last
    /// node's. The values only the step's own nodes read are never written: they get no buffer.
    static func nodes(_ graph: LoadedGraph, lowered plan: FusionPlan) -> [Node] {
        var readers = [[Int]](repeating: [], count: graph.values.count)
        for (index, node) in graph.nodes.enumerated() {
            for input in node.inputs { readers[input].append(index) }
        }
        let outputs = Set(graph.outputIDs)
        var nodes: [Node] = []
        for (index, node) in graph.nodes.enumerated() where plan.absorbedBy[index] == nil {
            guard let fusion = plan.fusions[index] else {
                nodes.append(Node(reads: node.inputs, writes: node.outputs,
                                  mayBeView: node.operation is Reshape || node.operation is ShapeView))
                continue
            }
            let span = [index] + plan.absorbedBy.filter { $0.value == index }.map { $0.key }.sorted()
            var reads: [Int] = [], produced: [Int] = []
            for member in span {
                reads += graph.nodes[member].inputs.filter { !produced.contains($0) && !reads.contains($0) }
                produced += graph.nodes[member].outputs
            }
            let last = graph.nodes[span.last!].outputs
            var writes = produced.filter { value in
                outputs.contains(value) || last.contains(value) || readers[value].contains { !span.contains($0) }
            }
            // An attention gate whose application a banded step took over writes only its values,
            // and the banded step reads the gate's inputs instead of the gated map.
            if case .attentionGate(let gate) = fusion, plan.takenOverGates[index] != nil {
                writes.removeAll { $0 == gate.output }
            }
            if case .pointwiseDepthwise(let banded) = fusion, banded.gate != nil {
                reads.removeAll { $0 == node.inputs[0] }
            }
            reads += fusion.extraReads.filter { !reads.contains($0) }
            nodes.append(Node(reads: reads, writes: writes,
                              mayOverwrite: fusion.mayOverwrite(leader: node, takenOver: plan.takenOverGates[index] != nil)))
        }
        return nodes
    }

    /// - Parameters:
    ///   - padded: the geometry of each value kept zero-bordered (its buffer reused only by values
    ///     of the same geometry).
    ///   - gates: floats of each taken-over gate's values, by its leading node (never reused).
    private init(_ graph: LoadedGraph, nodes: [Node], reusesBuffers: Bool, padded: [Int: BorderedGeometry] = [:],
                 gates: [Int: Int] = [:]) {
        let lastUse = Self.lastUses(graph, nodes)
        let slices = reusesBuffers ? Slices(graph) : Slices()
        /// Per shared slot (by its value), how many of the values living in it are still to be read.
        var unread = slices.members.mapValues { $0.count + 1 }
        var offsets = [Int](repeating: -1, count: graph.values.count)
        var slots = SlotAllocator()
        var views = Set<Int>(), overwrites: [Int: Int] = [:]
        /// The zero-bordered buffers (each one geometry's), which of them are free, and each
        /// bordered value's.
        var bordered: [BorderedGeometry] = [], freeBordered: [BorderedGeometry: [Int]] = [:], borderedBuffer: [Int: Int] = [:]
        func allocateBordered(_ value: Int) {
            let geometry = padded[value]!
            if let buffer = freeBordered[geometry]?.popLast() {
                borderedBuffer[value] = buffer
            } else {
                borderedBuffer[value] = bordered.count
                bordered.append(geometry)
            }
        }

        func allocate(_ value: Int) { offsets[value] = slots.allocate(Self.slotSize(graph.values[value].floatCount)) }
        func release(_ value: Int) {
            guard reusesBuffers else { return }
            slots.release(offset: offsets[value], size: Self.slotSize(graph.values[value].floatCount))
        }
        /// Whether `output` may take `input`'s slot at step `step`: the input is computed at run
        /// time, has its own slot of the same size, and no reader after this step.
        func mayTake(_ input: Int, for output: Int, at step: Int) -> Bool {
            reusesBuffers && lastUse[input] == step && graph.values[input].constant == nil && padded[input] == nil
                && padded[output] == nil && slices.slot(of: input) == nil && slices.slot(of: output) == nil
                && !graph.inputIDs.contains(input) && !graph.outputIDs.contains(input)
                && Self.slotSize(graph.values[input].floatCount) == Self.slotSize(graph.values[output].floatCount)
        }

        /// Values whose slot an output took over (never released themselves).
        var handedOver = Set<Int>()
        /// Values given a slot so far (a Concat's output gets one with its first input).
        var placed = Set(graph.inputIDs)
        for input in graph.inputIDs { allocate(input) }
        for input in graph.inputIDs where lastUse[input] == -1 { release(input) }
        for (step, node) in nodes.enumerated() {
            for output in node.writes where padded[output] != nil && borderedBuffer[output] == nil { allocateBordered(output) }
            for output in node.writes where padded[output] == nil {
                if let (slot, offset) = slices.place[output] {
                    // A Concat's first input places the Concat's output; a Split's input is placed already.
                    if placed.insert(slot).inserted { allocate(slot) }
                    offsets[output] = offsets[slot] + offset
                    continue
                }
                guard placed.insert(output).inserted else { continue }
                var source: Int? = nil
                if node.mayBeView {
                    // The same elements in the same order.
                    if let input = node.reads.first, node.writes.count == 1, mayTake(input, for: output, at: step),
                       graph.values[input].floatCount == graph.values[output].floatCount { source = input }
                } else {
                    source = node.mayOverwrite.first { pair in
                        pair.output == output && !handedOver.contains(pair.input) && mayTake(pair.input, for: output, at: step)
                    }?.input
                }
                if let source {
                    offsets[output] = offsets[source]
                    handedOver.insert(source)
                    if node.mayBeView { views.insert(output) } else { overwrites[output] = source }
                } else {
                    allocate(output)
                }
            }
            var released = handedOver
            for value in node.reads + node.writes where lastUse[value] == step && graph.values[value].constant == nil {
                guard released.insert(value).inserted else { continue }
                if let geometry = padded[value] {
                    if reusesBuffers, let buffer = borderedBuffer[value] { freeBordered[geometry, default: []].append(buffer) }
                    continue
                }
                if let slot = slices.slot(of: value) {
                    unread[slot]! -= 1
                    if unread[slot] == 0 { release(slot) }
                } else {
                    release(value)
                }
            }
        }
        // A bordered value no step writes gets a buffer of its own (all zero).
        for value in padded.keys.sorted() where borderedBuffer[value] == nil {
            borderedBuffer[value] = bordered.count
            bordered.append(padded[value]!)
        }
        var top = slots.peak
        var borderedOffsets: [Int] = []
        for geometry in bordered {
            borderedOffsets.append(top)
            top += Self.slotSize(geometry.floatCount)
        }
        for (value, buffer) in borderedBuffer { offsets[value] = borderedOffsets[buffer] }
        var gateOffsets: [Int: Int] = [:]
        for (leader, count) in gates.sorted(by: { $0.key < $1.key }) {
            gateOffsets[leader] = top
            top += Self.slotSize(count)
        }
        self.offsets = offsets
        self.activationCount = slots.peak
        self.totalCount = top
        self.views = views
        self.overwrites = overwrites
        self.gateOffsets = gateOffsets
        self.slices = slices
    }

    /// A value's slot in floats: its size rounded up to 64 bytes, and at least 64 bytes.
    static func slotSize(_ floatCount: Int) -> Int {
        let alignment = 16  // floats: 64 bytes
        return max(alignment, (floatCount + alignment - 1) / alignment * alignment)
    }

    /// The index of the last node reading or writing each value (by value id): -1 for a graph
    /// input nothing reads, `Int.max` for a graph output (kept to the end).
    static func lastUses(_ graph: LoadedGraph, _ nodes: [Node]) -> [Int] {
        var lastUse = [Int](repeating: -1, count: graph.values.count)
        for (step, node) in nodes.enumerated() {
            for input in node.reads { lastUse[input] = step }
            for output in node.writes { lastUse[output] = max(lastUse[output], step) }
        }
        for output in graph.outputIDs { lastUse[output] = Int.max }
        return lastUse
    }
}

/// Slots in a growing arena: first fit among the free blocks, neighbouring free blocks merged,
/// and a free block at the top lowers the top again.
struct SlotAllocator {
    private var free: [(offset: Int, size: Int)] = []
    private var top = 0
    /// The highest the top has been: the arena's size so far.
    private(set) var peak = 0

    /// The offset of a new slot of `size` floats.
    mutating func allocate(_ size: Int) -> Int {
        if let index = free.firstIndex(where: { $0.size >= size }) {
            let offset = free[index].offset
            free[index].offset += size
            free[index].size -= size
            if free[index].size == 0 { free.remove(at: index) }
            return offset
        }
        defer { top += size; peak = max(peak, top) }
        return top
    }

    /// Gives back the slot at `offset` of `size` floats.
    mutating func release(offset: Int, size: Int) {
        let index = free.firstIndex { $0.offset > offset } ?? free.count
        free.insert((offset, size), at: index)
        if index + 1 < free.count, free[index].offset + free[index].size == free[index + 1].offset {
            free[index].size += free[index + 1].size
            free.remove(at: index + 1)
        }
        if index > 0, free[index - 1].offset + free[index - 1].size == free[index].offset {
            free[index - 1].size += free[index].size
            free.remove(at: index)
        }
        if let last = free.last, last.offset + last.size == top {
            top = last.offset
            free.removeLast()
        }
    }
}

/// The values that live inside another value's slot: the float inputs of a `Concat` whose axis
/// has only unit axes before it (so each input is one contiguous run of the output) inside its
/// output, and the outputs of such a `Split` inside its input (or inside the slot its input lives
/// in). A value is in at most one shared slot, and graph inputs and constants are in none.
struct Slices: Sendable {
    /// For each value living in another's slot: that slot's value and its offset there, in floats.
    private(set) var place: [Int: (slot: Int, offset: Int)] = [:]
    /// For each shared slot (by its value): the values living in it.
    private(set) var members: [Int: [Int]] = [:]

    init() {}

    init(_ graph: LoadedGraph) {
        var produced = Set<Int>()
        for node in graph.nodes { produced.formUnion(node.outputs) }
        let inputs = Set(graph.inputIDs)
        func isFree(_ value: Int) -> Bool {
            place[value] == nil && members[value] == nil && produced.contains(value) && !inputs.contains(value)
                && graph.values[value].constant == nil && graph.values[value].elementCount > 0
        }
        for node in graph.nodes {
            var root = -1
            var taken: [(value: Int, offset: Int)] = []
            if let concat = node.operation as? Concat {
                guard concat.outputTypes == [.float32], concat.outer == 1, let output = node.outputs.first, isFree(output) else { continue }
                root = output
                var offset = 0
                for (k, input) in node.inputs.enumerated() {
                    if isFree(input), node.inputs.firstIndex(of: input) == node.inputs.lastIndex(of: input) {
                        taken.append((input, offset))
                    }
                    offset += concat.runs[k] / MemoryLayout<Float>.size
                }
            } else if let split = node.operation as? Split {
                guard split.outputTypes.allSatisfy({ $0 == .float32 }), split.outer == 1, let input = node.inputs.first,
                      isFree(input) || slot(of: input) != nil else { continue }
                // A Split of a value that lives in a shared slot cuts that slot.
                root = slot(of: input) ?? input
                let base = place[input]?.offset ?? 0
                for (k, output) in node.outputs.enumerated() where isFree(output) && !node.inputs.contains(output) {
                    taken.append((output, base + split.starts[k] * split.sliceBytes / MemoryLayout<Float>.size))
                }
            }
            guard !taken.isEmpty else { continue }
            for (value, offset) in taken { place[value] = (root, offset) }
            members[root, default: []] += taken.map { $0.value }
        }
    }

    /// The shared slot `value` lives in (its own, when others live in it), if any.
    func slot(of value: Int) -> Int? {
        place[value]?.slot ?? (members[value] != nil ? value : nil)
    }

    /// Whether `value` lives in its place inside the slot `container` lives in.
    func isPlaced(_ value: Int, inSlotOf container: Int) -> Bool {
        place[value] != nil && slot(of: value) == slot(of: container)
    }
}
