import Dispatch
import Imaging
import PipelineFakes
import SDKTestSupport
@testable import SRTC
import Testing

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
        let done = Locked(false)
        let captured = Locked(0)
        let capture = DispatchGroup()
        DispatchQueue.global().async(group: capture) {
            captured.withLock { $0 = rig.pipeline.captureFrames(frameCount) }
            done.withLock { $0 = true }
        }
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            var step = 0
            while !done.withLock({ $0 }) {
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
        }
        capture.wait()
        let diagnostics = engine.virtualBackgroundDiagnostics
        #expect(captured.withLock { $0 } == frameCount)
        #expect(diagnostics.framesReceived == frameCount)
        #expect(published.count + diagnostics.droppedFrameCount == frameCount, "every frame was sent or dropped")
        #expect(diagnostics.framesPassedThrough + diagnostics.framesComposited + diagnostics.framesRepeated
                + diagnostics.droppedFrameCount == frameCount)
    }
}
