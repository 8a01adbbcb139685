import Kernels

/// The heap bytes reachable from some values, each buffer counted once: what a session's steps
/// own (the workspaces some keep, and the worker pool's scratch, which holds the band buffers and
/// the zero-bordered copies) and what a model holds (its constants, packed weights, operators'
/// tables).
///
/// It walks the values' stored properties by reflection, so a buffer a new step or operator
/// keeps is counted without that type saying so: `OwnedStorage` (float and integer buffers) by
/// its bytes, arrays of numbers by their element count, class instances once each. Pointers
/// (into an arena, or the caller's buffers) count nothing. For diagnostics, not for the
/// per-frame path (it allocates).
package struct HeldMemory {
    private var seen: Set<ObjectIdentifier> = []
    private var seenArrays: Set<UnsafeRawPointer> = []
    /// The bytes counted so far.
    package private(set) var bytes = 0

    package init() {}

    /// An array's elements, once per storage (copies of an array share it).
    private mutating func addArray<Element>(_ values: [Element]) {
        guard let base = values.withUnsafeBufferPointer({ $0.baseAddress }), !values.isEmpty,
              seenArrays.insert(UnsafeRawPointer(base)).inserted else { return }
        bytes += values.count * MemoryLayout<Element>.stride
    }

    /// Counts what `value` holds that was not counted yet.
    package mutating func add(_ value: Any) {
        switch value {
        case let buffer as any OwnedStorage:
            if seen.insert(ObjectIdentifier(buffer)).inserted { bytes += buffer.byteCount }
        case let values as [Float]: addArray(values)
        case let values as [Int16]: addArray(values)
        case let values as [Int]: addArray(values)
        case let values as [Int32]: addArray(values)
        case let values as [Int64]: addArray(values)
        case let values as [UInt8]: addArray(values)
        case let values as [Int8]: addArray(values)
        default:
            var mirror: Mirror? = Mirror(reflecting: value)
            if mirror?.displayStyle == .class {
                guard seen.insert(ObjectIdentifier(value as AnyObject)).inserted else { return }
            }
            while let current = mirror {
                for child in current.children { add(child.value) }
                mirror = current.superclassMirror
            }
        }
    }
}
