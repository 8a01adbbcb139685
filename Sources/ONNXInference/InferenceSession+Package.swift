import Inference

// The package-only runs of a session made by `init(planned:options:)`: on the caller's float
// buffers with no allocation and no check beyond the buffers' sizes (the SDK's per-frame
// segmentation), and on raw bytes per input and output (a recurrent model's state). Not public:
// an app runs through `run(inputs:)` and `run(inputs:into:)`.

extension InferenceSession {
    /// Runs a model with one float32 input and writes its float32 output `index` (in ``outputs``
    /// order) into `output`; allocates nothing. The fast path's first kernel reads `input` in
    /// place when it can.
    ///
    /// - Precondition: the session was made by `init(planned:options:)`.
    /// - Throws: `InferenceError(.invalidInput)` when the model does not have exactly one float32
    ///   input, `index` is not an output's, that output is not float32, or a buffer has the wrong size.
    package func run(input: UnsafeBufferPointer<Float>, output: UnsafeMutableBufferPointer<Float>,
                     outputAt index: Int) throws(InferenceError) {
        guard let pinned else { preconditionFailure("buffer runs need a session made by init(planned:options:)") }
        do {
            try pinned.run(input: input, output: output, outputAt: index)
        } catch {
            throw InferenceError(error)
        }
    }

    /// Runs the model on raw bytes: input `i` (in ``inputs`` order) is copied from `input(i)`,
    /// then output `j` (in ``outputs`` order) is handed to `output(j, bytes)`. Allocates nothing.
    ///
    /// - Precondition: the session was made by `init(planned:options:)`, and `input(i).count` is
    ///   input `i`'s byte count.
    package func run(copyingInputs input: (Int) -> UnsafeRawBufferPointer,
                     readingOutputs output: (Int, UnsafeRawBufferPointer) -> Void) {
        guard let pinned else { preconditionFailure("buffer runs need a session made by init(planned:options:)") }
        pinned.run(copyingInputs: input, readingOutputs: output)
    }

    /// Bytes of the planned session's arena (activations and constants); 0 for a session made
    /// from a model's bytes.
    package var arenaBytes: Int { pinned?.arenaBytes ?? 0 }

    /// Bytes the planned session holds: its arena, what its steps own and its worker pool's
    /// scratch (`Inference.InferenceSession.heldBytes`); 0 for a session made from a model's
    /// bytes. Allocates: for diagnostics.
    package var heldBytes: Int { pinned?.heldBytes ?? 0 }

    /// Bytes the planned session's model holds, shared with every session of that model: the
    /// engine's model (constants, packed weights, operators' tables) and the decoded ONNX model
    /// kept to plan other input shapes (its initializers' bytes), if the session keeps it.
    package var modelHeldBytes: Int {
        var held = HeldMemory()
        if let proto { held.add(proto) }
        return (pinned?.model.heldBytes ?? 0) + held.bytes
    }
}
