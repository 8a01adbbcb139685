import PipelineFakes
import SDKTestSupport
@testable import SRTC
import Testing

@Suite("Device-level state")
struct DeviceLevelTests {
    @Test("every engine and channel sees the same virtual background state")
    func sharedAcrossEngines() throws {
        let rig = TestRig()
        let first = rig.engine(), second = rig.engine()
        let a = first.joinChannel("a"), b = second.joinChannel("b"), c = second.joinChannel("c")
        let recorders = [a, b, c].map { StreamRecorder($0.publishedVideo, camera: rig.camera) }
        try first.installVirtualBackground()
        #expect(second.virtualBackground.isInstalled)
        second.setVirtualBackgroundBlur(level: 2)
        try second.enableVirtualBackground(true)
        #expect(first.isVirtualBackgroundEnabled && first.virtualBackground.blurLevel == 2)
        rig.pipeline.captureFrames(3)
        for recorder in recorders {
            #expect(recorder.count == 3 && recorder.rawCount == 0)
            #expect(recorder.backgroundPixels.allSatisfy { $0 == blurGrey(2) })
        }
        #expect(rig.segmenter?.calls == 3, "one capture pipeline: one segmentation per frame for all channels")
    }

    @Test("the process has one shared capture pipeline")
    func onePipelinePerProcess() {
        #expect(SRTCEngine().capturePipeline === SRTCEngine().capturePipeline)
        #expect(SRTCEngine().capturePipeline === SRTCCapturePipeline.shared)
    }

    @Test("switching cameras needs no re-apply and clears the inter-frame state")
    func cameraSwitch() throws {
        let rig = try ChannelRig()
        rig.engine.setVirtualBackgroundInferenceInterval(10)
        rig.capture(2)
        rig.engine.switchCamera()
        #expect(rig.pipeline.currentCamera?.position == .back)
        rig.capture(2)
        #expect(rig.segmenter?.calls == 2, "the first frame of the new camera is segmented afresh")
        rig.engine.switchCamera()
        #expect(rig.pipeline.currentCamera?.name == "Front")
        rig.capture(1)
        #expect(rig.published.count == 5 && rig.published.rawCount == 0)
        #expect(rig.published.backgroundPixels.allSatisfy { $0 == blurGrey(5) })
        #expect(rig.engine.isVirtualBackgroundEnabled)
        #expect(rig.pipeline.switchCamera(to: "Back") && !rig.pipeline.switchCamera(to: "Side"))
    }

    @Test("turning the camera off and on needs no re-apply; settings made while off are seen once on")
    func cameraOffOn() throws {
        let rig = try ChannelRig()
        rig.capture(1)
        rig.engine.setCameraEnabled(false)
        #expect(rig.capture(3) == 0, "no frames while the camera is off")
        rig.engine.setVirtualBackgroundBlur(level: 9)
        rig.engine.setCameraEnabled(true)
        rig.capture(2)
        #expect(rig.published.count == 3 && rig.published.rawCount == 0)
        #expect(rig.published.backgroundPixels.suffix(2).allSatisfy { $0 == blurGrey(9) })
    }

    @Test("reconnecting rebuilds the track and needs no re-apply")
    func reconnect() throws {
        let rig = try ChannelRig(blurLevel: 4)
        rig.capture(2)
        rig.engine.reconnect()
        rig.capture(2)
        #expect(rig.published.count == 4 && rig.published.rawCount == 0)
        #expect(rig.published.backgroundPixels.allSatisfy { $0 == blurGrey(4) })
    }

    @Test("leaving a channel stops its published video; the others continue")
    func leaveChannel() throws {
        let rig = TestRig()
        let engine = rig.engine()
        let a = engine.joinChannel("a"), b = engine.joinChannel("b")
        #expect(engine.joinChannel("a") === a)
        rig.pipeline.captureFrames(1)
        engine.leaveChannel("a")
        rig.pipeline.captureFrames(2)
        #expect(a.publishedVideo.frameCount == 1 && b.publishedVideo.frameCount == 3)
        #expect(engine.joinedChannels.map(\.channelID) == ["b"])
    }
}
