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
