import FramePipeline
import Foundation
import Imaging
import Y4MFormat
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A camera that plays a YUV4MPEG2 (`.y4m`) file, converted to RGBA, looping at its end. Frames are
/// decoded into a pool of 3 buffers, so playing allocates nothing.
public final class SRTCY4MCameraSource: SRTCCameraSource {
    private let path: String
    private var descriptor: Int32
    private var reader: Y4MReader
    private var pool: FrameBufferPool
    private var sequenceNumber = 0
    private let frameDuration: UInt64

    /// Opens a `.y4m` file and reads its header.
    ///
    /// - Throws: ``SRTCCameraSourceError/unreadableFile(_:)`` when the file cannot be opened or its
    ///   header is not a supported YUV4MPEG2 header.
    public init(path: String) throws {
        self.path = path
        (descriptor, reader) = try Self.open(path)
        let header = reader.header
        pool = FrameBufferPool(width: header.width, height: header.height, format: .rgba8, capacity: 3)
        let rate = header.frameRate
        frameDuration = rate.numerator > 0 ? UInt64(1_000_000_000) * UInt64(max(1, rate.denominator)) / UInt64(rate.numerator)
                                           : 33_333_333
    }

    deinit { close(descriptor) }

    private static func open(_ path: String) throws -> (Int32, Y4MReader) {
        let descriptor = Foundation.open(path, O_RDONLY)
        guard descriptor >= 0 else { throw SRTCCameraSourceError.unreadableFile(path) }
        do {
            return (descriptor, try Y4MReader(fileDescriptor: descriptor))
        } catch {
            close(descriptor)
            throw SRTCCameraSourceError.unreadableFile(path)
        }
    }

    /// The next frame; at the end of the file playback starts over. `nil` when every buffer is
    /// still held downstream or the file cannot be read.
    public func nextFrame() -> SRTCVideoFrame? {
        guard let buffer = pool.acquire() else { return nil }
        let read = buffer.withMutableImage { image -> Bool in
            if (try? reader.readFrame(into: &image)) == true { return true }
            // End of file (or a truncated last frame): loop.
            guard let reopened = try? Self.open(path) else { return false }
            close(descriptor)
            (descriptor, reader) = reopened
            return (try? reader.readFrame(into: &image)) == true
        }
        guard read else { return nil }
        let sequence = sequenceNumber
        sequenceNumber += 1
        return SRTCVideoFrame(storage: buffer, timestamp: UInt64(sequence) * frameDuration, sequenceNumber: sequence)
    }
}

extension SRTCCameraDevice {
    /// A camera playing a `.y4m` file in a loop (opened when the pipeline switches to it).
    ///
    /// - Throws: ``SRTCCameraSourceError`` if the file cannot be read now.
    public static func y4mFile(name: String, position: SRTCCameraPosition = .unspecified,
                               path: String) throws -> SRTCCameraDevice {
        _ = try SRTCY4MCameraSource(path: path)   // fail now, not when switching
        return SRTCCameraDevice(name: name, position: position) { () -> any SRTCCameraSource in
            if let source = try? SRTCY4MCameraSource(path: path) { return source }
            return EmptyCameraSource()
        }
    }
}
