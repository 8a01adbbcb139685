import Foundation
import Imaging
import Inference
import PNGCodec
import Testing
import TestSupport

/// The x86-64 side of the arm64 runner's model and whole-frame cases (`Arm64Cases`): checks that
/// x86-64 computes what `Fixtures/arm64/` holds, within the runner's own tolerances, and with
/// `VBG_WRITE_ARM64_FIXTURES=1` writes the fixtures from this machine's results instead (then
/// the runner compares arm64 with them). Raw little-endian files, rows packed: `.f32` float32,
/// `.rgba` bytes.
@Suite("arm64 fixtures", .serialized)
struct Arm64FixtureTests {
    static let writes = ProcessInfo.processInfo.environment["VBG_WRITE_ARM64_FIXTURES"] == "1"

    static func url(_ name: String) -> URL { Fixtures.url("arm64/\(name)") }

    static func frame() throws -> Image {
        if writes {
            // The frame: the 320x240 astronaut picture of Fixtures/images, decoded to RGBA.
            let picture = try PNG.read(contentsOfFile: Fixtures.url("images/astronaut_on_coffee_320x240.png").path)
            #expect(picture.width == Arm64Cases.frameWidth && picture.height == Arm64Cases.frameHeight)
            try FileManager.default.createDirectory(at: url("x").deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(picture.bytes).write(to: url("frame_320x240.rgba"))
        }
        return Arm64Cases.frame(Array(try Data(contentsOf: url("frame_320x240.rgba"))))
    }

    /// Checks `values` against fixture `name` within the runner's tolerance (or writes them).
    static func check(_ values: [Float], _ name: String) throws {
        if writes { try Data(values.withUnsafeBytes { Array($0) }).write(to: url(name)) }
        let stored = try Data(contentsOf: url(name)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let difference = Arm64Cases.largestDifference(values, stored)
        #expect(difference <= Arm64Cases.tolerance, "\(name): largest difference \(difference)")
    }

    @Test("the built-in models' forward pass on both paths", arguments: Arm64Cases.models.indices)
    func forwardPass(index: Int) throws {
        let entry = Arm64Cases.models[index]
        let model = try InferenceModel(contentsOfFile: Fixtures.weights(entry.file).path)
        let input = Arm64Cases.tensor(try Self.frame(), width: entry.width, height: entry.height)
        for path in [ExecutionPath.reference, .fast] {
            let session = try InferenceSession(model: model, path: path)
            let output = try Arm64Cases.forward(session, input, outputCount: entry.width * entry.height)
            #expect(output.allSatisfy { $0 >= 0 && $0 <= 1 } && output.contains { $0 > 0.5 } && output.contains { $0 < 0.5 })
            try Self.check(output, "\(entry.name)_\(path.rawValue).f32")
        }
    }

    @Test("one whole frame: segment, smooth, blur, composite")
    func wholeFrame() throws {
        let frame = try Self.frame()
        let entry = Arm64Cases.models[Arm64Cases.frameModel]
        let session = try InferenceSession(model: try InferenceModel(contentsOfFile: Fixtures.weights(entry.file).path), path: .fast)
        try Self.check(try Arm64Cases.smoothedMask(frame, session), "frame_mask.f32")
        // The imaging from the stored mask, so that the bytes compare exactly.
        let mask = try Data(contentsOf: Self.url("frame_mask.f32")).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let output = Arm64Cases.composite(frame, mask: mask)
        if Self.writes { try Data(output).write(to: Self.url("frame_output.rgba")) }
        #expect(output == Array(try Data(contentsOf: Self.url("frame_output.rgba"))))
        #expect(output != Arm64Cases.mirrored(frame).bytes)  // the background was blurred
    }
}
