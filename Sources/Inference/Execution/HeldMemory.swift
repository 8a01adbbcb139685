// Reflection (Mirror, Any), which Embedded Swift lacks: the diagnostics that use it are not in
// an Embedded build.
#if !hasFeature(Embedded)
import Kernels

/// The heap bytes reachable from some values, each buffer counted once: what a session's steps
/// own (the workspaces some keep, and the worker pool's scratch, which holds the band buffers and
/// the zero-bordered copies) and what a model holds (its constants, packed weights, operators'
/// tables).
///
/// It walks the values' stored properties by reflection, so a buffer a new step or operator
/// keeps is counted without that type saying so: `OwnedStorage` (float and integer buffers) by
/// its bytes, arrays, dictionaries and sets by their storage (once per storage), class instances
/// once each. Pointers (into an arena, or the caller's buffers) count nothing. For diagnostics,
/// not for the per-frame path (it allocates).
package struct HeldMemory {
    private var seen: Set<ObjectIdentifier> = []
    private var seenStorage: Set<UInt> = []
    /// The bytes counted so far.
    package private(set) var bytes = 0

    package init() {}

    /// Counts what `value` holds that was not counted yet.
    package mutating func add(_ value: Any) {
        switch value {
        case let buffer as any OwnedStorage:
            if seen.insert(ObjectIdentifier(buffer)).inserted { bytes += buffer.byteCount }
        case let collection as any HeldCollection:
            // A collection's storage once (copies share it); the elements' own heap only when
            // they can hold any. (The cast unwraps an optional: walk the collection, not `value`.)
            let storage = collection.storage
            guard storage.bytes > 0, seenStorage.insert(storage.address).inserted else { return }
            bytes += storage.bytes
            if storage.elementsMayHoldHeap { walk(collection) }
        default:
            if Mirror(reflecting: value).displayStyle == .class {
                guard seen.insert(ObjectIdentifier(value as AnyObject)).inserted else { return }
            }
            walk(value)
        }
    }

    private mutating func walk(_ value: Any) {
        var mirror: Mirror? = Mirror(reflecting: value)
        while let current = mirror {
            for child in current.children { add(child.value) }
            mirror = current.superclassMirror
        }
    }
}

/// Arrays, dictionaries and sets: the heap block of their elements (a header and the elements; a
/// hash table's buckets and occupancy bits), and whether the elements may hold heap memory of
/// their own (not when they are plain values: numbers, and structs of numbers).
private protocol HeldCollection {
    var storage: (address: UInt, bytes: Int, elementsMayHoldHeap: Bool) { get }
}

/// The word a collection stores: the reference to its heap storage.
private func storageWord<C>(_ collection: C) -> UInt {
    withUnsafeBytes(of: collection) { $0.load(as: UInt.self) }
}

extension Array: HeldCollection {
    fileprivate var storage: (address: UInt, bytes: Int, elementsMayHoldHeap: Bool) {
        // The elements, not the capacity: the allocator may give an array room it did not ask
        // for, and two equal sessions count the same.
        (storageWord(self), isEmpty ? 0 : 32 + count * MemoryLayout<Element>.stride, !_isPOD(Element.self))
    }
}

extension Dictionary: HeldCollection {
    fileprivate var storage: (address: UInt, bytes: Int, elementsMayHoldHeap: Bool) {
        let buckets = capacity == 0 ? 0 : 1 << (Int.bitWidth - (capacity * 4 / 3).leadingZeroBitCount)
        return (storageWord(self), buckets == 0 ? 0 : 64 + buckets * (MemoryLayout<Key>.stride + MemoryLayout<Value>.stride) + buckets / 8,
                !_isPOD(Key.self) || !_isPOD(Value.self))
    }
}

extension Set: HeldCollection {
    fileprivate var storage: (address: UInt, bytes: Int, elementsMayHoldHeap: Bool) {
        let buckets = capacity == 0 ? 0 : 1 << (Int.bitWidth - (capacity * 4 / 3).leadingZeroBitCount)
        return (storageWord(self), buckets == 0 ? 0 : 64 + buckets * MemoryLayout<Element>.stride + buckets / 8, !_isPOD(Element.self))
    }
}
#endif
