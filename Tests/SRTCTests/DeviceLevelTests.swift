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
        let rig = TestRig()
        let engine = rig.engine()
        let channel = engine.joinChannel("c")
        let recorder = StreamRecorder(channel.publishedVideo, camera: rig.camera)
        try engine.installVirtualBackground()
        try engine.enableVirtualBackground(true)
        engine.setVirtualBackgroundInferenceInterval(10)
        rig.pipeline.captureFrames(2)
        engine.switchCamera()
        #expect(rig.pipeline.currentCamera?.position == .back)
        rig.pipeline.captureFrames(2)
        #expect(rig.segmenter?.calls == 2, "the first frame of the new camera is segmented afresh")
        engine.switchCamera()
        #expect(rig.pipeline.currentCamera?.name == "Front")
        rig.pipeline.captureFrames(1)
        #expect(recorder.count == 5 && recorder.rawCount == 0)
        #expect(recorder.backgroundPixels.allSatisfy { $0 == blurGrey(5) })
        #expect(engine.isVirtualBackgroundEnabled)
        #expect(rig.pipeline.switchCamera(to: "Back") && !rig.pipeline.switchCamera(to: "Side"))
    }

    @Test("turning the camera off and on needs no re-apply; settings made while off are seen once on")
    func cameraOffOn() throws {
        let rig = TestRig()
        let engine = rig.engine()
        let channel = engine.joinChannel("c")
        let recorder = StreamRecorder(channel.publishedVideo, camera: rig.camera)
        try engine.installVirtualBackground()
        try engine.enableVirtualBackground(true)
        rig.pipeline.captureFrames(1)
        engine.setCameraEnabled(false)
        #expect(rig.pipeline.captureFrames(3) == 0, "no frames while the camera is off")
        engine.setVirtualBackgroundBlur(level: 9)
        engine.setCameraEnabled(true)
        rig.pipeline.captureFrames(2)
        #expect(recorder.count == 3 && recorder.rawCount == 0)
        #expect(recorder.backgroundPixels.suffix(2).allSatisfy { $0 == blurGrey(9) })
    }

    @Test("reconnecting rebuilds the track and needs no re-apply")
    func reconnect() throws {
        let rig = TestRig()
        let engine = rig.engine()
        let channel = engine.joinChannel("c")
        let recorder = StreamRecorder(channel.publishedVideo, camera: rig.camera)
        try engine.installVirtualBackground()
        engine.setVirtualBackgroundBlur(level: 4)
        try engine.enableVirtualBackground(true)
        rig.pipeline.captureFrames(2)
        engine.reconnect()
        rig.pipeline.captureFrames(2)
        #expect(recorder.count == 4 && recorder.rawCount == 0)
        #expect(recorder.backgroundPixels.allSatisfy { $0 == blurGrey(4) })
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
