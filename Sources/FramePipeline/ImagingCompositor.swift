import Imaging

/// The shipped compositor: the imaging module's mask-weighted background blur (levels 1…10, no
/// halo) and cover-cropped replacement, blended with the standard edge ramp through a byte
/// coverage (`CoverageMask`, kept per mask generation).
///
/// Keeps one ``BackgroundBlur`` (its scratch planes) and the cover-cropped picture of the current
/// background image (rebuilt only when the image or the frame size changes), so a steady stream
/// allocates nothing. Not thread-safe: one per video stream.
package final class ImagingCompositor: FrameCompositor {
    private let blur = BackgroundBlur()
    /// The byte coverage of the last mask (`CoverageMask`), rebuilt when the mask generation changes.
    private var coverage: CoverageMask?
    private var coverageGeneration: Int?
    /// Whether `coverage` was made from an alpha (the linear ramp).
    private var coverageIsAlpha = false
    private var replacement: ReplacementBackground?
    private var replacementIdentifier: Int?
    private let edge: EdgeRamp

    package init(edge: EdgeRamp = .standard) { self.edge = edge }

    /// Composites with the byte coverage of `mask` (`CoverageMask`, rounded from the edge ramp: at
    /// most one level from the float blend), converted once per mask generation: frames without
    /// inference reuse it, and the blend reads a quarter of the float mask's bytes.
    package func composite(_ frame: Image, mask: Mask, maskGeneration: Int, effect: BackgroundEffect,
                          into output: inout Image) {
        composite(frame, mask: mask, maskGeneration: maskGeneration, effect: effect, maskIsAlpha: false, into: &output)
    }

    /// An alpha mask's coverage is the mask itself (``EdgeRamp/linear``), rounded to bytes.
    package func composite(_ frame: Image, mask: Mask, maskGeneration: Int, effect: BackgroundEffect, maskIsAlpha: Bool,
                           into output: inout Image) {
        if coverage?.width != mask.width || coverage?.height != mask.height {
            coverage = CoverageMask(width: mask.width, height: mask.height)
            coverageGeneration = nil
        }
        if coverageGeneration != maskGeneration || coverageIsAlpha != maskIsAlpha {
            coverage!.update(from: mask, edge: maskIsAlpha ? .linear : edge)
            coverageGeneration = maskGeneration
            coverageIsAlpha = maskIsAlpha
        }
        switch effect {
        case .blur(let level):
            blur.blurBackground(of: frame, mask: mask, coverage: coverage!, strength: BlurStrength(level: level), into: &output)
        case .image(let picture, let identifier):
            if replacementIdentifier != identifier || replacement == nil {
                replacement = ReplacementBackground(picture)
                replacementIdentifier = identifier
            }
            let background = replacement!.covering(width: frame.width, height: frame.height, format: frame.format)
            Compositor.composite(person: frame, background: background, coverage: coverage!, into: &output)
        }
    }
}
