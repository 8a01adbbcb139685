import Foundation

/// Runs the built `vbg` binary as a subprocess.
///
/// Where the binary is: `swift test` builds every product into the same directory as the test
/// bundle (`.build/<triple>/debug/`, or `release/` with `-c release`), and this target depends
/// on `vbg`, so it is always built first. The test runner's own executable (`/proc/self/exe` on
/// Linux, `Bundle.main.executablePath` elsewhere) lives in that directory, or inside
/// `<name>.xctest/Contents/MacOS/` on macOS, so we walk up from it until a `vbg` is beside us.
/// `VBG_BINARY` overrides the search (e.g. to test an installed or release build).
enum VBG {
    static let binary: String = {
        if let explicit = ProcessInfo.processInfo.environment["VBG_BINARY"] { return explicit }
        #if os(Linux)
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        #else
        let me = Bundle.main.executablePath ?? CommandLine.arguments[0]
        #endif
        var directory = URL(fileURLWithPath: me).deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = directory.appendingPathComponent("vbg").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        fatalError("vbg binary not found beside \(me); build it or set VBG_BINARY")
    }()

    struct Result {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// Runs `vbg arguments...` (the binary at `path`) in `directory` with a time limit (a hang is a failure, not a stuck suite).
    static func run(path: String = binary, _ arguments: [String], in directory: URL, timeout: TimeInterval = 60) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Drain both pipes while it runs so a chatty failure cannot block on a full pipe.
        nonisolated(unsafe) var outData = Data(), errData = Data()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { outData = output.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { errData = error.fileHandleForReading.readDataToEndOfFile() }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            return Result(status: -1, standardOutput: "", standardError: "timed out after \(timeout) s")
        }
        process.waitUntilExit()
        group.wait()
        return Result(status: process.terminationStatus,
                      standardOutput: String(decoding: outData, as: UTF8.self),
                      standardError: String(decoding: errData, as: UTF8.self))
    }
}

/// A scratch directory for one CLI row: `inputs/` holds what the row feeds vbg, `outputs/` is where
/// it is asked to write, so "nothing left behind" is "outputs/ is empty" (temporary files included).
struct Scratch {
    let root: URL
    var inputs: URL { root.appendingPathComponent("inputs") }
    var outputs: URL { root.appendingPathComponent("outputs") }

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("vbg-robustness-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("inputs"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("outputs"), withIntermediateDirectories: true)
    }

    func input(_ name: String, _ bytes: [UInt8]) throws -> String {
        let url = inputs.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    func output(_ name: String) -> String { outputs.appendingPathComponent(name).path }

    /// Everything under outputs/, hidden files included.
    func leftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: outputs.path).sorted()
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
}
