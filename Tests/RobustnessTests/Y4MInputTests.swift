import Foundation
import Imaging
import PNGCodec
import Testing
import Y4MFormat

/// Y4M streams: a bad header, an unsupported colour space or a frame cut short is a
/// thrown `Y4MError` with a one-line message, and every complete frame before a bad one is still
/// returned. The good stream is made here from a committed picture by our own writer.
@Suite("Bad Y4M streams are thrown errors; complete frames are kept")
struct Y4MInputTests {
    /// Three 64 x 48 frames (C420jpeg) cut from Fixtures/images/astronaut_on_coffee_320x240.png,
    /// each shifted so they differ.
    static let frames: [Image] = {
        let picture = try! PNG.decode(fixtureBytes("Fixtures/images/astronaut_on_coffee_320x240.png"))
        return (0..<3).map { index in
            var bytes = [UInt8](repeating: 0, count: 64 * 48 * 4)
            for y in 0..<48 {
                for x in 0..<64 {
                    let source = ((y + 60) * picture.width + (x + 100 + 40 * index)) * 4
                    for c in 0..<4 { bytes[(y * 64 + x) * 4 + c] = picture.bytes[source + c] }
                }
            }
            return Image(width: 64, height: 48, bytes: bytes)
        }
    }()
    static let header = Y4MHeader(width: 64, height: 48)
    static let good: [UInt8] = {
        try! withTemporaryFile(contents: []) { path in
            let fd = open(path, O_WRONLY | O_TRUNC)
            let writer = try Y4MWriter(fileDescriptor: fd, header: header)
            for frame in frames { try writer.write(frame) }
            close(fd)
            return [UInt8](FileManager.default.contents(atPath: path)!)
        }
    }()
    static var headerLength: Int { good.firstIndex(of: 0x0A)! + 1 }
    static var frameLength: Int { 6 + header.frameByteCount }  // "FRAME\n" + planes

    /// A stream made of the good one's frames under a different header line.
    static func withHeader(_ line: String) -> [UInt8] { Array((line + "\n").utf8) + good[headerLength...] }

    struct Outcome {
        var frames: [Image] = []
        var error: Y4MError?
    }

    /// Reads every frame it can, then the error that stopped it (nil at a clean end).
    static func readAll(_ bytes: [UInt8]) throws -> Outcome {
        try withTemporaryFile(contents: bytes) { path in
            let fd = open(path, O_RDONLY)
            defer { close(fd) }
            var outcome = Outcome()
            do throws(Y4MError) {
                let reader = try Y4MReader(fileDescriptor: fd)
                var image = Image(width: reader.header.width, height: reader.header.height)
                while try reader.readFrame(into: &image) { outcome.frames.append(image) }
            } catch {
                outcome.error = error
            }
            return outcome
        }
    }

    static let headerRows: [BadInput] = [
        BadInput(name: "empty stream", bytes: { [] }, says: "empty stream"),
        BadInput(name: "a PNG instead of a stream", bytes: { fixtureBytes("Fixtures/images/astronaut.png") }, says: "malformed YUV4MPEG2 header"),
        BadInput(name: "signature misspelt", bytes: { withHeader("YUV4MPEG W64 H48") }, says: "does not start with YUV4MPEG2"),
        BadInput(name: "no width", bytes: { withHeader("YUV4MPEG2 H48 F30:1") }, says: "missing width"),
        BadInput(name: "no height", bytes: { withHeader("YUV4MPEG2 W64 F30:1") }, says: "missing height"),
        BadInput(name: "width 0", bytes: { withHeader("YUV4MPEG2 W0 H48") }, says: "bad width"),
        BadInput(name: "negative height", bytes: { withHeader("YUV4MPEG2 W64 H-48") }, says: "bad height"),
        BadInput(name: "width not a number", bytes: { withHeader("YUV4MPEG2 Wide H48") }, says: "bad width"),
        BadInput(name: "width 10^30", bytes: { withHeader("YUV4MPEG2 W1000000000000000000000000000000 H48") }, says: "bad width"),
        BadInput(name: "absurd size 100000 x 100000", bytes: { withHeader("YUV4MPEG2 W100000 H100000") }, says: "exceeds"),
        BadInput(name: "16384 x 16384 4:4:4 (sides allowed, frame size not)", bytes: { withHeader("YUV4MPEG2 W16384 H16384 C444") }, says: "exceeds"),
        BadInput(name: "frame rate 30:0", bytes: { withHeader("YUV4MPEG2 W64 H48 F30:0") }, says: "frame rate"),
        BadInput(name: "unknown token", bytes: { withHeader("YUV4MPEG2 W64 H48 Q9") }, says: "unknown token"),
        BadInput(name: "unsupported colour space 4:2:2", bytes: { withHeader("YUV4MPEG2 W64 H48 C422") }, says: "colour space C422"),
        BadInput(name: "unsupported colour space mono", bytes: { withHeader("YUV4MPEG2 W64 H48 Cmono") }, says: "colour space Cmono"),
        BadInput(name: "unsupported colour space 4:1:1", bytes: { withHeader("YUV4MPEG2 W64 H48 C411") }, says: "colour space C411"),
        BadInput(name: "interlaced (top field first)", bytes: { withHeader("YUV4MPEG2 W64 H48 It") }, says: "interlacing"),
        BadInput(name: "header never ends (no newline in 5000 bytes)", bytes: { Array("YUV4MPEG2 W64 H48 X".utf8) + [UInt8](repeating: 0x41, count: 5000) }, says: "longer than"),
        BadInput(name: "stream cut inside the header", bytes: { Array(good.prefix(12)) }, says: "stream ends inside"),
    ]

