/// A model's constants (initializers and folded values), made once when the model is loaded and
/// never written again: every session of the model reads its constants here (the reference
/// kernels' weights, the operands fast steps read at run time), and the fast path packs its
/// weights from here. No session copies them.
///
/// The constants only the fast path's packing reads (`packingSources`: the weights and biases of
/// convolutions and matrix products, read by nothing else) sit in a buffer of their own, which
/// the model's only session frees once its steps packed them (`releasePackingSources`): the
/// weights are then held once, packed.
final class ConstantStore: @unchecked Sendable {
    // @unchecked Sendable is safe: the buffers are written only in init; after that every reader
    // only reads (no kernel writes a constant: a constant is never a node's output, and the buffer
    // plan never lays an output over one). `readers` and the release are guarded by `lock`.
    private let base: UnsafeMutablePointer<Float>
    private let packingBase: UnsafeMutablePointer<Float>
    /// Offset of each constant in floats in its buffer, by value id; -1 for the values that are
    /// not constants.
    private let offsets: [Int]
    /// Whether each value is in the packing sources' buffer, by value id.
    private let isPackingSource: [Bool]
    /// Floats of every constant (both buffers), and of the packing sources' buffer.
    let count: Int, packingCount: Int
    private let lock = SessionLock()
    /// Sessions reading the store.
    private var readers = 0
    private var released = false
    /// Whether every constant is gone (`releaseAll`).
    private var releasedAll = false
    /// Whether each buffer's memory was given back (not when a release kept it, filled with NaN).
    private var baseFreed = false, packingFreed = false

