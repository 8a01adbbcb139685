/// Owned scratch storage: `count` elements, 64-byte aligned (a cache line, so full-vector loads and
/// stores of rows never straddle two lines), zero-initialised, freed when the buffer goes away.
///
/// Noncopyable, so exactly one owner frees it and no copy-on-write check or reference count sits
/// between a hot loop and its pointer. Replacing a buffer (`buffer = AlignedBuffer(count: n)`) frees
/// the old one.
struct AlignedBuffer<Element: BitwiseCopyable>: ~Copyable {
    /// The number of elements.
    let count: Int
    /// The first element; valid for `count` elements for the buffer's lifetime.
    let baseAddress: UnsafeMutablePointer<Element>

    /// Allocates `count` elements, all bits zero.
    init(count: Int) {
        precondition(count >= 0, "negative buffer size")
        self.count = count
        let bytes = max(count, 1) * MemoryLayout<Element>.stride
        let raw = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        baseAddress = raw.bindMemory(to: Element.self, capacity: max(count, 1))
    }

    deinit { UnsafeMutableRawPointer(baseAddress).deallocate() }
}
