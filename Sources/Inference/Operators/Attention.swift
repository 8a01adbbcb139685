import CMath

/// ONNX `Attention` (versions 23, 24 and 25, float32): scaled dot-product attention of Q over K
/// and V, as the operator's definition computes it.
///
/// - Shapes: Q, K, V are 4-D `(batch, heads, sequence, head_size)`, or 3-D `(batch, sequence,
///   heads · head_size)` with `q_num_heads` and `kv_num_heads` naming the heads. V's head size may
///   differ from Q's and K's. With fewer key/value heads than query heads (grouped-query attention,
///   the query heads a multiple of them), query head h reads key/value head h / (q heads / kv heads).
///   Y has Q's layout with V's head size.
/// - Cache: `past_key` and `past_value` `(batch, kv_heads, past, head_size)` come before K and V
///   along the sequence; `present_key` and `present_value` are those concatenations.
/// - Scores: (Q·√scale)(K·√scale)ᵀ with `scale` 1/√head_size by default; with `softcap` > 0 they
///   become softcap · tanh(score / softcap); then the bias is added and a softmax taken over the
///   keys (in float64 when `softmax_precision` is DOUBLE).
/// - Bias: `attn_mask` (bool: true attends, false adds −∞; float32: added), broadcast to
///   `(batch, q_heads, q_sequence, keys)` with a last dimension shorter than the keys padded with
///   −∞; `is_causal` adds −∞ where key j > i + offset (offset: the past length, or per batch
///   `nonpad_kv_seqlen` − q_sequence with that input, else 0); version 25's `left_window_size` /
///   `right_window_size` add −∞ outside i + offset − left ≤ j ≤ i + offset + right (−1: unbounded);
///   version 24's `nonpad_kv_seqlen` adds −∞ to the keys from that count on, per batch.
///   A query whose bias is −∞ for every key gets probabilities and output 0.
/// - `qk_matmul_output` (the fourth output) is the raw scores (`qk_matmul_output_mode` 0), the
///   softcapped scores (1), the scores with the bias (2) or the probabilities (3).
///
/// A `nonpad_kv_seqlen` value outside [0, keys] at run time is taken as clamped to that range.
final class Attention: Operator {
    struct Mask: Sendable {
        let isBool: Bool
        /// Element strides of the mask along batch, query head, query and key (0 where broadcast).
        let strides: (batch: Int, head: Int, query: Int, key: Int)
        /// The mask's key length; keys from it on are masked.
        let width: Int
    }

    let dataInputs: [Int]
    let outputShapes: [[Int]]
    let batch: Int, queryHeads: Int, kvHeads: Int, queryLength: Int, kvLength: Int, pastLength: Int
    let headSize: Int, valueHeadSize: Int
    let threeDimensional: Bool
    let mask: Mask?
    /// The positions in `run`'s inputs of the mask, past key (value follows) and nonpad lengths.
    let maskSlot: Int?, pastSlot: Int?, nonpadSlot: Int?
    /// √scale, applied to Q and K each.
    let rootScale: Float
    let softcap: Float
    let isCausal: Bool
    let leftWindow: Int, rightWindow: Int
    let scoresMode: Int
    let doubleSoftmax: Bool
    var checksInputTypes: Bool { true }

    var totalLength: Int { pastLength + kvLength }
    var multiplyAccumulates: Int { batch * queryHeads * queryLength * totalLength * (headSize + valueHeadSize) }

