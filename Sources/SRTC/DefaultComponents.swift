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

    /// The real compositing: mask-weighted blur and cover-cropped replacement.
    static func makeCompositor() -> any FrameCompositor {
        ImagingCompositor()
    }
}
