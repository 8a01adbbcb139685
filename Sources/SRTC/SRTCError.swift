import Foundation

/// Errors thrown by the audio and video layer.
public enum SRTCError: Error, Sendable, Equatable {
    /// The virtual background component is already installed; the call was discarded and nothing changed.
    case virtualBackgroundAlreadyInstalled
    /// The model file does not exist at the given path; check `modelPath`.
    case virtualBackgroundModelNotFound(String)
    /// The inference session could not be created (the message says why: unreadable or unsupported
    /// model, …); the component stays uninstalled.
    case virtualBackgroundSessionFailed(String)
    /// The virtual background was switched on or off before the component was installed.
    case virtualBackgroundNotInstalled
}

extension SRTCError: LocalizedError {
    /// A sentence for logs and alerts (what `error.localizedDescription` prints).
    public var errorDescription: String? {
        switch self {
        case .virtualBackgroundAlreadyInstalled:
            "The virtual background component is already installed; this call was discarded."
        case .virtualBackgroundModelNotFound(let path):
            "The virtual background model file does not exist: \(path). Check modelPath."
        case .virtualBackgroundSessionFailed(let message):
            "Failed to create the virtual background inference session: \(message)"
        case .virtualBackgroundNotInstalled:
            "The virtual background component is not installed; call installVirtualBackground() first."
        }
    }
}

extension SRTCError: CustomStringConvertible {
    public var description: String { errorDescription ?? "SRTCError" }
}
