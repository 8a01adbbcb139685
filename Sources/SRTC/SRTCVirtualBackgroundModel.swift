import BuiltinModels

/// The segmentation models built into the SDK, for `installVirtualBackground(modelPath:)`.
///
/// `nil` installs ``general``. To use the landscape model:
///
///     try engine.installVirtualBackground(modelPath: SRTCVirtualBackgroundModel.landscape.path)
public enum SRTCVirtualBackgroundModel: String, CaseIterable, Sendable {
    /// MediaPipe selfie segmentation, general model (256×256 input): the default.
    case general
    /// MediaPipe selfie segmentation, landscape model (256×144 input): fewer operations, made for
    /// 16:9 video.
    case landscape

    /// The model file's path.
    public var path: String {
        switch self {
        case .general: BuiltinModel.general.url.path
        case .landscape: BuiltinModel.landscape.url.path
        }
    }
}
