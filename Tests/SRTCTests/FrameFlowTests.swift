import FramePipeline
import Imaging
import PipelineFakes
import SDKTestSupport
@testable import SRTC
import Testing

@Suite("Frames through the camera pipeline")
struct FrameFlowTests {
    @Test("off: frames pass through untouched with zero overhead (same storage, no inference)")
    func offPassthrough() throws {
        let rig = TestRig()
        let engine = rig.engine()
        let channel = engine.joinChannel("c1")
        try engine.installVirtualBackground()
        var raw: [Bool] = []
        for _ in 0..<5 {
            rig.pipeline.captureFrames(1)
            raw.append(rig.camera.isRaw(channel.publishedVideo.latestFrame!))
        }
        #expect(raw == Array(repeating: true, count: 5), "the camera's own buffers are published")
        #expect(rig.segmenter?.calls == 0)
        let diagnostics = engine.virtualBackgroundDiagnostics
        #expect(diagnostics.inferenceCount == 0 && diagnostics.framesPassedThrough == 5 && diagnostics.bufferBytes == 0)
    }

    @Test("switching off clears the inter-frame state: switching on converges from the first frame")
    func offClearsState() throws {
        let rig = TestRig()
        let engine = rig.engine()
        try engine.installVirtualBackground()
        engine.setVirtualBackgroundInferenceInterval(10)
        try engine.enableVirtualBackground(true)
        rig.pipeline.captureFrames(3)
        #expect(rig.segmenter?.calls == 1)
        try engine.enableVirtualBackground(false)
        rig.pipeline.captureFrames(1)
        try engine.enableVirtualBackground(true)
        rig.pipeline.captureFrames(1)
        #expect(rig.segmenter?.calls == 2, "the first frame after switching on is segmented, not given the old mask")
        #expect(engine.virtualBackgroundDiagnostics.resetCount >= 1)
    }

    @Test("inference interval N: segmentation every N frames, compositing every frame")
    func interval() throws {
        let rig = TestRig()
        let engine = rig.engine()
        let channel = engine.joinChannel("c1")
        let recorder = StreamRecorder(channel.publishedVideo, camera: rig.camera)
        try engine.installVirtualBackground()
        try engine.enableVirtualBackground(true)
        engine.setVirtualBackgroundInferenceInterval(3)
        rig.pipeline.captureFrames(9)
        #expect(rig.segmenter?.calls == 3)
        #expect(engine.virtualBackgroundDiagnostics.framesComposited == 9)
        #expect(recorder.count == 9 && recorder.rawCount == 0)
    }

    @Test("mask sync: frames without inference carry the previous processed frame again")
    func maskSync() throws {
        let rig = TestRig()
        let engine = rig.engine()
        let channel = engine.joinChannel("c1")
        try engine.installVirtualBackground()
        try engine.enableVirtualBackground(true)
        engine.setVirtualBackgroundInferenceInterval(2)
        engine.setVirtualBackgroundMaskSync(true)
        var storages: [ObjectIdentifier] = []
        for _ in 0..<6 {
            rig.pipeline.captureFrames(1)
            storages.append(ObjectIdentifier(channel.publishedVideo.latestFrame!.storage))
        }
        #expect(storages[1] == storages[0] && storages[3] == storages[2] && storages[5] == storages[4])
        #expect(storages[2] != storages[0])
        #expect(rig.segmenter?.calls == 3)
        #expect(engine.virtualBackgroundDiagnostics.framesRepeated == 3)
    }

    @Test("with interval 1, mask sync changes nothing")
    func maskSyncIntervalOne() throws {
        func run(maskSync: Bool) throws -> ([[UInt8]], SRTCVirtualBackgroundDiagnostics) {
            let rig = TestRig()
            let engine = rig.engine()
            let recorder = StreamRecorder(engine.localPreview)
            try engine.installVirtualBackground()
            try engine.enableVirtualBackground(true)
            engine.setVirtualBackgroundMaskSync(maskSync)
            rig.pipeline.captureFrames(6)
            return (recorder.backgroundPixels, engine.virtualBackgroundDiagnostics)
        }
        let (withSync, syncStats) = try run(maskSync: true)
        let (without, plainStats) = try run(maskSync: false)
        #expect(withSync == without)
        #expect(syncStats.inferenceCount == 6 && plainStats.inferenceCount == 6 && syncStats.framesRepeated == 0)
    }

