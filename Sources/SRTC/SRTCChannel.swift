/// A channel this engine has joined: the local camera's video is published in it.
public final class SRTCChannel: Sendable {
    /// The channel's identifier.
    public let channelID: String
    /// What the other users in the channel receive from the local camera track.
    public let publishedVideo = SRTCVideoStream()
    private let customTracks = Locked<[SRTCCustomVideoTrack]>([])

    init(channelID: String) { self.channelID = channelID }

    /// Publishes a custom video track in this channel (its frames go out on the track's own stream).
    public func publish(_ track: SRTCCustomVideoTrack) {
        customTracks.withLock { tracks in
            if !tracks.contains(where: { $0 === track }) { tracks.append(track) }
        }
    }

    /// Stops publishing a custom video track.
    public func unpublish(_ track: SRTCCustomVideoTrack) {
        customTracks.withLock { $0.removeAll { $0 === track } }
    }

    /// The custom tracks published in this channel.
    public var publishedCustomTracks: [SRTCCustomVideoTrack] { customTracks.withLock { $0 } }
}

/// A video track whose frames the app supplies (apps that take over capture). Attach a virtual
/// background processor to apply the device-level virtual background to it.
public final class SRTCCustomVideoTrack: Sendable {
    /// What the track sends: each pushed frame, processed when a processor is attached; nothing for
    /// a frame the processor dropped.
    public let publishedVideo = SRTCVideoStream()
    private let processor = Locked<SRTCVirtualBackgroundProcessor?>(nil)

    init() {}

    /// Attaches (or, with `nil`, detaches) a virtual background processor.
    public func attachVirtualBackground(_ processor: SRTCVirtualBackgroundProcessor?) {
        self.processor.withLock { $0 = processor }
    }

    /// The attached processor.
    public var virtualBackgroundProcessor: SRTCVirtualBackgroundProcessor? { processor.withLock { $0 } }

    /// Sends one frame (through the attached processor, if any).
    public func push(_ frame: SRTCVideoFrame) {
        let processor = self.processor.withLock { $0 }
        guard let output = processor.map({ $0.process(frame) }) ?? frame else { return }
        publishedVideo.deliver(output)
    }
}
