import BuiltinModels
import FramePipeline
import Imaging

/// The parts a pipeline uses unless a test injects others (package-visible for `vbg soak`, which
/// builds a 640x480 pipeline with them).
package enum DefaultComponents {
    /// `installVirtualBackground(modelPath: nil)` loads this: the built-in general model.
    package static var defaultModelPath: String { BuiltinModel.general.pathName }

    /// The real model: MediaPipe selfie segmentation through our ONNX engine. A built-in model's
    /// ``BuiltinModel/pathName`` loads the bytes linked into the binary; any other string is a file.
    package static func makeSegmenter(modelPath: String) throws -> any Segmenter {
        try makeSegmenter(modelPath: modelPath, threads: 1)
    }

    /// ``makeSegmenter(modelPath:)`` with `threads` inference threads.
    package static func makeSegmenter(modelPath: String, threads: Int) throws -> any Segmenter {
        if let builtin = BuiltinModel(pathName: modelPath) {
            return try ModelSegmenter(modelBytes: builtin.bytes, threads: threads)
        }
        return try ModelSegmenter(modelPath: modelPath, threads: threads)
    }

    /// The real compositing: mask-weighted blur and cover-cropped replacement.
    package static func makeCompositor() -> any FrameCompositor {
        ImagingCompositor()
    }
}
