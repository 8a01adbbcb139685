/// Separable resampling of a float tensor of any rank: each output element is the weighted sum
/// over the product of its per-axis taps (`ResizeGeometry.Taps`), or the extrapolation value
/// when a coordinate falls outside the input. What `Resize` and `Upsample` build for the cases
/// the 2-D `Resize` kernel does not cover (other axes or ranks, cubic, antialiasing, crops).
final class Interpolation: Operator {
    let dataInputs = [0]
    let outputShapes: [[Int]]
    /// Per axis: taps per output index, and per output index and tap the input offset (index
    /// times stride, −1 at tap 0 for outside) and weight.
    let tapCounts: [Int]
    let offsets: [[Int]]
    let weights: [[Float]]
    let extrapolation: Float

    init(input: [Int], output: [Int], taps: [ResizeGeometry.Taps], extrapolation: Float) {
        let strides = Shapes.strides(input)
        outputShapes = [output]
        tapCounts = taps.map { $0.count }
        offsets = zip(taps, strides).map { axis, stride in axis.index.map { $0 < 0 ? -1 : $0 * stride } }
        weights = taps.map { $0.weight }
        self.extrapolation = extrapolation
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = inputs[0], y = outputs[0]
        let shape = outputShapes[0], rank = shape.count
        let count = shape.reduce(1, *)
        guard count > 0 else { return }
        withUnsafeTemporaryAllocation(of: Int.self, capacity: rank) { index in
            index.initialize(repeating: 0)
            for o in 0..<count {
                var outside = false
                for a in 0..<rank where offsets[a][index[a] * tapCounts[a]] < 0 { outside = true }
                y[o] = outside ? extrapolation : sum(x, index, axis: 0, offset: 0, weight: 1)
                var position = index  // the same memory: a buffer pointer
                advance(&position, in: shape, through: rank - 1)
            }
        }
    }

    /// The weighted sum over the taps of axes `axis...` at output position `index`.
    private func sum(_ x: UnsafePointer<Float>, _ index: UnsafeMutableBufferPointer<Int>, axis: Int, offset: Int, weight: Float) -> Float {
        guard axis < tapCounts.count else { return weight * x[offset] }
        let taps = tapCounts[axis], first = index[axis] * taps
        var total: Float = 0
        for t in first..<(first + taps) where weights[axis][t] != 0 {
            total += sum(x, index, axis: axis + 1, offset: offset + offsets[axis][t], weight: weight * weights[axis][t])
        }
        return total
    }
}
