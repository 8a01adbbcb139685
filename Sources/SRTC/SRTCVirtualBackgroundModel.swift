import FramePipeline
import BuiltinModels

/// The segmentation models built into the SDK, for `installVirtualBackground(modelPath:)`.
///
/// `nil` installs both and segments each frame with the one whose input shape fits it: landscape
/// for frames wider than 4:3, general otherwise. To use one of them alone:
///
///     try engine.installVirtualBackground(modelPath: SRTCVirtualBackgroundModel.landscape.path)
public enum SRTCVirtualBackgroundModel: String, CaseIterable, Sendable {
    /// MediaPipe selfie segmentation, general model (256×256 input): for square, 4:3 and portrait frames.
    case general
    /// MediaPipe selfie segmentation, landscape model (256×144 input): fewer operations, made for
    /// 16:9 video.
    case landscape

    /// The `modelPath` that installs this model: `builtin:general` or `builtin:landscape`. The
    /// models are part of the SDK's binary, so this names no file and installing it never looks for one.
    public var path: String {
        switch self {
        case .general: BuiltinModel.general.pathName
        case .landscape: BuiltinModel.landscape.pathName
        }
    }
}

/// A segmentation model's conventions, for ``SRTCEngine/installVirtualBackground(modelPath:description:)``:
/// what turns a camera frame into the model's input and its output into a person probability.
public typealias SRTCVirtualBackgroundModelDescription = SegmentationModelDescription