    static let build: OperatorBuilder = { context throws(ModelError) in
        let version = context.opVersion
        let outputCount = context.node.outputs.count
        try context.checkArity(inputs: 3, version >= 24 ? 7 : 6, outputs: (1...4).contains(outputCount) ? outputCount : 4)
        try context.checkAttributes(Set(["qk_matmul_output_mode", "softcap", "softmax_precision", "kv_num_heads", "q_num_heads",
                                     "scale", "is_causal"]).union(version >= 25 ? ["left_window_size", "right_window_size"] : []))
        for index in [0, 1, 2, 4, 5] where context.hasInput(index) { _ = try context.requireType(ofInput: index, in: [.float32]) }
        let q = try context.shape(ofInput: 0), k = try context.shape(ofInput: 1), v = try context.shape(ofInput: 2)
        guard q.count == k.count, k.count == v.count, q.count == 3 || q.count == 4 else {
            throw context.error(.invalidShape, "Q \(q), K \(k) and V \(v) must all be 3-D or all 4-D")
        }
        let qNumHeads = try context.int("q_num_heads", default: 0, in: 0...(1 << 30))
        let kvNumHeads = try context.int("kv_num_heads", default: 0, in: 0...(1 << 30))
        let batch = q[0], queryLength: Int, kvLength: Int
        let queryHeads: Int, kvHeads: Int, headSize: Int, valueHeadSize: Int
        if q.count == 3 {
            guard qNumHeads > 0 else { throw context.error(.malformed, "3-D inputs need q_num_heads", attribute: "q_num_heads") }
            guard kvNumHeads > 0 else { throw context.error(.malformed, "3-D inputs need kv_num_heads", attribute: "kv_num_heads") }
            guard q[2] % qNumHeads == 0 else {
                throw context.error(.invalidShape, "Q's hidden size \(q[2]) is not a multiple of q_num_heads \(qNumHeads)", attribute: "q_num_heads")
            }
            guard k[2] % kvNumHeads == 0, v[2] % kvNumHeads == 0 else {
                throw context.error(.invalidShape, "K's hidden size \(k[2]) or V's \(v[2]) is not a multiple of kv_num_heads \(kvNumHeads)",
                                    attribute: "kv_num_heads")
            }
            (queryLength, kvLength, queryHeads, kvHeads) = (q[1], k[1], qNumHeads, kvNumHeads)
            (headSize, valueHeadSize) = (q[2] / qNumHeads, v[2] / kvNumHeads)
            guard k[2] / kvNumHeads == headSize else {
                throw context.error(.invalidShape, "K's head size \(k[2] / kvNumHeads) differs from Q's \(headSize)")
            }
            guard v[1] == kvLength else { throw context.error(.invalidShape, "K \(k) and V \(v) differ in sequence length") }
        } else {
            if version >= 25, qNumHeads != 0 || kvNumHeads != 0 {
                throw context.error(.malformed, "q_num_heads and kv_num_heads must not be given with 4-D inputs",
                                    attribute: qNumHeads != 0 ? "q_num_heads" : "kv_num_heads")
            }
            if qNumHeads != 0, qNumHeads != q[1] {
                throw context.error(.invalidShape, "q_num_heads \(qNumHeads) disagrees with Q's \(q[1]) heads", attribute: "q_num_heads")
            }
            if kvNumHeads != 0, kvNumHeads != k[1] {
                throw context.error(.invalidShape, "kv_num_heads \(kvNumHeads) disagrees with K's \(k[1]) heads", attribute: "kv_num_heads")
            }
            (queryHeads, kvHeads, queryLength, kvLength, headSize, valueHeadSize) = (q[1], k[1], q[2], k[2], q[3], v[3])
            guard k[3] == headSize else { throw context.error(.invalidShape, "Q \(q) and K \(k) differ in head size") }
            guard v[1] == kvHeads, v[2] == kvLength else { throw context.error(.invalidShape, "K \(k) and V \(v) differ in heads or sequence") }
        }
        guard k[0] == batch, v[0] == batch else { throw context.error(.invalidShape, "Q \(q), K \(k) and V \(v) differ in batch") }
        guard kvHeads > 0, queryHeads % kvHeads == 0 else {
            throw context.error(.invalidShape, "\(queryHeads) query heads are not a multiple of \(kvHeads) key/value heads")
        }

        var dataInputs = [0, 1, 2]
        var pastLength = 0, pastSlot: Int?
        guard context.hasInput(4) == context.hasInput(5) else {
            throw context.error(.malformed, "past_key and past_value must be given together")
        }
        if context.hasInput(4) {
            let pastKey = try context.shape(ofInput: 4), pastValue = try context.shape(ofInput: 5)
            guard pastKey.count == 4, pastKey[0] == batch, pastKey[1] == kvHeads, pastKey[3] == headSize else {
                throw context.error(.invalidShape, "past_key \(pastKey) must be (batch, kv_heads, past, head_size) = (\(batch), \(kvHeads), past, \(headSize))")
            }
            guard pastValue == [batch, kvHeads, pastKey[2], valueHeadSize] else {
                throw context.error(.invalidShape, "past_value \(pastValue) must be \([batch, kvHeads, pastKey[2], valueHeadSize])")
            }
            pastLength = pastKey[2]
        }
        let total = pastLength + kvLength

        var mask: Mask?, maskSlot: Int?
        if context.hasInput(3) {
            let type = try context.requireType(ofInput: 3, in: [.bool, .float32])
            let shape = try context.shape(ofInput: 3)
            guard (1...4).contains(shape.count) else {
                throw context.error(.invalidShape, "attn_mask \(shape) must have rank 1 to 4")
            }
            let target = [batch, queryHeads, queryLength, total]
            let padded = Array(repeating: 1, count: 4 - shape.count) + shape
            for axis in 0..<3 where padded[axis] != 1 && padded[axis] != target[axis] {
                throw context.error(.invalidShape, "attn_mask \(shape) does not broadcast to (batch, q_heads, q_sequence, keys) = \(target)")
            }
            guard padded[3] <= total else {
                throw context.error(.invalidShape, "attn_mask \(shape) has more keys than the \(total) of past and K")
            }
            var strides = [0, 0, 0, 1], step = padded[3]
            for axis in [2, 1, 0] {
                strides[axis] = padded[axis] == 1 ? 0 : step
                step *= padded[axis]
            }
            maskSlot = dataInputs.count
            dataInputs.append(3)
            mask = Mask(isBool: type == .bool, strides: (strides[0], strides[1], strides[2], 1), width: padded[3])
        }
        if context.hasInput(4) {
            pastSlot = dataInputs.count
            dataInputs += [4, 5]
        }
        var nonpadSlot: Int?
        if context.hasInput(6) {
            guard !context.hasInput(4) else {
                throw context.error(.malformed, "nonpad_kv_seqlen cannot be combined with past_key and past_value")
            }
            _ = try context.requireType(ofInput: 6, in: [.int64])
            let lengths = try context.shape(ofInput: 6)
            guard lengths == [batch] else { throw context.error(.invalidShape, "nonpad_kv_seqlen \(lengths) must be (batch) = [\(batch)]") }
            nonpadSlot = dataInputs.count
            dataInputs.append(6)
        }

        let scale = try context.float("scale", default: 0)
        let softcap = try context.float("softcap", default: 0)
        guard softcap >= 0 else { throw context.error(.malformed, "softcap must be ≥ 0, got \(softcap)", attribute: "softcap") }
        let scoresMode = try context.int("qk_matmul_output_mode", default: 0, in: 0...3)
        let precision = try context.int("softmax_precision", default: 1)
        guard precision == 1 || precision == 11 else {
            throw context.error(.unsupported, "softmax_precision \(precision) is not supported (only FLOAT 1 and DOUBLE 11)",
                                attribute: "softmax_precision")
        }
        let leftWindow = try context.int("left_window_size", default: -1, in: -1...(1 << 40))
        let rightWindow = try context.int("right_window_size", default: -1, in: -1...(1 << 40))

        let y = q.count == 3 ? [batch, queryLength, queryHeads * valueHeadSize] : [batch, queryHeads, queryLength, valueHeadSize]
        let shapes = [y, [batch, kvHeads, total, headSize], [batch, kvHeads, total, valueHeadSize], [batch, queryHeads, queryLength, total]]
        return Attention(dataInputs: dataInputs, outputShapes: Array(shapes[..<outputCount]), batch: batch, queryHeads: queryHeads,
                         kvHeads: kvHeads, queryLength: queryLength, kvLength: kvLength, pastLength: pastLength,
                         headSize: headSize, valueHeadSize: valueHeadSize, threeDimensional: q.count == 3,
                         mask: mask, maskSlot: maskSlot, pastSlot: pastSlot, nonpadSlot: nonpadSlot,
                         rootScale: Float((scale == 0 ? 1 / Double(headSize).squareRoot() : Double(scale)).squareRoot()),
                         softcap: softcap, isCausal: try context.int("is_causal", default: 0, in: 0...1) == 1,
                         leftWindow: leftWindow, rightWindow: rightWindow, scoresMode: scoresMode, doubleSoftmax: precision == 11)
    }

