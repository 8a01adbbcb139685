/// Standardisation shared by InstanceNormalization, LayerNormalization, GroupNormalization,
/// MeanVarianceNormalization and RMSNormalization: each set of elements that `geometry` reduces
/// is replaced by (x − mean) / √(variance + ε) (or (x − mean) / (√variance + ε) for
/// MeanVarianceNormalization), with the mean and the population variance computed in Double;
/// then, when `affine` is set, y = y · scale + bias with scale and bias read through its strides.
/// Without `subtractsMean` (RMSNormalization) the mean is taken as 0, so the variance is the
/// mean square and y = x / √(mean(x²) + ε).
///
/// The geometry and the affine loop may view the input under different shapes (GroupNormalization
/// reduces over `[N, G, C/G · spatial]` but scales per channel over `[N, C, spatial]`); both are
/// C-order views of the same elements.
final class Normalization: Operator {
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
    let subtractsMean: Bool

    /// How many of each set's mean and inverse standard deviation the node also outputs (0, 1 or
    /// 2: LayerNormalization's optional outputs), at the outer loop's output offsets.
    var statisticsCount: Int { outputShapes.count - 1 }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = inputs[0], y = outputs[0]
        let geometry = self.geometry, count = Double(geometry.count), epsilon = self.epsilon
        let statisticsCount = self.statisticsCount
        geometry.outer.forEach { o, base, _ in
            let mean = subtractsMean ? geometry.fold(0.0, from: base) { $0 + Double(x[$1]) } / count : 0
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

    init(dataInputs: [Int], outputShapes: [[Int]], geometry: ReductionGeometry, epsilon: Epsilon, affine: StridedLoop?,
         hasBias: Bool, subtractsMean: Bool = true) {
        self.dataInputs = dataInputs
        self.outputShapes = outputShapes
        self.geometry = geometry
        self.epsilon = epsilon
        self.affine = affine
        self.hasBias = hasBias
        self.subtractsMean = subtractsMean
    }
}

extension Normalization {
    /// What LayerNormalization and RMSNormalization read alike (each checks its own arity and
    /// attribute names first): `stash_type`, of which only 1 (float statistics) is accepted; X,
    /// of rank 6 at most; the normalised dimensions, from `axis` (default −1) on; and the shape
    /// of `Scale`, which must broadcast unidirectionally to X.
    static func trailingAxes(_ context: NodeContext) throws(ModelError) -> (x: [Int], geometry: ReductionGeometry, scale: [Int]) {
        _ = try context.int("stash_type", default: 1, in: 1...1)
        let x = try context.shape(ofInput: 0)
        guard x.count <= StridedLoop.maximumRank else { throw context.error(.unsupported, "rank \(x.count) is above 6") }
        let axis = try context.axis(try context.int("axis", default: -1), rank: x.count, attribute: "axis")
        let scale = try context.shape(ofInput: 1)
        guard Shapes.broadcast(scale, x) == x else {
            throw context.error(.invalidShape, "Scale of shape \(scale) does not broadcast to the input's \(x)")
        }
        return (x, ReductionGeometry(input: x, axes: Set(axis..<x.count)), scale)
    }
}
