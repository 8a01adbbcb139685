import CLibPNG
import PNGWriter
import Foundation
import Imaging

/// Why a PNG could not be read or written.
package enum PNGError: Error, Equatable, CustomStringConvertible {
    /// libpng rejected the data; its message (e.g. "IHDR: CRC error", "Not a PNG file").
    case libpng(String)
    /// The image's size exceeds ``PNG/maximumDimension`` or ``PNG/maximumPixels``; nothing was allocated.
    case tooLarge(width: Int, height: Int)
    /// The file could not be opened, read or written.
    case file(path: String, reason: String)

    package var description: String {
        switch self {
        case .libpng(let message): "PNG error: \(message)"
        case .tooLarge(let w, let h):
            "PNG of \(w)x\(h) exceeds the limits (\(PNG.maximumDimension) px per side, \(PNG.maximumPixels) pixels)"
        case .file(let path, let reason): "\(path): \(reason)"
        }
    }
}

/// A single-channel 8-bit picture (masks written or read as grey PNG).
package struct GrayImage: Sendable, Equatable {
    package let width: Int
    package let height: Int
    /// `width * height` bytes, rows packed.
    package var bytes: [UInt8]

    /// - Precondition: `bytes.count == width * height`, sizes positive.
    package init(width: Int, height: Int, bytes: [UInt8]) {
        precondition(width > 0 && height > 0 && bytes.count == width * height, "bytes must hold width * height pixels")
        self.width = width
        self.height = height
        self.bytes = bytes
    }
}

