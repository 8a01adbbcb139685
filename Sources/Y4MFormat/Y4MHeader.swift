import Imaging

/// Why a YUV4MPEG2 stream could not be read or written.
package enum Y4MError: Error, Equatable, CustomStringConvertible {
    /// The stream header is not a valid YUV4MPEG2 header (missing signature, W or H, a bad token).
    case malformedHeader(String)
    /// A valid header asking for something this reader does not handle (C422, mono, interlacing).
    case unsupported(String)
    /// A `FRAME` header is malformed.
    case malformedFrame(index: Int, reason: String)
    /// The stream ended inside frame `index` (0-based): `received` of `expected` bytes arrived.
    /// Every frame before it was complete and has been returned.
    case truncatedFrame(index: Int, expected: Int, received: Int)
    /// A read or write on the file descriptor failed.
    case io(String)

    package var description: String {
        switch self {
        case .malformedHeader(let s): "malformed YUV4MPEG2 header: \(s)"
        case .unsupported(let s): "unsupported YUV4MPEG2 stream: \(s)"
        case .malformedFrame(let i, let s): "malformed FRAME header at frame \(i): \(s)"
        case .truncatedFrame(let i, let e, let r): "stream ends inside frame \(i): \(r) of \(e) bytes"
        case .io(let s): "I/O error: \(s)"
        }
    }
}

/// Chroma subsampling of a stream.
package enum Y4MChroma: String, Sendable, CaseIterable {
    /// 4:2:0, chroma centred between luma samples (the default when `C` is absent).
    case c420jpeg = "420jpeg"
    /// 4:2:0, PAL-DV siting.
    case c420paldv = "420paldv"
    /// 4:2:0, MPEG-2 siting (co-sited horizontally).
    case c420mpeg2 = "420mpeg2"
    /// 4:2:0, siting unspecified.
    case c420 = "420"
    /// 4:4:4, no subsampling.
    case c444 = "444"

    /// Whether chroma planes are half size in both directions.
    package var isSubsampled: Bool { self != .c444 }
}

/// The stream header: size, frame rate, pixel aspect and chroma layout. Only progressive streams.
package struct Y4MHeader: Sendable, Equatable {
    package var width: Int
    package var height: Int
    /// Frames per second as a ratio (`F30000:1001`).
    package var frameRate: (numerator: Int, denominator: Int)
    /// Pixel aspect ratio (`A1:1`); `0:0` means unknown.
    package var pixelAspect: (numerator: Int, denominator: Int)
    package var chroma: Y4MChroma
    /// `X` tokens, kept verbatim (without the `X`) so a writer can pass them on.
    package var comments: [String]

    /// The largest accepted width or height.
    package static let maximumDimension = 16_384
    /// The largest accepted pixel count (≈ 67 MP, as `PNG.maximumPixels`): 8K video fits, while a
    /// 30-byte header cannot make the reader allocate an 805 MB frame buffer (16384² 4:4:4).
    package static let maximumPixels = 1 << 26

    package init(width: Int, height: Int, frameRate: (numerator: Int, denominator: Int) = (30, 1),
                pixelAspect: (numerator: Int, denominator: Int) = (1, 1), chroma: Y4MChroma = .c420jpeg,
                comments: [String] = []) {
        // Field by field, like SegmentationModelDescription.Input's initialiser (which `duplicates`
        // pairs with this): a struct's implicit memberwise initialiser is internal, and this one is
        // called from other modules.
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.pixelAspect = pixelAspect
        self.chroma = chroma
        self.comments = comments
    }

    package static func == (a: Y4MHeader, b: Y4MHeader) -> Bool {
        a.width == b.width && a.height == b.height && a.frameRate == b.frameRate && a.pixelAspect == b.pixelAspect
            && a.chroma == b.chroma && a.comments == b.comments
    }

    /// Chroma plane width and height.
    package var chromaSize: (width: Int, height: Int) {
        chroma.isSubsampled ? ((width + 1) / 2, (height + 1) / 2) : (width, height)
    }

    /// Bytes of one frame's planes (Y, then U, then V).
    package var frameByteCount: Int {
        width * height + 2 * chromaSize.width * chromaSize.height
    }

    /// Parses the header line (without its newline).
    package init(parsing line: String) throws(Y4MError) {
        var tokens = line.split(separator: " ", omittingEmptySubsequences: true)
        guard tokens.first == "YUV4MPEG2" else { throw .malformedHeader("does not start with YUV4MPEG2") }
        tokens.removeFirst()
        var width: Int?, height: Int?
        var rate = (30, 1), aspect = (0, 0)
        var chroma = Y4MChroma.c420jpeg
        var comments: [String] = []
        func ratio(_ text: Substring, _ name: String) throws(Y4MError) -> (Int, Int) {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let n = Int(parts[0]), let d = Int(parts[1]), n >= 0, d >= 0 else {
                throw .malformedHeader("bad \(name) '\(text)' (want N:D)")
            }
            return (n, d)
        }
        for token in tokens {
            let value = token.dropFirst()
            switch token.first! {
            case "W":
                guard let w = Int(value), w > 0 else { throw .malformedHeader("bad width '\(value)'") }
                width = w
            case "H":
                guard let h = Int(value), h > 0 else { throw .malformedHeader("bad height '\(value)'") }
                height = h
            case "F":
                rate = try ratio(value, "frame rate")
                guard rate.0 > 0, rate.1 > 0 else { throw .malformedHeader("bad frame rate '\(value)'") }
            case "A": aspect = try ratio(value, "pixel aspect")
            case "I":
                guard value == "p" else {
                    throw .unsupported("interlacing '\(value)' (only progressive, Ip, is supported)")
                }
            case "C":
                guard let c = Y4MChroma(rawValue: String(value)) else {
                    throw .unsupported("colour space C\(value) (supported: C420jpeg, C420paldv, C420mpeg2, C420, C444)")
                }
                chroma = c
            case "X": comments.append(String(value))
            default: throw .malformedHeader("unknown token '\(token)'")
            }
        }
        guard let width else { throw .malformedHeader("missing width (W)") }
        guard let height else { throw .malformedHeader("missing height (H)") }
        guard width <= Self.maximumDimension, height <= Self.maximumDimension else {
            throw .malformedHeader("\(width)x\(height) exceeds \(Self.maximumDimension) px per side")
        }
        guard width * height <= Self.maximumPixels else {
            throw .malformedHeader("\(width)x\(height) exceeds \(Self.maximumPixels) pixels")
        }
        self.init(width: width, height: height, frameRate: rate, pixelAspect: aspect, chroma: chroma, comments: comments)
    }

    /// The header line, newline included.
    package var line: String {
        var s = "YUV4MPEG2 W\(width) H\(height) F\(frameRate.numerator):\(frameRate.denominator) Ip"
        s += " A\(pixelAspect.numerator):\(pixelAspect.denominator) C\(chroma.rawValue)"
        for c in comments { s += " X\(c)" }
        return s + "\n"
    }
}
