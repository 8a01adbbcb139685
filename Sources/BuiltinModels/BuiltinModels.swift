import BuiltinModelData

/// The segmentation models that ship with the package: MediaPipe selfie segmentation (Apache-2.0),
/// exported 1:1 from MediaPipe 0.10.21's TFLite files to ONNX by `Tools/export_model.py`
/// (see `Weights/README.md`).
///
/// The ONNX bytes are linked into the binary (no file or resource bundle is read), so a built-in
/// model is always there, whatever is moved or deleted next to the program.
///
/// Both models take one float32 input of shape `[1, inputHeight, inputWidth, 3]` (NHWC, RGB in
/// [0, 1], the frame stretched to the model size the way MediaPipe does it) and give one float32
/// output of shape `[1, inputHeight, inputWidth, 1]`: the probability that a pixel shows a person
/// (the graph ends in a sigmoid).
package enum BuiltinModel: String, CaseIterable, Sendable {
    /// The general model, 256x256 input: MediaPipe's `model_selection = 0`.
    case general
    /// The landscape model, 256 wide by 144 high: MediaPipe's `model_selection = 1`; cheaper, made
    /// for 16:9 frames.
    case landscape

    /// The name of the ONNX file in `Weights/` the bytes were linked from.
    package var fileName: String {
        switch self {
        case .general: "selfie_segmentation.onnx"
        case .landscape: "selfie_segmentation_landscape.onnx"
        }
    }

    /// The ONNX file's bytes, read-only, valid for the life of the process.
    package var storage: UnsafeRawBufferPointer {
        switch self {
        case .general:
            UnsafeRawBufferPointer(start: vbg_builtin_general_bytes(), count: Int(vbg_builtin_general_count()))
        case .landscape:
            UnsafeRawBufferPointer(start: vbg_builtin_landscape_bytes(), count: Int(vbg_builtin_landscape_count()))
        }
    }

    /// A copy of the ONNX file's bytes.
    package var bytes: [UInt8] { Array(storage) }

    /// The name that stands for this model where a model path is expected (`builtin:general`,
    /// `builtin:landscape`). It names no file: loaders that see it use ``bytes``.
    package var pathName: String { "builtin:\(rawValue)" }

    /// The name that stands for both built-in models where a model path is expected: what the SDK
    /// installs for a `nil` model path and `vbg` uses by default. Each frame is segmented with the
    /// model whose input shape fits it: landscape for frames wider than 4:3, general otherwise
    /// (`FrameFittingSegmenter`).
    package static let automaticPathName = "builtin:auto"

    /// The built-in model a ``pathName`` stands for, or `nil` for any other string.
    package init?(pathName: String) {
        guard pathName.hasPrefix("builtin:"), let model = BuiltinModel(rawValue: String(pathName.dropFirst(8))) else {
            return nil
        }
        self = model
    }

    /// The width of the model's input tensor, in pixels.
    package var inputWidth: Int { 256 }

    /// The height of the model's input tensor, in pixels.
    package var inputHeight: Int {
        switch self {
        case .general: 256
        case .landscape: 144
        }
    }
}
