import Foundation
import Imaging
import PNGCodec
import SRTC
import TestSupport
import Testing
@testable import vbg

/// `vbg blur` and `vbg replace` draw what the SDK draws: the README's pictures come from the code
/// an app runs. The SDK side is the page's lower level as an app uses it (a custom track with the
/// engine's processor, the built-in general model), on a capture pipeline of its own.
@Suite("vbg and the SDK give the same pixels")
struct SDKParityTests {
    static let picture = Fixtures.url("images/astronaut.png").path
    static let background = Fixtures.url("backgrounds/rocket.png").path

    enum Effect: String, CaseIterable, CustomTestStringConvertible {
        case blur, replace
        var testDescription: String { rawValue }
    }

    @Test("the command's output is byte for byte the SDK's first frame with the same settings", arguments: Effect.allCases)
    func sameFrame(_ effect: Effect) throws {
        let output = NSTemporaryDirectory() + "vbg-sdk-parity-\(getpid())-\(UUID().uuidString).png"
        defer { unlink(output) }
        let arguments = switch effect {
        case .blur: ["blur", Self.picture, output, "--level", "5"]
        case .replace: ["replace", Self.picture, output, "--background", Self.background]
        }
        #expect(runMain(arguments) == 0)
        let written = try PNG.read(contentsOfFile: output)

        let engine = SRTCEngine(capturePipeline: SRTCCapturePipeline())
        let track = engine.makeCustomVideoTrack()
        track.attachVirtualBackground(engine.makeVirtualBackgroundProcessor())
        try engine.installVirtualBackground()
        switch effect {
        case .blur: engine.setVirtualBackgroundBlur(level: 5)
        case .replace: engine.setVirtualBackgroundImage(try #require(SRTCNativeImage(contentsOfFile: Self.background)))
        }
        try engine.enableVirtualBackground(true)
        track.push(SRTCVideoFrame(image: try PNG.read(contentsOfFile: Self.picture)))
        let published = try #require(track.publishedVideo.latestFrame).image

        #expect(written.width == published.width && written.height == published.height)
        #expect(written.bytesPerRow == published.bytesPerRow && written.format == published.format)
        let differing = zip(written.bytes, published.bytes).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) of \(written.bytes.count) bytes differ")
    }
}
