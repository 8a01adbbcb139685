import Foundation
import Imaging
import PNGCodec
import SDKTestSupport
@testable import SMeeting
import SRTC
import Testing

@Suite("The page's snippets")
struct PageSnippetTests {
    @Test("the page's steps run as documented: install, effect, on, low-end settings, uninstall")
    func pageStepsRun() async throws {
        let rig = TestRig()
        let meeting = SMeetingEngine(rtc: rig.engine())
        let room = meeting.enterMeeting(roomID: "room-1")
        let recorder = StreamRecorder(room.publishedVideo, camera: rig.camera)

        await pageStep1(meeting: meeting).value
        #expect(meeting.virtualBackground.isInstalled)

        // A "background.png" in the working directory, as SRTCNativeImage(named:) looks there.
        let path = FileManager.default.currentDirectoryPath + "/background.png"
        let created = !FileManager.default.fileExists(atPath: path)
        if created { try PNG.write(Image(width: 4, height: 4, filledWith: (12, 34, 56, 255)), toFile: path) }
        defer { if created { try? FileManager.default.removeItem(atPath: path) } }
        pageStep2(meeting: meeting)
        #expect(meeting.virtualBackground.effect == .image)
        #expect(meeting.virtualBackground.blurLevel == 5)

        #expect(try pageStep3(meeting: meeting))
        pageStep4(meeting: meeting)
        #expect(meeting.virtualBackground.inferenceInterval == 2 && meeting.virtualBackground.maskSync)
        rig.pipeline.captureFrames(4)
        #expect(recorder.count == 4 && recorder.rawCount == 0)
        if created { #expect(recorder.backgroundPixels.allSatisfy { $0 == [12, 34, 56] }) }
        pageDroppedFrames(meeting: meeting)
        #expect(pageState(meeting: meeting).0 == 0)

        pageStep5(meeting: meeting)
        #expect(!meeting.virtualBackground.isInstalled)
        #expect(pageErrors().count == 4)
    }

    @Test("SRTCNativeImage loads PNG files by path and by name; a missing one is nil")
    func nativeImageLoading() throws {
        let name = "vbg-test-\(UUID().uuidString)"
        let path = FileManager.default.currentDirectoryPath + "/\(name).png"
        try PNG.write(Image(width: 3, height: 2, filledWith: (1, 2, 3, 255)), toFile: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #if !canImport(UIKit) && !canImport(AppKit)
        #expect(SRTCNativeImage(named: name)?.image.width == 3)
        #expect(SRTCNativeImage(contentsOfFile: path)?.image.height == 2)
        #endif
        #expect(SRTCNativeImage(named: "no-such-\(name)") == nil)
        #expect(SRTCNativeImage(contentsOfFile: "/nonexistent.png") == nil)
    }
}
