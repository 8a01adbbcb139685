// Reflection (Mirror, Any), which Embedded Swift lacks: the diagnostics that use it are not in
// an Embedded build.
#if !hasFeature(Embedded)
import Kernels

/// Whether some values hold an address that `matches`, anywhere in their stored properties: a
/// step that keeps a pointer to a constant reads that constant when it runs.
///
/// It walks the values by reflection, as `HeldMemory` does. Arrays of numbers and the worker pool
/// hold no such address and are skipped; operators are made when the model is loaded, before any
/// buffer they could point into, and are skipped too. A closure cannot be looked into: holding
/// one counts as holding a matching address. For building sessions, not for the per-frame path.
struct HeldAddresses {
    private let matches: (UnsafeRawPointer) -> Bool
    private var seen: Set<ObjectIdentifier> = []

    init(matching matches: @escaping (UnsafeRawPointer) -> Bool) {
        self.matches = matches
    }

    /// Whether `value` holds an address that matches (or a closure).
    mutating func found(in value: Any) -> Bool {
        switch value {
        case is [Float], is [Int], is [Int32], is [Int64], is [Int16], is [UInt8], is [Int8], is String,
             is WorkerPool, is any Operator:
            return false
        case let pointer as any _Pointer:
            return matches(Self.address(pointer))
        default:
            if String(describing: type(of: value)).contains("->") { return true }
            var mirror: Mirror? = Mirror(reflecting: value)
            if mirror?.displayStyle == .class, !seen.insert(ObjectIdentifier(value as AnyObject)).inserted { return false }
            while let current = mirror {
                for child in current.children where found(in: child.value) { return true }
                mirror = current.superclassMirror
            }
            return false
        }
    }

    private static func address<P: _Pointer>(_ pointer: P) -> UnsafeRawPointer {
        withUnsafeBytes(of: pointer) { UnsafeRawPointer(bitPattern: $0.load(as: UInt.self))! }
    }
}
#endif
