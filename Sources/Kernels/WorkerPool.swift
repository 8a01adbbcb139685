// The worker thread is a POSIX thread synchronised through `Synchronization.Atomic`; where the
// C library or the atomics are missing (Embedded Swift, bare metal) every pool runs on 1 thread.
// The same condition guards each use below.
#if (canImport(Glibc) || canImport(Musl) || canImport(Darwin)) && canImport(Synchronization) && !hasFeature(Embedded)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
#endif

/// The threads a kernel may use, with per-thread scratch memory.
///
/// With 2 threads a persistent worker thread spins on an atomic epoch between jobs (fork/join
/// ≈ 0.2 µs, where `DispatchQueue.concurrentPerform` costs 5–7 µs after idle and loses on
/// layers of 20–60 µs). After about a millisecond without work it parks on a
/// condition so an idle pipeline does not burn a core; the first job after that pays one wake-up.
///
/// Kernels split their work into `threadCount` parts so that every output element is computed by
/// the same code in the same order whichever thread runs it: results are bit-identical for any
/// thread count. A pool runs one job at a time: it is not for concurrent use from several threads.
package final class WorkerPool {
    /// 1 or 2.
    package let threadCount: Int
    /// Floats of private scratch per thread.
    package private(set) var scratchCount: Int
    private var scratchBuffers: [FloatBuffer]
    /// Scratch shared by all parts of a job (for results one phase hands to the next), with its
    /// size. A lane (``lane(_:)``) has none.
    package private(set) var sharedCount: Int
    private var sharedBuffer: FloatBuffer
    private let worker: AnyObject?
    /// One single-thread pool per thread, each using that thread's scratch (see ``lane(_:)``).
    private var lanePools: [WorkerPool]

    /// The smallest scratch of each kind a pool has: the size every pool had before kernels stated
    /// their needs, so the built-in models' kernels see the scratch (and the pooling bands) they did.
    package static let minimumScratchCount = 1 << 16

    /// A pool of `threads` threads (clamped to 1…2). Where `Synchronization.Atomic` is
    /// unavailable (before macOS 15 / iOS 18) or there are no threads (Embedded Swift) it runs
    /// on 1 thread.
    package init(threads: Int = 1, scratchCount: Int = WorkerPool.minimumScratchCount) {
        var count = min(max(threads, 1), 2)
        var worker: AnyObject? = nil
        if count == 2 {
            #if (canImport(Glibc) || canImport(Musl) || canImport(Darwin)) && canImport(Synchronization) && !hasFeature(Embedded)
            if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
                worker = SpinningWorker()
            } else {
                count = 1
            }
            #else
            count = 1
            #endif
        }
        self.worker = worker
        threadCount = count
        self.scratchCount = scratchCount
        scratchBuffers = (0..<count).map { _ in FloatBuffer(count: scratchCount) }
        sharedCount = scratchCount
        sharedBuffer = FloatBuffer(count: scratchCount)
        lanePools = []
        lanePools = makeLanes()
    }

    /// A single-thread pool running on the caller's thread with `scratch` as its scratch.
    private init(lane scratch: FloatBuffer) {
        threadCount = 1
        scratchCount = scratch.count
        scratchBuffers = [scratch]
        sharedCount = 0
        sharedBuffer = FloatBuffer(count: 0)
        worker = nil
        lanePools = []
    }

    private func makeLanes() -> [WorkerPool] {
        threadCount == 1 ? [] : scratchBuffers.map { WorkerPool(lane: $0) }
    }

    /// Grows the scratch to at least `size` (per thread and shared); never shrinks it. Call it
    /// when a step is planned, never while a job runs: the buffers move, and kernels read the
    /// pool's buffers when they are called (never keep a scratch pointer across calls).
    package func reserve(_ size: ScratchSize) {
        if size.perThread > scratchCount {
            scratchCount = size.perThread
            scratchBuffers = (0..<threadCount).map { _ in FloatBuffer(count: size.perThread) }
            lanePools = makeLanes()
        }
        if size.shared > sharedCount {
            sharedCount = size.shared
            sharedBuffer = FloatBuffer(count: size.shared)
        }
    }

    /// Whether the pool's scratch holds `size`.
    package func holds(_ size: ScratchSize) -> Bool {
        size.perThread <= scratchCount && size.shared <= sharedCount
    }

    /// The single-thread pool for part `part` of a job: kernels a part calls with it run on that
    /// part's thread alone, using that thread's scratch (so the two parts never share scratch).
    /// For a 1-thread pool, the pool itself.
    @inline(always)
    func lane(_ part: Int) -> WorkerPool { threadCount == 1 ? self : lanePools[part] }

    deinit {
        #if (canImport(Glibc) || canImport(Musl) || canImport(Darwin)) && canImport(Synchronization) && !hasFeature(Embedded)
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            (worker as? SpinningWorker)?.stop()
        }
        #endif
    }

    /// Private scratch of thread `part` (``scratchCount`` floats).
    @inline(always)
    func scratch(_ part: Int) -> UnsafeMutableBufferPointer<Float> {
        UnsafeMutableBufferPointer(start: scratchBuffers[part].baseAddress, count: scratchCount)
    }

    /// The scratch shared by all parts of a job (``sharedCount`` floats). Read it when the
    /// kernel runs, never keep it: `reserve` may move it.
    @inline(always)
    package var shared: UnsafeMutableBufferPointer<Float> {
        UnsafeMutableBufferPointer(start: sharedBuffer.baseAddress, count: sharedCount)
    }

    /// Runs `job.run(part:pool:)` for every part in `0..<threadCount`, part 0 on the calling
    /// thread, and returns when all are done. Allocates nothing: the worker receives the job as
    /// a pointer to the caller's value plus its type (no closure context crosses threads).
    @inline(always)
    func run<Job: PoolJob>(_ job: Job) {
        if threadCount == 1 {
            job.run(part: 0, pool: self)
            return
        }
        #if (canImport(Glibc) || canImport(Musl) || canImport(Darwin)) && canImport(Synchronization) && !hasFeature(Embedded)
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            // `worker` is a SpinningWorker whenever threadCount == 2 (see init).
            let worker = unsafeDowncast(self.worker!, to: SpinningWorker.self)
            withUnsafePointer(to: job) { worker.run(UnsafeRawPointer($0), Job.self, pool: self) }
            return
        }
        #endif
        for part in 0..<threadCount { job.run(part: part, pool: self) }
    }

    /// The part of `0..<total` that thread `part` of `parts` handles, cut at multiples of
    /// `granularity` so each part starts on a tile boundary.
    @inline(always)
    static func range(_ total: Int, part: Int, of parts: Int, granularity: Int = 1) -> Range<Int> {
        if parts == 1 { return 0..<total }
        let units = (total + granularity - 1) / granularity
        let lower = min(total, units * part / parts * granularity)
        let upper = min(total, units * (part + 1) / parts * granularity)
        return lower..<upper
    }
}

