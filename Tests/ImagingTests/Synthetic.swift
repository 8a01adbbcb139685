import Foundation
import Imaging
import TestSupport

/// The synthetic inputs `Tools/make_imaging_fixtures.py` uses, computed the same way.
enum Synthetic {
    /// RGBA frame: `synthetic_frame(W, H)` in the script.
    static func frame(width: Int, height: Int, format: PixelFormat = .rgba8, padding: Int = 0) -> Image {
        let stride = 4 * width + padding
        var bytes = [UInt8](repeating: 0xEE, count: stride * height)
        for y in 0..<height {
            for x in 0..<width {
                let r = (x * 255 / max(width - 1, 1)) ^ ((y * 7) & 63)
                let g = (y * 255 / max(height - 1, 1)) ^ ((x * 5) & 31)
                let b = ((x * 3 + y * 11) ^ ((x * y) >> 4)) & 255
                let o = y * stride + 4 * x
                let (ro, go, bo) = format.channelOffsets
                bytes[o + ro] = UInt8(r & 255); bytes[o + go] = UInt8(g & 255); bytes[o + bo] = UInt8(b & 255)
                bytes[o + 3] = 255
            }
        }
        return Image(width: width, height: height, format: format, bytesPerRow: stride, bytes: bytes)
    }

    /// Float mask: `synthetic_mask(w, h)` in the script.
    static func mask(width: Int, height: Int) -> [Float] {
        var values = [Float](repeating: 0, count: width * height)
        for y in 0..<height { for x in 0..<width { values[y * width + x] = Float((x * 131 + y * 71) % 1000) / 999 } }
        return values
    }

    /// Pseudo-random bytes (deterministic).
    static func noise(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }

    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: Fixtures.url("imaging/" + name))
    }
}
