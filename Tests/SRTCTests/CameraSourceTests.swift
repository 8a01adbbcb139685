import Foundation
import Imaging
import PipelineFakes
import PNGCodec
import SDKTestSupport
@testable import SRTC
import Testing
import Y4MFormat

@Suite("Camera sources")
struct CameraSourceTests {
    private func writeFrames(_ colours: [UInt8], width: Int = 6, height: Int = 4) throws -> (String, [String]) {
        let directory = NSTemporaryDirectory() + "vbg-png-sequence-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let paths = try colours.enumerated().map { index, colour in
            let path = directory + String(format: "/frame%03d.png", index)
            try PNG.write(Image(width: width, height: height, filledWith: (colour, colour, colour, 255)), toFile: path)
            return path
        }
        return (directory, paths)
    }

    @Test("a PNG sequence plays its files in a loop, without copying them")
    func pngSequenceLoops() throws {
        let (directory, _) = try writeFrames([10, 20, 30])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let source = try SRTCPNGSequenceCameraSource(directory: directory)
        let frames = (0..<5).compactMap { _ in source.nextFrame() }
        #expect(frames.map { $0.image.bytes[0] } == [10, 20, 30, 10, 20])
        #expect(frames[3].storage === frames[0].storage)
        #expect(frames.map(\.sequenceNumber) == [0, 1, 2, 3, 4])
    }

    @Test("a PNG sequence camera feeds the capture pipeline; switching to it needs no re-apply")
    func pngSequenceCamera() throws {
        let (directory, paths) = try writeFrames([40, 50])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let rig = TestRig()
        let engine = rig.engine()
        rig.pipeline.setCameras(rig.pipeline.cameras + [try .pngSequence(name: "Files", paths: paths)])
        try engine.installVirtualBackground()
        try engine.enableVirtualBackground(true)
        #expect(rig.pipeline.switchCamera(to: "Files"))
        rig.pipeline.captureFrames(2)
        #expect(engine.localPreview.latestFrame?.width == 6)
        #expect(engine.virtualBackgroundDiagnostics.inferenceCount >= 1)
    }

    @Test("unreadable, missing or mismatched files are clear errors")
    func badFiles() throws {
        #expect(throws: SRTCCameraSourceError.noFrames("an empty list")) { try SRTCPNGSequenceCameraSource(paths: []) }
        #expect(throws: SRTCCameraSourceError.unreadableFile("/nonexistent.png")) {
            try SRTCPNGSequenceCameraSource(paths: ["/nonexistent.png"])
        }
        let (directory, paths) = try writeFrames([1])
        let (other, otherPaths) = try writeFrames([2], width: 3)
        defer { try? FileManager.default.removeItem(atPath: directory); try? FileManager.default.removeItem(atPath: other) }
        #expect(throws: SRTCCameraSourceError.sizeMismatch(otherPaths[0])) {
            try SRTCPNGSequenceCameraSource(paths: paths + otherPaths)
        }
        let empty = NSTemporaryDirectory() + "vbg-empty-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        #expect(throws: SRTCCameraSourceError.noFrames(empty)) { try SRTCPNGSequenceCameraSource(directory: empty) }
    }

    private func writeY4M(_ greys: [UInt8], width: Int = 8, height: Int = 6) throws -> String {
        let path = NSTemporaryDirectory() + "vbg-\(UUID().uuidString).y4m"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        let writer = try Y4MWriter(fileDescriptor: descriptor, header: Y4MHeader(width: width, height: height))
        for grey in greys { try writer.write(Image(width: width, height: height, filledWith: (grey, grey, grey, 255))) }
        return path
    }

    @Test("a Y4M file plays as a camera, looping at its end")
    func y4mLoops() throws {
        let path = try writeY4M([60, 120, 180])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let source = try SRTCY4MCameraSource(path: path)
        var greys: [Int] = []
        for _ in 0..<5 {
            let frame = try #require(source.nextFrame())
            greys.append(Int(frame.image.bytes[0]))
        }
        // YUV round trip of a grey is within a couple of levels.
        for (grey, expected) in zip(greys, [60, 120, 180, 60, 120]) { #expect(abs(grey - expected) <= 2, "\(greys)") }
        #expect(throws: SRTCCameraSourceError.unreadableFile("/nonexistent.y4m")) { try SRTCY4MCameraSource(path: "/nonexistent.y4m") }
    }

    @Test("a Y4M camera feeds the capture pipeline")
    func y4mCamera() throws {
        let path = try writeY4M([90, 100])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let rig = TestRig()
        let engine = rig.engine()
        rig.pipeline.setCameras([try .y4mFile(name: "Clip", path: path)])
        try engine.installVirtualBackground()
        try engine.enableVirtualBackground(true)
        #expect(rig.pipeline.captureFrames(3) == 3)
        #expect(engine.localPreview.latestFrame?.width == 8)
        #expect(engine.virtualBackgroundDiagnostics.framesComposited == 3)
    }

    @Test("the synthetic camera has front and back devices and draws a person rectangle")
    func syntheticCamera() {
        let pipeline = SRTCCapturePipeline()
        #expect(pipeline.cameras.map(\.position) == [.front, .back])
        let source = SRTCSyntheticCameraSource(width: 8, height: 8)
        let frame = source.nextFrame()!
        let centre = (4 * 8 + 4) * 4
        #expect(Array(frame.image.bytes[centre..<centre + 3]) == personPixel)
        #expect(frame.image.bytes[0] != 230)
    }
}
