/// How the H×W plane of each channel of an NCHW feature map sits in memory.
///
/// Two kinds are used (see `README.md`):
/// - **dense**: rows of `width` floats back to back, planes of `width·height` back to back;
///   what the 1x1 convolutions (GEMMs over pixels) read.
/// - **padded**: each plane carries a zero border of `pad` rows and columns and rows of
///   `rowStride` floats (a multiple of 16), so a depthwise convolution reads its
///   neighbourhood without a pad copy. Producers write only the interior; the border stays zero.
package struct PlaneLayout: Hashable, Sendable, CustomStringConvertible {
    /// Interior width and height in pixels.
    package let width: Int
    package let height: Int
    /// Zero rows above and below, zero columns left and right of the interior.
    package let pad: Int
    /// Floats from one row to the next.
    package let rowStride: Int
    /// Floats from one channel's plane to the next.
    package let planeStride: Int

    /// Floats readable past the last plane. Depthwise kernels compute whole vectors and read up
    /// to about 40 floats past the last row of a padded plane; the lanes beyond the interior are
    /// discarded.
    package static let slack = 64

    /// Rows and planes back to back, no border.
    package static func dense(width: Int, height: Int) -> PlaneLayout {
        PlaneLayout(width: width, height: height, pad: 0, rowStride: width, planeStride: width * height)
    }

    /// A zero border of `pad` on every side; rows rounded up to a multiple of 16 floats.
    package static func padded(width: Int, height: Int, pad: Int) -> PlaneLayout {
        if pad == 0 { return dense(width: width, height: height) }
        let rowStride = roundUp(width + 2 * pad, toMultipleOf: 16)
        return PlaneLayout(width: width, height: height, pad: pad, rowStride: rowStride,
                           planeStride: rowStride * (height + 2 * pad))
    }

    private init(width: Int, height: Int, pad: Int, rowStride: Int, planeStride: Int) {
        precondition(width > 0 && height > 0 && pad >= 0, "invalid plane \(width)x\(height) pad \(pad)")
        self.width = width
        self.height = height
        self.pad = pad
        self.rowStride = rowStride
        self.planeStride = planeStride
    }

    /// The same strides with `height` rows: the layout of a band of rows of this map (the view's
    /// base is the parent's base moved by the band's first row times `rowStride`).
    package func withHeight(_ height: Int) -> PlaneLayout {
        PlaneLayout(width: width, height: height, pad: pad, rowStride: rowStride, planeStride: planeStride)
    }

    /// Whether a plane's border (rows, columns and row padding) is at least its interior: a
    /// buffer of such maps that keeps its zero border between uses (its own) is worth its memory,
    /// where one in shared scratch would have the border written on every use.
    package var borderOutweighsInterior: Bool { planeStride >= 2 * width * height }

    /// Whether pixels are back to back (pixel `p` at offset `p`).
    package var isDense: Bool { rowStride == width && pad == 0 }

    /// Offset of pixel (0, 0) from the start of its plane.
    package var origin: Int { pad * rowStride + pad }

    /// Offset of pixel (`y`, `x`) of channel `channel` from the start of the buffer.
    @inlinable
    package func offset(channel: Int, y: Int, x: Int) -> Int {
        channel * planeStride + (y + pad) * rowStride + x + pad
    }

    /// Floats a buffer for `channels` planes needs, slack included.
    package func storageCount(channels: Int) -> Int {
        channels * planeStride + PlaneLayout.slack
    }

    package var description: String {
        isDense ? "\(height)x\(width)" : "\(height)x\(width) pad \(pad) stride \(rowStride)"
    }
}

/// A non-owning view of an NCHW feature map: a pointer, a channel count and a plane layout.
///
/// The pointer must stay valid (and, for outputs, writable) for `layout.storageCount(channels:)`
/// floats while a kernel runs. For padded layouts the border must be zero.
package struct FeatureMap {
    package var base: UnsafeMutablePointer<Float>
    package var channels: Int
    package var layout: PlaneLayout

    package init(base: UnsafeMutablePointer<Float>, channels: Int, layout: PlaneLayout) {
        self.base = base
        self.channels = channels
        self.layout = layout
    }

    /// Pixels per channel.
    package var pixels: Int { layout.width * layout.height }

    /// Rows `first ..< first + count` of every channel, as a map of their own (same strides).
    /// For a padded map the rows above and below the band are the parent's rows (or border).
    package func rows(from first: Int, count: Int) -> FeatureMap {
        FeatureMap(base: base + first * layout.rowStride, channels: channels, layout: layout.withHeight(count))
    }

    /// Channels `first ..< first + count`, as a map of their own (same layout).
    package func channels(_ first: Int, count: Int) -> FeatureMap {
        FeatureMap(base: base + first * layout.planeStride, channels: count, layout: layout)
    }

    /// Whether any float of this map's planes (first to last, border included) lies in `other`'s.
    func overlaps(_ other: FeatureMap) -> Bool {
        let start = base, end = base + channels * layout.planeStride
        let otherStart = other.base, otherEnd = other.base + other.channels * other.layout.planeStride
        return start < otherEnd && otherStart < end
    }

    /// Pixel (0, 0) of `channel`.
    @inline(always)
    func plane(_ channel: Int) -> UnsafeMutablePointer<Float> {
        base + channel * layout.planeStride + layout.origin
    }
}

/// An owned feature map: a ``FloatBuffer`` sized for its layout, zero-initialised (so a padded
/// map's border is zero from the start).
package final class FeatureMapStorage {
    package let buffer: FloatBuffer
    package let channels: Int
    package let layout: PlaneLayout

    package init(channels: Int, layout: PlaneLayout) {
        self.channels = channels
        self.layout = layout
        buffer = FloatBuffer(count: layout.storageCount(channels: channels))
    }

    /// The view kernels take. Valid while this storage is alive.
    package var map: FeatureMap { FeatureMap(base: buffer.baseAddress, channels: channels, layout: layout) }

    /// Copies dense NCHW values (`channels·height·width`) into the interior.
    package func setInterior(_ values: [Float]) {
        precondition(values.count == channels * layout.width * layout.height, "wrong element count")
        var index = 0
        for c in 0..<channels {
            for y in 0..<layout.height {
                for x in 0..<layout.width {
                    buffer.baseAddress[layout.offset(channel: c, y: y, x: x)] = values[index]
                    index += 1
                }
            }
        }
    }

    /// The interior as dense NCHW values.
    package func interior() -> [Float] {
        var values: [Float] = []
        values.reserveCapacity(channels * layout.width * layout.height)
        for c in 0..<channels {
            for y in 0..<layout.height {
                for x in 0..<layout.width {
                    values.append(buffer.baseAddress[layout.offset(channel: c, y: y, x: x)])
                }
            }
        }
        return values
    }
}
