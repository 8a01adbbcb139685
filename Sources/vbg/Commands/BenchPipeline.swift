import Foundation
import Imaging
import PNGCodec

/// `vbg bench --pipeline`: whole frames through the SDK pipeline `vbg video` uses (a custom video
/// track with the virtual background processor: preprocessing, inference, mask upsampling,
/// smoothing, blur level 5 or cover-cropped replacement, compositing into a pooled buffer).
///
/// For every combination of size × effect × inference interval × threads a fresh track is set up
/// (model installed, effect set, switched on), `--warmup` frames are pushed untimed, then
/// `--frames` frames are timed one by one (wall clock, `DispatchTime`). The frame is the
/// `--image` picture cover-cropped to the size; it is copied into the track's input buffers once,
/// so the timings are the pipeline alone, not frame capture. One line per combination with the
/// median, 10th and 90th percentile and mean ms per frame (wall clock), and the median process CPU
/// time per frame (`cpu`: every thread of the process, leaving out waits for a core on a busy
/// machine); `--json` prints one JSON object per line.
/// With an interval above 1 the per-frame times are bimodal (frames with and without inference):
/// the mean is the throughput figure.
func runPipelineBench(_ arguments: inout Arguments) throws {
    _ = try arguments.flag("pipeline")
    let json = try arguments.flag("json")
    let frames = try arguments.integer("frames", default: 30, in: 3...100_000)
    let warmup = try arguments.integer("warmup", default: 6, in: 0...10_000)
    let sizes = try parseList(try arguments.value("sizes") ?? "1280x720,1920x1080", "sizes") { item -> (Int, Int)? in
        let parts = item.split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, (16...8192).contains(parts[0]), (16...8192).contains(parts[1]) else { return nil }
        return (parts[0], parts[1])
    }
    let intervals = try parseList(try arguments.value("intervals") ?? "1,3", "intervals") { Int($0).flatMap { (1...100).contains($0) ? $0 : nil } }
    let threadCounts = try parseList(try arguments.value("threads") ?? "1,2", "threads") { Int($0).flatMap { (1...64).contains($0) ? $0 : nil } }
    let effects = try parseList(try arguments.value("effects") ?? "blur,replace", "effects") { ["blur", "replace"].contains($0) ? $0 : nil }
    let level = try arguments.integer("level", default: 5, in: 1...10)
    let modelArgument = try arguments.value("model") ?? "general"
    let imageArgument = try arguments.value("image")
    let backgroundArgument = try arguments.value("background")
    try arguments.finish()

    let (picture, imagePath) = try BenchPicture.frame(imageArgument)
    let (background, backgroundPath) = effects.contains("replace") ? try BenchPicture.background(backgroundArgument) : (nil, nil)
    if !json {
        let backgroundText = backgroundPath.map { ", background \($0)" } ?? ""
        print("pipeline: \(modelArgument) model, frame \(imagePath)\(backgroundText), \(frames) timed frames after \(warmup) warm-up; ms per frame")
    }
    for (width, height) in sizes {
        let frame = CoverCrop.fit(picture, width: width, height: height, format: .rgba8)
        for effect in effects {
            for interval in intervals {
                for threads in threadCounts {
                    var options = VirtualBackgroundOptions()
                    options.effect = effect == "blur" ? .blur(level: level) : .image(background!, path: backgroundPath!)
                    options.inferenceInterval = interval
                    options.modelPath = ModelArgument.modelPath(for: modelArgument)
                    options.threads = threads
                    let track = try VirtualBackgroundTrack(options: options, width: width, height: height)
                    var filled = 0
                    func push() throws -> Bool {
                        let result = try track.push(timestamp: 0) { image in
                            // The pool rotates over its three buffers: after three fills each holds the frame.
                            if filled < 3 { image.bytes = frame.bytes; filled += 1 }
                            return true
                        }
                        return result.frame != nil
                    }
                    for _ in 0..<warmup { _ = try push() }
                    let before = track.diagnostics
                    var times: [Double] = [], cpuTimes: [Double] = []
                    times.reserveCapacity(frames)
                    cpuTimes.reserveCapacity(frames)
                    for _ in 0..<frames {
                        let cpuStart = processCPUNanoseconds()
                        let start = DispatchTime.now().uptimeNanoseconds
                        guard try push() else { throw CLIError.input("the pipeline dropped a frame (\(track.diagnostics))") }
                        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                        cpuTimes.append(Double(processCPUNanoseconds() - cpuStart) / 1e6)
                    }
                    let inferences = track.diagnostics.inferenceCount - before.inferenceCount
                    let sorted = times.sorted()
                    let median = sorted[sorted.count / 2], p10 = sorted[sorted.count / 10]
                    let p90 = sorted[min(sorted.count - 1, sorted.count * 9 / 10)]
                    let mean = times.reduce(0, +) / Double(times.count)
                    let cpuMedian = cpuTimes.sorted()[cpuTimes.count / 2]
                    let effectText = effect == "blur" ? "blur \(level)" : "replace"
                    if json {
                        print("{\"bench\": \"pipeline\", \"width\": \(width), \"height\": \(height), \"effect\": \"\(effect)\", "
                              + "\"level\": \(effect == "blur" ? String(level) : "null"), \"interval\": \(interval), \"threads\": \(threads), "
                              + "\"model\": \"\(modelArgument)\", \"image\": \"\(imagePath)\", \"frames\": \(frames), \"inferences\": \(inferences), "
                              + String(format: "\"median_ms\": %.3f, \"p10_ms\": %.3f, \"p90_ms\": %.3f, \"mean_ms\": %.3f, \"cpu_median_ms\": %.3f}", median, p10, p90, mean, cpuMedian))
                    } else {
                        print(String(format: "%5dx%-5d %-8@ interval %d  threads %d   median %8.2f  p10 %8.2f  p90 %8.2f  mean %8.2f  cpu %8.2f  (%d inferences)",
                                     width, height, effectText, interval, threads, median, p10, p90, mean, cpuMedian, inferences))
                    }
                    fflush(nil)
                }
            }
        }
    }
}

