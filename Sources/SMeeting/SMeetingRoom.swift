import SRTC

/// What a meeting's host can do to a member.
public enum SMeetingHostAction: Sendable, Hashable {
    case muteCamera
    case unmuteCamera
    case muteAudio
    case unmuteAudio
}

/// A meeting the local member has entered, in a room.
public final class SMeetingRoom: Sendable {
    private struct MemberState {
        var members: [String]
        var cameraMuted: Set<String> = []
        var audioMuted: Set<String> = []
    }

    /// The room's identifier.
    public let roomID: String
    /// The local member's identifier.
    public let localMemberID: String
    /// What the other members see from the local camera (nothing while the host mutes it).
    public var publishedVideo: SRTCVideoStream { transport.publishedVideo }

    private let transport: SRTCChannel
    private let engine: SRTCEngine
    private let state: Locked<MemberState>

    init(roomID: String, localMemberID: String, engine: SRTCEngine) {
        self.roomID = roomID
        self.localMemberID = localMemberID
        self.engine = engine
        transport = engine.joinChannel(roomID)
        state = Locked(MemberState(members: [localMemberID]))
    }

    /// The members in the meeting.
    public var members: [String] { state.withLock { $0.members } }

    /// Adds a remote member (a local engine has no server; tests and demos simulate arrivals).
    public func addMember(_ memberID: String) {
        state.withLock { if !$0.members.contains(memberID) { $0.members.append(memberID) } }
    }

    /// Applies a host action to a member. Muting the local member's camera stops the video the
    /// meeting receives; it does not touch the camera, the preview or the virtual background.
    ///
    /// - Returns: whether the member is in the meeting.
    @discardableResult
    public func performHostAction(_ action: SMeetingHostAction, on memberID: String) -> Bool {
        let known = state.withLock { state -> Bool in
            guard state.members.contains(memberID) else { return false }
            switch action {
            case .muteCamera: state.cameraMuted.insert(memberID)
            case .unmuteCamera: state.cameraMuted.remove(memberID)
            case .muteAudio: state.audioMuted.insert(memberID)
            case .unmuteAudio: state.audioMuted.remove(memberID)
            }
            return true
        }
        if known, memberID == localMemberID, action == .muteCamera || action == .unmuteCamera {
            engine.setLocalVideoMuted(action == .muteCamera, inChannel: roomID)
        }
        return known
    }

    /// Whether the host has muted a member's camera.
    public func isCameraMuted(_ memberID: String) -> Bool { state.withLock { $0.cameraMuted.contains(memberID) } }
    /// Whether the host has muted a member's audio.
    public func isAudioMuted(_ memberID: String) -> Bool { state.withLock { $0.audioMuted.contains(memberID) } }
}
