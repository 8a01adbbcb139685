/// Where each value lives in one float arena, decided once when a session is made.
///
/// Values computed at run time (graph inputs, node outputs) get a slot when they are produced
/// and give it back after their last reader ran, so a later value can reuse it (first fit,
/// neighbouring free slots merge). Graph outputs are never given back. Constants are packed
/// after the activations. Slots are 64-byte aligned.
///
/// Some values share one slot (`Slices`): the float inputs of a `Concat` along its outermost
/// non-unit axis live in their places inside its output, and the outputs of such a `Split` inside
/// its input, so neither node moves anything. A shared slot is given back after the last reader
/// of any value in it.
struct BufferPlan: Sendable {
    /// Offset of each value in the arena, in floats (4-byte units), by value id.
    var offsets: [Int]
    /// Floats needed by activations at the peak (the high-water mark of the slots).
    var activationCount: Int
    /// Floats in the arena: activations, then constants.
    var totalCount: Int

    /// - Parameter reusesBuffers: false gives every value its own slot, so every intermediate can
    ///   be read after a run (inspection mode).
    init(_ graph: LoadedGraph, reusesBuffers: Bool) {
        let lastUse = Self.lastUses(graph)
        let slices = reusesBuffers ? Slices(graph) : Slices()
        /// Per shared slot (by its value), how many of the values living in it are still to be read.
        var unread = slices.members.mapValues { $0.count + 1 }
        var offsets = [Int](repeating: 0, count: graph.values.count)
        var slots = SlotAllocator()

        func allocate(_ value: Int) { offsets[value] = slots.allocate(Self.slotSize(graph.values[value].floatCount)) }
        func release(_ value: Int) {
            guard reusesBuffers else { return }
            slots.release(offset: offsets[value], size: Self.slotSize(graph.values[value].floatCount))
        }
        /// The input whose slot a Reshape, Flatten, Squeeze or Unsqueeze at `step` takes over: the
        /// same elements in the same order, so the output is a view of the input when the input
        /// is computed at run time (not a graph input or output) and has no reader after it.
        func viewSource(of node: PlannedNode, at step: Int) -> Int? {
            guard node.operation is Reshape || node.operation is ShapeView, let source = node.inputs.first,
                  slices.slot(of: source) == nil, slices.slot(of: node.outputs[0]) == nil,
                  node.outputs.count == 1, lastUse[source] == step, graph.values[source].constant == nil,
                  !graph.inputIDs.contains(source), !graph.outputIDs.contains(source),
                  graph.values[source].floatCount == graph.values[node.outputs[0]].floatCount else { return nil }
            return source
        }

        /// Values whose slot a view took over (never released themselves).
        var handedOver = Set<Int>()
        /// Values given a slot so far (a Concat's output gets one with its first input).
        var placed = Set(graph.inputIDs)
        for input in graph.inputIDs { allocate(input) }
        for input in graph.inputIDs where lastUse[input] == -1 { release(input) }
        for (step, node) in graph.nodes.enumerated() {
            if reusesBuffers, let source = viewSource(of: node, at: step) {
                offsets[node.outputs[0]] = offsets[source]
                handedOver.insert(source)
            } else {
                for output in node.outputs {
                    if let (slot, offset) = slices.place[output] {
                        // A Concat's first input places the Concat's output; a Split's input is placed already.
                        if placed.insert(slot).inserted { allocate(slot) }
                        offsets[output] = offsets[slot] + offset
                    } else if placed.insert(output).inserted {
                        allocate(output)
                    }
                }
            }
            var released = handedOver
            for value in node.inputs + node.outputs where lastUse[value] == step && graph.values[value].constant == nil {
                guard released.insert(value).inserted else { continue }
                if let slot = slices.slot(of: value) {
                    unread[slot]! -= 1
                    if unread[slot] == 0 { release(slot) }
                } else {
                    release(value)
                }
            }
        }
        var constantTop = slots.peak
        for (id, value) in graph.values.enumerated() where value.constant != nil {
            offsets[id] = constantTop
            constantTop += Self.slotSize(value.floatCount)
        }
        self.offsets = offsets
        self.activationCount = slots.peak
        self.totalCount = constantTop
    }

    /// A value's slot in floats: its size rounded up to 64 bytes, and at least 64 bytes.
    static func slotSize(_ floatCount: Int) -> Int {
        let alignment = 16  // floats: 64 bytes
        return max(alignment, (floatCount + alignment - 1) / alignment * alignment)
    }

    /// The index of the last node reading or writing each value (by value id): -1 for a graph
    /// input nothing reads, `Int.max` for a graph output (kept to the end).
    static func lastUses(_ graph: LoadedGraph) -> [Int] {
        var lastUse = [Int](repeating: -1, count: graph.values.count)
        for (step, node) in graph.nodes.enumerated() {
            for input in node.inputs { lastUse[input] = step }
            for output in node.outputs { lastUse[output] = max(lastUse[output], step) }
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
struct Slices {
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
            members[root, default: []] += taken.map(\.value)
        }
    }

    /// The shared slot `value` lives in (its own, when others live in it), if any.
    func slot(of value: Int) -> Int? {
        place[value]?.slot ?? (members[value] != nil ? value : nil)
    }
}