    /// The offset of row `position` (of `length`) of head `head` in a 3-D or 4-D Q, K or V.
    private func row(_ b: Int, _ head: Int, _ position: Int, heads: Int, length: Int, size: Int) -> Int {
        threeDimensional ? ((b * length + position) * heads + head) * size : ((b * heads + head) * length + position) * size
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let q = inputs[0], k = inputs[1], v = inputs[2]
        let pastKey = pastSlot.map { inputs[$0] }, pastValue = pastSlot.map { inputs[$0 + 1] }
        let maskBase = maskSlot.map { UnsafeRawPointer(inputs[$0]) }
        let nonpad = nonpadSlot.map { UnsafeRawPointer(inputs[$0]).assumingMemoryBound(to: Int64.self) }
        let total = totalLength, group = queryHeads / kvHeads
        // The row of key or value `j` of a key/value head: from the past, then from K or V.
        func keyRow(_ b: Int, _ head: Int, _ j: Int) -> UnsafePointer<Float> {
            if j < pastLength, let pastKey { return pastKey + ((b * kvHeads + head) * pastLength + j) * headSize }
            return k + row(b, head, j - pastLength, heads: kvHeads, length: kvLength, size: headSize)
        }
        func valueRow(_ b: Int, _ head: Int, _ j: Int) -> UnsafePointer<Float> {
            if j < pastLength, let pastValue { return pastValue + ((b * kvHeads + head) * pastLength + j) * valueHeadSize }
            return v + row(b, head, j - pastLength, heads: kvHeads, length: kvLength, size: valueHeadSize)
        }
        if outputs.count > 1 {
            for b in 0..<batch { for h in 0..<kvHeads { for j in 0..<total {
                (outputs[1] + ((b * kvHeads + h) * total + j) * headSize).update(from: keyRow(b, h, j), count: headSize)
            } } }
        }
        if outputs.count > 2 {
            for b in 0..<batch { for h in 0..<kvHeads { for j in 0..<total {
                (outputs[2] + ((b * kvHeads + h) * total + j) * valueHeadSize).update(from: valueRow(b, h, j), count: valueHeadSize)
            } } }
        }
        let scores = outputs.count > 3 ? outputs[3] : nil
        withUnsafeTemporaryAllocation(of: Float.self, capacity: max(total, 1)) { scratch in
            let logits = scratch.baseAddress!
            for b in 0..<batch {
                // Keys before `valid` exist; the causal and window frontiers are offset by `offset`.
                let valid = nonpad.map { min(max(Int($0[b]), 0), total) } ?? total
                let offset = pastSlot != nil ? pastLength : nonpad.map { Int($0[b]) - queryLength } ?? 0
                for h in 0..<queryHeads {
                    for i in 0..<queryLength {
                        let query = q + row(b, h, i, heads: queryHeads, length: queryLength, size: headSize)
                        let scoresRow = scores.map { $0 + ((b * queryHeads + h) * queryLength + i) * total }
                        var biasMaximum = -Float.infinity
                        for j in 0..<total {
                            let key = keyRow(b, h / group, j)
                            var dot: Float = 0
                            for d in 0..<headSize { dot += (query[d] * rootScale) * (key[d] * rootScale) }
                            if scoresMode == 0 { scoresRow?[j] = dot }
                            if softcap > 0 { dot = tanhf(dot / softcap) * softcap }
                            if scoresMode == 1 { scoresRow?[j] = dot }
                            var added: Float = 0
                            if let mask, let maskBase {
                                if j >= mask.width {
                                    added = -.infinity
                                } else {
                                    let index = b * mask.strides.batch + h * mask.strides.head + i * mask.strides.query + j * mask.strides.key
                                    added = mask.isBool ? (maskBase.load(fromByteOffset: index, as: UInt8.self) != 0 ? 0 : -.infinity)
                                        : maskBase.load(fromByteOffset: 4 * index, as: Float.self)
                                }
                            }
                            if isCausal, j > i + offset { added += -.infinity }
                            let distance = i + offset - j
                            if leftWindow >= 0, distance > leftWindow { added += -.infinity }
                            if rightWindow >= 0, -distance > rightWindow { added += -.infinity }
                            if j >= valid { added += -.infinity }
                            biasMaximum = max(biasMaximum, added)
                            logits[j] = dot + added
                            if scoresMode == 2 { scoresRow?[j] = logits[j] }
                        }
                        if biasMaximum == -.infinity {
                            for j in 0..<total { logits[j] = 0 }
                        } else if doubleSoftmax {
                            Self.softmax(logits, count: total, as: Double.self, exp: CMath.exp)
                        } else {
                            Self.softmax(logits, count: total, as: Float.self, exp: expf)
                        }
                        if scoresMode == 3 { scoresRow?.update(from: logits, count: total) }
                        let out = outputs[0] + row(b, h, i, heads: queryHeads, length: queryLength, size: valueHeadSize)
                        for e in 0..<valueHeadSize { out[e] = 0 }
                        for j in 0..<total {
                            let value = valueRow(b, h / group, j), p = logits[j]
                            for e in 0..<valueHeadSize { out[e] += p * value[e] }
                        }
                    }
                }
            }
        }
    }

