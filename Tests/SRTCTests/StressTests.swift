import Dispatch
import Foundation
import Imaging
import PipelineFakes
import SDKTestSupport
@testable import SRTC
import Testing

/// Runs `capture` on a dedicated thread (the capture thread) and `worker(i)` on `workers` other
/// dedicated threads until `capture` returns, then waits for all. Dedicated `Thread`s, not
/// Dispatch: spinning workers on the global queue can starve the capture block of a thread.
private func runConcurrently(workers: Int, capture: @escaping @Sendable () -> Void,
                             worker: @escaping @Sendable (_ index: Int, _ isDone: @Sendable () -> Bool) -> Void) {
    let done = Locked(false)
    let finished = DispatchSemaphore(value: 0)
    let captureThread = Thread {
        capture()
        done.withLock { $0 = true }
        finished.signal()
    }
    captureThread.stackSize = 1 << 20
    captureThread.start()
    for index in 0..<workers {
        Thread {
            worker(index) { done.withLock { $0 } }
            finished.signal()
        }.start()
    }
    for _ in 0...workers { finished.wait() }
}

@Suite("Concurrency")
struct StressTests {
    @Test("settings change from several threads while 10,000 frames flow on the capture thread")
    func settingsUnderLoad() throws {
        let rig = TestRig(width: 8, height: 6)
        let engine = rig.engine()
        let channel = engine.joinChannel("c")
        let published = StreamRecorder(channel.publishedVideo)
        let images = [(10, 20, 30), (200, 100, 0)].map {
            SRTCNativeImage(image: Image(width: 3, height: 2, filledWith: ($0.0, $0.1, $0.2, 255)))
        }
        try engine.installVirtualBackground()
        try engine.enableVirtualBackground(true)

        let frameCount = 10_000
        let captured = Locked(0)
        runConcurrently(workers: 4, capture: {
            captured.withLock { $0 = rig.pipeline.captureFrames(frameCount) }
        }, worker: { worker, isDone in
            var step = 0
            while !isDone() {
                step += 1
                switch (worker + step) % 9 {
                case 0: engine.setVirtualBackgroundBlur(level: step % 12)
                case 1: engine.setVirtualBackgroundImage(step % 3 == 0 ? nil : images[step % 2])
                case 2: try? engine.enableVirtualBackground(step % 4 != 0)
                case 3: engine.setVirtualBackgroundInferenceInterval(step % 4)
                case 4: engine.setVirtualBackgroundMaskSync(step % 2 == 0)
                case 5: engine.resetVirtualBackgroundState()
                case 6: _ = engine.virtualBackground; _ = engine.virtualBackgroundDiagnostics
                case 7: if step % 50 == 0 { engine.switchCamera() }
                default:
                    if step % 200 == 0 {
                        engine.uninstallVirtualBackground()
                        try? engine.installVirtualBackground()
                        try? engine.enableVirtualBackground(true)
                    }
                }
            }
        })
        let diagnostics = engine.virtualBackgroundDiagnostics
        #expect(captured.withLock { $0 } == frameCount)
        #expect(diagnostics.framesReceived == frameCount)
        #expect(published.count + diagnostics.droppedFrameCount == frameCount, "every frame was sent or dropped")
        #expect(diagnostics.framesPassedThrough + diagnostics.framesComposited + diagnostics.framesRepeated
                + diagnostics.droppedFrameCount == frameCount)
    }

    @Test("while on, no raw frame is ever published, whatever other threads change")
    func neverRawUnderLoad() throws {
        let rig = TestRig(width: 8, height: 6, poolCapacity: 3)
        let engine = rig.engine()
        let channel = engine.joinChannel("c")
        let published = StreamRecorder(channel.publishedVideo, camera: rig.camera)
        let preview = StreamRecorder(engine.localPreview, camera: rig.camera)
        let picture = SRTCNativeImage(image: Image(width: 3, height: 2, filledWith: (10, 20, 30, 255)))
        try engine.installVirtualBackground()
        try engine.enableVirtualBackground(true)

        let frameCount = 10_000
        runConcurrently(workers: 3, capture: {
            rig.pipeline.captureFrames(frameCount)
        }, worker: { worker, isDone in
            var step = 0
            while !isDone() {
                step += 1
                switch (worker + step) % 6 {
                case 0: engine.setVirtualBackgroundBlur(level: step % 12)
                case 1: engine.setVirtualBackgroundImage(step % 2 == 0 ? nil : picture)
                case 2: engine.setVirtualBackgroundInferenceInterval(step % 4)
                case 3: engine.setVirtualBackgroundMaskSync(step % 2 == 0)
                case 4: engine.resetVirtualBackgroundState()
                default: rig.segmenter?.failing = step % 7 == 0   // inject failures now and then
                }
            }
        })
        rig.segmenter?.failing = false
        #expect(published.rawCount == 0 && preview.rawCount == 0)
        #expect(published.count + engine.virtualBackground.droppedFrameCount == frameCount)
        #expect(published.count == preview.count)
    }
}
