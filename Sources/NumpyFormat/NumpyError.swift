/// Why a `.npy` file could not be read or written.
///
/// The message says what was wrong and where (for example `header length 4096 runs past the end
/// of the file (120 bytes)`), so it can be shown to a user as is.
public struct NumpyError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A one-line explanation.
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
