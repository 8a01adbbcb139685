import Foundation
import Imaging
import SRTC
import Y4MFormat

/// `vbg video`: a YUV4MPEG2 stream through the SDK's virtual background, frame by frame.
let videoCommand = Command(
    name: "video",
    summary: "blur or replace the background of a .y4m video stream (files or pipes)",
    usage: """
        usage: vbg video --input IN.y4m|- --output OUT.y4m|- (--blur 1-10 | --background BG.png)
                         [--interval N] [--mask-sync] [--model auto|general|landscape|PATH] [--threads N]

        Streams every frame through the SDK's virtual background (a custom video track with the
        engine's processor attached: the same frame policy, model, blur and compositing as the
        camera pipeline). Size, frame rate, pixel aspect and chroma layout come from the input
        header and are kept; so is the frame count: with --interval N segmentation runs every N
        frames and the frames between are composited with the latest mask, or, with --mask-sync,
        repeat the previous processed frame. A frame the SDK drops (it never sends the raw frame)
        is replaced by the previous processed frame (none is written before the first one).

          -            standard input / standard output, so it sits between two ffmpeg processes
                       (any source: converted to 8-bit 4:2:0, the audio taken from the source):
                       ffmpeg -i in.mp4 -map 0:v:0 -pix_fmt yuv420p -f yuv4mpegpipe - \\
                         | vbg video --input - --output - --blur 5 \\
                         | ffmpeg -f yuv4mpegpipe -i - -i in.mp4 -map 0:v -map '1:a?' -c:v libx264 \\
                             -pix_fmt yuv420p -c:a aac out.mp4
          --blur       background blur level, 1 light … 10 strong (any other value is a usage error)
          --background background picture (PNG), cover-cropped to the frame, never stretched
          --interval   run segmentation every N frames (default 1)
          --mask-sync  frames without segmentation repeat the previous processed frame
          --model      auto (default: the built-in model that fits the frame, landscape when it is
                       wider than 4:3, general otherwise), general, landscape, or an ONNX file
                       (a recurrent one carries its state from frame to frame)
          --threads    inference worker threads (default 1)

        Progress goes to standard error (redrawn in a terminal, a line a second otherwise), then a
        summary. Ctrl-C finishes the frame in hand and closes the output as a valid stream (exit
        130); a second Ctrl-C stops at once. A stream that is malformed or ends inside a frame
        stops with an error (exit 1); every complete frame before it is in the output. An output
        file has no name until the end (Linux O_TMPFILE: nothing is left even after SIGKILL; a hidden
        file beside it elsewhere), then it replaces the destination in one step.
        """,
    flags: ["mask-sync"],
    run: { arguments in try runVideo(&arguments) })

private func runVideo(_ arguments: inout Arguments) throws {
    let (inputPath, outputPath, options) = try videoArguments(&arguments)

    // Nothing is created until the input header has been read and the model installed.
    let input = try VideoInput(path: inputPath)
    defer { input.close() }
    let reader: Y4MReader
    do { reader = try Y4MReader(fileDescriptor: input.fd) } catch { throw CLIError.input("\(input.name): \(error)") }
    let header = reader.header
    let track = try VirtualBackgroundTrack(options: options, width: header.width, height: header.height)
    let output = try VideoOutput(path: outputPath)
    let writer: Y4MWriter
    do { writer = try Y4MWriter(fileDescriptor: output.fd, header: header) } catch {
        output.abandon()
        throw CLIError.input("\(output.name): \(error)")
    }

    let previousSIGPIPE = signal(SIGPIPE, SIG_IGN)   // a closed pipe downstream is a write error, not a silent death
    defer { signal(SIGPIPE, previousSIGPIPE) }
    let interruption = Interruption.install(releasingStandardInput: inputPath == "-")
    defer { interruption.restore() }
    var progress = ProgressLine(label: "vbg video")
    var stream = try streamFrames(reader: reader, track: track, writer: writer, output: output, progress: &progress)
    progress.finish()
    // Ctrl-C while reading standard input ends the stream (see Interruption), possibly inside a
    // frame or its FRAME line: that frame was never in hand, so this is an interruption, not a bad stream.
    let interrupted = Interruption.isRequested
    if interrupted, inputPath == "-" { stream.error = nil }
    do { try output.finish() } catch {
        throw CLIError.input("\(output.name): \(error)")
    }

    printError(summary(track.diagnostics, header: header, effect: options.effect, framesWritten: writer.framesWritten,
                       framesRead: stream.framesRead, dropped: stream.dropped, seconds: progress.elapsed))
    if let error = stream.error {
        throw CLIError.input("\(input.name): \(error); the \(writer.framesWritten) frames before it are in \(output.name)")
    }
    if interrupted {
        throw CLIError.interrupted("interrupted; the \(writer.framesWritten) frames processed so far are in \(output.name)")
    }
}

