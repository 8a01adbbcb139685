/// The weights a model's fast steps pack (folded with their epilogue, laid out for the kernels),
/// made once per lowered graph and shared by every session that runs it: the first session to
/// build a step packs, the others take what it packed. Kernels only read packed weights, so
/// sessions on other threads share them safely.
///
/// An entry is keyed by the node whose step packs it and the place in the builder that does
/// (`StepBuilder.packed`), so a step with several packed operands keeps each.
final class PackedWeights: @unchecked Sendable {
    // @unchecked Sendable is safe: `entries` and `isSealed` are read and written only under `lock`;
    // the entries themselves are never written after they are made.
    private let lock = SessionLock()
    private var entries: [Key: AnyObject] = [:]
    private var isSealed = false

    /// One entry's weights, in a class so that the entries are objects (Embedded Swift has no
    /// `Any`) and one cast gives them back.
    private final class Entry<W> {
        let value: W
        init(_ value: W) { self.value = value }
    }

    struct Key: Hashable {
        /// The index in the graph's nodes of the node whose step packs (a fused step's leader).
        var node: Int
        /// Where in the builders the packing is written (`file:line`).
        var site: String
    }

    /// The weights packed for `key`, packing them with `make` the first time.
    ///
    /// - Precondition: the store they are packed from is still there (`seal()` not called), or
    ///   they were packed before.
    func weights<W>(_ key: Key, _ make: () -> W) -> W {
        lock.lock()
        defer { lock.unlock() }
        if let made = entries[key] { return (made as! Entry<W>).value }
        precondition(!isSealed, "the weights of node \(key.node) (\(key.site)) were not packed before the model released the constants they are packed from")
        let made = make()
        entries[key] = Entry(made)
        return made
    }

    /// No entry is made from now on: the constants they are packed from are gone
    /// (`ConstantStore.releasePackingSources()`).
    func seal() {
        lock.lock()
        defer { lock.unlock() }
        isSealed = true
    }

}