    @Test("a bad stream header is a Y4MError with a one-line message, no frame read", arguments: headerRows)
    func badHeader(_ row: BadInput) throws {
        let outcome = try Self.readAll(row.bytes())
        #expect(outcome.frames.isEmpty)
        let text = outcome.error.map(String.init(describing:)) ?? ""
        #expect(outcome.error != nil)
        #expect(isClearMessage(text), "\(text)")
        #expect(text.lowercased().contains(row.says.lowercased()), "\(text)")
    }

    @Test("the good stream reads back all three frames (control)")
    func goodStream() throws {
        let outcome = try Self.readAll(Self.good)
        #expect(outcome.error == nil)
        #expect(outcome.frames.count == 3)
    }

    /// Where to cut the three-frame stream, how many frames must come out whole, and the error.
    struct Cut: CustomTestStringConvertible, Sendable {
        var name: String
        var length: @Sendable () -> Int
        var completeFrames: Int
        var says: String?
        var testDescription: String { name }
    }

    static let cuts: [Cut] = [
        Cut(name: "cut in frame 0's planes", length: { headerLength + 6 + 100 }, completeFrames: 0, says: "inside frame 0"),
        Cut(name: "cut in frame 2's planes (1 byte short)", length: { good.count - 1 }, completeFrames: 2, says: "inside frame 2"),
        Cut(name: "cut in frame 2's planes (half)", length: { headerLength + 2 * frameLength + frameLength / 2 }, completeFrames: 2, says: "inside frame 2"),
        Cut(name: "cut inside frame 1's FRAME line", length: { headerLength + frameLength + 3 }, completeFrames: 1, says: "frame 1"),
        Cut(name: "cut exactly after frame 1 (a clean end)", length: { headerLength + 2 * frameLength }, completeFrames: 2, says: nil),
    ]

    @Test("a stream cut short keeps every complete frame before the cut, then throws", arguments: cuts)
    func streamCutShort(_ cut: Cut) throws {
        let outcome = try Self.readAll(Array(Self.good.prefix(cut.length())))
        #expect(outcome.frames.count == cut.completeFrames)
        let whole = try Self.readAll(Self.good).frames
        for (index, frame) in outcome.frames.enumerated() { #expect(frame == whole[index], "frame \(index) differs") }
        if let says = cut.says {
            let text = outcome.error.map(String.init(describing:)) ?? "(no error)"
            #expect(isClearMessage(text) && text.contains(says), "\(text)")
        } else {
            #expect(outcome.error == nil)
        }
    }

    @Test("garbage where frame 1's FRAME line should be: frame 0 kept, then a Y4MError")
    func garbageFrameHeader() throws {
        var bytes = Self.good
        let at = Self.headerLength + Self.frameLength
        bytes.replaceSubrange(at..<(at + 5), with: Array("FRAMX".utf8))
        let outcome = try Self.readAll(bytes)
        #expect(outcome.frames.count == 1)
        #expect(outcome.error.map { String(describing: $0).contains("expected FRAME") } == true)
    }
}

/// Runs `body` with the path of a temporary file holding `contents`, then removes it.
func withTemporaryFile<T>(contents: [UInt8], _ body: (String) throws -> T) throws -> T {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("vbg-robustness-\(UUID().uuidString)").path
    guard FileManager.default.createFile(atPath: path, contents: Data(contents)) else {
        throw CocoaError(.fileWriteUnknown)
    }
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}
