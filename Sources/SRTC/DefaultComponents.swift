import BuiltinModels
import FramePipeline
import Imaging

/// The parts a pipeline uses unless a test injects others.
enum DefaultComponents {
    /// `installVirtualBackground(modelPath: nil)` loads this: the built-in general model.
    static var defaultModelPath: String { BuiltinModel.general.url.path }

    /// The real model: MediaPipe selfie segmentation through our ONNX engine.
    static func makeSegmenter(modelPath: String) throws -> any Segmenter {
        try ModelSegmenter(modelPath: modelPath)
    }

    static func makeCompositor() -> any Compositor {
        UnavailableCompositor()
    }
}

/// Stands in until the imaging compositor is merged; never reached, because no segmenter can be
/// installed without the inference engine.
final class UnavailableCompositor: Compositor {
    func composite(_ frame: Image, mask: UnsafeBufferPointer<Float>, effect: BackgroundEffect, into output: inout Image) {
        preconditionFailure("compositing is not part of this build yet")
    }
}
