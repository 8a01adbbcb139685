/// What replaces the background.
public enum SRTCVirtualBackgroundEffect: Sendable, Hashable {
    /// Background blur at ``SRTCVirtualBackgroundState/blurLevel``.
    case blur
    /// Background replacement with the image set by `setVirtualBackgroundImage(_:)`.
    case image
}

/// The virtual background's actual state, read-only, for populating panel controls.
public struct SRTCVirtualBackgroundState: Sendable, Equatable {
    /// Frames dropped instead of sending the raw camera frame (segmentation failure or output
    /// buffer pool exhaustion), since the process started.
    public var droppedFrameCount: Int
    /// Whether the component (model and inference session) is installed.
    public var isInstalled: Bool
    /// Whether the virtual background is on.
    public var isEnabled: Bool
    /// Blur or image replacement (the later call wins).
    public var effect: SRTCVirtualBackgroundEffect
    /// Blur level 1…10 (default 5).
    public var blurLevel: Int
    /// Segmentation runs every this many frames (default 1).
    public var inferenceInterval: Int
    /// Whether frames without inference repeat the previous processed frame (default false).
    public var maskSync: Bool
}

/// Diagnostics of one virtual background processor (the camera's, or one attached to a custom track).
public struct SRTCVirtualBackgroundDiagnostics: Sendable, Equatable {
    /// Duration of one processing stage in nanoseconds: last frame and mean over all frames.
    public struct StageTiming: Sendable, Equatable {
        public var samples: Int
        public var lastNanoseconds: Int64
        public var meanNanoseconds: Int64
    }

    /// Frames handed to the processor.
    public var framesReceived: Int
    /// Frames passed through untouched while off.
    public var framesPassedThrough: Int
    /// Frames composited.
    public var framesComposited: Int
    /// Frames where the previous processed frame was sent again (mask sync).
    public var framesRepeated: Int
    /// Segmentation runs.
    public var inferenceCount: Int
    /// Frames dropped (all causes).
    public var droppedFrameCount: Int
    /// Frames dropped because segmentation failed.
    public var droppedForSegmentationFailure: Int
    /// Frames dropped because every output buffer was in use.
    public var droppedForPoolExhaustion: Int
    /// Times the inter-frame state was cleared.
    public var resetCount: Int
    /// Segmentation (preprocessing, inference, mask upsampling).
    public var segmentation: StageTiming
    /// Temporal smoothing of the mask.
    public var smoothing: StageTiming
    /// Blur or replacement and blending.
    public var compositing: StageTiming
    /// Whole processed frames.
    public var total: StageTiming
    /// Bytes held by this processor's masks and output buffers.
    public var bufferBytes: Int
    /// The CPU features the SDK's SIMD kernels were compiled to use, for example `AVX2` and `FMA`
    /// from an x86-64-v3 build, `AVX512F` and others from x86-64-v4; empty for the portable
    /// baseline, which runs several times slower (Docs/SDK.md, "Building it fast").
    public var simdFeatures: [String]
}
