// Reading model files: the only part of InferenceModel that needs the operating system, through
// the C library's stdio (no Foundation). Where there is no C library module (Embedded Swift for a
// bare target) models come as bytes, `init(bytes:)`.
#if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension InferenceModel {
    /// Reads and validates an ONNX file.
    ///
    /// - Throws: `ModelError` with kind `.fileNotFound(path:)` when nothing is at `path`,
    ///   `.unreadable` when it cannot be read, otherwise as `init(bytes:)`.
    package convenience init(contentsOfFile path: String, inputShapes: [String: [Int]] = [:],
                             planTimeInputs: [String: Tensor] = [:], planTimeStrings: [String: StringTensor] = [:]) throws(ModelError) {
        try self.init(bytes: try Self.readFile(path), inputShapes: inputShapes, planTimeInputs: planTimeInputs,
                      planTimeStrings: planTimeStrings)
    }

    /// The file's bytes, or a `fileNotFound` / `unreadable` error naming the path.
    ///
    /// As `FileManager.fileExists` did before: a path `stat` cannot follow is not found; a
    /// directory (which `fopen` opens on Linux and Darwin, and `fread` then fails on) is
    /// unreadable, said so.
    package static func readFile(_ path: String) throws(ModelError) -> [UInt8] {
        var status = stat()
        guard stat(path, &status) == 0 else { throw ModelError(.fileNotFound(path: path), "no such file") }
        guard status.st_mode & S_IFMT != S_IFDIR else { throw ModelError(.unreadable(path: path), "it is a directory") }
        guard let file = fopen(path, "rb") else {
            throw ModelError(.unreadable(path: path), "permission denied or I/O error")
        }
        defer { fclose(file) }
        // The size stat reports, plus one byte so that a file read whole reaches end-of-file in
        // the first fread; files whose size stat does not know (0 under /proc) grow as they read.
        var bytes = [UInt8](repeating: 0, count: max(Int(status.st_size), 0) + 1)
        var count = 0
        while true {
            if count == bytes.count { bytes.append(contentsOf: repeatElement(0, count: max(bytes.count, 1 << 16))) }
            let wanted = bytes.count - count
            let read = bytes.withUnsafeMutableBytes { fread($0.baseAddress! + count, 1, wanted, file) }
            count += read
            if read < wanted {
                guard ferror(file) == 0 else { throw ModelError(.unreadable(path: path), "permission denied or I/O error") }
                break
            }
        }
        bytes.removeSubrange(count...)
        return bytes
    }
}
#endif
