import FramePipeline
import Imaging

/// A video frame as the SDK passes it around: pixels in a shared buffer, a time stamp and a
/// sequence number. Copying a frame never copies its pixels.
///
/// The pipeline's own frame type under the SDK's name, on purpose (not a wrapper): what an app
/// pushes or observes is the value the pipeline processes, with no copy or conversion. So
/// `VideoFrame`, `FrameBuffer`, `Image` and `PixelFormat` are public API too (`Docs/SDK.md`, "Frames").
public typealias SRTCVideoFrame = VideoFrame

/// A stream of video frames that can be observed: a channel's published video, a track's output,
/// the local preview.
///
/// Frames are delivered on the thread that produced them (the capture thread). An observer that
/// keeps a frame keeps its buffer out of the output pool until it lets go, as with `CVPixelBuffer`s;
/// keeping too many makes the pipeline drop frames (see ``SRTCVirtualBackgroundState/droppedFrameCount``).
public final class SRTCVideoStream: Sendable {
    private struct State {
        var latestFrame: SRTCVideoFrame?
        var frameCount = 0
        var observers: [@Sendable (SRTCVideoFrame) -> Void] = []
    }
    private let state = Locked(State())

    public init() {}

    /// The last frame delivered, or `nil` before the first one.
    public var latestFrame: SRTCVideoFrame? { state.withLock { $0.latestFrame } }
    /// How many frames were delivered.
    public var frameCount: Int { state.withLock { $0.frameCount } }

    /// Calls `observer` with every frame delivered from now on (on the producing thread).
    public func observe(_ observer: @escaping @Sendable (SRTCVideoFrame) -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    /// Forgets the latest frame (its buffer returns to its pool) and the observers.
    public func clear() {
        state.withLock { $0.latestFrame = nil; $0.observers.removeAll() }
    }

    func deliver(_ frame: SRTCVideoFrame) {
        let observers = state.withLock { state -> [@Sendable (SRTCVideoFrame) -> Void] in
            state.latestFrame = frame
            state.frameCount += 1
            return state.observers
        }
        for observer in observers { observer(frame) }
    }
}
