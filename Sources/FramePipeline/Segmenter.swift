import Imaging

/// Turns a frame into a full-resolution person mask: the seam between the frame policy and the model.
///
/// The shipped implementation is ``ModelSegmenter`` (MediaPipe preprocessing, the ONNX model,
/// mask upsampling). Tests inject others to force failures or make results deterministic.
///
/// Implementations keep their scratch buffers between calls and allocate nothing per frame in
/// steady state. They are not required to be thread-safe: a ``FrameProcessor`` calls one at a time.
package protocol Segmenter: AnyObject {
    /// Writes the person probability (0 = background, 1 = person) of every pixel of `frame`,
    /// row-major, into `mask`.
    ///
    /// - Precondition: `mask.count == frame.width * frame.height`.
    /// - Throws: any error when the mask cannot be computed; the frame is then dropped.
    func segment(_ frame: Image, into mask: UnsafeMutableBufferPointer<Float>) throws

    /// Bytes held by the segmenter (model weights, plan, scratch buffers), for diagnostics.
    var byteCount: Int { get }
}

/// What replaces the background.
package enum BackgroundEffect: Sendable, Equatable {
    /// Blur at a level 1…10 (clamped).
    case blur(level: Int)
    /// A picture, cover-cropped to the frame (scaled to fill, centred, never stretched).
    /// `identifier` changes whenever the picture does, so a compositor can cache its crop.
    case image(Image, identifier: Int)

    package static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case let (.blur(a), .blur(b)): a == b
        case let (.image(_, a), .image(_, b)): a == b
        default: false
        }
    }
}

/// Draws the output frame from a camera frame, its mask and the effect: the seam between the frame
/// policy and the imaging code.
///
/// The shipped implementation is ``ImagingCompositor``. Implementations keep caches (blur scratch,
/// the cover-cropped background) between calls and allocate nothing per frame in steady state.
package protocol FrameCompositor: AnyObject {
    /// Writes into `output` the frame with everything outside the person replaced by `effect`:
    /// `output = mask · frame + (1 − mask) · background`.
    ///
    /// - Precondition: `output`, `frame` and `mask` have the same size; `output` has `frame`'s format.
    func composite(_ frame: Image, mask: Mask, effect: BackgroundEffect, into output: inout Image)

    /// As ``composite(_:mask:effect:into:)``, with `maskGeneration`: the same number on calls with
    /// the same mask values, a different one whenever they change (``FrameProcessor`` counts its
    /// smoothed masks), so a compositor may reuse what it derived from the mask on frames without
    /// inference. The default ignores it.
    func composite(_ frame: Image, mask: Mask, maskGeneration: Int, effect: BackgroundEffect, into output: inout Image)
}

extension FrameCompositor {
    package func composite(_ frame: Image, mask: Mask, maskGeneration: Int, effect: BackgroundEffect,
                          into output: inout Image) {
        composite(frame, mask: mask, effect: effect, into: &output)
    }
}
