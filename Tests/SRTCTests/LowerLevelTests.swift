import FramePipeline
import Imaging
import PipelineFakes
import SDKTestSupport
@testable import SRTC
import Testing

@Suite("Lower-level SRTC API")
struct LowerLevelTests {
    @Test("a virtual background processor attached to a custom video track processes what the app pushes")
    func customTrackProcessor() throws {
        let rig = TestRig()
        let engine = rig.engine()
        let track = engine.makeCustomVideoTrack()
        engine.joinChannel("c").publish(track)
        let processor = engine.makeVirtualBackgroundProcessor()
        track.attachVirtualBackground(processor)
        try engine.installVirtualBackground()
        engine.setVirtualBackgroundBlur(level: 6)

        let raw = makePersonFrame(width: 10, height: 8)
        track.push(raw)
        #expect(track.publishedVideo.latestFrame?.storage === raw.storage, "off: passed through")

        try engine.enableVirtualBackground(true)
        track.push(makePersonFrame(width: 10, height: 8, sequenceNumber: 1))
        let processed = try #require(track.publishedVideo.latestFrame)
        #expect(Array(processed.image.bytes[0..<3]) == blurGrey(6))
        #expect(processor.diagnostics.inferenceCount == 1)
        #expect(engine.virtualBackgroundDiagnostics.inferenceCount == 0, "the camera pipeline has its own state")

        track.attachVirtualBackground(nil)
        let detached = makePersonFrame(width: 10, height: 8, sequenceNumber: 2)
        track.push(detached)
        #expect(track.publishedVideo.latestFrame?.storage === detached.storage)
    }

    @Test("a custom track drops frames its processor cannot process; the raw frame is never sent")
    func customTrackFailsClosed() throws {
        let rig = try ChannelRig()
        let engine = rig.engine
        let track = engine.makeCustomVideoTrack()
        let processor = engine.makeVirtualBackgroundProcessor()
        track.attachVirtualBackground(processor)
        rig.segmenter?.failing = true
        track.push(makePersonFrame(width: 10, height: 8))
        #expect(track.publishedVideo.frameCount == 0)
        #expect(processor.diagnostics.droppedForSegmentationFailure == 1)
        #expect(engine.virtualBackground.droppedFrameCount == 1, "device-level count includes custom tracks")
    }

    @Test("reset clears the inter-frame state (apps that take over capture)")
    func resetClearsState() throws {
        let rig = try ChannelRig()
        let engine = rig.engine
        let processor = engine.makeVirtualBackgroundProcessor()
        engine.setVirtualBackgroundInferenceInterval(5)
        for index in 0..<3 { _ = processor.process(makePersonFrame(width: 10, height: 8, sequenceNumber: index)) }
        #expect(processor.diagnostics.inferenceCount == 1)
        processor.reset()
        _ = processor.process(makePersonFrame(width: 10, height: 8, sequenceNumber: 3))
        #expect(processor.diagnostics.inferenceCount == 2)
        #expect(processor.diagnostics.resetCount == 1)

        rig.capture(2)
        engine.resetVirtualBackgroundState()
        rig.capture(1)
        #expect(engine.virtualBackgroundDiagnostics.inferenceCount == 2)
    }

    @Test("diagnostics report per-stage timings, inference count and dropped frames")
    func diagnostics() throws {
        let rig = try ChannelRig()
        rig.engine.setVirtualBackgroundInferenceInterval(2)
        rig.capture(4)
        rig.segmenter?.failing = true
        rig.capture(1)
        let diagnostics = rig.engine.virtualBackgroundDiagnostics
        #expect(diagnostics.framesReceived == 5)
        #expect(diagnostics.inferenceCount == 3)
        #expect(diagnostics.framesComposited == 4)
        #expect(diagnostics.droppedFrameCount == 1 && diagnostics.droppedForSegmentationFailure == 1)
        #expect(diagnostics.segmentation.samples == 2 && diagnostics.smoothing.samples == 2)
        #expect(diagnostics.compositing.samples == 4 && diagnostics.total.samples == 4)
        #expect(diagnostics.total.meanNanoseconds >= diagnostics.compositing.meanNanoseconds)
        #expect(diagnostics.bufferBytes > 0)
    }
}
