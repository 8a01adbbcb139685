import Foundation

/// A value behind a lock, for state shared between the app's threads and the capture thread.
///
/// `Synchronization.Mutex` needs macOS 15 / iOS 18; this package supports macOS 14 / iOS 16, so the
/// lock is an `NSLock`. Locking and unlocking allocate nothing.
package final class Locked<Value>: @unchecked Sendable {
    // Safe: `value` is only touched inside `withLock`, which holds `lock` for the whole access.
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
