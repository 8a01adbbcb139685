// The lock that serialises an InferenceSession's runs: a POSIX mutex through the C library (no
// Foundation). Synchronization's `Mutex` would do, but it needs macOS 15 / iOS 18 and the package
// supports macOS 14 / iOS 16.
#if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A `pthread_mutex_t` at a fixed address (a mutex must not move), held from `lock()` to `unlock()`.
/// Neither call allocates.
final class SessionLock: @unchecked Sendable {
    // @unchecked Sendable is safe: the mutex is only touched through pthread calls, which are
    // made for use from any thread.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() {
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "SessionLock: pthread_mutex_init failed (\(status))")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    func lock() {
        let status = pthread_mutex_lock(mutex)
        precondition(status == 0, "SessionLock: pthread_mutex_lock failed (\(status))")
    }

    func unlock() {
        let status = pthread_mutex_unlock(mutex)
        precondition(status == 0, "SessionLock: pthread_mutex_unlock failed (\(status))")
    }
}
#else
/// Where there is no C library module (Embedded Swift for a bare target) there are no threads
/// either, as for the kernels' WorkerPool: nothing to serialise.
final class SessionLock: @unchecked Sendable {
    init() {}
    func lock() {}
    func unlock() {}
}
#endif
