import SDKTestSupport
@testable import SMeeting
import SRTC
import Testing

private func makeMeeting(_ rig: TestRig) -> SMeetingEngine { SMeetingEngine(rtc: rig.engine()) }

@Suite("Meetings and the virtual background")
struct MeetingTests {
    @Test("several meetings at once: each receives the camera's processed video; there is no per-room setting")
    func severalMeetings() throws {
        let rig = TestRig()
        let meeting = makeMeeting(rig)
        let rooms = ["a", "b", "c"].map { meeting.enterMeeting(roomID: $0) }
        let recorders = rooms.map { StreamRecorder($0.publishedVideo, camera: rig.camera) }
        try meeting.installVirtualBackground()
        meeting.setVirtualBackgroundBlur(level: 3)
        try meeting.enableVirtualBackground(true)
        rig.pipeline.captureFrames(2)
        for recorder in recorders {
            #expect(recorder.count == 2 && recorder.rawCount == 0)
            #expect(recorder.backgroundPixels.allSatisfy { $0 == blurGrey(3) })
        }
        meeting.exitMeeting(roomID: "b")
        rig.pipeline.captureFrames(1)
        #expect(recorders.map(\.count) == [3, 2, 3])
        #expect(meeting.meetings.map(\.roomID) == ["a", "c"])
    }

    @Test("settings work before entering a meeting")
    func settingsBeforeEntering() throws {
        let rig = TestRig()
        let meeting = makeMeeting(rig)
        try meeting.installVirtualBackground()
        meeting.setVirtualBackgroundBlur(level: 8)
        try meeting.enableVirtualBackground(true)
        let room = meeting.enterMeeting(roomID: "r")
        let recorder = StreamRecorder(room.publishedVideo, camera: rig.camera)
        rig.pipeline.captureFrames(2)
        #expect(recorder.rawCount == 0 && recorder.backgroundPixels.allSatisfy { $0 == blurGrey(8) })
    }

    @Test("settings work after entering a meeting")
    func settingsAfterEntering() throws {
        let rig = TestRig()
        let meeting = makeMeeting(rig)
        let room = meeting.enterMeeting(roomID: "r")
        let recorder = StreamRecorder(room.publishedVideo, camera: rig.camera)
        rig.pipeline.captureFrames(1)
        #expect(recorder.rawCount == 1, "off: the raw camera")
        try meeting.installVirtualBackground()
        try meeting.enableVirtualBackground(true)
        rig.pipeline.captureFrames(1)
        #expect(recorder.rawCount == 1 && recorder.count == 2)
    }

    @Test("settings made while the camera is off are remembered and seen once it is on")
    func settingsWhileCameraOff() throws {
        let rig = TestRig()
        let meeting = makeMeeting(rig)
        let room = meeting.enterMeeting(roomID: "r")
        let recorder = StreamRecorder(room.publishedVideo, camera: rig.camera)
        meeting.setCameraEnabled(false)
        try meeting.installVirtualBackground()
        meeting.setVirtualBackgroundBlur(level: 2)
        try meeting.enableVirtualBackground(true)
        rig.pipeline.captureFrames(3)
        #expect(recorder.count == 0)
        meeting.setCameraEnabled(true)
        rig.pipeline.captureFrames(2)
        #expect(recorder.count == 2 && recorder.rawCount == 0)
        #expect(recorder.backgroundPixels.allSatisfy { $0 == blurGrey(2) })
    }

    @Test("host actions (mute camera, mute audio) do not affect the virtual background")
    func hostActions() throws {
        let rig = TestRig()
        let meeting = makeMeeting(rig)
        let room = meeting.enterMeeting(roomID: "r")
        let recorder = StreamRecorder(room.publishedVideo, camera: rig.camera)
        try meeting.installVirtualBackground()
        meeting.setVirtualBackgroundBlur(level: 6)
        try meeting.enableVirtualBackground(true)
        let before = meeting.virtualBackground
        #expect(room.performHostAction(.muteAudio, on: meeting.localMemberID))
        #expect(room.performHostAction(.muteCamera, on: meeting.localMemberID))
        #expect(room.isCameraMuted(meeting.localMemberID) && room.isAudioMuted(meeting.localMemberID))
        rig.pipeline.captureFrames(2)
        #expect(recorder.count == 0, "a muted camera sends nothing to the meeting")
        #expect(meeting.localPreview.latestFrame.map { !rig.camera.isRaw($0) } == true, "the preview stays processed")
        #expect(meeting.virtualBackground == before)
        room.performHostAction(.unmuteCamera, on: meeting.localMemberID)
        room.performHostAction(.unmuteAudio, on: meeting.localMemberID)
        rig.pipeline.captureFrames(2)
        #expect(recorder.count == 2 && recorder.rawCount == 0)
        #expect(recorder.backgroundPixels.allSatisfy { $0 == blurGrey(6) })
        #expect(!room.performHostAction(.muteCamera, on: "stranger"))
    }

    @Test("switching cameras, turning the camera off and on, and reconnecting need no re-apply")
    func noReapply() throws {
        let rig = TestRig()
        let meeting = makeMeeting(rig)
        let room = meeting.enterMeeting(roomID: "r")
        let recorder = StreamRecorder(room.publishedVideo, camera: rig.camera)
        try meeting.installVirtualBackground()
        meeting.setVirtualBackgroundBlur(level: 4)
        try meeting.enableVirtualBackground(true)
        rig.pipeline.captureFrames(1)
        meeting.switchCamera()
        rig.pipeline.captureFrames(1)
        meeting.setCameraEnabled(false)
        meeting.setCameraEnabled(true)
        rig.pipeline.captureFrames(1)
        meeting.reconnect()
        rig.pipeline.captureFrames(1)
        #expect(recorder.count == 4)
        #expect(recorder.backgroundPixels.allSatisfy { $0 == blurGrey(4) })
        #expect(meeting.isVirtualBackgroundEnabled)
    }

    @Test("local preview shows what the meetings receive while on, and the raw camera while off")
    func preview() throws {
        let rig = TestRig()
        let meeting = makeMeeting(rig)
        let room = meeting.enterMeeting(roomID: "r")
        try meeting.installVirtualBackground()
        try meeting.enableVirtualBackground(true)
        rig.pipeline.captureFrames(1)
        #expect(meeting.localPreview.latestFrame?.storage === room.publishedVideo.latestFrame?.storage)
        #expect(!rig.camera.isRaw(meeting.localPreview.latestFrame!))
        try meeting.enableVirtualBackground(false)
        rig.pipeline.captureFrames(1)
        #expect(rig.camera.isRaw(meeting.localPreview.latestFrame!))
    }

    @Test("two meeting engines share the device-level state")
    func twoEngines() throws {
        let rig = TestRig()
        let first = makeMeeting(rig), second = makeMeeting(rig)
        try first.installVirtualBackground()
        try second.enableVirtualBackground(true)
        #expect(first.isVirtualBackgroundEnabled)
        #expect(throws: SRTCError.virtualBackgroundAlreadyInstalled) { try second.installVirtualBackground() }
    }
}
