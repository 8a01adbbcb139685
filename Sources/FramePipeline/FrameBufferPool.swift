import Imaging

/// A fixed number of output buffers of one size and pixel format, reused frame after frame.
///
/// A buffer is free when the pool holds the only reference to it: every ``VideoFrame`` made from it
/// (published, previewed, kept by a consumer) keeps it busy until the last copy goes away. When all
/// buffers are busy, ``acquire()`` returns `nil` and the pipeline drops the frame (fail closed).
/// Nothing is allocated after `init`.
package struct FrameBufferPool: Sendable {
    package let width: Int
    package let height: Int
    package let format: PixelFormat
    package let capacity: Int
    private var buffers: [FrameBuffer]
    private var next = 0

    /// Allocates `capacity` buffers of `width × height` pixels.
    ///
    /// - Precondition: `capacity >= 1`, positive size.
    package init(width: Int, height: Int, format: PixelFormat, capacity: Int) {
        precondition(capacity >= 1, "a pool needs at least one buffer")
        self.width = width
        self.height = height
        self.format = format
        self.capacity = capacity
        buffers = (0..<capacity).map { _ in
            FrameBuffer(image: Image(width: width, height: height, format: format, filledWith: (0, 0, 0, 255)))
        }
    }

    /// A free buffer, or `nil` when every buffer is still referenced elsewhere.
    package mutating func acquire() -> FrameBuffer? {
        for offset in 0..<capacity {
            let index = (next + offset) % capacity
            if isKnownUniquelyReferenced(&buffers[index]) {
                next = (index + 1) % capacity
                return buffers[index]
            }
        }
        return nil
    }

    /// How many buffers are free now.
    package mutating func freeCount() -> Int {
        var count = 0
        for index in 0..<capacity where isKnownUniquelyReferenced(&buffers[index]) { count += 1 }
        return count
    }

    /// The bytes held by the pool's pixels.
    package var byteCount: Int { capacity * 4 * width * height }
}
