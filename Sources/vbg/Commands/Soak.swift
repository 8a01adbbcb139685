import Foundation
import FramePipeline
import Imaging
import SRTC

/// `vbg soak`: the long-run check. Drives frames through the SDK's capture pipeline
/// (synthetic camera, the real model and compositing) while the settings change, and checks that
/// resident memory stays flat and no frame is dropped.
let soakCommand = Command(
    name: "soak",
    summary: "drive many frames through the SDK pipeline while settings change; check memory and drops",
    usage: """
        usage: vbg soak [--frames N] [--width W] [--height H] [--model general|landscape|PATH]
                        [--change-every N] [--warmup N] [--report-every N]

        Captures N frames (default 100000) of W x H (default 640 x 480) from a synthetic camera
        through the device-level virtual background with the real model, changing one setting every
        --change-every frames (default 250) in a fixed cycle: blur level, background image and back
        to blur, inference interval 1-4, mask sync, state reset, camera switch, effect off and on.
        Resident memory is read from /proc/self/statm at the end of each settings cycle. The
        cycled values (10 blur levels, 2 pictures, intervals 1-4, mask sync on/off) repeat every
        20 cycles, and the working set depends on them (a blur's rings grow with its radius), so
        the reference is the highest reading over the first 20 cycles after --warmup frames
        (default 5000): every combination once. Exit 1 when a later reading exceeds it by more
        than 5 %, or when any frame was dropped. Readings are summarised per tenth of the run.
        """,
    run: { arguments in
        let frames = try arguments.integer("frames", default: 100_000, in: 1...100_000_000)
        let width = try arguments.integer("width", default: 640, in: 16...4096)
        let height = try arguments.integer("height", default: 480, in: 16...4096)
        let changeEvery = try arguments.integer("change-every", default: 250, in: 1...1_000_000)
        let warmup = try arguments.integer("warmup", default: 5_000, in: 0...100_000_000)
        let reportEvery = try arguments.integer("report-every", default: 10_000, in: 1...100_000_000)
        let modelArgument = try arguments.value("model") ?? "general"
        _ = try arguments.positionals()
        try arguments.finish()
        try runSoak(frames: frames, width: width, height: height, modelPath: ModelArgument.modelPath(for: modelArgument),
                    changeEvery: changeEvery, warmup: warmup, reportEvery: reportEvery)
    })

/// Writes a line to standard output at once (progress of a long run reaches a pipe as it happens).
private func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Resident set size in bytes (the second field of /proc/self/statm, in pages).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

private func runSoak(frames: Int, width: Int, height: Int, modelPath: String, changeEvery: Int, warmup: Int,
                     reportEvery: Int) throws {
    let pipeline = SRTCCapturePipeline(
        segmenterFactory: { try DefaultComponents.makeSegmenter(modelPath: $0) },
        compositorFactory: { DefaultComponents.makeCompositor() },
        defaultModelPath: { modelPath },
        poolCapacity: 4,
        cameras: [.synthetic(name: "Front", position: .front, width: width, height: height),
                  .synthetic(name: "Back", position: .back, width: width, height: height)])
    let engine = SRTCEngine(capturePipeline: pipeline)
    let channel = engine.joinChannel("soak")
    do {
        try engine.installVirtualBackground(modelPath: modelPath)
        try engine.enableVirtualBackground(true)
    } catch {
        throw CLIError.input("cannot install the model: \(error)")
    }
    let steps = settingChanges(engine, width: width, height: height)
    let cycle = steps.count * changeEvery

    say("soak: \(frames) frames of \(width)x\(height), model \(modelPath)")
    say("soak: a setting changes every \(changeEvery) frames (cycle \(cycle) frames); RSS read at each cycle end; reference after \(warmup) frames")
    let start = DispatchTime.now().uptimeNanoseconds
    func seconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
    // RSS at each cycle end after the warm-up.
    var readings: [Int] = []
    readings.reserveCapacity(frames / cycle + 2)
    var firstReadingFrame: Int?
    var captured = 0
    var step = 0
    while captured < frames {
        let batch = min(changeEvery, frames - captured)
        let got = pipeline.captureFrames(batch)
        guard got == batch else { throw CLIError.input("the camera produced \(got) of \(batch) frames") }
        captured += batch
        let (_, change) = steps[step % steps.count]
        change(step / steps.count)
        step += 1
        if captured % cycle == 0, captured >= warmup {
            readings.append(residentBytes())
            if firstReadingFrame == nil { firstReadingFrame = captured }
        }
        if captured % reportEvery == 0 || captured == frames {
            let d = engine.virtualBackgroundDiagnostics
            say(String(format: "soak: %8d frames  %7.1f s  %6.1f fps  RSS %7.1f MB  inferences %d  dropped %d",
                       captured, seconds(), Double(captured) / seconds(), Double(residentBytes()) / 1e6,
                       d.inferenceCount, d.droppedFrameCount))
        }
    }
    let diagnostics = engine.virtualBackgroundDiagnostics
    let published = channel.publishedVideo.frameCount
    say("soak: done: \(captured) frames in \(String(format: "%.1f", seconds())) s; published \(published); composited \(diagnostics.framesComposited), repeated \(diagnostics.framesRepeated), passed through \(diagnostics.framesPassedThrough), inferences \(diagnostics.inferenceCount), dropped \(diagnostics.droppedFrameCount)")
    let growth = try memoryGrowth(readings, from: firstReadingFrame ?? captured, cycle: cycle, warmup: warmup)
    if diagnostics.droppedFrameCount > 0 || published != captured {
        throw CLIError.input("\(diagnostics.droppedFrameCount) frames dropped, \(published) of \(captured) published")
    }
    if growth > 5 {
        throw CLIError.input(String(format: "resident memory grew %.2f %% after warm-up (limit 5 %%)", growth))
    }
    say("soak: pass (memory flat within 5 %, no frame dropped)")
}

