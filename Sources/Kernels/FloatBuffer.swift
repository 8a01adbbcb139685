/// Owned, 64-byte-aligned, zero-initialised float storage for activations, packed weights and
/// scratch.
///
/// A final class rather than an `Array`: kernels see only its pointer, so there is no
/// copy-on-write check, bounds check or reference counting in a hot loop.
/// The storage never moves and is freed when the buffer is released.
package final class FloatBuffer: OwnedStorage {
    /// Number of floats.
    package let count: Int
    /// The first float; valid for `count` elements for the buffer's lifetime.
    package let baseAddress: UnsafeMutablePointer<Float>

    /// Allocates `count` floats, all zero.
    package init(count: Int) {
        precondition(count >= 0, "negative buffer size")
        self.count = count
        let raw = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1) * MemoryLayout<Float>.stride, alignment: 64)
        baseAddress = raw.bindMemory(to: Float.self, capacity: max(count, 1))
        baseAddress.initialize(repeating: 0, count: max(count, 1))
    }

    /// Copies `values` into a new buffer.
    package convenience init(_ values: some Collection<Float>) {
        self.init(count: values.count)
        for (index, value) in values.enumerated() { baseAddress[index] = value }
    }

    deinit {
        UnsafeMutableRawPointer(baseAddress).deallocate()
    }

    /// Sets every float to zero.
    package func zero() {
        baseAddress.update(repeating: 0, count: count)
    }

    /// A copy of the contents, for tests and tools.
    package var array: [Float] { Array(UnsafeBufferPointer(start: baseAddress, count: count)) }
}

/// A class that owns heap storage (a buffer of floats or integers): what `HeldMemory` counts for it.
package protocol OwnedStorage: AnyObject {
    /// Bytes of the storage it owns.
    var byteCount: Int { get }
}

extension FloatBuffer {
    package var byteCount: Int { count * MemoryLayout<Float>.stride }
}
