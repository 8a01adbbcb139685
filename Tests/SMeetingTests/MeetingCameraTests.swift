import SDKTestSupport
@testable import SMeeting
import Testing

@Suite("The camera from the meeting layer")
struct MeetingCameraTests {
    @Test("a meeting app captures the camera's frames with SMeeting alone; each meeting and the preview receive them")
    func capturesWithSMeetingAlone() throws {
        let rig = TestRig()
        let meeting = SMeetingEngine(rtc: rig.engine())
        let room = meeting.enterMeeting(roomID: "r")
        try meeting.installVirtualBackground()
        try meeting.enableVirtualBackground(true)

        #expect(meetingCapturesFrames(meeting, count: 3) == 3)
        #expect(meeting.capturePipeline === rig.pipeline)
        #expect(room.publishedVideo.frameCount == 3 && meeting.localPreview.frameCount == 3)
        #expect(room.publishedVideo.latestFrame?.image.width == 32)
        #expect(meeting.virtualBackground.droppedFrameCount == 0)
    }

    @Test("a camera file that does not exist is the camera's error")
    func missingCameraFile() {
        let meeting = SMeetingEngine(rtc: TestRig().engine())
        #expect(meetingOpensY4MCamera(meeting, path: "/nonexistent/camera.y4m")?.contains("/nonexistent/camera.y4m") == true)
    }
}