/// The settings cycle: one change per step, each given how many cycles came before (so the
/// values it sets go round: 10 blur levels, 2 pictures, intervals 1-4, mask sync on and off).
private func settingChanges(_ engine: SRTCEngine, width: Int, height: Int) -> [(String, (Int) -> Void)] {
    // A background picture the size of the frame (a gradient), and a smaller one (cover-cropped).
    func gradient(_ w: Int, _ h: Int) -> SRTCNativeImage {
        var bytes = [UInt8](repeating: 255, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                bytes[(y * w + x) * 4] = UInt8(x * 255 / max(1, w - 1))
                bytes[(y * w + x) * 4 + 1] = UInt8(y * 255 / max(1, h - 1))
                bytes[(y * w + x) * 4 + 2] = 128
            }
        }
        return SRTCNativeImage(image: Image(width: w, height: h, bytes: bytes))
    }
    let backgrounds = [gradient(width, height), gradient(320, 180)]
    return [
        ("blur level", { engine.setVirtualBackgroundBlur(level: 1 + $0 % 10) }),
        ("background image", { engine.setVirtualBackgroundImage(backgrounds[$0 % 2]) }),
        ("inference interval", { engine.setVirtualBackgroundInferenceInterval(1 + $0 % 4) }),
        ("mask sync", { engine.setVirtualBackgroundMaskSync($0 % 2 == 0) }),
        ("back to blur", { _ in engine.setVirtualBackgroundImage(nil) }),
        ("reset state", { _ in engine.resetVirtualBackgroundState() }),
        ("switch camera", { _ in engine.switchCamera() }),
        ("effect off", { _ in try? engine.enableVirtualBackground(false) }),
        ("effect on", { _ in try? engine.enableVirtualBackground(true) }),
    ]
}

/// The growth of resident memory after the reference, in percent, with the readings summarised
/// per tenth. The first `referenceCycles` readings set the reference (their highest: every
/// combination of cycled values once); the highest later reading is compared with it.
///
/// - Throws: `CLIError.input` when there are not more readings than the reference takes.
private func memoryGrowth(_ readings: [Int], from firstReadingFrame: Int, cycle: Int, warmup: Int) throws -> Double {
    let referenceCycles = 20
    guard readings.count > referenceCycles else {
        throw CLIError.input("the run ended before \(referenceCycles + 1) settings cycles after the warm-up (\(warmup) frames); nothing to compare")
    }
    let reference = readings[..<referenceCycles].max()!
    let highest = readings[referenceCycles...].max()!
    let growth = Double(highest - reference) / Double(reference) * 100
    func megabytes(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1e6) }
    say("soak: RSS per tenth of the \(readings.count) cycle-end readings from frame \(firstReadingFrame) (min-max MB):")
    let tenth = max(1, readings.count / 10)
    var tenths: [String] = []
    for start in stride(from: 0, to: readings.count, by: tenth) {
        let part = readings[start..<min(start + tenth, readings.count)]
        tenths.append("\(megabytes(part.min()!))-\(megabytes(part.max()!))")
    }
    say("soak:   " + tenths.joined(separator: ", "))
    say(String(format: "soak: reference (highest of the first %d readings, frames %d-%d) %.1f MB, highest after %.1f MB (%+.2f %%), at the end %.1f MB",
               referenceCycles, firstReadingFrame, firstReadingFrame + (referenceCycles - 1) * cycle,
               Double(reference) / 1e6, Double(highest) / 1e6, growth, Double(residentBytes()) / 1e6))
    return growth
}
