import AllocationCounter
import BuiltinModels
import Foundation
import PipelineFakes
import SDKTestSupport
@testable import SRTC
import Testing

@Suite("Installing the virtual background")
struct InstallTests {
    @Test("install loads the model from any thread (a detached task, as the page does)")
    func installFromDetachedTask() async throws {
        let rig = TestRig()
        let engine = rig.engine()
        try await Task.detached(priority: .userInitiated) {
            try engine.installVirtualBackground()
        }.value
        #expect(engine.virtualBackground.isInstalled)
        #expect(rig.installCount == 1)
    }

    @Test("nil model path means the built-in general model; the landscape one is a documented path")
    func nilMeansGeneral() throws {
        let rig = TestRig()
        let engine = rig.engine()
        try engine.installVirtualBackground(modelPath: nil)
        #expect(rig.requestedPaths == ["builtin:general"])
        #expect(SRTCVirtualBackgroundModel.general.path == "builtin:general")
        engine.uninstallVirtualBackground()
        try engine.installVirtualBackground(modelPath: SRTCVirtualBackgroundModel.landscape.path)
        #expect(rig.requestedPaths.last == "builtin:landscape")
    }

    @Test("a second install throws virtualBackgroundAlreadyInstalled and changes nothing")
    func secondInstallThrows() throws {
        let rig = TestRig()
        let engine = rig.engine()
        try engine.installVirtualBackground()
        try engine.enableVirtualBackground(true)
        let before = engine.virtualBackground
        #expect(throws: SRTCError.virtualBackgroundAlreadyInstalled) {
            try engine.installVirtualBackground(modelPath: SRTCVirtualBackgroundModel.landscape.path)
        }
        #expect(engine.virtualBackground == before)
        #expect(rig.requestedPaths.count == 1, "the second call did not even load a model")
    }

    @Test("concurrent installs: exactly one wins, the others throw virtualBackgroundAlreadyInstalled")
    func concurrentInstalls() async {
        let rig = TestRig()
        let engine = rig.engine()
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    do { try engine.installVirtualBackground(); return true } catch { return false }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { $0 }.count == 1)
        #expect(engine.virtualBackground.isInstalled)
    }

    @Test("a missing model file throws virtualBackgroundModelNotFound(path)")
    func missingFile() {
        let engine = TestRig().engine()
        let path = "/nonexistent/model.onnx"
        #expect(throws: SRTCError.virtualBackgroundModelNotFound(path)) {
            try engine.installVirtualBackground(modelPath: path)
        }
        #expect(!engine.virtualBackground.isInstalled)
        #expect(throws: SRTCError.virtualBackgroundModelNotFound(NSTemporaryDirectory())) {
            try engine.installVirtualBackground(modelPath: NSTemporaryDirectory())
        }
    }

    @Test("a bad model throws virtualBackgroundSessionFailed(message) and leaves it uninstalled")
    func badModel() throws {
        let rig = TestRig()
        let engine = rig.engine()
        let path = NSTemporaryDirectory() + "bad-model-\(UUID().uuidString).onnx"
        try Data("not an onnx model".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            try engine.installVirtualBackground(modelPath: path)
            Issue.record("a bad model installed")
        } catch SRTCError.virtualBackgroundSessionFailed(let message) {
            #expect(message.contains("injected"))
        }
        #expect(!engine.virtualBackground.isInstalled)
        #expect(throws: SRTCError.virtualBackgroundNotInstalled) { try engine.enableVirtualBackground(true) }
    }

    @Test("errors describe themselves (error.localizedDescription names the cause)")
    func errorDescriptions() {
        let error: any Error = SRTCError.virtualBackgroundModelNotFound("/x/model.onnx")
        #expect(error.localizedDescription.contains("/x/model.onnx"))
        #expect(SRTCError.virtualBackgroundSessionFailed("op Foo").localizedDescription.contains("op Foo"))
        #expect(SRTCError.virtualBackgroundNotInstalled.localizedDescription.contains("installVirtualBackground"))
        #expect(SRTCError.virtualBackgroundAlreadyInstalled.localizedDescription.contains("already installed"))
    }

    @Test("off by default after install; switching before install throws virtualBackgroundNotInstalled")
    func offByDefault() throws {
        let engine = TestRig().engine()
        #expect(throws: SRTCError.virtualBackgroundNotInstalled) { try engine.enableVirtualBackground(true) }
        #expect(throws: SRTCError.virtualBackgroundNotInstalled) { try engine.enableVirtualBackground(false) }
        try engine.installVirtualBackground()
        #expect(!engine.isVirtualBackgroundEnabled)
        try engine.enableVirtualBackground(true)
        #expect(engine.isVirtualBackgroundEnabled && engine.virtualBackground.isEnabled)
    }

    @Test("uninstall releases the session and its buffers (memory returns) and keeps the effect parameters",
          .disabled(if: vbg_built_with_sanitizer() != 0, "mallinfo2 does not see a sanitizer's allocator"))
    func uninstallReleases() throws {
        let ballast = 48 << 20
        let rig = TestRig(width: 320, height: 240, ballastBytes: ballast)
        let engine = rig.engine()
        let preview = StreamRecorder(engine.localPreview)
        engine.setVirtualBackgroundBlur(level: 8)
        engine.setVirtualBackgroundInferenceInterval(3)
        engine.setVirtualBackgroundMaskSync(true)

        // The heap counter is process-wide and other tests run in parallel, allocating or freeing
        // while a cycle runs; so an install/uninstall cycle is measured up to three times and
        // the best one counts. A session that is not released fails every cycle.
        var held = 0, released = 0, bufferBytes = 0
        for cycle in 0..<3 {
            let baseline = heapBytesInUse()
            try engine.installVirtualBackground()
            try engine.enableVirtualBackground(true)
            rig.pipeline.captureFrames(5)
            let installed = heapBytesInUse()
            let diagnostics = engine.virtualBackgroundDiagnostics
            #expect(engine.virtualBackgroundSessionBytes == ballast)
            #expect(diagnostics.bufferBytes > 0)
            if cycle == 0 { #expect(preview.count == 5) }   // `clear()` below also drops the recorder

            engine.localPreview.clear()   // the preview lets go of its last frame
            engine.uninstallVirtualBackground()
            let uninstalled = heapBytesInUse()
            #expect(engine.virtualBackgroundSessionBytes == 0)
            #expect(engine.virtualBackgroundDiagnostics.bufferBytes == 0)
            (held, released, bufferBytes) = (installed - baseline, installed - uninstalled, diagnostics.bufferBytes)
            // With slack for what other tests do meanwhile: the session alone is 48 MiB.
            if held >= ballast * 9 / 10 && released >= (ballast + bufferBytes) * 9 / 10 { break }
        }
        #expect(held >= ballast * 9 / 10, "install held \(held) bytes")
        #expect(released >= (ballast + bufferBytes) * 9 / 10, "uninstall released \(released) of \(held) bytes")

        let state = engine.virtualBackground
        #expect(!state.isInstalled && !state.isEnabled)
        #expect(state.blurLevel == 8 && state.effect == .blur && state.inferenceInterval == 3 && state.maskSync)
        try engine.installVirtualBackground()
        #expect(engine.virtualBackground.blurLevel == 8 && engine.virtualBackground.inferenceInterval == 3)
        #expect(!engine.isVirtualBackgroundEnabled, "off again after the next install")
    }
}
