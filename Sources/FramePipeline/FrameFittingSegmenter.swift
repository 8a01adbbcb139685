import Imaging

/// Segments each frame with the model whose input shape fits it: of its models, the one whose
/// input aspect ratio is nearest the frame's, nearness measured as a ratio (the larger of
/// `frame / input` and `input / frame` aspect), a tie going to the model listed first.
///
/// With the built-in general (256x256) and landscape (256x144) models, in that order: frames
/// wider than 4:3 get the landscape model, 4:3 frames and narrower ones (portrait included) the
/// general one (4:3 is as far from 1:1 as from 16:9).
///
/// The comparison is exact (integer cross-products). Each model keeps its own sampler and
/// upsampler; a frame size change is a resolution change, which clears the stream's
/// inter-frame state anyway. The models have no recurrent state.
package final class FrameFittingSegmenter: Segmenter {
    private let models: [ModelSegmenter]
    /// The model the last frame size picked, and that size.
    private var chosen: (width: Int, height: Int, index: Int) = (0, 0, 0)

    /// - Precondition: at least one model, none with a recurrent state.
    package init(_ models: [ModelSegmenter]) {
        precondition(!models.isEmpty, "a frame-fitting segmenter needs a model")
        precondition(models.allSatisfy { $0.convention.state.isEmpty }, "a frame-fitting segmenter takes models without state")
        self.models = models
    }

    /// The index of the model for a `width × height` frame.
    package func modelIndex(width: Int, height: Int) -> Int {
        var best = 0
        for index in models.indices.dropFirst() where Self.isNearer(models[index].convention, than: models[best].convention, width: width, height: height) {
            best = index
        }
        return best
    }

    /// The model for a `width × height` frame.
    package func model(width: Int, height: Int) -> ModelSegmenter { models[modelIndex(width: width, height: height)] }

    /// Whether `a`'s input aspect is strictly nearer the frame's than `b`'s.
    static func isNearer(_ a: ModelConvention, than b: ModelConvention, width: Int, height: Int) -> Bool {
        // Distance of input w/h to frame W/H as a fraction p/q ≥ 1: max(W·h, H·w) / min(W·h, H·w).
        func distance(_ c: ModelConvention) -> (Int, Int) {
            let x = width * c.inputHeight, y = height * c.inputWidth
            return (max(x, y), min(x, y))
        }
        let (pa, qa) = distance(a), (pb, qb) = distance(b)
        let left = pa.multipliedFullWidth(by: qb), right = pb.multipliedFullWidth(by: qa)
        return (left.high, left.low) < (right.high, right.low)
    }

    package func segment(_ frame: Image, into mask: UnsafeMutableBufferPointer<Float>) throws {
        if chosen.width != frame.width || chosen.height != frame.height {
            chosen = (frame.width, frame.height, modelIndex(width: frame.width, height: frame.height))
        }
        try models[chosen.index].segment(frame, into: mask)
    }

    package var byteCount: Int { models.reduce(0) { $0 + $1.byteCount } }
}
