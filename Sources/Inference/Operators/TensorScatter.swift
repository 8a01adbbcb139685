/// ONNX `TensorScatter` (TensorScatter-24): a KV-cache update. `present_cache` is `past_cache`
/// with, for every position before `axis` (default −2; not 0, the batch axis) of batch entry b,
/// the `sequence_length` slices of `update` along `axis` written at `write_indices[b] + s`
/// (`write_indices`: int64 [batch], optional, 0 when absent; read at run time). `mode` "linear"
/// (default) or "circular" (the index taken modulo `max_sequence_length`). `update` has the cache's
/// shape but along `axis`, where its length is at most the cache's. Any stored element type.
///
/// A linear write past the cache's end (which the spec forbids and leaves undefined) is skipped.
final class TensorScatter: Operator {
    let dataInputs: [Int]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    let circular: Bool
    /// Positions before the axis (batch included), entries per batch, the cache's and the
    /// update's lengths along the axis, and bytes per slice (the elements after the axis).
    let outer: Int, perBatch: Int, maximum: Int, sequence: Int, sliceBytes: Int
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 3)
        try context.checkAttributes(["axis", "mode"])
        let type = try context.type(ofInput: 0)
        _ = try context.requireType(ofInput: 1, in: [type])
        let cache = try context.shape(ofInput: 0), update = try context.shape(ofInput: 1)
        guard cache.count >= 2 else { throw context.error(.invalidShape, "input 0 ('past_cache') has shape \(cache); it needs rank ≥ 2") }
        let axis = try context.axis(try context.int("axis", default: -2), rank: cache.count, attribute: "axis")
        guard axis != 0 else { throw context.error(.invalidValue, "axis is the batch axis 0", attribute: "axis") }
        let circular = try context.choice("mode", ["linear", "circular"], default: "linear") == "circular"
        var expected = cache
        expected[axis] = update.count == cache.count ? update[axis] : -1
        guard update == expected, update[axis] <= cache[axis] else {
            throw context.error(.invalidShape, "input 1 ('update') has shape \(update); it must be past_cache's \(cache) but along axis \(axis), at most \(cache[axis]) there")
        }
        var inputs = [0, 1]
        if context.hasInput(2) {
            _ = try context.requireType(ofInput: 2, in: [.int64])
            guard try context.shape(ofInput: 2) == [cache[0]] else {
                throw context.error(.invalidShape, "input 2 ('write_indices') has shape \(try context.shape(ofInput: 2)); it must be [\(cache[0])]")
            }
            inputs.append(2)
        }
        let outer = cache[..<axis].reduce(1, *)
        return TensorScatter(dataInputs: inputs, outputShapes: [cache], outputTypes: [type], circular: circular,
                             outer: outer, perBatch: cache[0] == 0 ? 0 : outer / cache[0], maximum: cache[axis], sequence: update[axis],
                             sliceBytes: cache[(axis + 1)...].reduce(1, *) * type.byteSize)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let y = UnsafeMutableRawPointer(outputs[0]), update = UnsafeRawPointer(inputs[1])
        y.copyMemory(from: inputs[0], byteCount: outer * maximum * sliceBytes)
        let indices = inputs.count > 2 ? UnsafeRawPointer(inputs[2]).assumingMemoryBound(to: Int64.self) : nil
        for o in 0..<outer {
            let start = indices.map { Int(clamping: $0[o / perBatch]) } ?? 0
            for s in 0..<sequence {
                var target = start + s
                if circular { target = ((target % maximum) + maximum) % maximum }
                guard target >= 0, target < maximum else { continue }
                (y + (o * maximum + target) * sliceBytes).copyMemory(from: update + (o * sequence + s) * sliceBytes, byteCount: sliceBytes)
            }
        }
    }

    init(dataInputs: [Int], outputShapes: [[Int]], outputTypes: [ElementType], circular: Bool, outer: Int,
         perBatch: Int, maximum: Int, sequence: Int, sliceBytes: Int) {
        self.dataInputs = dataInputs
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.circular = circular
        self.outer = outer
        self.perBatch = perBatch
        self.maximum = maximum
        self.sequence = sequence
        self.sliceBytes = sliceBytes
    }
}