/// The input and output paths and the track's options, every argument checked before anything is opened.
private func videoArguments(_ arguments: inout Arguments) throws -> (input: String, output: String, VirtualBackgroundOptions) {
    guard let inputPath = try arguments.value("input") else { throw CLIError.usage("--input is required (a .y4m file or - for standard input)") }
    guard let outputPath = try arguments.value("output") else { throw CLIError.usage("--output is required (a .y4m file or - for standard output)") }
    let blurText = try arguments.value("blur")
    let backgroundPath = try arguments.value("background")
    var options = VirtualBackgroundOptions()
    options.inferenceInterval = try arguments.integer("interval", default: 1, in: 1...1000)
    options.maskSync = try arguments.flag("mask-sync")
    options.modelPath = ModelArgument.modelPath(for: try arguments.value("model") ?? "auto")
    options.threads = try arguments.integer("threads", default: 1, in: 1...64)
    _ = try arguments.positionals()
    try arguments.finish()

    switch (blurText, backgroundPath) {
    case (nil, nil): throw CLIError.usage("choose an effect: --blur 1-10 or --background BG.png")
    case (_?, _?): throw CLIError.usage("--blur and --background exclude each other")
    case (let text?, nil):
        guard let level = Int(text) else { throw CLIError.usage("--blur must be a whole number (got '\(text)')") }
        guard BlurStrength.levels.contains(level) else {
            throw CLIError.usage("--blur must be between 1 and 10 (got \(level))")
        }
        options.effect = .blur(level: level)
    case (nil, let path?):
        options.effect = .image(try ImageFiles.read(path), path: path)
    }
    if inputPath != "-", inputPath == outputPath {
        throw CLIError.usage("--input and --output are the same file")
    }
    try OutputFile.check(outputPath)
    try OutputFile.checkFormat(outputPath, of: "--output", format: "YUV4MPEG2", extensions: ["y4m"], standardOutput: true,
                               hint: "; for another format pipe it into ffmpeg (vbg help video)")
    return (inputPath, outputPath, options)
}

/// How the frame loop ended: frames read, frames the track dropped, and the input stream's error.
private struct StreamOutcome {
    var framesRead = 0, dropped = 0
    var error: Y4MError?
}

/// Reads, processes and writes frames until the input ends, fails or Ctrl-C; a dropped frame
/// writes the last processed one again (never the raw frame).
///
/// - Throws: `CLIError.input` when writing fails (the output is abandoned).
private func streamFrames(reader: Y4MReader, track: VirtualBackgroundTrack, writer: Y4MWriter, output: VideoOutput,
                          progress: inout ProgressLine) throws -> StreamOutcome {
    let header = reader.header
    let nanosecondsPerFrame = 1_000_000_000.0 * Double(header.frameRate.denominator) / Double(header.frameRate.numerator)
    var outcome = StreamOutcome()
    var lastOutput: SRTCVideoFrame?
    while !Interruption.isRequested {
        let pushed: (frame: SRTCVideoFrame?, ended: Bool)
        do {
            pushed = try track.push(timestamp: UInt64(Double(outcome.framesRead) * nanosecondsPerFrame)) { image throws(Y4MError) in
                try reader.readFrame(into: &image)
            }
        } catch let error as Y4MError {
            outcome.error = error
            break
        }
        if pushed.ended { break }
        outcome.framesRead += 1
        if let frame = pushed.frame {
            lastOutput = frame
        } else {
            outcome.dropped += 1
        }
        if let frame = lastOutput {
            do { try writer.write(frame.image) } catch {
                progress.finish()
                output.abandon()
                throw CLIError.input("\(output.name): \(error)")
            }
        }
        progress.update(frames: outcome.framesRead, dropped: outcome.dropped)
    }
    return outcome
}

