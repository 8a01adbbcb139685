import BuiltinModels
import FramePipeline
import Imaging
import PNGCodec
import SRTC

/// What `vbg video` and `vbg bench --pipeline` apply: the effect and the frame-rate parameters of
/// the page's steps 2 and 4, the model, and the inference threads.
struct VirtualBackgroundOptions {
    enum Effect {
        case blur(level: Int)
        /// A background picture, decoded once (so a bad file fails before any output exists), and
        /// its file (Apple platforms hand the SDK a native image loaded from it).
        case image(Image, path: String)
    }

    var effect: Effect = .blur(level: 5)
    var inferenceInterval = 1
    var maskSync = false
    /// A model file, or a built-in model's name (``ModelArgument/modelPath(for:)``).
    var modelPath = BuiltinModel.general.pathName
    var threads = 1
}

/// The SDK's lower level exactly as an app that takes over capture uses it (see
/// `Snippets/CustomVideoTrack.swift`): an ``SRTCEngine``, a custom video track, and the engine's
/// virtual background processor attached to it. Frames pushed here go through the same
/// ``FrameProcessor`` (frame policy, smoothing, pooled buffers, fail-closed dropping),
/// ``ModelSegmenter`` and ``ImagingCompositor`` as the camera pipeline's.
///
/// The one difference from `SRTCEngine()` is that the engine runs on a capture pipeline of its own,
/// created through the package-level initialiser so the inference session gets `threads` worker
/// threads (the page's API has no thread parameter). Not thread-safe: one caller pushes frames.
final class VirtualBackgroundTrack {
    let engine: SRTCEngine
    let track: SRTCCustomVideoTrack
    let processor: SRTCVirtualBackgroundProcessor
    private var inputPool: FrameBufferPool
    private var framesPushed = 0

    /// Installs the model and turns the virtual background on with `options`.
    ///
    /// - Throws: `CLIError.input` with the SDK's message when the model cannot be installed.
    init(options: VirtualBackgroundOptions, width: Int, height: Int, format: PixelFormat = .rgba8) throws {
        let threads = options.threads
        let pipeline = SRTCCapturePipeline(
            segmenterFactory: { path in try DefaultComponents.makeSegmenter(modelPath: path, threads: threads) },
            compositorFactory: { ImagingCompositor() },
            defaultModelPath: { BuiltinModel.general.pathName },
            poolCapacity: 4,
            cameras: [])
        engine = SRTCEngine(capturePipeline: pipeline)
        track = engine.makeCustomVideoTrack()
        processor = engine.makeVirtualBackgroundProcessor()
        track.attachVirtualBackground(processor)
        // Two buffers suffice (the processor keeps no input frame); three leave slack.
        inputPool = FrameBufferPool(width: width, height: height, format: format, capacity: 3)
        do {
            try engine.installVirtualBackground(modelPath: options.modelPath)
        } catch {
            throw CLIError.input("cannot install the virtual background: \(error.localizedDescription)")
        }
        switch options.effect {
        case .blur(let level):
            engine.setVirtualBackgroundBlur(level: level)
        case .image(let picture, let path):
            #if canImport(UIKit) || canImport(AppKit)
            _ = picture
            guard let native = SRTCNativeImage(contentsOfFile: path) else { throw CLIError.input("\(path): not a readable image") }
            engine.setVirtualBackgroundImage(native)
            #else
            _ = path
            engine.setVirtualBackgroundImage(SRTCNativeImage(image: picture))
            #endif
        }
        engine.setVirtualBackgroundInferenceInterval(options.inferenceInterval)
        engine.setVirtualBackgroundMaskSync(options.maskSync)
        try engine.enableVirtualBackground(true)
    }

    /// Fills a pooled input buffer with `fill` and pushes it through the track.
    ///
    /// - Returns: the frame the track published (a processed frame, or the previous one repeated
    ///   under mask sync); `nil` when `fill` returned false (no frame) or the SDK dropped the frame.
    /// - Throws: what `fill` throws (the buffer is then not pushed).
    func push(timestamp: UInt64, fill: (inout Image) throws -> Bool) throws -> (frame: SRTCVideoFrame?, ended: Bool) {
        guard let buffer = inputPool.acquire() else {
            // The processor keeps no input frame, so a buffer is always free; this would be a bug.
            throw CLIError.input("internal error: no free input buffer")
        }
        guard try buffer.withMutableImage(fill) else { return (nil, true) }
        let published = track.publishedVideo.frameCount
        track.push(SRTCVideoFrame(storage: buffer, timestamp: timestamp, sequenceNumber: framesPushed))
        framesPushed += 1
        guard track.publishedVideo.frameCount > published else { return (nil, false) }
        return (track.publishedVideo.latestFrame, false)
    }

    /// Counters and per-stage timings of the attached processor.
    var diagnostics: SRTCVirtualBackgroundDiagnostics { processor.diagnostics }
}