/// PNG reading and writing through the system libpng's simplified API (`png_image_*`), which
/// reports failures as return values, never through `longjmp`.
///
/// Reading accepts every PNG colour type (grey, grey+alpha, RGB, RGBA, palette; 1–16 bits) and
/// converts to 8-bit RGBA (``decode(_:)``) or 8-bit grey (``decodeGray(_:)``). 16-bit samples
/// are scaled to 8 bits as sRGB-encoded values (no gamma conversion). Writing is 8-bit RGBA or grey.
package enum PNG {
    /// The largest width or height accepted when reading.
    package static let maximumDimension = 16_384
    /// The largest pixel count accepted when reading (≈ 67 MP, 268 MB as RGBA).
    package static let maximumPixels = 1 << 26

    // MARK: Reading

    /// Decodes PNG bytes into an RGBA8 image.
    package static func decode(_ data: [UInt8]) throws(PNGError) -> Image {
        let (w, h, bytes) = try read(data, format: clibpng_format_rgba, channels: 4)
        return Image(width: w, height: h, format: .rgba8, bytes: bytes)
    }

    /// Decodes PNG bytes into 8-bit grey (colour is converted with libpng's sRGB luminance).
    package static func decodeGray(_ data: [UInt8]) throws(PNGError) -> GrayImage {
        let (w, h, bytes) = try read(data, format: clibpng_format_gray, channels: 1)
        return GrayImage(width: w, height: h, bytes: bytes)
    }

    /// Reads a PNG file into an RGBA8 image.
    package static func read(contentsOfFile path: String) throws(PNGError) -> Image {
        try decode(readFile(path))
    }

    /// Reads a PNG file into 8-bit grey.
    package static func readGray(contentsOfFile path: String) throws(PNGError) -> GrayImage {
        try decodeGray(readFile(path))
    }

    private static func readFile(_ path: String) throws(PNGError) -> [UInt8] {
        // A directory opens, then fails to read with a Foundation error that names no cause.
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR { throw .file(path: path, reason: "it is a directory") }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .file(path: path, reason: String(cString: strerror(errno)))
        }
        defer { try? handle.close() }
        do {
            return [UInt8](try handle.readToEnd() ?? Data())
        } catch {
            throw .file(path: path, reason: error.localizedDescription)
        }
    }

    private static func read(_ data: [UInt8], format: png_uint_32, channels: Int) throws(PNGError) -> (Int, Int, [UInt8]) {
        guard !data.isEmpty else { throw .libpng("empty input (0 bytes)") }
        var image = png_image()
        image.version = clibpng_image_version
        defer { png_image_free(&image) }
        let begun = data.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard begun != 0 else { throw .libpng(message(of: &image)) }
        let width = Int(image.width), height = Int(image.height)
        guard width <= maximumDimension, height <= maximumDimension, width * height <= maximumPixels else {
            throw .tooLarge(width: width, height: height)
        }
        image.format = format
        // 16-bit samples are sRGB-encoded values to be scaled, not linear light to be gamma-encoded.
        image.flags |= png_uint_32(PNG_IMAGE_FLAG_16BIT_sRGB)
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        let finished = data.withUnsafeBytes { _ in
            pixels.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, Int32(width * channels), nil) }
        }
        guard finished != 0 else { throw .libpng(message(of: &image)) }
        return (width, height, pixels)
    }

    // MARK: Writing

    /// Encodes an RGBA8 or BGRA8 image as an 8-bit RGBA PNG.
    package static func encode(_ image: Image) throws(PNGError) -> [UInt8] {
        var rgba = [UInt8](repeating: 0, count: 4 * image.width * image.height)
        let (r, g, b) = image.format.channelOffsets
        image.bytes.withUnsafeBufferPointer { src in
            for y in 0..<image.height {
                for x in 0..<image.width {
                    let s = y * image.bytesPerRow + 4 * x, d = 4 * (y * image.width + x)
                    rgba[d] = src[s + r]; rgba[d + 1] = src[s + g]; rgba[d + 2] = src[s + b]; rgba[d + 3] = src[s + 3]
                }
            }
        }
        return try write(rgba, width: image.width, height: image.height, format: clibpng_format_rgba, channels: 4)
    }

    /// Encodes an 8-bit grey image.
    package static func encode(_ image: GrayImage) throws(PNGError) -> [UInt8] {
        try write(image.bytes, width: image.width, height: image.height, format: clibpng_format_gray, channels: 1)
    }

    /// Writes `image` as a PNG file; the file is either complete or absent (written to a temporary
    /// file beside it, then renamed). The pixels are compressed once, straight from the image's
    /// rows (RGBA or BGRA), into the file, at ``zlibLevel`` with the "up" row filter.
    package static func write(_ image: Image, toFile path: String) throws(PNGError) {
        let layout = image.format == .rgba8 ? vbg_png_rgba : vbg_png_bgra
        try image.bytes.withUnsafeBytes { pixels in
            Result { () throws(PNGError) in
                try writeFile(pixels, width: image.width, height: image.height, layout: layout, stride: image.bytesPerRow, to: path)
            }
        }.get()
    }

    /// Writes an 8-bit grey PNG file atomically.
    package static func write(_ image: GrayImage, toFile path: String) throws(PNGError) {
        try image.bytes.withUnsafeBytes { pixels in
            Result { () throws(PNGError) in
                try writeFile(pixels, width: image.width, height: image.height, layout: vbg_png_gray, stride: image.width, to: path)
            }
        }.get()
    }

    /// zlib level 1 and the "up" filter on every row, chosen for speed at a modest size cost:
    /// on an 8000x8000 photograph libpng's default (adaptive filters, zlib level 6) took 12.4 s of
    /// CPU for 21.5 MB; this takes 1.8 s for 28.5 MB (Docs/Performance.md, "Writing PNG", has every
    /// level and filter measured).
    static let zlibLevel: Int32 = 1

    private static func writeFile(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, layout: vbg_png_layout,
                                  stride: Int, to path: String) throws(PNGError) {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).partial-\(getpid())").path
        guard let file = fopen(temporary, "wb") else { throw .file(path: path, reason: String(cString: strerror(errno))) }
        var text = [CChar](repeating: 0, count: 256)
        let written = vbg_png_write(file, pixels.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt32(width), UInt32(height),
                                    stride, layout, zlibLevel, vbg_png_filter_up, &text, text.count)
        var failure: PNGError? = written != 0 ? nil
            : .libpng(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        if fclose(file) != 0, failure == nil { failure = .file(path: path, reason: String(cString: strerror(errno))) }
        if failure == nil, rename(temporary, path) != 0 { failure = .file(path: path, reason: String(cString: strerror(errno))) }
        if let failure {
            unlink(temporary)
            throw failure
        }
    }

    /// In-memory encoding through the simplified API (libpng's default filters and level).
    private static func write(_ pixels: [UInt8], width: Int, height: Int, format: png_uint_32, channels: Int) throws(PNGError) -> [UInt8] {
        var image = png_image()
        image.version = clibpng_image_version
        image.width = png_uint_32(width)
        image.height = png_uint_32(height)
        image.format = format
        defer { png_image_free(&image) }
        var size = 0
        let stride = Int32(width * channels)
        let measured = pixels.withUnsafeBytes { png_image_write_to_memory(&image, nil, &size, 0, $0.baseAddress, stride, nil) }
        guard measured != 0 else { throw .libpng(message(of: &image)) }
        var out = [UInt8](repeating: 0, count: size)
        let written = pixels.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { png_image_write_to_memory(&image, $0.baseAddress, &size, 0, src.baseAddress, stride, nil) }
        }
        guard written != 0 else { throw .libpng(message(of: &image)) }
        out.removeSubrange(size...)
        return out
    }

    private static func message(of image: inout png_image) -> String {
        let text = withUnsafeBytes(of: &image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? "unknown libpng failure" : text
    }
}
