import Foundation
#if canImport(Synchronization)
import Synchronization
#endif

/// Ctrl-C for commands that stream: the first SIGINT only raises a flag, which the command polls
/// between frames, so it finishes the frame in hand and closes its output as a valid stream; the
/// handler then restores the default action, so a second Ctrl-C ends the process at once.
///
/// The handler does nothing but an atomic store and `signal(2)`, both async-signal-safe. Where
/// `Synchronization.Atomic` is unavailable (before macOS 15 / iOS 18) no handler is installed and
/// Ctrl-C keeps its default action.
enum Interruption {
    /// Installs the SIGINT handler (idempotent) and clears the flag.
    static func install() {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            InterruptFlag.raised.store(false, ordering: .relaxed)
            signal(SIGINT) { _ in
                InterruptFlag.raised.store(true, ordering: .relaxed)
                signal(SIGINT, SIG_DFL)
            }
        }
    }

    /// Restores the default SIGINT action.
    static func uninstall() {
        signal(SIGINT, SIG_DFL)
    }

    /// Whether SIGINT arrived since ``install()``.
    static var isRequested: Bool {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            return InterruptFlag.raised.load(ordering: .relaxed)
        }
        return false
    }
}

@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
private enum InterruptFlag {
    /// Initialised by ``Interruption/install()`` before the handler exists, so the handler never
    /// runs the lazy initialiser.
    static let raised = Atomic<Bool>(false)
}
