import FramePipeline
import Foundation
import Imaging

/// Why a file-backed camera source could not be opened.
public enum SRTCCameraSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No file names were given, or the directory holds no PNG file.
    case noFrames(String)
    /// A file could not be read or decoded.
    case unreadableFile(String)
    /// The frames do not all have the same size.
    case sizeMismatch(String)

    public var description: String {
        switch self {
        case .noFrames(let place): "no frames in \(place)"
        case .unreadableFile(let path): "cannot read a frame from \(path)"
        case .sizeMismatch(let path): "\(path) does not have the size of the first frame"
        }
    }
}

/// A camera that plays PNG files in a loop (demos, tests, the CLI). All files are decoded when the
/// source is opened; frames are handed out from those decoded buffers, so playing allocates nothing.
public final class SRTCPNGSequenceCameraSource: SRTCCameraSource {
    private let buffers: [FrameBuffer]
    private let frameDuration: UInt64
    private var sequenceNumber = 0

    /// Opens PNG files, played in the given order.
    ///
    /// - Throws: ``SRTCCameraSourceError``.
    public init(paths: [String], framesPerSecond: Int = 30) throws {
        guard !paths.isEmpty else { throw SRTCCameraSourceError.noFrames("an empty list") }
        var buffers: [FrameBuffer] = []
        for path in paths {
            guard let image = PNGLoading.load(path: path) else { throw SRTCCameraSourceError.unreadableFile(path) }
            if let size = buffers.first.map({ ($0.image.width, $0.image.height) }), size != (image.width, image.height) {
                throw SRTCCameraSourceError.sizeMismatch(path)
            }
            buffers.append(FrameBuffer(image: image))
        }
        self.buffers = buffers
        frameDuration = 1_000_000_000 / UInt64(max(1, framesPerSecond))
    }

    /// Opens every `.png` file of a directory, in file-name order.
    public convenience init(directory: String, framesPerSecond: Int = 30) throws {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let paths = names.filter { $0.lowercased().hasSuffix(".png") }.sorted().map { directory + "/" + $0 }
        guard !paths.isEmpty else { throw SRTCCameraSourceError.noFrames(directory) }
        try self.init(paths: paths, framesPerSecond: framesPerSecond)
    }

    public func nextFrame() -> SRTCVideoFrame? {
        let sequence = sequenceNumber
        sequenceNumber += 1
        return SRTCVideoFrame(storage: buffers[sequence % buffers.count], timestamp: UInt64(sequence) * frameDuration,
                              sequenceNumber: sequence)
    }
}

extension SRTCCameraDevice {
    /// A camera playing PNG files in a loop (opened when the pipeline switches to it).
    ///
    /// - Throws: ``SRTCCameraSourceError`` if the files cannot be read now.
    public static func pngSequence(name: String, position: SRTCCameraPosition = .unspecified,
                                   paths: [String]) throws -> SRTCCameraDevice {
        _ = try SRTCPNGSequenceCameraSource(paths: paths)   // fail now, not when switching
        return SRTCCameraDevice(name: name, position: position) { () -> any SRTCCameraSource in
            if let source = try? SRTCPNGSequenceCameraSource(paths: paths) { return source }
            return EmptyCameraSource()
        }
    }
}

/// A camera that produces nothing (a file source whose files disappeared after validation).
final class EmptyCameraSource: SRTCCameraSource {
    func nextFrame() -> SRTCVideoFrame? { nil }
}
