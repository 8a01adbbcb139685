import Imaging

/// Draws the output frame from a camera frame, its mask and the effect: the seam between the frame
/// policy and the imaging code.
///
/// The shipped implementation is ``ImagingCompositor``. Implementations keep caches (blur scratch,
/// the cover-cropped background, what they derive from the mask) between calls and allocate nothing
/// per frame in steady state.
package protocol FrameCompositor: AnyObject {
    /// Writes into `output` the frame with everything outside the person replaced by `effect`:
    /// `output = mask · frame + (1 − mask) · background`.
    ///
    /// `maskGeneration` is the same number on calls with the same mask values and a different one
    /// whenever they change (``FrameProcessor`` counts its smoothed masks), so a compositor may reuse
    /// what it derived from the mask on frames without inference. A caller with one mask and a new
    /// compositor may pass any number.
    ///
    /// - Precondition: `output`, `frame` and `mask` have the same size; `output` has `frame`'s format.
    func composite(_ frame: Image, mask: Mask, maskGeneration: Int, effect: BackgroundEffect, into output: inout Image)

    /// As ``composite(_:mask:maskGeneration:effect:into:)``, with `mask` a matte's alpha when
    /// `maskIsAlpha` (``Segmenter/maskIsAlpha``): its values are the blend weight as they are,
    /// with no edge ramp.
    func composite(_ frame: Image, mask: Mask, maskGeneration: Int, effect: BackgroundEffect, maskIsAlpha: Bool,
                   into output: inout Image)
}

extension FrameCompositor {
    /// A compositor that knows no alpha composites every mask as a probability.
    package func composite(_ frame: Image, mask: Mask, maskGeneration: Int, effect: BackgroundEffect, maskIsAlpha: Bool,
                           into output: inout Image) {
        composite(frame, mask: mask, maskGeneration: maskGeneration, effect: effect, into: &output)
    }
}
