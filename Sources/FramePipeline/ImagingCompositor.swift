import Imaging

/// The shipped compositor: the imaging module's mask-weighted background blur (levels 1…10, no
/// halo) and cover-cropped replacement, blended with the standard edge ramp.
///
/// Keeps one ``BackgroundBlur`` (its scratch planes) and the cover-cropped picture of the current
/// background image (rebuilt only when the image or the frame size changes), so a steady stream
/// allocates nothing. Not thread-safe: one per video stream.
public final class ImagingCompositor: FrameCompositor {
    private let blur = BackgroundBlur()
    private var replacement: ReplacementBackground?
    private var replacementIdentifier: Int?
    private let edge: EdgeRamp

    public init(edge: EdgeRamp = .standard) { self.edge = edge }

    public func composite(_ frame: Image, mask: Mask, effect: BackgroundEffect, into output: inout Image) {
        switch effect {
        case .blur(let level):
            // The blur works in place: start from the frame's pixels.
            let rowBytes = 4 * frame.width
            frame.bytes.withUnsafeBufferPointer { source in
                output.bytes.withUnsafeMutableBufferPointer { destination in
                    for y in 0..<frame.height {
                        (destination.baseAddress! + y * output.bytesPerRow)
                            .update(from: source.baseAddress! + y * frame.bytesPerRow, count: rowBytes)
                    }
                }
            }
            blur.blurBackground(of: &output, mask: mask, strength: BlurStrength(level: level), edge: edge)
        case .image(let picture, let identifier):
            if replacementIdentifier != identifier || replacement == nil {
                replacement = ReplacementBackground(picture)
                replacementIdentifier = identifier
            }
            let background = replacement!.covering(width: frame.width, height: frame.height, format: frame.format)
            Compositor.composite(person: frame, background: background, mask: mask, edge: edge, into: &output)
        }
    }
}