/// The pictures of `vbg bench --pipeline`: `--image` / `--background` when given; else the
/// repository's (the figures in Docs/Performance.md) when run from its root; else pictures drawn
/// here, so an installed vbg runs anywhere. The name printed (and in the JSON) says which.
private enum BenchPicture {
    static let repositoryFrame = "Fixtures/images/astronaut_on_coffee_1280x720.png"
    static let repositoryBackground = "Fixtures/backgrounds/rocket.png"

    static func frame(_ path: String?) throws -> (Image, String) {
        if let path { return (try ImageFiles.read(path), path) }
        if FileManager.default.fileExists(atPath: repositoryFrame) { return (try ImageFiles.read(repositoryFrame), repositoryFrame) }
        return (drawn(width: 1280, height: 720, person: true), "synthetic")
    }

    static func background(_ path: String?) throws -> (Image, String) {
        if let path { return (try ImageFiles.read(path), path) }
        if FileManager.default.fileExists(atPath: repositoryBackground) {
            return (try ImageFiles.read(repositoryBackground), repositoryBackground)
        }
        #if canImport(UIKit) || canImport(AppKit)
        // The SDK takes a native image there, which vbg loads from the file.
        throw CLIError.usage("--background PNG is needed outside the repository on this platform")
        #else
        return (drawn(width: 1280, height: 720, person: false), "synthetic")
        #endif
    }

    /// An opaque RGBA picture: a colour gradient, and with `person` a head-and-shoulders shape
    /// (an ellipse over a wider one, skin and cloth colours) in the middle.
    static func drawn(width: Int, height: Int, person: Bool) -> Image {
        var bytes = [UInt8](repeating: 255, count: 4 * width * height)
        let centre = Double(width) / 2, unit = Double(height)
        for y in 0..<height {
            for x in 0..<width {
                let i = 4 * (y * width + x)
                var rgb = (80 + 120 * x / width, 60 + 100 * y / height, 170 - 90 * x / width)
                if person {
                    let dx = (Double(x) - centre) / unit, fy = Double(y) / unit
                    let hx = dx / 0.13, hy = (fy - 0.38) / 0.17, bx = dx / 0.33, by = (fy - 1.0) / 0.38
                    if hx * hx + hy * hy <= 1 { rgb = (224, 172, 140) } else if bx * bx + by * by <= 1 { rgb = (40, 60, 110) }
                }
                bytes[i] = UInt8(rgb.0); bytes[i + 1] = UInt8(rgb.1); bytes[i + 2] = UInt8(rgb.2)
            }
        }
        return Image(width: width, height: height, format: .rgba8, bytes: bytes)
    }
}

/// CPU time of the whole process (every thread), in nanoseconds: unlike the wall clock it leaves
/// out the time the process waited for a core on a busy machine.
private func processCPUNanoseconds() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}

/// A comma-separated option, each item checked by `parse` (nil = invalid).
private func parseList<T>(_ text: String, _ name: String, _ parse: (String) -> T?) throws -> [T] {
    let items = text.split(separator: ",").map(String.init)
    guard !items.isEmpty else { throw CLIError.usage("--\(name) is empty") }
    return try items.map { item in
        guard let value = parse(item) else { throw CLIError.usage("bad --\(name) item '\(item)'") }
        return value
    }
}
