import Foundation
import Imaging

#if canImport(UIKit)
import UIKit
/// The platform's native image type: `UIImage` on iOS.
public typealias SRTCNativeImage = UIImage
#elseif canImport(AppKit)
import AppKit
/// The platform's native image type: `NSImage` on macOS.
public typealias SRTCNativeImage = NSImage
#else
/// The image type of platforms without a native one (Linux): an immutable RGBA picture, loaded
/// from PNG files.
public final class SRTCNativeImage: Sendable {
    /// The pixels.
    public let image: Image

    /// Wraps pixels.
    public init(image: Image) { self.image = image }

    /// Loads `<name>.png` (or `name` itself when it has an extension) from the main bundle's
    /// resources, or else from the working directory.
    ///
    /// - Returns: `nil` when no such file exists or it is not a readable PNG (libpng).
    public convenience init?(named name: String) {
        let fileName = (name as NSString).pathExtension.isEmpty ? name + ".png" : name
        let base = (fileName as NSString).deletingPathExtension, ext = (fileName as NSString).pathExtension
        let candidates = [Bundle.main.path(forResource: base, ofType: ext),
                          Bundle.main.resourcePath.map { ($0 as NSString).appendingPathComponent(fileName) },
                          (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(fileName)]
        for case let path? in candidates where FileManager.default.fileExists(atPath: path) {
            if let image = PNGLoading.load(path: path) {
                self.init(image: image)
                return
            }
        }
        return nil
    }

    /// Loads a PNG file.
    ///
    /// - Returns: `nil` when the file does not exist or is not a readable PNG.
    public convenience init?(contentsOfFile path: String) {
        guard let image = PNGLoading.load(path: path) else { return nil }
        self.init(image: image)
    }
}
#endif

extension Image {
    /// The pixels of a native image, as RGBA.
    init?(nativeImage: SRTCNativeImage) {
        #if canImport(UIKit) || canImport(AppKit)
        #if canImport(UIKit)
        guard let cgImage = nativeImage.cgImage else { return nil }
        #else
        guard let cgImage = nativeImage.cgImage(forProposedRect: nil, context: nil, hints: nil) else { return nil }
        #endif
        self.init(cgImage: cgImage)
        #else
        self = nativeImage.image
        #endif
    }
}
