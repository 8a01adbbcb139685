import BuiltinModels
import FramePipeline
import Foundation
import Imaging
import PipelineFakes
import SDKTestSupport
@testable import SRTC
import Testing

struct WeakSegmenter { weak var segmenter: AnyObject? }

@Suite("The built-in model")
struct RealModelTests {
    @Test("nil installs both built-in models, which segment the camera and are released by uninstall")
    func builtInModelSegments() throws {
        let created = Locked<WeakSegmenter>(WeakSegmenter())
        let pipeline = SRTCCapturePipeline(
            segmenterFactory: { path in
                let segmenter = try DefaultComponents.makeSegmenter(modelPath: path)
                created.withLock { $0.segmenter = segmenter as AnyObject }
                return segmenter
            },
            compositorFactory: { FakeCompositor() },
            defaultModelPath: { DefaultComponents.defaultModelPath }, poolCapacity: 4,
            cameras: [.synthetic(name: "Front", position: .front, width: 64, height: 48)])
        let engine = SRTCEngine(capturePipeline: pipeline)
        let baseline = heapBytesInUse()
        try engine.installVirtualBackground()
        let sessionBytes = engine.virtualBackgroundSessionBytes
        #expect(sessionBytes > 1 << 20, "the session holds the model's activations")
        do {
            let fitting = try #require(created.withLock { $0.segmenter } as? FrameFittingSegmenter)
            #expect(fitting.model(width: 64, height: 48).convention.inputHeight == 256, "a 4:3 camera gets the general model")
            #expect(fitting.model(width: 1280, height: 720).convention.inputHeight == 144, "a 16:9 one the landscape model")
        }
        try engine.enableVirtualBackground(true)
        pipeline.captureFrames(2)
        let diagnostics = engine.virtualBackgroundDiagnostics
        #expect(diagnostics.inferenceCount == 2 && diagnostics.droppedFrameCount == 0)
        #expect(diagnostics.segmentation.meanNanoseconds > 0)
        #expect(engine.localPreview.latestFrame != nil)
        let installed = heapBytesInUse()
        engine.localPreview.clear()
        engine.uninstallVirtualBackground()
        let uninstalled = heapBytesInUse()
        #expect(engine.virtualBackgroundSessionBytes == 0)
        #expect(engine.virtualBackgroundDiagnostics.bufferBytes == 0)
        // The segmenter (sole owner of the session and its arena) is gone.
        #expect(created.withLock { $0.segmenter } == nil, "uninstall left the session alive")
        // Process-wide heap figures move with tests running in parallel, so they are reported, not asserted.
        print("heap: install +\(installed - baseline) bytes, uninstall −\(installed - uninstalled) bytes, session \(sessionBytes) bytes")
    }

    @Test("a file that is not an ONNX model throws virtualBackgroundSessionFailed with the engine's message")
    func realBadModel() throws {
        let engine = SRTCEngine(capturePipeline: SRTCCapturePipeline())
        let path = NSTemporaryDirectory() + "not-a-model-\(UUID().uuidString).onnx"
        try Data([0x08, 0x07, 0xFF, 0xFF, 0xFF]).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            try engine.installVirtualBackground(modelPath: path)
            Issue.record("garbage installed")
        } catch SRTCError.virtualBackgroundSessionFailed(let message) {
            #expect(!message.isEmpty)
        }
        #expect(!engine.virtualBackground.isInstalled)
    }

    @Test("the landscape model installs through its documented path")
    func landscapeModel() throws {
        let pipeline = SRTCCapturePipeline(
            segmenterFactory: { try DefaultComponents.makeSegmenter(modelPath: $0) }, compositorFactory: { FakeCompositor() },
            defaultModelPath: { DefaultComponents.defaultModelPath }, poolCapacity: 4,
            cameras: [.synthetic(width: 32, height: 18)])
        let engine = SRTCEngine(capturePipeline: pipeline)
        try engine.installVirtualBackground(modelPath: SRTCVirtualBackgroundModel.landscape.path)
        try engine.enableVirtualBackground(true)
        pipeline.captureFrames(1)
        #expect(engine.virtualBackgroundDiagnostics.inferenceCount == 1)
        #expect(engine.virtualBackground.droppedFrameCount == 0)
    }

    /// A pipeline with the real segmenter factory (descriptions included) and a small camera.
    private func describedPipeline() -> SRTCCapturePipeline {
        SRTCCapturePipeline(
            describedSegmenterFactory: { try DefaultComponents.makeSegmenter(modelPath: $0, description: $1) },
            compositorFactory: { FakeCompositor() }, defaultModelPath: { DefaultComponents.defaultModelPath },
            poolCapacity: 4, cameras: [.synthetic(width: 32, height: 18)])
    }

    /// SINet (a PyTorch export: NCHW, BGR, mean/std in pixel units, a 2-channel softmax output).
    private var sinetPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Fixtures/thirdparty/sinet/model.onnx").path
    }

    @Test("a model of the app's own installs with its description given in code")
    func describedModelInstalls() throws {
        let engine = SRTCEngine(capturePipeline: describedPipeline())
        let description = SRTCVirtualBackgroundModelDescription(
            input: .init(channels: .bgr, range: (0, 255), mean: [102.890434, 111.25247, 126.91212], std: [62.93292, 62.82138, 66.355705]))
        try engine.installVirtualBackground(modelPath: sinetPath, description: description)
        #expect(engine.virtualBackground.isInstalled)
    }

    @Test("a bad description is virtualBackgroundSessionFailed naming the field, and nothing is installed")
    func badDescription() throws {
        let engine = SRTCEngine(capturePipeline: describedPipeline())
        for (description, field) in [(SRTCVirtualBackgroundModelDescription(output: .init(name: "mask")), "output.name"),
                                     (SRTCVirtualBackgroundModelDescription(input: .init(std: [1, 0, 1])), "input.std")] {
            do {
                try engine.installVirtualBackground(modelPath: sinetPath, description: description)
                Issue.record("expected an error for \(field)")
            } catch SRTCError.virtualBackgroundSessionFailed(let message) {
                #expect(message.contains(field), "\(message)")
            }
            #expect(!engine.virtualBackground.isInstalled)
        }
    }
}
