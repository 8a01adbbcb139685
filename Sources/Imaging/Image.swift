/// The byte order of a 4-channel, 8-bit pixel in memory.
///
/// Public with ``Image``: the SDK's frames (`SRTCVideoFrame`) carry their pixels as an `Image`.
public enum PixelFormat: Sendable, Hashable {
    /// Red, green, blue, alpha: what PNG files and most software use.
    case rgba8
    /// Blue, green, red, alpha: what many cameras deliver (`kCVPixelFormatType_32BGRA`).
    case bgra8

    /// Byte offsets of red, green and blue within a pixel.
    @inlinable package var channelOffsets: (red: Int, green: Int, blue: Int) {
        switch self {
        case .rgba8: (0, 1, 2)
        case .bgra8: (2, 1, 0)
        }
    }
}

/// A frame or picture: 8-bit RGBA or BGRA pixels, rows `bytesPerRow` apart.
///
/// A value type over a `[UInt8]` (copy-on-write), so it is `Sendable` and cheap to pass along.
/// `bytesPerRow` may exceed `4 * width` (camera buffers pad their rows); bytes past the end of a
/// row are never read as pixels.
public struct Image: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let format: PixelFormat
    public let bytesPerRow: Int
    /// `bytesPerRow * height` bytes; pixel (x, y) starts at `y * bytesPerRow + 4 * x`.
    public var bytes: [UInt8]

    /// Wraps existing pixel bytes.
    ///
    /// - Precondition: `width > 0`, `height > 0`, `bytesPerRow >= 4 * width`, and
    ///   `bytes.count >= bytesPerRow * height`.
    public init(width: Int, height: Int, format: PixelFormat = .rgba8, bytesPerRow: Int? = nil, bytes: [UInt8]) {
        let stride = bytesPerRow ?? 4 * width
        precondition(width > 0 && height > 0, "image size must be positive")
        precondition(stride >= 4 * width, "bytesPerRow must hold a row of pixels")
        precondition(bytes.count >= stride * height, "too few bytes for the image size")
        self.width = width
        self.height = height
        self.format = format
        self.bytesPerRow = stride
        self.bytes = bytes
    }

    /// An image of one colour (opaque black by default), rows packed.
    public init(width: Int, height: Int, format: PixelFormat = .rgba8,
                filledWith pixel: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 255)) {
        var bytes = [UInt8](repeating: 0, count: 4 * width * height)
        for i in stride(from: 0, to: bytes.count, by: 4) {
            bytes[i] = pixel.0; bytes[i + 1] = pixel.1; bytes[i + 2] = pixel.2; bytes[i + 3] = pixel.3
        }
        self.init(width: width, height: height, format: format, bytes: bytes)
    }
}

/// A per-pixel person probability in [0, 1] (1 = person), row-major, `width * height` floats.
package struct Mask: Sendable, Equatable {
    package let width: Int
    package let height: Int
    package var values: [Float]

    /// - Precondition: `values.count == width * height`.
    package init(width: Int, height: Int, values: [Float]) {
        precondition(values.count == width * height, "mask needs width * height values")
        self.width = width
        self.height = height
        self.values = values
    }

    /// A mask of one value everywhere.
    package init(width: Int, height: Int, repeating value: Float = 0) {
        self.init(width: width, height: height, values: [Float](repeating: value, count: width * height))
    }
}
