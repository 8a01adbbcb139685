import Foundation
import SRTC

/// The meeting layer's engine: rooms are identifiers, the local member can be in several meetings
/// at once (enter, exit), each meeting receives the camera's video, and the engine has a local
/// preview.
///
/// This engine runs locally, with no server. The camera and its virtual background are
/// device-level (shared by every engine and every meeting of the process), so the virtual
/// background methods here act on all meetings at once. Every method is safe from any thread.
public final class SMeetingEngine: Sendable {
    let rtc: SRTCEngine
    private let rooms = Locked<[SMeetingRoom]>([])
    /// The local member's identifier.
    public let localMemberID: String

    /// A local engine on the process's camera.
    public convenience init() { self.init(rtc: SRTCEngine()) }

    /// An engine on a given audio and video engine (tests use private capture pipelines).
    package init(rtc: SRTCEngine, localMemberID: String = "local") {
        self.rtc = rtc
        self.localMemberID = localMemberID
    }

    /// What the camera shows on this device: the processed video while the virtual background is
    /// on (the same frames the meetings receive), the raw camera while it is off.
    public var localPreview: SRTCVideoStream { rtc.localPreview }

    // MARK: Meetings

    /// Enters the meeting in `roomID`; the camera's video is sent to it. Entering a meeting already
    /// entered returns it unchanged.
    @discardableResult
    public func enterMeeting(roomID: String) -> SMeetingRoom {
        rooms.withLock { rooms in
            if let existing = rooms.first(where: { $0.roomID == roomID }) { return existing }
            let room = SMeetingRoom(roomID: roomID, localMemberID: localMemberID, engine: rtc)
            rooms.append(room)
            return room
        }
    }

    /// Exits the meeting in `roomID`.
    public func exitMeeting(roomID: String) {
        let exited = rooms.withLock { rooms -> Bool in
            guard let index = rooms.firstIndex(where: { $0.roomID == roomID }) else { return false }
            rooms.remove(at: index)
            return true
        }
        if exited { rtc.leaveChannel(roomID) }
    }

    /// The meetings entered, in order.
    public var meetings: [SMeetingRoom] { rooms.withLock { $0 } }

    /// Simulates a reconnection after a disconnect: every meeting's video track is rebuilt. The
    /// virtual background needs no re-apply.
    public func reconnect() { rtc.reconnect() }

    // MARK: Camera

    /// The device's camera capture pipeline (``SRTCCapturePipeline/shared`` for `SMeetingEngine()`):
    /// its cameras, and ``SRTCCapturePipeline/captureFrames(_:)``, which a camera driver, or an app
    /// that plays one, calls on the capture thread to send the camera's frames through the virtual
    /// background to every meeting and the local preview.
    public var capturePipeline: SRTCCapturePipeline { rtc.capturePipeline }

    /// Turns the camera on or off. Virtual background settings made while it is off apply once it is on.
    public func setCameraEnabled(_ enabled: Bool) { rtc.setCameraEnabled(enabled) }
    /// Whether the camera is on.
    public var isCameraEnabled: Bool { rtc.isCameraEnabled }
    /// Switches between the front and back cameras. The virtual background needs no re-apply.
    public func switchCamera() { rtc.switchCamera() }
}
