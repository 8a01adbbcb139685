import SDKTestSupport
@testable import SMeeting
import SRTC
import Testing

private func makeMeeting(_ rig: TestRig) -> SMeetingEngine { SMeetingEngine(rtc: rig.engine()) }

/// The set-up most meeting tests share: a private ``TestRig``, a meeting engine on it, one meeting
/// entered with a recorder of what it receives, and the virtual background installed at
/// `blurLevel` and switched on.
private struct MeetingRig {
    let rig = TestRig()
    let meeting: SMeetingEngine
    let room: SMeetingRoom
    /// What the meeting receives (raw frames told apart by the rig's camera).
    let received: StreamRecorder

    init(blurLevel: Int = 5) throws {
        meeting = makeMeeting(rig)
        room = meeting.enterMeeting(roomID: "r")
        received = StreamRecorder(room.publishedVideo, camera: rig.camera)
        try meeting.installVirtualBackground()
        meeting.setVirtualBackgroundBlur(level: blurLevel)
        try meeting.enableVirtualBackground(true)
    }

    func capture(_ count: Int) { rig.pipeline.captureFrames(count) }
}

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
        // Set up step by step, not with MeetingRig, because the order is what this test and
        // settingsWhileCameraOff check (so their openings match).
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
        let fixture = try MeetingRig(blurLevel: 6)
        let meeting = fixture.meeting, room = fixture.room, recorder = fixture.received
        let before = meeting.virtualBackground
        #expect(room.performHostAction(.muteAudio, on: meeting.localMemberID))
        #expect(room.performHostAction(.muteCamera, on: meeting.localMemberID))
        #expect(room.isCameraMuted(meeting.localMemberID) && room.isAudioMuted(meeting.localMemberID))
        fixture.capture(2)
        #expect(recorder.count == 0, "a muted camera sends nothing to the meeting")
        #expect(meeting.localPreview.latestFrame.map { !fixture.rig.camera.isRaw($0) } == true, "the preview stays processed")
        #expect(meeting.virtualBackground == before)
        room.performHostAction(.unmuteCamera, on: meeting.localMemberID)
        room.performHostAction(.unmuteAudio, on: meeting.localMemberID)
        fixture.capture(2)
        #expect(recorder.count == 2 && recorder.rawCount == 0)
        #expect(recorder.backgroundPixels.allSatisfy { $0 == blurGrey(6) })
        #expect(!room.performHostAction(.muteCamera, on: "stranger"))
    }

    @Test("switching cameras, turning the camera off and on, and reconnecting need no re-apply")
    func noReapply() throws {
        let fixture = try MeetingRig(blurLevel: 4)
        let meeting = fixture.meeting
        fixture.capture(1)
        meeting.switchCamera()
        fixture.capture(1)
        meeting.setCameraEnabled(false)
        meeting.setCameraEnabled(true)
        fixture.capture(1)
        meeting.reconnect()
        fixture.capture(1)
        #expect(fixture.received.count == 4)
        #expect(fixture.received.backgroundPixels.allSatisfy { $0 == blurGrey(4) })
        #expect(meeting.isVirtualBackgroundEnabled)
    }

    @Test("local preview shows what the meetings receive while on, and the raw camera while off")
    func preview() throws {
        let fixture = try MeetingRig()
        let meeting = fixture.meeting, camera = fixture.rig.camera
        fixture.capture(1)
        #expect(meeting.localPreview.latestFrame?.storage === fixture.room.publishedVideo.latestFrame?.storage)
        #expect(!camera.isRaw(meeting.localPreview.latestFrame!))
        try meeting.enableVirtualBackground(false)
        fixture.capture(1)
        #expect(camera.isRaw(meeting.localPreview.latestFrame!))
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
