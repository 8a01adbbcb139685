import FramePipeline
import Imaging

/// Where camera frames come from: a real camera driver, or a synthetic / file source for tests,
/// demos and the CLI.
///
/// A source is driven by one thread at a time (the capture thread). Sources should hand out frames
/// from a fixed set of buffers (see ``FrameBufferPool``) so capture allocates nothing per frame.
public protocol SRTCCameraSource: AnyObject {
    /// The next frame, or `nil` when none is available now (a finite source has ended, or every
    /// buffer is still held downstream).
    func nextFrame() -> SRTCVideoFrame?
}

/// Which side of the device a camera faces.
public enum SRTCCameraPosition: Sendable, Hashable {
    case front
    case back
    /// A camera with no side (external, virtual, a file).
    case unspecified
}

/// A camera the capture pipeline can switch to: a name, a position and a way to open it.
public struct SRTCCameraDevice: Sendable {
    public let name: String
    public let position: SRTCCameraPosition
    let open: @Sendable () -> any SRTCCameraSource

    /// - Parameter open: creates the source when the pipeline switches to this camera (called on
    ///   the switching thread; the source is then driven only by the capture thread).
    public init(name: String, position: SRTCCameraPosition, open: @escaping @Sendable () -> any SRTCCameraSource) {
        self.name = name
        self.position = position
        self.open = open
    }

    /// A synthetic camera (see ``SRTCSyntheticCameraSource``).
    public static func synthetic(name: String = "Synthetic", position: SRTCCameraPosition = .front,
                                 width: Int = 64, height: Int = 48) -> SRTCCameraDevice {
        SRTCCameraDevice(name: name, position: position) {
            SRTCSyntheticCameraSource(width: width, height: height)
        }
    }
}

/// A camera that draws its frames: a dark backdrop whose shade changes every frame, and a bright
/// "person" rectangle over the middle half of the frame. Frames come from a pool of 3 buffers.
public final class SRTCSyntheticCameraSource: SRTCCameraSource {
    /// The "person" rectangle: the middle half in each direction.
    package static func personRectangle(width: Int, height: Int) -> (x: Range<Int>, y: Range<Int>) {
        (width / 4 ..< width - width / 4, height / 4 ..< height - height / 4)
    }

    private var pool: FrameBufferPool
    private var sequenceNumber = 0
    private let frameDuration: UInt64

    public init(width: Int, height: Int, format: PixelFormat = .rgba8, framesPerSecond: Int = 30) {
        pool = FrameBufferPool(width: width, height: height, format: format, capacity: 3)
        frameDuration = 1_000_000_000 / UInt64(max(1, framesPerSecond))
    }

    /// Changes the size of the next frames (reallocates the buffers once).
    package func setResolution(width: Int, height: Int) {
        pool = FrameBufferPool(width: width, height: height, format: pool.format, capacity: pool.capacity)
    }

    public func nextFrame() -> SRTCVideoFrame? {
        guard let buffer = pool.acquire() else { return nil }
        let sequence = sequenceNumber
        sequenceNumber += 1
        buffer.withMutableImage { image in
            let person = Self.personRectangle(width: image.width, height: image.height)
            let shade = UInt8(16 + sequence % 64)
            let width = image.width, stride = image.bytesPerRow
            image.bytes.withUnsafeMutableBufferPointer { bytes in
                for y in 0..<image.height {
                    for x in 0..<width {
                        let i = y * stride + 4 * x
                        let inside = person.x.contains(x) && person.y.contains(y)
                        bytes[i] = inside ? 230 : shade
                        bytes[i + 1] = inside ? 180 : UInt8(truncatingIfNeeded: x &* 3)
                        bytes[i + 2] = inside ? 150 : UInt8(truncatingIfNeeded: y &* 5)
                        bytes[i + 3] = 255
                    }
                }
            }
        }
        return SRTCVideoFrame(storage: buffer, timestamp: UInt64(sequence) * frameDuration, sequenceNumber: sequence)
    }
}
