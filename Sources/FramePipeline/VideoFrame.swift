import Imaging

/// The pixel storage behind a ``VideoFrame``: a reference, so a frame can be handed to several
/// consumers (the published streams, the local preview) without copying its pixels, and so a pool
/// can tell when nobody holds it any more (like `CVPixelBuffer` in a `CVPixelBufferPool`).
///
/// Pixels are written only by the buffer's owner (a camera source or a ``FrameBufferPool``) while
/// no ``VideoFrame`` refers to it; once a frame is handed out its pixels are read-only.
public final class FrameBuffer: @unchecked Sendable {
    // Safe to share: `image` is mutated only through `withMutableImage`, which the pool calls only
    // when `isKnownUniquelyReferenced` says the pool holds the only reference (no frame, no consumer
    // can read it); everyone else only reads.
    public private(set) var image: Image

    public init(image: Image) { self.image = image }

    /// Writes the pixels. Only the creator of the buffer may call this, and only while it holds the
    /// only reference.
    public func withMutableImage<R>(_ body: (inout Image) throws -> R) rethrows -> R {
        try body(&image)
    }
}

/// One video frame: pixels, a capture time stamp and a sequence number.
///
/// Copying a frame copies a reference, never the pixels. Two frames with the same ``storage`` show
/// the same pixels: a passthrough frame has the camera frame's storage, and a repeated frame (mask
/// sync) has the previous processed frame's storage.
public struct VideoFrame: Sendable {
    /// Where the pixels live (compare with `===` to tell whether a frame was copied).
    public let storage: FrameBuffer
    /// The capture time stamp in nanoseconds (camera clock).
    public var timestamp: UInt64
    /// The camera's frame counter.
    public var sequenceNumber: Int

    public init(storage: FrameBuffer, timestamp: UInt64 = 0, sequenceNumber: Int = 0) {
        self.storage = storage
        self.timestamp = timestamp
        self.sequenceNumber = sequenceNumber
    }

    /// Wraps an image in a new buffer.
    public init(image: Image, timestamp: UInt64 = 0, sequenceNumber: Int = 0) {
        self.init(storage: FrameBuffer(image: image), timestamp: timestamp, sequenceNumber: sequenceNumber)
    }

    /// The pixels (a copy-on-write value: reading it copies nothing).
    public var image: Image { storage.image }
    public var width: Int { storage.image.width }
    public var height: Int { storage.image.height }
}