    /// Replaces `count` logits by their softmax computed in `Real`; a row of −∞ gives zeros.
    private static func softmax<Real: BinaryFloatingPoint>(_ x: UnsafeMutablePointer<Float>, count: Int, as: Real.Type,
                                                           exp: (Real) -> Real) {
        var maximum = -Real.infinity
        for j in 0..<count { maximum = max(maximum, Real(x[j])) }
        if maximum == -.infinity { maximum = 0 }
        var sum: Real = 0
        for j in 0..<count { sum += exp(Real(x[j]) - maximum) }
        if sum == 0 { sum = 1 }
        for j in 0..<count { x[j] = Float(exp(Real(x[j]) - maximum) / sum) }
    }

    init(dataInputs: [Int], outputShapes: [[Int]], batch: Int, queryHeads: Int, kvHeads: Int, queryLength: Int,
         kvLength: Int, pastLength: Int, headSize: Int, valueHeadSize: Int, threeDimensional: Bool, mask: Mask?,
         maskSlot: Int?, pastSlot: Int?, nonpadSlot: Int?, rootScale: Float, softcap: Float, isCausal: Bool,
         leftWindow: Int, rightWindow: Int, scoresMode: Int, doubleSoftmax: Bool) {
        self.dataInputs = dataInputs
        self.outputShapes = outputShapes
        self.batch = batch
        self.queryHeads = queryHeads
        self.kvHeads = kvHeads
        self.queryLength = queryLength
        self.kvLength = kvLength
        self.pastLength = pastLength
        self.headSize = headSize
        self.valueHeadSize = valueHeadSize
        self.threeDimensional = threeDimensional
        self.mask = mask
        self.maskSlot = maskSlot
        self.pastSlot = pastSlot
        self.nonpadSlot = nonpadSlot
        self.rootScale = rootScale
        self.softcap = softcap
        self.isCausal = isCausal
        self.leftWindow = leftWindow
        self.rightWindow = rightWindow
        self.scoresMode = scoresMode
        self.doubleSoftmax = doubleSoftmax
    }
}
