/// A model's constants (initializers and folded values) in one 64-byte-aligned buffer, made once
/// when the model is loaded and never written again: every session of the model reads its
/// constants here (the reference kernels' weights, the operands fast steps read at run time), and
/// the fast path packs its weights from here. No session copies them.
final class ConstantStore: @unchecked Sendable {
    // @unchecked Sendable is safe: the buffer is written only in init; after that every reader
    // only reads (no kernel writes a constant: a constant is never a node's output, and the buffer
    // plan never lays an output over one).
    private let base: UnsafeMutablePointer<Float>
    /// Offset of each constant in floats, by value id; -1 for the values that are not constants.
    private let offsets: [Int]
    /// Floats in the buffer.
    let count: Int

    init(_ graph: LoadedGraph) {
        var offsets = [Int](repeating: -1, count: graph.values.count)
        var count = 0
        for (id, value) in graph.values.enumerated() where value.constant != nil {
            offsets[id] = count
            count += BufferPlan.slotSize(value.floatCount)
        }
        let base = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1) * MemoryLayout<Float>.stride, alignment: 64)
            .bindMemory(to: Float.self, capacity: max(count, 1))
        base.initialize(repeating: 0, count: max(count, 1))
        for (id, value) in graph.values.enumerated() {
            guard let constant = value.constant else { continue }
            constant.bytes.withUnsafeBytes { bytes in
                if let source = bytes.baseAddress { UnsafeMutableRawPointer(base + offsets[id]).copyMemory(from: source, byteCount: bytes.count) }
            }
        }
        self.base = base
        self.offsets = offsets
        self.count = count
    }

    deinit { base.deallocate() }

    /// The address of constant `value`, or nil when it is not a constant. The memory must not be
    /// written (the pointer is mutable only because the kernels' signatures take one).
    func pointer(_ value: Int) -> UnsafeMutablePointer<Float>? {
        offsets[value] >= 0 ? base + offsets[value] : nil
    }

    /// Bytes of the buffer.
    var byteCount: Int { count * MemoryLayout<Float>.stride }
}
