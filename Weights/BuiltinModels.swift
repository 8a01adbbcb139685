import Foundation

/// The segmentation models that ship with the package: MediaPipe selfie segmentation (Apache-2.0),
/// exported 1:1 from MediaPipe 0.10.21's TFLite files to ONNX by `Tools/export_model.py`
/// (see `Weights/README.md`).
///
/// Both models take one float32 input of shape `[1, inputHeight, inputWidth, 3]` (NHWC, RGB in
/// [0, 1], the frame stretched to the model size the way MediaPipe does it) and give one float32
/// output of shape `[1, inputHeight, inputWidth, 1]`: the probability that a pixel shows a person
/// (the graph ends in a sigmoid).
public enum BuiltinModel: String, CaseIterable, Sendable {
    /// The general model, 256x256 input: MediaPipe's `model_selection = 0`.
    case general
    /// The landscape model, 256 wide by 144 high: MediaPipe's `model_selection = 1`; cheaper, made
    /// for 16:9 frames.
    case landscape

    /// The ONNX file's name in the bundle.
    public var fileName: String {
        switch self {
        case .general: "selfie_segmentation.onnx"
        case .landscape: "selfie_segmentation_landscape.onnx"
        }
    }

    /// Where the ONNX file is. The file is a package resource, so this always points at a file
    /// that exists unless the bundle was tampered with; reading it is the caller's business.
    public var url: URL {
        let name = (fileName as NSString).deletingPathExtension
        if let found = Bundle.module.url(forResource: name, withExtension: "onnx") {
            return found
        }
        // Resources copied with `.copy` keep their name at the bundle's top level.
        return Bundle.module.bundleURL.appendingPathComponent(fileName)
    }

    /// The width of the model's input tensor, in pixels.
    public var inputWidth: Int { 256 }

    /// The height of the model's input tensor, in pixels.
    public var inputHeight: Int {
        switch self {
        case .general: 256
        case .landscape: 144
        }
    }
}
