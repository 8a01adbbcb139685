import BuiltinModels
import FramePipeline
import Foundation
import Imaging

/// A segmenter shared by every processor of the process (the camera's and custom tracks'), used one
/// frame at a time.
final class SharedSegmenter: Segmenter, @unchecked Sendable {
    // Safe: the wrapped segmenter is only reached through `segment(_:into:)` and `byteCount`, both
    // under `lock`, so it is never used by two threads at once; it is created by `install` and
    // handed over here, never referenced elsewhere.
    private let lock = NSLock()
    private let wrapped: any Segmenter
    let maskIsAlpha: Bool

    init(_ wrapped: any Segmenter) {
        self.wrapped = wrapped
        maskIsAlpha = wrapped.maskIsAlpha
    }

    func segment(_ frame: Image, into mask: UnsafeMutableBufferPointer<Float>) throws {
        lock.lock()
        defer { lock.unlock() }
        try wrapped.segment(frame, into: mask)
    }

    /// Each processor's own state (made by the wrapped segmenter, read only under the lock).
    func makeStreamState() -> SegmenterStreamState? {
        lock.lock()
        defer { lock.unlock() }
        return wrapped.makeStreamState()
    }

    func segment(_ frame: Image, into mask: UnsafeMutableBufferPointer<Float>, state: SegmenterStreamState?) throws {
        lock.lock()
        defer { lock.unlock() }
        try wrapped.segment(frame, into: mask, state: state)
    }

    var byteCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return wrapped.byteCount
    }
}

/// Creates the segmenter for a model file and its description, or throws a message for
/// `virtualBackgroundSessionFailed`.
typealias SegmenterFactory = @Sendable (_ modelPath: String, _ description: SegmentationModelDescription?) throws -> any Segmenter
/// Creates one compositor per processor (each keeps its own caches).
typealias CompositorFactory = @Sendable () -> any FrameCompositor

/// The device-level virtual background: the installed model and the effect settings, shared by
/// every engine, channel and processor of the process. Thread-safe.
final class VirtualBackgroundComponent: Sendable {
    struct Settings {
        var segmenter: SharedSegmenter?
        var isEnabled = false
        var effect: SRTCVirtualBackgroundEffect = .blur
        var blurLevel = 5
        var image: Image?
        var imageIdentifier = 0
        var inferenceInterval = 1
        var maskSync = false
        var droppedFrameCount = 0
        var processors: [WeakProcessor] = []
    }

    struct WeakProcessor {
        weak var processor: SRTCVirtualBackgroundProcessor?
    }

    static let defaultBlurLevel = 5
    static let blurLevels = 1...10

    private let settings = Locked(Settings())
    private let makeSegmenter: SegmenterFactory
    let makeCompositor: CompositorFactory
    let poolCapacity: Int
    private let defaultModelPath: @Sendable () -> String

    init(segmenterFactory: @escaping SegmenterFactory, compositorFactory: @escaping CompositorFactory,
         defaultModelPath: @escaping @Sendable () -> String, poolCapacity: Int) {
        makeSegmenter = segmenterFactory
        makeCompositor = compositorFactory
        self.defaultModelPath = defaultModelPath
        self.poolCapacity = poolCapacity
    }

    // MARK: Install

    func install(modelPath: String?, description: SegmentationModelDescription? = nil) throws(SRTCError) {
        DebugBuildNotice.announce()
        if settings.withLock({ $0.segmenter != nil }) { throw .virtualBackgroundAlreadyInstalled }
        let path = modelPath ?? defaultModelPath()
        // The one place "not found" is decided: the segmenter is only asked to load what exists.
        var isDirectory: ObjCBool = false
        guard BuiltinModel(pathName: path) != nil || path == BuiltinModel.automaticPathName
            || (FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue)
        else {
            throw .virtualBackgroundModelNotFound(path)
        }
        // Loading takes a while: done outside the lock, so frames and settings keep flowing.
        let segmenter: SharedSegmenter
        do {
            segmenter = SharedSegmenter(try makeSegmenter(path, description))
        } catch {
            throw .virtualBackgroundSessionFailed(String(describing: error))
        }
        let installed = settings.withLock { settings -> Bool in
            guard settings.segmenter == nil else { return false }
            settings.segmenter = segmenter
            settings.isEnabled = false
            return true
        }
        // A concurrent install won the race: this one is discarded (its session is freed here).
        if !installed { throw .virtualBackgroundAlreadyInstalled }
    }

    func uninstall() {
        let processors = settings.withLock { settings -> [SRTCVirtualBackgroundProcessor] in
            settings.segmenter = nil
            settings.isEnabled = false
            settings.processors.removeAll { $0.processor == nil }
            return settings.processors.compactMap(\.processor)
        }
        for processor in processors { processor.releaseBuffers() }
    }

    // MARK: Settings

    func setBlur(level: Int) {
        settings.withLock {
            $0.blurLevel = min(max(level, Self.blurLevels.lowerBound), Self.blurLevels.upperBound)
            $0.effect = .blur
        }
    }

    func setImage(_ image: Image?) {
        settings.withLock {
            if let image {
                $0.image = image
                $0.imageIdentifier += 1
                $0.effect = .image
            } else {
                $0.image = nil
                $0.effect = .blur
            }
        }
    }

    func enable(_ enabled: Bool) throws(SRTCError) {
        let installed = settings.withLock { settings -> Bool in
            guard settings.segmenter != nil else { return false }
            settings.isEnabled = enabled
            return true
        }
        guard installed else { throw .virtualBackgroundNotInstalled }
    }

    func setInferenceInterval(_ interval: Int) { settings.withLock { $0.inferenceInterval = max(1, interval) } }
    func setMaskSync(_ enabled: Bool) { settings.withLock { $0.maskSync = enabled } }

    var state: SRTCVirtualBackgroundState {
        settings.withLock {
            SRTCVirtualBackgroundState(droppedFrameCount: $0.droppedFrameCount, isInstalled: $0.segmenter != nil,
                                       isEnabled: $0.isEnabled, effect: $0.effect, blurLevel: $0.blurLevel,
                                       inferenceInterval: $0.inferenceInterval, maskSync: $0.maskSync)
        }
    }

    /// Bytes held by the installed session (0 when uninstalled).
    var sessionBytes: Int { settings.withLock { $0.segmenter }?.byteCount ?? 0 }

    // MARK: Frames

    /// The settings for one frame, and the segmenter to use. Allocates nothing.
    func frameSettings() -> (FrameSettings, SharedSegmenter?) {
        settings.withLock { settings in
            let effect: BackgroundEffect
            if settings.effect == .image, let image = settings.image {
                effect = .image(image, identifier: settings.imageIdentifier)
            } else {
                effect = .blur(level: settings.blurLevel)
            }
            let frameSettings = FrameSettings(isEnabled: settings.isEnabled && settings.segmenter != nil,
                                              effect: effect, inferenceInterval: settings.inferenceInterval,
                                              maskSync: settings.maskSync)
            return (frameSettings, settings.segmenter)
        }
    }

    func recordDrop() { settings.withLock { $0.droppedFrameCount += 1 } }

    func register(_ processor: SRTCVirtualBackgroundProcessor) {
        settings.withLock {
            $0.processors.removeAll { $0.processor == nil }
            $0.processors.append(WeakProcessor(processor: processor))
        }
    }
}
