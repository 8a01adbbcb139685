import BuiltinModels
import FramePipeline
import Imaging

/// The parts a pipeline uses unless a test injects others (package-visible for `vbg soak`, which
/// builds a 640x480 pipeline with them).
package enum DefaultComponents {
    /// `installVirtualBackground(modelPath: nil)` loads this: the built-in general model.
    package static var defaultModelPath: String { BuiltinModel.general.url.path }

    /// The real model: MediaPipe selfie segmentation through our ONNX engine.
    package static func makeSegmenter(modelPath: String) throws -> any Segmenter {
        try ModelSegmenter(modelPath: modelPath)
    }

    /// The real compositing: mask-weighted blur and cover-cropped replacement.
    package static func makeCompositor() -> any FrameCompositor {
        ImagingCompositor()
    }
}