    @Test("fail closed: a segmentation failure drops the frame; no raw frame reaches the published stream or the preview")
    func segmentationFailureFailsClosed() throws {
        let rig = TestRig()
        let engine = rig.engine()
        let channel = engine.joinChannel("c1")
        let published = StreamRecorder(channel.publishedVideo, camera: rig.camera)
        let preview = StreamRecorder(engine.localPreview, camera: rig.camera)
        try engine.installVirtualBackground()
        try engine.enableVirtualBackground(true)
        rig.pipeline.captureFrames(2)
        rig.segmenter?.failing = true
        rig.pipeline.captureFrames(3)
        #expect(engine.virtualBackground.droppedFrameCount == 3)
        #expect(engine.virtualBackgroundDiagnostics.droppedForSegmentationFailure == 3)
        rig.segmenter?.failing = false
        rig.pipeline.captureFrames(2)
        #expect(published.count == 4 && preview.count == 4, "the 3 failed frames were not sent")
        #expect(published.rawCount == 0 && preview.rawCount == 0)
        #expect(published.backgroundPixels.allSatisfy { $0 == blurGrey(5) })
    }

    @Test("fail closed: an exhausted output buffer pool drops the frame; no raw frame is sent")
    func poolExhaustionFailsClosed() throws {
        let rig = TestRig(poolCapacity: 3)
        let engine = rig.engine()
        let channel = engine.joinChannel("c1")
        let hoarder = StreamRecorder(channel.publishedVideo, camera: rig.camera, keepFrames: true)
        let preview = StreamRecorder(engine.localPreview, camera: rig.camera)
        try engine.installVirtualBackground()
        try engine.enableVirtualBackground(true)
        rig.pipeline.captureFrames(6)
        // 3 buffers: the hoarder keeps every frame, so after 3 frames none is free.
        #expect(hoarder.count == 3 && preview.count == 3)
        #expect(engine.virtualBackground.droppedFrameCount == 3)
        #expect(engine.virtualBackgroundDiagnostics.droppedForPoolExhaustion == 3)
        #expect(hoarder.rawCount == 0 && preview.rawCount == 0)
        hoarder.releaseFrames()
        rig.pipeline.captureFrames(2)
        #expect(hoarder.count == 5, "frames flow again once buffers are released")
    }

    @Test("local preview shows exactly what is published while on, and the raw camera while off")
    func previewMatchesPublished() throws {
        let rig = TestRig()
        let engine = rig.engine()
        let channel = engine.joinChannel("c1")
        try engine.installVirtualBackground()
        try engine.enableVirtualBackground(true)
        for _ in 0..<3 {
            rig.pipeline.captureFrames(1)
            let preview = engine.localPreview.latestFrame!, published = channel.publishedVideo.latestFrame!
            #expect(preview.storage === published.storage)
            #expect(!rig.camera.isRaw(preview))
        }
        try engine.enableVirtualBackground(false)
        for _ in 0..<3 {
            rig.pipeline.captureFrames(1)
            let preview = engine.localPreview.latestFrame!, published = channel.publishedVideo.latestFrame!
            #expect(rig.camera.isRaw(preview) && preview.storage === published.storage)
        }
    }

    @Test("a resolution change clears the inter-frame state")
    func resolutionChange() throws {
        let rig = TestRig()
        let engine = rig.engine()
        try engine.installVirtualBackground()
        try engine.enableVirtualBackground(true)
        engine.setVirtualBackgroundInferenceInterval(10)
        rig.pipeline.captureFrames(3)
        rig.camera.setResolution(width: 24, height: 16)
        rig.pipeline.captureFrames(2)
        #expect(rig.segmenter?.calls == 2)
        #expect(engine.localPreview.latestFrame?.width == 24)
    }
}
