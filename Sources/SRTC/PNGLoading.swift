import Foundation
import Imaging
#if canImport(ImageIO)
import CoreGraphics
import ImageIO
#else
import PNGCodec
#endif

/// Reads image files for ``SRTCNativeImage`` and the PNG-sequence camera: with the system's
/// ImageIO on Apple platforms (which have no libpng), with libpng (PNGCodec) elsewhere.
enum PNGLoading {
    static func load(path: String) -> Image? {
        #if canImport(ImageIO)
        guard let source = CGImageSourceCreateWithURL(URL(fileURLWithPath: path) as CFURL, nil),
              let picture = CGImageSourceCreateImageAtIndex(source, 0, nil) else { return nil }
        return Image(cgImage: picture)
        #else
        return try? PNG.read(contentsOfFile: path)
        #endif
    }
}

#if canImport(CoreGraphics)
extension Image {
    /// The pixels of a Core Graphics image as RGBA8 (alpha premultiplied, as Core Graphics draws).
    init?(cgImage: CGImage) {
        let width = cgImage.width, height = cgImage.height
        guard width > 0, height > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 4 * width * height)
        let drawn = bytes.withUnsafeMutableBytes { buffer -> Bool in
            guard let context = CGContext(data: buffer.baseAddress, width: width, height: height, bitsPerComponent: 8,
                                          bytesPerRow: 4 * width, space: CGColorSpaceCreateDeviceRGB(),
                                          bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue) else { return false }
            context.draw(cgImage, in: CGRect(x: 0, y: 0, width: width, height: height))
            return true
        }
        guard drawn else { return nil }
        self.init(width: width, height: height, format: .rgba8, bytes: bytes)
    }
}
#endif
