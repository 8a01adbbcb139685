/// The audio and video layer's engine: channels (join, leave), the local camera track, custom
/// video tracks, the local preview, and the device-level virtual background.
///
/// All engines of a process share ``SRTCCapturePipeline/shared``: the camera and the virtual
/// background are device-level. Every method is safe from any thread.
public final class SRTCEngine: Sendable {
    /// The device-level camera capture pipeline this engine uses.
    public let capturePipeline: SRTCCapturePipeline
    /// What the local camera shows on this device: the processed video (exactly what is published)
    /// while the virtual background is on, the raw camera while it is off.
    public let localPreview = SRTCVideoStream()
    private let channels = Locked<[SRTCChannel]>([])

    /// An engine on the process's capture pipeline.
    public convenience init() { self.init(capturePipeline: .shared) }

    /// An engine on a given capture pipeline (tests use private pipelines).
    package init(capturePipeline: SRTCCapturePipeline) {
        self.capturePipeline = capturePipeline
        capturePipeline.addDestination(localPreview)
    }

    deinit {
        capturePipeline.removeDestination(localPreview)
        for channel in channels.withLock({ $0 }) { capturePipeline.removeDestination(channel.publishedVideo) }
    }

    // MARK: Channels

    /// Joins a channel and publishes the local camera track in it. Joining a channel already
    /// joined returns it unchanged.
    @discardableResult
    public func joinChannel(_ channelID: String) -> SRTCChannel {
        let channel = channels.withLock { channels -> SRTCChannel in
            if let existing = channels.first(where: { $0.channelID == channelID }) { return existing }
            let channel = SRTCChannel(channelID: channelID)
            channels.append(channel)
            return channel
        }
        capturePipeline.addDestination(channel.publishedVideo)
        return channel
    }

    /// Leaves a channel; its published video stops.
    public func leaveChannel(_ channelID: String) {
        let left = channels.withLock { channels -> SRTCChannel? in
            guard let index = channels.firstIndex(where: { $0.channelID == channelID }) else { return nil }
            return channels.remove(at: index)
        }
        if let left { capturePipeline.removeDestination(left.publishedVideo) }
    }

    /// Stops (or resumes) publishing the local camera track in a joined channel. The camera and
    /// the virtual background are not affected.
    public func setLocalVideoMuted(_ muted: Bool, inChannel channelID: String) {
        guard let channel = channels.withLock({ $0.first { $0.channelID == channelID } }) else { return }
        if muted {
            capturePipeline.removeDestination(channel.publishedVideo)
        } else {
            capturePipeline.addDestination(channel.publishedVideo)
        }
    }

    /// The channels joined, in joining order.
    public var joinedChannels: [SRTCChannel] { channels.withLock { $0 } }

    /// Simulates a reconnection: the camera track is unpublished from every channel and rebuilt.
    /// The virtual background needs no re-apply: the capture pipeline reads it for every frame.
    public func reconnect() {
        let joined = channels.withLock { $0 }
        for channel in joined { capturePipeline.removeDestination(channel.publishedVideo) }
        for channel in joined { capturePipeline.addDestination(channel.publishedVideo) }
    }

    // MARK: Tracks

    /// A new video track fed by the app (for apps that take over capture).
    public func makeCustomVideoTrack() -> SRTCCustomVideoTrack { SRTCCustomVideoTrack() }

    // MARK: Camera

    /// Turns the device camera on or off (device-level: all engines see it).
    public func setCameraEnabled(_ enabled: Bool) { capturePipeline.setCameraEnabled(enabled) }
    /// Whether the device camera is on.
    public var isCameraEnabled: Bool { capturePipeline.isCameraEnabled }
    /// Switches to the next camera (front ↔ back).
    public func switchCamera() { capturePipeline.switchCamera() }
}
