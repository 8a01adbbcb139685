import AllocationCounter
import BuiltinModels
import FramePipeline
import Foundation
import Imaging
import PipelineFakes
import SRTC

/// A camera that remembers every frame storage it produced, so tests can prove a raw frame never
/// reached a stream (or did, while off).
package final class RecordingCameraSource: SRTCCameraSource, @unchecked Sendable {
    // Safe: `nextFrame` runs on the capture thread only; the recorded list is behind `lock`.
    private let wrapped: SRTCSyntheticCameraSource
    private let lock = NSLock()
    private var storages: [ObjectIdentifier] = []

    package init(width: Int, height: Int) { wrapped = SRTCSyntheticCameraSource(width: width, height: height) }

    package func nextFrame() -> SRTCVideoFrame? {
        guard let frame = wrapped.nextFrame() else { return nil }
        lock.lock()
        if !storages.contains(ObjectIdentifier(frame.storage)) { storages.append(ObjectIdentifier(frame.storage)) }
        lock.unlock()
        return frame
    }

    package func setResolution(width: Int, height: Int) { wrapped.setResolution(width: width, height: height) }

    /// Whether `frame` shows a camera buffer (an unprocessed frame).
    package func isRaw(_ frame: SRTCVideoFrame) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return storages.contains(ObjectIdentifier(frame.storage))
    }
}

/// Records what a stream delivers: how many frames, how many were raw camera buffers, and each
/// frame's top-left (background) pixel. Frames themselves are kept only with `keepFrames` (a
/// consumer that never lets go, which exhausts the output pool).
package final class StreamRecorder: @unchecked Sendable {
    // Safe: all mutable state is behind `lock`.
    private let lock = NSLock()
    private var _frames: [SRTCVideoFrame] = []
    private var _backgroundPixels: [[UInt8]] = []
    private var _rawCount = 0
    private var _count = 0

    package init(_ stream: SRTCVideoStream, camera: RecordingCameraSource? = nil, keepFrames: Bool = false) {
        stream.observe { [self] frame in
            let pixel = Array(frame.image.bytes[0..<3])
            let raw = camera?.isRaw(frame) ?? false
            lock.lock()
            _count += 1
            if raw { _rawCount += 1 }
            _backgroundPixels.append(pixel)
            if keepFrames { _frames.append(frame) }
            lock.unlock()
        }
    }

    package var count: Int { lock.lock(); defer { lock.unlock() }; return _count }
    package var rawCount: Int { lock.lock(); defer { lock.unlock() }; return _rawCount }
    package var backgroundPixels: [[UInt8]] { lock.lock(); defer { lock.unlock() }; return _backgroundPixels }
    package var frames: [SRTCVideoFrame] { lock.lock(); defer { lock.unlock() }; return _frames }
    package func releaseFrames() { lock.lock(); _frames.removeAll(); lock.unlock() }
}

/// A private capture pipeline (tests must not share the process's one) with a fake segmenter and
/// compositor; model files whose name contains "bad" fail to load, like a corrupt model.
package final class TestRig: Sendable {
    package let pipeline: SRTCCapturePipeline
    package let camera: RecordingCameraSource
    struct WeakSegmenter { weak var segmenter: FakeSegmenter? }
    /// Weak, so the rig never keeps a session alive after uninstall.
    private let segmentersBox: Locked<[WeakSegmenter]>
    private let pathsBox: Locked<[String]>

    package init(width: Int = 16, height: Int = 12, poolCapacity: Int = 4, ballastBytes: Int = 0) {
        let camera = RecordingCameraSource(width: width, height: height)
        let segmenters = Locked<[WeakSegmenter]>([])
        let paths = Locked<[String]>([])
        self.camera = camera
        segmentersBox = segmenters
        pathsBox = paths
        pipeline = SRTCCapturePipeline(
            segmenterFactory: { path in
                paths.withLock { $0.append(path) }
                if path.contains("bad") { throw FakeSegmenter.Failure() }
                let segmenter = FakeSegmenter(ballastBytes: ballastBytes)
                segmenters.withLock { $0.append(WeakSegmenter(segmenter: segmenter)) }
                return segmenter
            },
            compositorFactory: { FakeCompositor() },
            defaultModelPath: { BuiltinModel.general.pathName },
            poolCapacity: poolCapacity,
            cameras: [SRTCCameraDevice(name: "Front", position: .front) { camera },
                      SRTCCameraDevice(name: "Back", position: .back) { SRTCSyntheticCameraSource(width: width, height: height) }])
    }

    /// How many segmenters installs created.
    package var installCount: Int { segmentersBox.withLock { $0.count } }
    /// The segmenter in use (the last one created, while it is alive).
    package var segmenter: FakeSegmenter? { segmentersBox.withLock { $0.last?.segmenter } }
    /// The model paths installs asked for.
    package var requestedPaths: [String] { pathsBox.withLock { $0 } }

    package func engine() -> SRTCEngine { SRTCEngine(capturePipeline: pipeline) }
}

/// The bytes the C heap has handed out (arena + mmapped blocks): glibc's `mallinfo2`.
package func heapBytesInUse() -> Int { Int(vbg_heap_bytes_in_use()) }

/// The person colour of the synthetic camera and the fake compositor's blur-`level` grey.
package let personPixel: [UInt8] = [230, 180, 150]
package func blurGrey(_ level: Int) -> [UInt8] { let g = UInt8(20 * level); return [g, g, g] }

/// The set-up most SDK tests share: a private ``TestRig``, an engine on it, a channel with a
/// recorder of what it publishes, and the virtual background installed and, unless `enabled` is
/// false, switched on (with `blurLevel` when given). Each test then does the one thing it checks.
package struct ChannelRig {
    package let rig: TestRig
    package let engine: SRTCEngine
    package let channel: SRTCChannel
    /// What the channel publishes (raw frames told apart by the rig's camera).
    package let published: StreamRecorder

    package init(enabled: Bool = true, blurLevel: Int? = nil, poolCapacity: Int = 4, keepFrames: Bool = false) throws {
        rig = TestRig(poolCapacity: poolCapacity)
        engine = rig.engine()
        channel = engine.joinChannel("c")
        published = StreamRecorder(channel.publishedVideo, camera: rig.camera, keepFrames: keepFrames)
        try engine.installVirtualBackground()
        if let blurLevel { engine.setVirtualBackgroundBlur(level: blurLevel) }
        if enabled { try engine.enableVirtualBackground(true) }
    }

    package var camera: RecordingCameraSource { rig.camera }
    package var pipeline: SRTCCapturePipeline { rig.pipeline }
    package var segmenter: FakeSegmenter? { rig.segmenter }

    /// Captures `count` camera frames (each goes to every channel and the preview).
    @discardableResult
    package func capture(_ count: Int) -> Int { rig.pipeline.captureFrames(count) }
}
