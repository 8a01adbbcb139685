import Foundation
#if canImport(Synchronization)
import Synchronization
#endif

/// Ctrl-C for commands that stream: the first SIGINT only raises a flag, which the command polls
/// between frames, so it finishes the frame in hand and closes its output as a valid stream; the
/// handler then restores the default action, so a second Ctrl-C ends the process at once.
///
/// A command reading standard input may be blocked in `read` when Ctrl-C comes (a pipe whose
/// writer is idle). For it the handler also puts `/dev/null` on descriptor 0 (`dup2`): the
/// interrupted `read` is restarted on the new file and sees the end of the stream, so the command
/// ends after the frames it has. The handler does only async-signal-safe work: atomic loads and
/// stores, `dup2`, `signal`. Where `Synchronization.Atomic` is unavailable (before macOS 15 /
/// iOS 18) no handler is installed and Ctrl-C keeps its default action.
enum Interruption {
    /// What ``install(releasingStandardInput:)`` replaced, for ``restore()``.
    struct Scope {
        fileprivate let installed: Bool
        fileprivate let previousHandler: (@convention(c) (Int32) -> Void)?
        fileprivate let previousMask: sigset_t

        /// Puts back the SIGINT action and signal mask that were in place before (a process that
        /// runs commands in-process, like the tests, keeps its own handling).
        func restore() {
            guard installed else { return }
            signal(SIGINT, previousHandler)
            var mask = previousMask
            pthread_sigmask(SIG_SETMASK, &mask, nil)
            if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
                let null = InterruptFlag.nullDescriptor.exchange(-1, ordering: .sequentiallyConsistent)
                if null >= 0 { close(null) }
            }
        }
    }

    /// Installs the SIGINT handler and clears the flag.
    ///
    /// - Parameter releasingStandardInput: end a blocked read of standard input on Ctrl-C.
    /// - Returns: what to call ``Scope/restore()`` on when the command is done.
    static func install(releasingStandardInput: Bool) -> Scope {
        var previousMask = sigset_t()
        pthread_sigmask(SIG_SETMASK, nil, &previousMask)
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else {
            return Scope(installed: false, previousHandler: nil, previousMask: previousMask)
        }
        InterruptFlag.raised.store(false, ordering: .sequentiallyConsistent)
        let null = releasingStandardInput ? open("/dev/null", O_RDONLY) : -1
        let previous = InterruptFlag.nullDescriptor.exchange(null, ordering: .sequentiallyConsistent)
        if previous >= 0 { close(previous) }
        let previousHandler = signal(SIGINT) { _ in
            InterruptFlag.raised.store(true, ordering: .sequentiallyConsistent)
            let null = InterruptFlag.nullDescriptor.load(ordering: .sequentiallyConsistent)
            if null >= 0 { dup2(null, 0) }
            signal(SIGINT, SIG_DFL)
        }
        // A parent may have started us with SIGINT blocked (the mask is inherited; Foundation's
        // `Process` does so from a thread that blocks it): unblock it on this, the streaming, thread.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        return Scope(installed: true, previousHandler: previousHandler, previousMask: previousMask)
    }

    /// Whether SIGINT arrived since ``install(releasingStandardInput:)``.
    static var isRequested: Bool {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            return InterruptFlag.raised.load(ordering: .sequentiallyConsistent)
        }
        return false
    }
}

@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
private enum InterruptFlag {
    // Both are first touched by `Interruption.install` before the handler exists, so the handler
    // never runs a lazy initialiser.
    static let raised = Atomic<Bool>(false)
    /// An open `/dev/null` to put on standard input, or -1.
    static let nullDescriptor = Atomic<Int32>(-1)
}