/// Floats of scratch a kernel call needs: ``perThread`` in each thread's private scratch,
/// ``shared`` in the scratch all parts of a job share. Each kernel that uses scratch states its
/// need for its problem next to it (`pointwiseScratch(inputChannels:)`, …); the fast path
/// reserves the largest over its steps when it plans them (``WorkerPool/reserve(_:)``), and the
/// kernel checks it on every call.
package struct ScratchSize: Equatable, Sendable {
    package var perThread: Int
    package var shared: Int

    package init(perThread: Int = 0, shared: Int = 0) {
        self.perThread = perThread
        self.shared = shared
    }

    /// No scratch.
    package static let none = ScratchSize()

    /// The larger of each kind: what two kernels run one after the other need.
    package func union(_ other: ScratchSize) -> ScratchSize {
        ScratchSize(perThread: max(perThread, other.perThread), shared: max(shared, other.shared))
    }
}

/// Work a `WorkerPool` splits between its threads: `run(part:pool:)` does part `part` of
/// `pool.threadCount`. A struct holding the job's operands (kernels declare one per parallel
/// phase), so that handing it to the worker thread needs no closure context.
protocol PoolJob {
    func run(part: Int, pool: WorkerPool)
}

extension PoolJob {
    /// Runs part `part` of the job at `job` (a pointer to a `Self`).
    static func run(_ job: UnsafeRawPointer, part: Int, pool: WorkerPool) {
        job.assumingMemoryBound(to: Self.self).pointee.run(part: part, pool: pool)
    }
}

#if (canImport(Glibc) || canImport(Musl) || canImport(Darwin)) && canImport(Synchronization) && !hasFeature(Embedded)
/// One extra thread that runs part 1 of each job.
///
/// `@unchecked Sendable` because `job` (with `jobType`, `jobPool`) is a plain stored property shared with the worker thread.
/// It is safe: `job` is written by the submitting thread only before the releasing increment
/// of `epoch` and cleared only after the acquiring load of `done` shows the worker finished;
/// the worker reads it only between its acquiring load of the new epoch and its releasing
/// store of `done`. So the accesses never overlap and are ordered by the atomics.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
final class SpinningWorker: @unchecked Sendable {
    private let epoch = Atomic<Int>(0)
    private let done = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    private let parked = Atomic<Bool>(false)
    private let condition = ParkingCondition()
    /// The current job: its address in the submitter's frame, its type and pool (nil when idle).
    private var job: UnsafeRawPointer? = nil
    private var jobType: any PoolJob.Type = IdleJob.self
    private unowned(unsafe) var jobPool: WorkerPool? = nil

