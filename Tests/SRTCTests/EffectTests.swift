import Imaging
import PipelineFakes
import SDKTestSupport
@testable import SRTC
import Testing

/// An image whose first pixel (the fake compositor's background colour) is `colour`.
private func picture(_ colour: (UInt8, UInt8, UInt8)) -> SRTCNativeImage {
    SRTCNativeImage(image: Image(width: 4, height: 3, filledWith: (colour.0, colour.1, colour.2, 255)))
}

@Suite("Background effect")
struct EffectTests {
    @Test("blur and image are mutually exclusive: the later call wins; nil goes back to blur")
    func laterCallWins() throws {
        let rig = try ChannelRig()
        let engine = rig.engine, preview = rig.published

        engine.setVirtualBackgroundBlur(level: 3)
        engine.setVirtualBackgroundImage(picture((1, 2, 3)))
        #expect(engine.virtualBackground.effect == .image)
        rig.capture(1)
        #expect(preview.backgroundPixels.last == [1, 2, 3])

        engine.setVirtualBackgroundBlur(level: 3)
        #expect(engine.virtualBackground.effect == .blur)
        rig.capture(1)
        #expect(preview.backgroundPixels.last == blurGrey(3))

        engine.setVirtualBackgroundImage(picture((9, 8, 7)))
        engine.setVirtualBackgroundImage(nil)
        #expect(engine.virtualBackground.effect == .blur)
        rig.capture(1)
        #expect(preview.backgroundPixels.last == blurGrey(3), "nil image: back to blur at the last level")
    }

    @Test("both are remembered before installation and take effect once installed")
    func rememberedBeforeInstall() throws {
        let rig = TestRig()
        let engine = rig.engine()
        let preview = StreamRecorder(engine.localPreview)
        engine.setVirtualBackgroundBlur(level: 7)
        engine.setVirtualBackgroundImage(picture((40, 50, 60)))
        rig.pipeline.captureFrames(1)
        try engine.installVirtualBackground()
        try engine.enableVirtualBackground(true)
        rig.pipeline.captureFrames(1)
        #expect(preview.backgroundPixels.last == [40, 50, 60])
        engine.setVirtualBackgroundImage(nil)
        #expect(engine.virtualBackground.blurLevel == 7)
    }

    @Test("blur level is 1…10, default 5, out-of-range values clamped", arguments: [
        (0, 1), (-3, 1), (1, 1), (5, 5), (10, 10), (11, 10), (Int.max, 10), (Int.min, 1),
    ])
    func blurLevelClamped(level: Int, expected: Int) {
        let engine = TestRig().engine()
        #expect(engine.virtualBackground.blurLevel == 5)
        #expect(engine.virtualBackground.effect == .blur)
        engine.setVirtualBackgroundBlur(level: level)
        #expect(engine.virtualBackground.blurLevel == expected)
    }

    @Test("inference interval below 1 is stored as 1; defaults are interval 1, mask sync off")
    func intervalDefaults() {
        let engine = TestRig().engine()
        #expect(engine.virtualBackground.inferenceInterval == 1 && !engine.virtualBackground.maskSync)
        engine.setVirtualBackgroundInferenceInterval(0)
        #expect(engine.virtualBackground.inferenceInterval == 1)
        engine.setVirtualBackgroundInferenceInterval(-2)
        #expect(engine.virtualBackground.inferenceInterval == 1)
        engine.setVirtualBackgroundInferenceInterval(4)
        #expect(engine.virtualBackground.inferenceInterval == 4)
    }
}
