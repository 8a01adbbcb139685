import BuiltinModels
import FramePipeline
import Imaging

/// The parts a pipeline uses unless a test injects others (package-visible for `vbg soak`, which
/// builds a 640x480 pipeline with them).
package enum DefaultComponents {
    /// `installVirtualBackground(modelPath: nil)` loads this: both built-in models, each frame
    /// segmented with the one that fits it (landscape for frames wider than 4:3, general otherwise).
    package static var defaultModelPath: String { BuiltinModel.automaticPathName }

    /// The real model through our ONNX engine: MediaPipe selfie segmentation or any model the app
    /// passes. ``BuiltinModel/automaticPathName`` loads both built-in models (``FrameFittingSegmenter``),
    /// a built-in model's ``BuiltinModel/pathName`` the bytes linked into the binary; any other
    /// string is a file.
    /// ``makeSegmenter(modelPath:)`` with `threads` inference threads and the model's description
    /// given in code (fields it leaves out come from `MODEL.onnx.json`, the model's metadata, or
    /// detection).
    package static func makeSegmenter(modelPath: String, description: SegmentationModelDescription? = nil,
                                      threads: Int = 1) throws -> any Segmenter {
        if modelPath == BuiltinModel.automaticPathName {
            guard description == nil else {
                throw SegmenterLoadError(message: "a description applies to a model file, not to the built-in models")
            }
            return FrameFittingSegmenter([try ModelSegmenter(modelBytes: BuiltinModel.general.bytes, threads: threads),
                                          try ModelSegmenter(modelBytes: BuiltinModel.landscape.bytes, threads: threads)])
        }
        if let builtin = BuiltinModel(pathName: modelPath) {
            return try ModelSegmenter(modelBytes: builtin.bytes, description: description, threads: threads)
        }
        return try ModelSegmenter(modelPath: modelPath, description: description, threads: threads)
    }

    /// The real compositing: mask-weighted blur and cover-cropped replacement.
    package static func makeCompositor() -> any FrameCompositor {
        ImagingCompositor()
    }
}
