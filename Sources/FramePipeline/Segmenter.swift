import Imaging

/// Turns a frame into a full-resolution person mask: the seam between the frame policy and the model.
///
/// The shipped implementations are ``ModelSegmenter`` (the sampler, the ONNX model, mask
/// upsampling) and ``FrameFittingSegmenter`` (the built-in model that fits each frame). Tests
/// inject others to force failures or make results deterministic.
///
/// Implementations keep their scratch buffers between calls and allocate nothing per frame in
/// steady state. They are not required to be thread-safe: a ``FrameProcessor`` calls one at a time.
package protocol Segmenter: AnyObject {
    /// Writes the person probability (0 = background, 1 = person) of every pixel of `frame`,
    /// row-major, into `mask`. A recurrent model runs from its zero state (one frame alone).
    ///
    /// - Precondition: `mask.count == frame.width * frame.height`.
    /// - Throws: any error when the mask cannot be computed; the frame is then dropped.
    func segment(_ frame: Image, into mask: UnsafeMutableBufferPointer<Float>) throws

    /// Bytes held by the segmenter (model weights, plan, scratch buffers), for diagnostics.
    var byteCount: Int { get }

    /// Whether the mask is a matte's alpha (the blend weight as it is) rather than a probability
    /// (composited through the edge ramp). False unless the model says so.
    var maskIsAlpha: Bool { get }

    /// A recurrent state for one stream of frames, at zero; nil for a model without one.
    func makeStreamState() -> SegmenterStreamState?

    /// As ``segment(_:into:)``, reading the stream's recurrent state and advancing it (a
    /// ``SegmenterStreamState`` this segmenter made; nil: from the zero state, as
    /// ``segment(_:into:)``).
    func segment(_ frame: Image, into mask: UnsafeMutableBufferPointer<Float>, state: SegmenterStreamState?) throws
}

extension Segmenter {
    package var maskIsAlpha: Bool { false }
    package func makeStreamState() -> SegmenterStreamState? { nil }
    package func segment(_ frame: Image, into mask: UnsafeMutableBufferPointer<Float>, state: SegmenterStreamState?) throws {
        try segment(frame, into: mask)
    }
}

/// One stream's recurrent state: the state tensors a model's last inference produced, which its
/// next inference reads. Made by ``Segmenter/makeStreamState()``, owned by the stream's
/// ``FrameProcessor``, which calls ``reset()`` whenever it clears its inter-frame state.
package final class SegmenterStreamState {
    /// The segmenter that made it (only that one reads it).
    package let owner: ObjectIdentifier
    /// One buffer per state tensor, in the segmenter's order.
    package let buffers: [UnsafeMutableRawBufferPointer]
    /// Whether the buffers are to be read as zeros (set by ``reset()``, cleared by the segmenter
    /// once it has zeroed them).
    package var isReset = true

    package init(owner: AnyObject, byteCounts: [Int]) {
        self.owner = ObjectIdentifier(owner)
        buffers = byteCounts.map { count in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 64)
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            return buffer
        }
    }

    deinit { for buffer in buffers { buffer.deallocate() } }

    /// The next inference starts from zeros (allocates nothing).
    package func reset() { isReset = true }

    /// Bytes held.
    package var byteCount: Int { buffers.reduce(0) { $0 + $1.count } }
}
