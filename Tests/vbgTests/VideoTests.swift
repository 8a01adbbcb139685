import Foundation
import Imaging
import Testing
import TestSupport
import Y4MFormat
@testable import vbg

/// Tiny synthetic streams (64x48) and the landscape model keep every test to a few seconds in a
/// debug build: the model's input is 256x144 whatever the frame size.
private let width = 64, height = 48

private func temporaryPath(_ name: String) -> String {
    NSTemporaryDirectory() + "vbg-video-tests-\(getpid())-\(UUID().uuidString)-\(name)"
}

/// Frame `index` of a synthetic stream: a light "person" block in the middle over a background
/// whose colour changes with the index, so every input frame differs from the others.
private func syntheticFrame(_ index: Int) -> Image {
    var image = Image(width: width, height: height)
    for y in 0..<height {
        for x in 0..<width {
            let person = (20..<44).contains(x) && (8..<48).contains(y)
            let i = 4 * (y * width + x)
            image.bytes[i] = person ? 220 : UInt8(truncatingIfNeeded: 30 + 37 * index)
            image.bytes[i + 1] = person ? 170 : UInt8(truncatingIfNeeded: 3 * x + 11 * index)
            image.bytes[i + 2] = person ? 140 : UInt8(truncatingIfNeeded: 5 * y)
        }
    }
    return image
}

private let streamHeader = Y4MHeader(width: width, height: height, frameRate: (30000, 1001), pixelAspect: (1, 1),
                                     chroma: .c420mpeg2, comments: ["COLORRANGE=LIMITED"])

/// The bytes of a stream of `count` synthetic frames.
private func streamBytes(frames count: Int) throws -> Data {
    let path = temporaryPath("in.y4m")
    defer { unlink(path) }
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    let writer = try Y4MWriter(fileDescriptor: fd, header: streamHeader)
    for index in 0..<count { try writer.write(syntheticFrame(index)) }
    close(fd)
    return try Data(contentsOf: URL(fileURLWithPath: path))
}

/// A stream file of `count` synthetic frames (the caller removes it).
private func writeStream(frames count: Int) throws -> String {
    let path = temporaryPath("in.y4m")
    try streamBytes(frames: count).write(to: URL(fileURLWithPath: path))
    return path
}

/// A stream file of `count` copies of synthetic frame 0 (the caller removes it).
private func writeStill(frames count: Int) throws -> String {
    let path = temporaryPath("still.y4m")
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    let writer = try Y4MWriter(fileDescriptor: fd, header: streamHeader)
    for _ in 0..<count { try writer.write(syntheticFrame(0)) }
    close(fd)
    return path
}

/// A decoded stream: its header and each frame's raw Y, U, V planes.
private struct DecodedStream {
    var header: Y4MHeader
    var frames: [[UInt8]]

    init(path: String) throws {
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let reader = try Y4MReader(fileDescriptor: fd)
        header = reader.header
        frames = []
        var planes: [UInt8] = []
        while try reader.readFrame(planes: &planes) { frames.append(planes) }
    }

    init(data: Data) throws {
        let path = temporaryPath("decode.y4m")
        defer { unlink(path) }
        try data.write(to: URL(fileURLWithPath: path))
        try self.init(path: path)
    }
}

@Suite("vbg video")
struct VideoTests {
    @Test("keeps the header and the frame count; every frame is composited (interval 1)")
    func keepsHeaderAndCount() throws {
        let input = try writeStream(frames: 3), output = temporaryPath("out.y4m")
        defer { unlink(input); unlink(output) }
        #expect(runMain(["video", "--input", input, "--output", output, "--blur", "5", "--model", "landscape"]) == 0)
        let decoded = try DecodedStream(path: output)
        #expect(decoded.header == streamHeader)
        #expect(decoded.frames.count == 3)
        let original = try DecodedStream(path: input)
        for index in 0..<3 {
            #expect(decoded.frames[index] != original.frames[index], "frame \(index) was not processed")
        }
        #expect(decoded.frames[0] != decoded.frames[1])
    }