    init(_ graph: LoadedGraph) {
        let sources = Self.packingSources(graph)
        var offsets = [Int](repeating: -1, count: graph.values.count)
        var counts = (kept: 0, packing: 0)
        for (id, value) in graph.values.enumerated() where value.constant != nil {
            let size = BufferPlan.slotSize(value.floatCount)
            if sources.contains(id) {
                offsets[id] = counts.packing
                counts.packing += size
            } else {
                offsets[id] = counts.kept
                counts.kept += size
            }
        }
        let allocate = { (count: Int) in
            let base = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1) * MemoryLayout<Float>.stride, alignment: 64)
                .bindMemory(to: Float.self, capacity: max(count, 1))
            base.initialize(repeating: 0, count: max(count, 1))
            return base
        }
        base = allocate(counts.kept)
        packingBase = allocate(counts.packing)
        isPackingSource = graph.values.indices.map { sources.contains($0) }
        self.offsets = offsets
        (count, packingCount) = (counts.kept + counts.packing, counts.packing)
        for (id, value) in graph.values.enumerated() {
            guard let constant = value.constant, let destination = pointer(id) else { continue }
            constant.bytes.withUnsafeBytes { bytes in
                if let source = bytes.baseAddress { UnsafeMutableRawPointer(destination).copyMemory(from: source, byteCount: bytes.count) }
            }
        }
    }

    deinit {
        if !baseFreed { base.deallocate() }
        if !packingFreed { packingBase.deallocate() }
    }

    /// The constants that only a kernel's packing reads on the fast path: the weights and biases
    /// of Conv, ConvTranspose, Gemm and MatMul, and of their quantized forms (QLinearConv,
    /// QLinearMatMul, com.microsoft QGemm, and the weights and weight zero points of ConvInteger
    /// and MatMulInteger), when every node reading them reads them so. (Whether
    /// a session's steps did pack them is checked before they are freed.)
    static func packingSources(_ graph: LoadedGraph) -> Set<Int> {
        var packed: Set<Int> = [], other: Set<Int> = []
        for node in graph.nodes {
            // By the op's input index as ONNX numbers them.
            let weightInputs: Set<Int> = switch node.operation {
            case is Conv, is ConvTranspose, is Gemm: [1, 2]
            case is MatMul: [1]
            case is QLinearConv: [3, 8]
            case is QLinearMatMul: [3]
            case is QGemm: [3, 6]
            case is ConvInteger, is MatMulInteger: [1, 3]
            default: []
            }
            for (position, id) in node.inputs.enumerated() where graph.values[id].constant != nil {
                if weightInputs.contains(node.operation.dataInputs[position]) { packed.insert(id) } else { other.insert(id) }
            }
        }
        return packed.subtracting(other).subtracting(graph.outputIDs)
    }

    /// The address of constant `value`, or nil when it is not a constant. The memory must not be
    /// written (the pointer is mutable only because the kernels' signatures take one). After
    /// `releasePackingSources`, a packing source's address is kept but must not be read.
    func pointer(_ value: Int) -> UnsafeMutablePointer<Float>? {
        guard offsets[value] >= 0 else { return nil }
        return (isPackingSource[value] ? packingBase : base) + offsets[value]
    }

    /// Whether constant `value`'s contents are gone (`releasePackingSources`).
    func isReleased(_ value: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return releasedAll || (released && isPackingSource[value])
    }

    /// Whether `address` is in the packing sources' buffer.
    func isPackingSource(_ address: UnsafeRawPointer) -> Bool {
        let start = UnsafeRawPointer(packingBase)
        return address >= start && address < start + packingCount * MemoryLayout<Float>.stride
    }

    /// Bytes of the buffers held.
    var byteCount: Int {
        lock.lock()
        defer { lock.unlock() }
        if releasedAll { return 0 }
        return (count - (released ? packingCount : 0)) * MemoryLayout<Float>.stride
    }

    /// Whether exactly one session reads the store.
    var hasOneReader: Bool {
        lock.lock()
        defer { lock.unlock() }
        return readers == 1
    }

    // MARK: - Readers

    /// Counts a session reading the store from now on.
    ///
    /// - Throws: when the packing sources were released and the session would read them
    ///   (`readsPackingSources`): only sessions taking the model's packed weights can still be made.
    func addReader(readsPackingSources: Bool) throws(ModelError) {
        lock.lock()
        defer { lock.unlock() }
        guard !releasedAll, !(released && readsPackingSources) else {
            throw ModelError(.invalidInput, "the model's session freed the weights it packed, so the model makes no reference, inspecting or partly fused session; load it again for one")
        }
        readers += 1
    }

    func removeReader() {
        lock.lock()
        defer { lock.unlock() }
        readers -= 1
    }

    /// Frees the packing sources when one session reads the store and `isPacked` says its steps
    /// packed every one they read, calling `seal` before (no weights are packed from them after).
    /// With `poisoning` (tests), the buffer is filled with NaN and kept until the store goes,
    /// so a step that still read it would compute NaN. Returns the bytes freed.
    func releasePackingSources(poisoning: Bool = false, isPacked: () -> Bool, seal: () -> Void) -> Int {
        lock.lock()
        defer { lock.unlock() }
        guard !released, !releasedAll, readers == 1, packingCount > 0, isPacked() else { return 0 }
        seal()
        if poisoning {
            packingBase.update(repeating: .nan, count: packingCount)
        } else {
            packingBase.deallocate()
            packingFreed = true
        }
        released = true
        return packingCount * MemoryLayout<Float>.stride
    }

    /// Frees every constant when no session reads the store: the store of a graph no session
    /// runs any more (a QDQ model's graph as written, once its only session runs the rewritten
    /// one). From then on no session of the store can be made. `poisoning` as in
    /// `releasePackingSources`. Returns the bytes freed.
    func releaseAll(poisoning: Bool = false) -> Int {
        lock.lock()
        defer { lock.unlock() }
        guard !releasedAll, readers == 0 else { return 0 }
        let freed = (count - (released ? packingCount : 0)) * MemoryLayout<Float>.stride
        if poisoning {
            base.update(repeating: .nan, count: max(count - packingCount, 1))
            if !packingFreed { packingBase.update(repeating: .nan, count: max(packingCount, 1)) }
        } else {
            base.deallocate()
            baseFreed = true
            if !packingFreed { packingBase.deallocate() }
            packingFreed = true
        }
        releasedAll = true
        return freed
    }
}
