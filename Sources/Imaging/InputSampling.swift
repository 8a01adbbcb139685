/// How a frame is resampled to a model's input size: the geometry the model was trained with.
///
/// With a frame `W × H` and a tensor `w × h`, per axis (`S` source size, `D` tensor size):
///
/// - ``asymmetric``: MediaPipe 0.10.21's ImageToTensor (``ModelInputSampler``): tensor index `d`
///   reads source position `d·S/D`, bilinear, taps outside the frame read 0. The built-in models'.
/// - ``halfPixel``: `cv2.resize(INTER_LINEAR)` of the 8-bit frame (``LinearResizeSampler``):
///   position `(d + 0.5)·S/D − 0.5` clamped to the frame, OpenCV's 11-bit fixed-point weights and
///   rounding. PyTorch's `interpolate(mode="bilinear", align_corners=False)` has the same geometry
///   on floats (within one level of the byte result).
/// - ``alignCorners``: PyTorch's `interpolate(mode="bilinear", align_corners=True)` on the float
///   frame (``AlignCornersSampler``): position `d·(S − 1)/(D − 1)` (0 when `D` is 1); the samples
///   are not rounded to bytes.
/// - ``area``: `cv2.resize(INTER_AREA)` of the 8-bit frame (``AreaResizeSampler``, and
///   ``LinearResizeSampler`` where an axis is upscaled): when both axes shrink, each tensor pixel
///   is the mean of the source box it covers (`S/D` pixels per axis, partial pixels weighted by
///   their covered fraction).
///
/// `Docs/Models.md` gives every formula in full; each is tested against OpenCV's or PyTorch's own
/// output (`Fixtures/imaging/sampling/`).
package enum InputSampling: String, Sendable, CaseIterable {
    case asymmetric
    case halfPixel = "half_pixel"
    case alignCorners = "align_corners"
    case area

    /// Whether every sample is a whole level `k/255` (all but ``alignCorners``).
    package var samplesLevels: Bool { self != .alignCorners }

    /// A sampler of this kind from a `sourceWidth × sourceHeight` frame to a
    /// `tensorWidth × tensorHeight` tensor.
    ///
    /// - Precondition: all sizes positive.
    package func sampler(sourceWidth: Int, sourceHeight: Int, tensorWidth: Int, tensorHeight: Int) -> FrameSampler {
        switch self {
        case .asymmetric:
            .asymmetric(ModelInputSampler(sourceWidth: sourceWidth, sourceHeight: sourceHeight,
                                          tensorWidth: tensorWidth, tensorHeight: tensorHeight))
        case .halfPixel:
            .linear(LinearResizeSampler(sourceWidth: sourceWidth, sourceHeight: sourceHeight, tensorWidth: tensorWidth,
                                        tensorHeight: tensorHeight, positions: .halfPixel))
        case .alignCorners:
            .alignCorners(AlignCornersSampler(sourceWidth: sourceWidth, sourceHeight: sourceHeight,
                                              tensorWidth: tensorWidth, tensorHeight: tensorHeight))
        case .area:
            if tensorWidth <= sourceWidth && tensorHeight <= sourceHeight {
                .area(AreaResizeSampler(sourceWidth: sourceWidth, sourceHeight: sourceHeight,
                                        tensorWidth: tensorWidth, tensorHeight: tensorHeight))
            } else {
                // OpenCV's INTER_AREA with an axis that grows: its bilinear path with area weights.
                .linear(LinearResizeSampler(sourceWidth: sourceWidth, sourceHeight: sourceHeight, tensorWidth: tensorWidth,
                                            tensorHeight: tensorHeight, positions: .area))
            }
        }
    }
}

/// Turns a frame into a model's input tensor: RGB float32 NHWC (`[h, w, 3]`) in [0, 1], whatever
/// the frame's byte order. Built once per frame size; ``sample(_:into:)`` allocates nothing.
/// Not required to be thread-safe (one caller at a time). An enum over the samplers rather than
/// a protocol existential, so the call is a switch (and the core stays Embedded Swift).
package enum FrameSampler {
    case asymmetric(ModelInputSampler)
    case linear(LinearResizeSampler)
    case area(AreaResizeSampler)
    case alignCorners(AlignCornersSampler)

    package var sourceWidth: Int {
        switch self {
        case let .asymmetric(s): s.sourceWidth
        case let .linear(s): s.sourceWidth
        case let .area(s): s.sourceWidth
        case let .alignCorners(s): s.sourceWidth
        }
    }

    package var sourceHeight: Int {
        switch self {
        case let .asymmetric(s): s.sourceHeight
        case let .linear(s): s.sourceHeight
        case let .area(s): s.sourceHeight
        case let .alignCorners(s): s.sourceHeight
        }
    }

    /// Writes the tensor for `image` into `tensor`.
    ///
    /// - Precondition: `image` is the sampler's source size and `tensor` holds at least
    ///   `tensorHeight · tensorWidth · 3` floats.
    package func sample(_ image: Image, into tensor: UnsafeMutableBufferPointer<Float>) {
        switch self {
        case let .asymmetric(s): s.sample(image, into: tensor)
        case let .linear(s): s.sample(image, into: tensor)
        case let .area(s): s.sample(image, into: tensor)
        case let .alignCorners(s): s.sample(image, into: tensor)
        }
    }
}
