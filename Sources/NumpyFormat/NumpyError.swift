/// Why a `.npy` file could not be read or written.
///
/// The message says what was wrong and where (for example `header length 4096 runs past the end
/// of the file (120 bytes)`), so it can be shown to a user as is.
package struct NumpyError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A one-line explanation.
    package var message: String

    package init(_ message: String) { self.message = message }

    package var description: String { message }
}