/// The closing line: frames, rate, effect, inferences and the mean time of each stage.
private func summary(_ d: SRTCVirtualBackgroundDiagnostics, header: Y4MHeader, effect: VirtualBackgroundOptions.Effect,
                     framesWritten: Int, framesRead: Int, dropped: Int, seconds: Double) -> String {
    let effectText: String
    switch effect {
    case .blur(let level): effectText = "blur \(level)"
    case .image(_, let path): effectText = "background \((path as NSString).lastPathComponent)"
    }
    return "vbg video: \(framesWritten) of \(framesRead) frames written (\(header.width)x\(header.height), "
        + "F\(header.frameRate.numerator):\(header.frameRate.denominator), \(effectText)) in \(String(format: "%.2f", seconds)) s, "
        + "\(String(format: "%.1f", Double(framesRead) / max(seconds, 1e-9))) fps; \(d.inferenceCount) inferences, "
        + "\(d.framesComposited) composited, \(d.framesRepeated) repeated (mask sync), \(dropped) dropped; mean ms per "
        + "segmentation \(milliseconds(d.segmentation.meanNanoseconds)), compositing \(milliseconds(d.compositing.meanNanoseconds)), "
        + "frame \(milliseconds(d.total.meanNanoseconds))"
}

private func milliseconds(_ nanoseconds: Int64) -> String { String(format: "%.1f", Double(nanoseconds) / 1e6) }

/// `--input`: a file, or `-` for standard input.
private struct VideoInput {
    let fd: Int32
    let name: String
    private let owned: Bool

    init(path: String) throws {
        if path == "-" {
            (fd, name, owned) = (0, "standard input", false)
            return
        }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw CLIError.input("cannot open \(path): \(String(cString: strerror(errno)))") }
        var status = stat()
        if fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            _ = Foundation.close(fd)
            throw CLIError.input("\(path): it is a directory")
        }
        (self.fd, name, owned) = (fd, path, true)
    }

    func close() { if owned { _ = Foundation.close(fd) } }
}

/// `--output`: a file, written beside its destination and put in place by ``finish()``, or `-`
/// for standard output.
///
/// Where the filesystem allows (Linux `O_TMPFILE`: ext4, xfs, btrfs, tmpfs), the file has no name
/// until ``finish()`` links it, so even SIGKILL leaves nothing behind. Elsewhere it is a hidden
/// `.<name>.vbg-partial-<pid>` beside the destination, removed on every exit vbg sees.
private final class VideoOutput {
    let fd: Int32
    let name: String
    private let path: String?
    /// The named temporary file, or for an unnamed one the name it is linked under before the rename.
    private let temporary: String?
    private let isUnnamed: Bool

    init(path: String) throws {
        if path == "-" {
            (fd, name, self.path, temporary, isUnnamed) = (1, "standard output", nil, nil, false)
            return
        }
        if OutputFile.isSpecial(path) {  // /dev/null, a FIFO: write in place, never rename over it
            let fd = open(path, O_WRONLY)
            guard fd >= 0 else { throw CLIError.input("cannot write \(path): \(String(cString: strerror(errno)))") }
            (self.fd, name, self.path, temporary, isUnnamed) = (fd, path, nil, nil, false)
            return
        }
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = (directory.isEmpty ? "" : directory + "/") + ".\((path as NSString).lastPathComponent).vbg-partial-\(getpid())"
        if let fd = Self.openUnnamed(in: directory.isEmpty ? "." : directory) {
            (self.fd, name, self.path, self.temporary, isUnnamed) = (fd, path, path, temporary, true)
            return
        }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw CLIError.input("cannot write \(path): \(String(cString: strerror(errno)))") }
        (self.fd, name, self.path, self.temporary, isUnnamed) = (fd, path, path, temporary, false)
    }

    /// An unnamed file in `directory` (`O_TMPFILE`), or nil where the system or filesystem has none.
    private static func openUnnamed(in directory: String) -> Int32? {
        #if os(Linux) && (arch(x86_64) || arch(arm64))
        let temporaryFile: Int32 = 0o20_000_000 | O_DIRECTORY   // Linux's O_TMPFILE on these architectures
        let fd = open(directory, temporaryFile | O_WRONLY, 0o644)
        return fd >= 0 ? fd : nil
        #else
        return nil
        #endif
    }

    /// Closes the stream; a file is put in place (an unnamed one linked under the temporary name
    /// first, so that the rename replaces an existing file in one step).
    func finish() throws {
        guard let path, let temporary else { return }
        var linked = true
        if isUnnamed {
            linked = linkat(AT_FDCWD, "/proc/self/fd/\(fd)", AT_FDCWD, temporary, AT_SYMLINK_FOLLOW) == 0
        }
        guard linked, Foundation.close(fd) == 0, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            if !linked { _ = Foundation.close(fd) }
            unlink(temporary)
            throw CLIError.input("cannot write \(path): \(reason)")
        }
    }

    /// Closes and removes a file that cannot be completed (an unnamed one vanishes on close).
    func abandon() {
        guard let temporary else { return }
        _ = Foundation.close(fd)
        if !isUnnamed { unlink(temporary) }
    }
}
