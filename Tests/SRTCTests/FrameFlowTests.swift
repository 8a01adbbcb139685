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
        let rig = try ChannelRig(enabled: false)
        var raw: [Bool] = []
        for _ in 0..<5 {
            rig.capture(1)
            raw.append(rig.camera.isRaw(rig.channel.publishedVideo.latestFrame!))
        }
        #expect(raw == Array(repeating: true, count: 5), "the camera's own buffers are published")
        #expect(rig.segmenter?.calls == 0)
        let diagnostics = rig.engine.virtualBackgroundDiagnostics
        #expect(diagnostics.inferenceCount == 0 && diagnostics.framesPassedThrough == 5 && diagnostics.bufferBytes == 0)
    }

    @Test("switching off clears the inter-frame state: switching on converges from the first frame")
    func offClearsState() throws {
        // Opens as `interval` does (rig, interval, frames, segmenter count), which `duplicates`
        // pairs with it: the same steps with other numbers, each test checking its own outcome.
        let rig = try ChannelRig()
        rig.engine.setVirtualBackgroundInferenceInterval(10)
        rig.capture(3)
        #expect(rig.segmenter?.calls == 1)
        try rig.engine.enableVirtualBackground(false)
        rig.capture(1)
        try rig.engine.enableVirtualBackground(true)
        rig.capture(1)
        #expect(rig.segmenter?.calls == 2, "the first frame after switching on is segmented, not given the old mask")
        #expect(rig.engine.virtualBackgroundDiagnostics.resetCount >= 1)
    }

    @Test("inference interval N: segmentation every N frames, compositing every frame")
    func interval() throws {
        let rig = try ChannelRig()
        rig.engine.setVirtualBackgroundInferenceInterval(3)
        rig.capture(9)
        #expect(rig.segmenter?.calls == 3)
        #expect(rig.engine.virtualBackgroundDiagnostics.framesComposited == 9)
        #expect(rig.published.count == 9 && rig.published.rawCount == 0)
    }

    @Test("mask sync: frames without inference carry the previous processed frame again")
    func maskSync() throws {
        let rig = try ChannelRig()
        rig.engine.setVirtualBackgroundInferenceInterval(2)
        rig.engine.setVirtualBackgroundMaskSync(true)
        var storages: [ObjectIdentifier] = []
        for _ in 0..<6 {
            rig.capture(1)
            storages.append(ObjectIdentifier(rig.channel.publishedVideo.latestFrame!.storage))
        }
        #expect(storages[1] == storages[0] && storages[3] == storages[2] && storages[5] == storages[4])
        #expect(storages[2] != storages[0])
        #expect(rig.segmenter?.calls == 3)
        #expect(rig.engine.virtualBackgroundDiagnostics.framesRepeated == 3)
    }

    @Test("with interval 1, mask sync changes nothing")
    func maskSyncIntervalOne() throws {
        func run(maskSync: Bool) throws -> ([[UInt8]], SRTCVirtualBackgroundDiagnostics) {
            let rig = try ChannelRig()
            rig.engine.setVirtualBackgroundMaskSync(maskSync)
            rig.capture(6)
            return (rig.published.backgroundPixels, rig.engine.virtualBackgroundDiagnostics)
        }
        let (withSync, syncStats) = try run(maskSync: true)
        let (without, plainStats) = try run(maskSync: false)
        #expect(withSync == without)
        #expect(syncStats.inferenceCount == 6 && plainStats.inferenceCount == 6 && syncStats.framesRepeated == 0)
    }

    @Test("fail closed: a segmentation failure drops the frame; no raw frame reaches the published stream or the preview")
    func segmentationFailureFailsClosed() throws {
        let rig = try ChannelRig()
        let published = rig.published, preview = StreamRecorder(rig.engine.localPreview, camera: rig.camera)
        rig.capture(2)
        rig.segmenter?.failing = true
        rig.capture(3)
        #expect(rig.engine.virtualBackground.droppedFrameCount == 3)
        #expect(rig.engine.virtualBackgroundDiagnostics.droppedForSegmentationFailure == 3)
        rig.segmenter?.failing = false
        rig.capture(2)
        #expect(published.count == 4 && preview.count == 4, "the 3 failed frames were not sent")
        #expect(published.rawCount == 0 && preview.rawCount == 0)
        #expect(published.backgroundPixels.allSatisfy { $0 == blurGrey(5) })
    }

    @Test("fail closed: an exhausted output buffer pool drops the frame; no raw frame is sent")
    func poolExhaustionFailsClosed() throws {
        let rig = try ChannelRig(poolCapacity: 3, keepFrames: true)
        let hoarder = rig.published, preview = StreamRecorder(rig.engine.localPreview, camera: rig.camera)
        rig.capture(6)
        // 3 buffers: the hoarder keeps every frame, so after 3 frames none is free.
        #expect(hoarder.count == 3 && preview.count == 3)
        #expect(rig.engine.virtualBackground.droppedFrameCount == 3)
        #expect(rig.engine.virtualBackgroundDiagnostics.droppedForPoolExhaustion == 3)
        #expect(hoarder.rawCount == 0 && preview.rawCount == 0)
        hoarder.releaseFrames()
        rig.capture(2)
        #expect(hoarder.count == 5, "frames flow again once buffers are released")
    }

    @Test("local preview shows exactly what is published while on, and the raw camera while off")
    func previewMatchesPublished() throws {
        let rig = try ChannelRig()
        for _ in 0..<3 {
            rig.capture(1)
            let preview = rig.engine.localPreview.latestFrame!, published = rig.channel.publishedVideo.latestFrame!
            #expect(preview.storage === published.storage)
            #expect(!rig.camera.isRaw(preview))
        }
        try rig.engine.enableVirtualBackground(false)
        for _ in 0..<3 {
            rig.capture(1)
            let preview = rig.engine.localPreview.latestFrame!, published = rig.channel.publishedVideo.latestFrame!
            #expect(rig.camera.isRaw(preview) && preview.storage === published.storage)
        }
    }

    @Test("a resolution change clears the inter-frame state")
    func resolutionChange() throws {
        let rig = try ChannelRig()
        rig.engine.setVirtualBackgroundInferenceInterval(10)
        rig.capture(3)
        rig.camera.setResolution(width: 24, height: 16)
        rig.capture(2)
        #expect(rig.segmenter?.calls == 2)
        #expect(rig.engine.localPreview.latestFrame?.width == 24)
    }
}
