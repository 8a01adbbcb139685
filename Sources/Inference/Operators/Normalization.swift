/// Standardisation shared by InstanceNormalization, LayerNormalization, GroupNormalization and
/// MeanVarianceNormalization: each set of elements that `geometry` reduces is replaced by
/// (x − mean) / √(variance + ε) (or (x − mean) / (√variance + ε) for MeanVarianceNormalization),
/// with the mean and the population variance computed in Double; then, when `affine` is set,
/// y = y · scale + bias with scale and bias read through its strides.
///
/// The geometry and the affine loop may view the input under different shapes (GroupNormalization
/// reduces over `[N, G, C/G · spatial]` but scales per channel over `[N, C, spatial]`); both are
/// C-order views of the same elements.
struct Normalization: Operator {
    enum Epsilon: Sendable {
        /// 1 / √(variance + ε).
        case insideRoot(Double)
        /// 1 / (√variance + ε).
        case outsideRoot(Double)
    }

    let dataInputs: [Int]
    let outputShapes: [[Int]]
    let geometry: ReductionGeometry
    let epsilon: Epsilon
    /// Over the output: the offsets of y (operand 0), scale (1) and bias (2).
    let affine: StridedLoop?
    let hasBias: Bool

    /// How many of each set's mean and inverse standard deviation the node also outputs (0, 1 or
    /// 2: LayerNormalization's optional outputs), at the outer loop's output offsets.
    var statisticsCount: Int { outputShapes.count - 1 }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = inputs[0], y = outputs[0]
        let geometry = self.geometry, count = Double(geometry.count), epsilon = self.epsilon
        let statisticsCount = self.statisticsCount
        geometry.outer.forEach { o, base, _ in
            let mean = geometry.fold(0.0, from: base) { $0 + Double(x[$1]) } / count
            let variance = geometry.fold(0.0, from: base) { sum, i in
                let d = Double(x[i]) - mean
                return sum + d * d
            } / count
            let inverse: Double = switch epsilon {
            case let .insideRoot(e): 1 / (variance + e).squareRoot()
            case let .outsideRoot(e): 1 / (variance.squareRoot() + e)
            }
            geometry.inner.forEach { r, _, _ in y[base + r] = Float((Double(x[base + r]) - mean) * inverse) }
            if statisticsCount > 0 { outputs[1][o] = Float(mean) }
            if statisticsCount > 1 { outputs[2][o] = Float(inverse) }
        }
        guard let affine else { return }
        let scale = inputs[1], bias: UnsafePointer<Float>? = hasBias ? inputs[2] : nil
        if let bias {
            affine.forEach { o, s, b in y[o] = y[o] * scale[s] + bias[b] }
        } else {
            affine.forEach { o, s, _ in y[o] *= scale[s] }
        }
    }

    /// The affine loop over `view`, with `scale` and (when given) `bias` shapes broadcast to it.
    static func affine(view: [Int], scale: [Int], bias: [Int]?) -> StridedLoop {
        var strides = [Shapes.strides(view), Shapes.broadcastStrides(scale, to: view)]
        if let bias { strides.append(Shapes.broadcastStrides(bias, to: view)) }
        return StridedLoop(shape: view, strides: strides)
    }
}