    /// Spins of the idle loop before parking (a millisecond or more).
    private static let spinsBeforeParking = 1 << 16
    /// Pure spins before each further spin also yields the core: on an oversubscribed machine a
    /// spinning waiter otherwise holds the core the thread it waits for needs (measured: 2-thread
    /// forward passes 15× slower than 1 thread at load average 12 without yielding).
    private static let spinsBeforeYielding = 2000

    init() {
        // The thread holds a strong reference to the worker until its loop returns (after `stop`).
        let context = Unmanaged.passRetained(self).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        // 8 MiB, a main thread's: unoptimised builds inline the depthwise kernels into frames of
        // up to 0.35 MB (more with AddressSanitizer). Pages are committed only when touched.
        pthread_attr_setstacksize(&attributes, 8 << 20)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Darwin)
        var thread: pthread_t? = nil
        #else
        var thread = pthread_t()
        #endif
        let status = pthread_create(&thread, &attributes, { context in
            SpinningWorker.threadMain(context)
            return nil
        }, context)
        pthread_attr_destroy(&attributes)
        precondition(status == 0, "WorkerPool: pthread_create failed (\(status))")
    }

    /// The worker thread's body: names the thread and runs the loop of the worker at `context`.
    private static func threadMain(_ context: UnsafeMutableRawPointer?) {
        #if canImport(Darwin)
        pthread_setname_np("vbg-kernels-worker")
        #else
        _ = setThreadName(pthread_self(), "vbg-kernels-worker")
        #endif
        Unmanaged<SpinningWorker>.fromOpaque(context!).takeRetainedValue().loop()
    }

    func run(_ pointer: UnsafeRawPointer, _ type: any PoolJob.Type, pool: WorkerPool) {
        job = pointer
        jobType = type
        jobPool = pool
        let ticket = epoch.add(1, ordering: .sequentiallyConsistent).newValue
        if parked.load(ordering: .sequentiallyConsistent) {
            condition.lock()
            condition.signal()
            condition.unlock()
        }
        type.run(pointer, part: 0, pool: pool)
        var spins = 0
        while done.load(ordering: .acquiring) != ticket {
            spins += 1
            if spins > SpinningWorker.spinsBeforeYielding { sched_yield() }
        }
        job = nil
        jobPool = nil
    }

    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        condition.lock()
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        var seen = 0
        while true {
            var spins = 0
            while epoch.load(ordering: .acquiring) == seen {
                if stopping.load(ordering: .relaxed) { return }
                spins += 1
                if spins > SpinningWorker.spinsBeforeYielding { sched_yield() }
                if spins >= SpinningWorker.spinsBeforeParking {
                    park(seen: seen)
                    spins = 0
                }
            }
            seen += 1
            jobType.run(job!, part: 1, pool: jobPool!)
            done.store(seen, ordering: .releasing)
        }
    }

    /// Sleeps until the epoch moves past `seen` or the pool stops. The submitter signals only
    /// when it sees `parked`; storing `parked` before re-reading the epoch (both sequentially
    /// consistent) means either the submitter sees `parked` or this thread sees the new epoch.
    private func park(seen: Int) {
        parked.store(true, ordering: .sequentiallyConsistent)
        condition.lock()
        while epoch.load(ordering: .sequentiallyConsistent) == seen
                && !stopping.load(ordering: .sequentiallyConsistent) {
            condition.wait()
        }
        condition.unlock()
        parked.store(false, ordering: .sequentiallyConsistent)
    }
}

#if !canImport(Darwin)
/// glibc's and musl's `pthread_setname_np`, which their Swift modules hide (it is declared only
/// under `_GNU_SOURCE`).
@_silgen_name("pthread_setname_np")
private func setThreadName(_ thread: pthread_t, _ name: UnsafePointer<CChar>) -> Int32
#endif

/// A POSIX mutex and condition variable at a fixed address (what `pthread_cond_wait` needs).
private final class ParkingCondition {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        mutex.initialize(to: pthread_mutex_t())
        condition.initialize(to: pthread_cond_t())
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    func signal() { pthread_cond_signal(condition) }
    /// Unlocks, sleeps until signalled (or spuriously woken), locks again.
    func wait() { pthread_cond_wait(condition, mutex) }
}

/// The job type a worker holds between jobs (never run).
private struct IdleJob: PoolJob {
    func run(part: Int, pool: WorkerPool) {}
}
#endif
