import Foundation
import SRTC
import TestSupport
import Testing

/// The SDK refuses a model that cannot run with the list `vbg` prints: every node that cannot run.
@Suite("SDK: virtualBackgroundSessionFailed lists every node that cannot run")
struct ModelProblemsSDKTests {
    @Test("installing tf2onnx's landscape export names its 11 HardSwish nodes and its TFLite transposed convolution")
    func tf2onnxLandscape() throws {
        let engine = SRTCEngine(capturePipeline: SRTCCapturePipeline())
        do {
            try engine.installVirtualBackground(modelPath: Fixtures.url("model/landscape_tf2onnx/model.onnx").path)
            Issue.record("a model with unsupported nodes installed")
        } catch SRTCError.virtualBackgroundSessionFailed(let message) {
            #expect(message.hasPrefix("12 nodes cannot run:"), "\(message)")
            #expect(message.components(separatedBy: "(HardSwish, ai.onnx opset 13): operator 'HardSwish' does not exist at opset 13").count == 12,
                    "\(message)")
            #expect(message.contains("node 'conv2d_transpose' (TFL_Convolution2DTransposeBias, ai.onnx opset 13)"), "\(message)")
        }
        #expect(!engine.virtualBackground.isInstalled)
    }
}
