import FramePipeline
import Imaging

/// The process's one camera capture pipeline: the camera in use, the device-level virtual
/// background, and every stream the camera's video goes to (channels, local previews).
///
/// Every ``SRTCEngine`` (and every layer built on it) uses ``shared``, so the virtual
/// background state is device-level: there is no per-channel setting. The effect is read for every
/// frame, so switching cameras, turning the camera off and on, or rebuilding a track needs no re-apply.
///
/// Frames are captured by ``captureFrames(_:)`` on the calling thread (the capture thread); a real
/// camera driver would call it from its delivery callback. Everything else is safe from any thread.
public final class SRTCCapturePipeline: Sendable {
    /// The pipeline of this process.
    public static let shared = SRTCCapturePipeline()

    private struct Camera {
        var devices: [SRTCCameraDevice]
        var currentIndex: Int?
        var source: (any SRTCCameraSource)?
        var isEnabled = true
        var destinations: [SRTCVideoStream] = []
    }

    let component: VirtualBackgroundComponent
    /// Processes the camera's frames.
    let cameraProcessor: SRTCVirtualBackgroundProcessor
    private let camera: Locked<Camera>
    /// Serialises capture: one frame at a time through the source and the processor.
    private let captureLock = Locked(())

    /// A pipeline with the built-in model and compositing, a synthetic front and back camera, and
    /// four output buffers.
    public convenience init() {
        self.init(describedSegmenterFactory: { try DefaultComponents.makeSegmenter(modelPath: $0, description: $1) },
                  compositorFactory: DefaultComponents.makeCompositor,
                  defaultModelPath: { DefaultComponents.defaultModelPath },
                  poolCapacity: 4)
    }

    /// A pipeline with injected parts (tests: fault injection, deterministic segmentation); the
    /// factory is not given model descriptions.
    package convenience init(segmenterFactory: @escaping @Sendable (String) throws -> any Segmenter,
                             compositorFactory: @escaping @Sendable () -> any FrameCompositor,
                             defaultModelPath: @escaping @Sendable () -> String,
                             poolCapacity: Int = 4,
                             cameras: [SRTCCameraDevice] = [.synthetic(name: "Front", position: .front),
                                                            .synthetic(name: "Back", position: .back)]) {
        self.init(describedSegmenterFactory: { path, _ in try segmenterFactory(path) }, compositorFactory: compositorFactory,
                  defaultModelPath: defaultModelPath, poolCapacity: poolCapacity, cameras: cameras)
    }

    /// A pipeline with injected parts whose segmenter factory takes the model description too.
    package init(describedSegmenterFactory segmenterFactory: @escaping @Sendable (String, SegmentationModelDescription?) throws -> any Segmenter,
                 compositorFactory: @escaping @Sendable () -> any FrameCompositor,
                 defaultModelPath: @escaping @Sendable () -> String,
                 poolCapacity: Int = 4,
                 cameras: [SRTCCameraDevice] = [.synthetic(name: "Front", position: .front),
                                                .synthetic(name: "Back", position: .back)]) {
        component = VirtualBackgroundComponent(segmenterFactory: segmenterFactory, compositorFactory: compositorFactory,
                                               defaultModelPath: defaultModelPath, poolCapacity: poolCapacity)
        cameraProcessor = SRTCVirtualBackgroundProcessor(component: component)
        camera = Locked(Camera(devices: cameras, currentIndex: cameras.isEmpty ? nil : 0,
                               source: cameras.first?.open()))
    }

    // MARK: Cameras

    /// The cameras to choose from.
    public var cameras: [SRTCCameraDevice] { camera.withLock { $0.devices } }

    /// The camera in use.
    public var currentCamera: SRTCCameraDevice? {
        camera.withLock { state in state.currentIndex.map { state.devices[$0] } }
    }

    /// Replaces the list of cameras and switches to the first one.
    public func setCameras(_ devices: [SRTCCameraDevice]) {
        let source = devices.first?.open()
        camera.withLock {
            $0.devices = devices
            $0.currentIndex = devices.isEmpty ? nil : 0
            $0.source = source
        }
        cameraProcessor.reset()
    }

    /// Switches to the camera called `name` (the inter-frame state is cleared; settings stay).
    ///
    /// - Returns: whether such a camera exists.
    @discardableResult
    public func switchCamera(to name: String) -> Bool {
        guard let index = camera.withLock({ $0.devices.firstIndex { $0.name == name } }) else { return false }
        switchCamera(toIndex: index)
        return true
    }

    /// Switches to the next camera (front ↔ back with two cameras).
    public func switchCamera() {
        let index = camera.withLock { state -> Int? in
            guard let current = state.currentIndex, !state.devices.isEmpty else { return nil }
            return (current + 1) % state.devices.count
        }
        if let index { switchCamera(toIndex: index) }
    }

    private func switchCamera(toIndex index: Int) {
        let device = camera.withLock { $0.devices[index] }
        let source = device.open()
        camera.withLock {
            $0.currentIndex = index
            $0.source = source
        }
        cameraProcessor.reset()
    }

    /// Whether the camera is on. While off no frames are captured; settings still apply once it is on.
    public var isCameraEnabled: Bool { camera.withLock { $0.isEnabled } }

    /// Turns the camera on or off. Turning it on starts from a clean inter-frame state.
    public func setCameraEnabled(_ enabled: Bool) {
        let wasEnabled = camera.withLock { state -> Bool in
            let was = state.isEnabled
            state.isEnabled = enabled
            return was
        }
        if enabled && !wasEnabled { cameraProcessor.reset() }
    }

    // MARK: Destinations

    func addDestination(_ stream: SRTCVideoStream) {
        camera.withLock { state in
            if !state.destinations.contains(where: { $0 === stream }) { state.destinations.append(stream) }
        }
    }

    func removeDestination(_ stream: SRTCVideoStream) {
        camera.withLock { $0.destinations.removeAll { $0 === stream } }
    }

    // MARK: Capture

    /// Captures up to `count` frames on the calling thread, processes them, and delivers each to
    /// every destination (published streams and local previews). A dropped frame reaches none.
    ///
    /// - Returns: how many frames the camera produced (0 while the camera is off).
    @discardableResult
    public func captureFrames(_ count: Int = 1) -> Int {
        captureLock.withLock { _ in
            var captured = 0
            for _ in 0..<count {
                let (source, destinations) = camera.withLock { state -> ((any SRTCCameraSource)?, [SRTCVideoStream]) in
                    state.isEnabled ? (state.source, state.destinations) : (nil, [])
                }
                guard let source, let frame = source.nextFrame() else { break }
                captured += 1
                guard let output = cameraProcessor.process(frame) else { continue }
                for destination in destinations { destination.deliver(output) }
            }
            return captured
        }
    }
}
