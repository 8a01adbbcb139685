/// ONNX `RotaryEmbedding` (version 23, float32): rotates the first `rotary_embedding_dim` entries
/// (default 0: the whole head) of every head of X by the angles whose cosines and sines are given.
/// X is 4-D `(batch, heads, sequence, head_size)`, or 3-D `(batch, sequence, hidden)` with the
/// `num_heads` attribute splitting `hidden` into heads. The pairs rotated are the two halves of the
/// rotated part (x[i], x[i + dim/2]), or with `interleaved` 1 its neighbours (x[2i], x[2i + 1]):
/// (x1, x2) becomes (cos·x1 − sin·x2, sin·x1 + cos·x2); the entries past the rotated part are copied.
///
/// With the int64 `position_ids` `(batch, sequence)` the caches are 2-D `(positions, dim/2)` and
/// the row of a token is its position; without them the caches are 3-D `(batch, sequence, dim/2)`.
/// A position outside the cache at run time (which the spec leaves undefined) reads zeros.
final class RotaryEmbedding: Operator {
    let dataInputs: [Int]
    let outputShapes: [[Int]]
    let batch: Int, sequence: Int, heads: Int, headSize: Int
    /// Element strides of X (and Y) along batch, sequence and head; a head's entries are contiguous.
    let batchStride: Int, sequenceStride: Int, headStride: Int
    /// Half the rotated part of a head.
    let half: Int
    let interleaved: Bool
    /// The rows of the caches when `position_ids` selects them; nil when the caches are per token.
    let positions: Int?
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 3, 4)
        try context.checkAttributes(["interleaved", "rotary_embedding_dim", "num_heads"])
        for index in 0..<3 { _ = try context.requireType(ofInput: index, in: [.float32]) }
        let x = try context.shape(ofInput: 0)
        let numHeads = try context.int("num_heads", default: 0, in: 0...(1 << 30))
        let batch: Int, sequence: Int, heads: Int, headSize: Int
        let strides: (batch: Int, sequence: Int, head: Int)
        switch x.count {
        case 4:
            (batch, heads, sequence, headSize) = (x[0], x[1], x[2], x[3])
            if numHeads != 0, numHeads != heads {
                throw context.error(.invalidShape, "num_heads \(numHeads) disagrees with the input's \(heads) heads", attribute: "num_heads")
            }
            strides = (heads * sequence * headSize, headSize, sequence * headSize)
        case 3:
            guard numHeads > 0 else { throw context.error(.malformed, "a 3-D input needs num_heads", attribute: "num_heads") }
            guard x[2] % numHeads == 0 else {
                throw context.error(.invalidShape, "hidden size \(x[2]) is not a multiple of num_heads \(numHeads)", attribute: "num_heads")
            }
            (batch, sequence, heads, headSize) = (x[0], x[1], numHeads, x[2] / numHeads)
            strides = (sequence * x[2], x[2], headSize)
        default:
            throw context.error(.invalidShape, "the input must be 3-D or 4-D, got \(x)")
        }
        let dimension = try context.int("rotary_embedding_dim", default: 0, in: 0...(1 << 30))
        let rotated = dimension == 0 ? headSize : dimension
        guard rotated % 2 == 0, rotated <= headSize else {
            throw context.error(.invalidShape, "the rotated part \(rotated) must be even and at most the head size \(headSize)",
                                attribute: "rotary_embedding_dim")
        }
        let cos = try context.shape(ofInput: 1), sin = try context.shape(ofInput: 2)
        guard cos == sin else { throw context.error(.invalidShape, "cos_cache \(cos) and sin_cache \(sin) differ in shape") }
        var positions: Int?
        if context.hasInput(3) {
            _ = try context.requireType(ofInput: 3, in: [.int64])
            let ids = try context.shape(ofInput: 3)
            guard ids == [batch, sequence] else {
                throw context.error(.invalidShape, "position_ids \(ids) must be (batch, sequence) = \([batch, sequence])")
            }
            guard cos.count == 2, cos[1] == rotated / 2 else {
                throw context.error(.invalidShape, "with position_ids the caches must be (positions, \(rotated / 2)), got \(cos)")
            }
            positions = cos[0]
        } else {
            guard cos == [batch, sequence, rotated / 2] else {
                throw context.error(.invalidShape, "without position_ids the caches must be \([batch, sequence, rotated / 2]), got \(cos)")
            }
        }
        return RotaryEmbedding(dataInputs: positions == nil ? [0, 1, 2] : [0, 1, 2, 3], outputShapes: [x],
                               batch: batch, sequence: sequence, heads: heads, headSize: headSize,
                               batchStride: strides.batch, sequenceStride: strides.sequence, headStride: strides.head,
                               half: rotated / 2, interleaved: try context.int("interleaved", default: 0, in: 0...1) == 1,
                               positions: positions)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = inputs[0], cosines = inputs[1], sines = inputs[2], y = outputs[0]
        let ids = positions == nil ? nil : UnsafeRawPointer(inputs[3]).assumingMemoryBound(to: Int64.self)
        for b in 0..<batch {
            for s in 0..<sequence {
                // The cache row of this token, or nil for a position outside the cache (zeros).
                var row: Int? = b * sequence + s
                if let ids, let positions {
                    let id = ids[b * sequence + s]
                    row = id >= 0 && id < Int64(positions) ? Int(id) : nil
                }
                for h in 0..<heads {
                    let base = b * batchStride + s * sequenceStride + h * headStride
                    for i in 0..<half {
                        let c = row.map { cosines[$0 * half + i] } ?? 0, n = row.map { sines[$0 * half + i] } ?? 0
                        let first = interleaved ? 2 * i : i, second = interleaved ? 2 * i + 1 : i + half
                        let x1 = x[base + first], x2 = x[base + second]
                        y[base + first] = c * x1 - n * x2
                        y[base + second] = n * x1 + c * x2
                    }
                    for d in (2 * half)..<headSize { y[base + d] = x[base + d] }
                }
            }
        }
    }

    init(dataInputs: [Int], outputShapes: [[Int]], batch: Int, sequence: Int, heads: Int, headSize: Int,
         batchStride: Int, sequenceStride: Int, headStride: Int, half: Int, interleaved: Bool, positions: Int?) {
        self.dataInputs = dataInputs
        self.outputShapes = outputShapes
        self.batch = batch
        self.sequence = sequence
        self.heads = heads
        self.headSize = headSize
        self.batchStride = batchStride
        self.sequenceStride = sequenceStride
        self.headStride = headStride
        self.half = half
        self.interleaved = interleaved
        self.positions = positions
    }
}