    @Test("interval 3 with mask sync keeps the frame count; frames without inference repeat the previous processed frame")
    func maskSyncRepeats() throws {
        let input = try writeStream(frames: 5), output = temporaryPath("out.y4m")
        defer { unlink(input); unlink(output) }
        #expect(runMain(["video", "--input", input, "--output", output, "--blur", "7", "--model", "landscape",
                         "--interval", "3", "--mask-sync"]) == 0)
        let frames = try DecodedStream(path: output).frames
        #expect(frames.count == 5)
        // Inference on frames 0 and 3; 1, 2 repeat 0 and 4 repeats 3.
        #expect(frames[1] == frames[0] && frames[2] == frames[0])
        #expect(frames[3] != frames[0])
        #expect(frames[4] == frames[3])
    }

    @Test("a recurrent model described with its state (RVM) carries it: a still clip's frames change as the state does")
    func recurrentModelCarriesState() throws {
        let input = try writeStill(frames: 3), recurrent = temporaryPath("rvm.y4m"), plain = temporaryPath("plain.y4m")
        defer { unlink(input); unlink(recurrent); unlink(plain) }
        let model = Fixtures.url("rvm/model.onnx").path   // its model.onnx.json names the state, the ratio, the size
        #expect(runMain(["video", "--input", input, "--output", recurrent, "--blur", "5", "--model", model]) == 0)
        #expect(runMain(["video", "--input", input, "--output", plain, "--blur", "5", "--model", "landscape"]) == 0)
        let frames = try DecodedStream(path: recurrent).frames, control = try DecodedStream(path: plain).frames
        #expect(frames.count == 3 && control.count == 3)
        // The same frame three times: a model without state gives the same output each time.
        #expect(control[1] == control[0] && control[2] == control[0])
        #expect(frames[1] != frames[0] && frames[2] != frames[1], "the state fed back changes the alpha")
    }

    @Test("interval 3 without mask sync composites every frame with the latest mask")
    func intervalWithoutSync() throws {
        let input = try writeStream(frames: 4), output = temporaryPath("out.y4m")
        defer { unlink(input); unlink(output) }
        #expect(runMain(["video", "--input", input, "--output", output, "--blur", "7", "--model", "landscape",
                         "--interval", "3"]) == 0)
        let frames = try DecodedStream(path: output).frames
        #expect(frames.count == 4)
        // The input background changes every frame, so every composited frame differs.
        for index in 1..<4 { #expect(frames[index] != frames[index - 1]) }
    }

    @Test("a background picture replaces the background (cover-cropped) and keeps the count")
    func backgroundPicture() throws {
        let input = try writeStream(frames: 2), output = temporaryPath("out.y4m")
        defer { unlink(input); unlink(output) }
        let background = Fixtures.url("images/astronaut.png").path
        #expect(runMain(["video", "--input", input, "--output", output, "--background", background,
                         "--model", "landscape"]) == 0)
        let decoded = try DecodedStream(path: output)
        #expect(decoded.frames.count == 2)
        #expect(decoded.frames[0] != (try DecodedStream(path: input)).frames[0])
    }

    @Test("a stream that ends inside a frame: exit 1, and every complete frame before it is in the output")
    func truncatedStream() throws {
        var bytes = try streamBytes(frames: 3)
        bytes.removeLast(1000)   // frame 2 loses its last 1000 bytes
        let input = temporaryPath("cut.y4m"), output = temporaryPath("out.y4m")
        defer { unlink(input); unlink(output) }
        try bytes.write(to: URL(fileURLWithPath: input))
        #expect(runMain(["video", "--input", input, "--output", output, "--blur", "5", "--model", "landscape"]) == 1)
        let decoded = try DecodedStream(path: output)
        #expect(decoded.header == streamHeader)
        #expect(decoded.frames.count == 2)
    }

    @Test("a stream with a bad header or a bad FRAME line fails with exit 1", arguments: [
        ("not a stream at all\n", false),
        ("YUV4MPEG2 W64 Hx F30:1\n", false),
        ("YUV4MPEG2 W64 H48 F30:1 Ip C420jpeg\nFRAMEZ\n", true),
    ])
    func badStreams(text: String, createsOutput: Bool) throws {
        let input = temporaryPath("bad.y4m"), output = temporaryPath("out.y4m")
        defer { unlink(input); unlink(output) }
        try Data(text.utf8).write(to: URL(fileURLWithPath: input))
        #expect(runMain(["video", "--input", input, "--output", output, "--blur", "5", "--model", "landscape"]) == 1)
        // A bad header fails before anything is created; a bad frame leaves the frames before it (none).
        #expect(FileManager.default.fileExists(atPath: output) == createsOutput)
        if createsOutput { #expect(try DecodedStream(path: output).frames.isEmpty) }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
            .filter { $0.contains("vbg-partial") && $0.contains((output as NSString).lastPathComponent) }
        #expect(leftovers.isEmpty)
    }

    @Test("usage errors exit 2", arguments: [
        ["video", "--input", "a.y4m", "--output", "b.y4m"],                                        // no effect
        ["video", "--input", "a.y4m", "--output", "b.y4m", "--blur", "5", "--background", "x.png"], // both effects
        ["video", "--output", "b.y4m", "--blur", "5"],                                             // no input
        ["video", "--input", "a.y4m", "--blur", "5"],                                              // no output
        ["video", "--input", "a.y4m", "--output", "a.y4m", "--blur", "5"],                         // same file
        ["video", "--input", "a.y4m", "--output", "b.y4m", "--blur", "five"],
        ["video", "--input", "a.y4m", "--output", "b.y4m", "--blur", "5", "--interval", "0"],
        ["video", "--input", "a.y4m", "--output", "b.y4m", "--blur", "5", "--threads", "0"],
        ["video", "--input", "a.y4m", "--output", "b.y4m", "--blur", "5", "--speed", "2"],
    ])
    func usageErrors(words: [String]) {
        #expect(runMain(words) == 2)
    }

    @Test("a missing input, model or background exits 1 without creating the output", arguments: [
        ["--input", "/no/such.y4m", "--blur", "5"],
        ["--blur", "5", "--model", "/no/such.onnx"],
        ["--background", "/no/such.png"],
    ])
    func missingFiles(extra: [String]) throws {
        let input = try writeStream(frames: 1), output = temporaryPath("out.y4m")
        defer { unlink(input); unlink(output) }
        var words = ["video", "--output", output] + extra
        if !extra.contains("--input") { words += ["--input", input] }
        #expect(runMain(words) == 1)
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}

// MARK: - The binary, as a pipe stage

/// Runs the built `vbg` executable (a sibling of the test bundle in `.build/<configuration>/`).
private final class VBGProcess {
    let process = Process()
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()

    static var executable: URL? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("vbg")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        for configuration in ["debug", "release"] {
            let candidate = Fixtures.repositoryRoot.appendingPathComponent(".build/\(configuration)/vbg")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    init(_ arguments: [String]) throws {
        let executable = Self.executable
        try #require(executable != nil, "the vbg executable is built beside the tests")
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
    }

    /// Reads standard error to its end, then waits for the process to exit. In this order, a
    /// process that writes more than a pipe buffer to standard error (a sanitizer's report at
    /// exit) cannot block on a pipe nobody reads while the test waits for it to exit.
    func readErrorsUntilExit() -> String {
        let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return log
    }

    /// Reads standard output until `count` bytes arrived or it ends.
    func readOutput(atLeast count: Int) -> Data {
        collect(stdout) { $0.count >= count }
    }

    /// Reads from `pipe` until `done` holds for what arrived, the pipe ends, or a minute passes
    /// without data (then the process is killed, so a broken build fails instead of hanging).
    func collect(_ pipe: Pipe, until done: (Data) -> Bool) -> Data {
        var data = Data()
        let fd = pipe.fileHandleForReading.fileDescriptor
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while !done(data) {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 60_000) == 1 else {
                Issue.record("vbg produced nothing for a minute")
                process.terminate()
                break
            }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n <= 0 { break }
            data.append(contentsOf: buffer[0..<n])
        }
        return data
    }
}

@Suite("vbg video as a pipe stage")
struct VideoPipeTests {
    @Test("reads standard input and writes standard output: header and frame count kept")
    func pipeMode() throws {
        let bytes = try streamBytes(frames: 3)
        let vbg = try VBGProcess(["video", "--input", "-", "--output", "-", "--blur", "5", "--model", "landscape",
                                  "--interval", "2", "--mask-sync"])
        vbg.stdin.fileHandleForWriting.write(bytes)
        try vbg.stdin.fileHandleForWriting.close()
        let output = vbg.readOutput(atLeast: .max)
        let log = vbg.readErrorsUntilExit()
        #expect(vbg.process.terminationStatus == 0, "\(log)")
        let decoded = try DecodedStream(data: output)
        #expect(decoded.header == streamHeader)
        #expect(decoded.frames.count == 3)
        #expect(decoded.frames[1] == decoded.frames[0])
        #expect(log.contains("3 of 3 frames written"), "\(log)")
    }

    @Test("Ctrl-C while waiting for input: the frames so far, a valid stream, exit 130")
    func interruptWhileReadingPipe() throws {
        let bytes = try streamBytes(frames: 2)
        let vbg = try VBGProcess(["video", "--input", "-", "--output", "-", "--blur", "5", "--model", "landscape"])
        vbg.stdin.fileHandleForWriting.write(bytes)   // the pipe stays open: vbg waits for frame 3
        let frameBytes = streamHeader.frameByteCount + 6
        var output = vbg.readOutput(atLeast: streamHeader.line.utf8.count + 2 * frameBytes)
        #expect(output.count == streamHeader.line.utf8.count + 2 * frameBytes)
        vbg.process.interrupt()
        output.append(vbg.readOutput(atLeast: .max))
        let log = vbg.readErrorsUntilExit()
        try vbg.stdin.fileHandleForWriting.close()
        #expect(vbg.process.terminationReason == .exit)
        #expect(vbg.process.terminationStatus == 130, "\(log)")
        #expect(log.contains("interrupted"), "\(log)")
        let decoded = try DecodedStream(data: output)
        #expect(decoded.frames.count == 2)
    }

    @Test("Ctrl-C while processing a file: the frame in hand is finished, the output file is a valid stream, exit 130")
    func interruptWhileProcessing() throws {
        let total = 400
        let input = try writeStream(frames: total), output = temporaryPath("out.y4m")
        defer { unlink(input); unlink(output) }
        let vbg = try VBGProcess(["video", "--input", input, "--output", output, "--blur", "5", "--model", "landscape"])
        // The first progress line comes after a second of work (standard error is not a terminal).
        let log = vbg.collect(vbg.stderr) { String(decoding: $0, as: UTF8.self).contains("fps") }
        vbg.process.interrupt()
        let text = String(decoding: log, as: UTF8.self) + vbg.readErrorsUntilExit()
        #expect(vbg.process.terminationStatus == 130, "\(text)")
        let decoded = try DecodedStream(path: output)
        #expect(decoded.header == streamHeader)
        #expect(decoded.frames.count >= 1 && decoded.frames.count < total)
        #expect(text.contains("\(decoded.frames.count) of \(decoded.frames.count) frames written"), "\(text)")
    }
}
