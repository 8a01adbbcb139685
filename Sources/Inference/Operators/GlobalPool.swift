import CMath

/// A reduction of each [N, C] plane over all spatial dimensions, `[N, C, d1, d2, ...]` →
/// `[N, C, 1, 1, ...]`: GlobalMaxPool and GlobalLpPool. (GlobalAveragePool is its own operator,
/// which the fast path recognises.)
final class GlobalPool: Operator {
    enum Kind: Sendable, Equatable {
        case max
        /// (Σ |x|^p)^(1/p).
        case lp(p: Int)
    }

    let kind: Kind
    let dataInputs = [0]
    let outputShapes: [[Int]]
    let planes: Int
    let planeSize: Int

    /// A builder for `kind`, reading the attributes `attributes` (of which `make` reads the kind's).
    static func builder(attributes: Set<String> = [], _ make: @escaping @Sendable (NodeContext) throws(ModelError) -> Kind) -> OperatorBuilder {
        return { context throws(ModelError) in
            try context.checkArity(inputs: 1, 1)
            try context.checkAttributes(attributes)
            let x = try context.shape(ofInput: 0)
            guard x.count >= 3 else { throw context.error(.invalidShape, "input must have rank 3 or more, got \(x)") }
            let planeSize = x[2...].reduce(1, *)
            guard planeSize > 0 else { throw context.error(.invalidShape, "input \(x) has an empty spatial extent") }
            return GlobalPool(kind: try make(context), outputShapes: [[x[0], x[1]] + Array(repeating: 1, count: x.count - 2)],
                              planes: x[0] * x[1], planeSize: planeSize)
        }
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = inputs[0], y = outputs[0]
        for p in 0..<planes {
            let plane = x + p * planeSize
            switch kind {
            case .max:
                var maximum = plane[0]
                for i in 1..<Swift.max(1, planeSize) where plane[i] > maximum { maximum = plane[i] }
                y[p] = maximum
            case let .lp(exponent):
                var sum: Double = 0
                for i in 0..<planeSize { sum += pow(Double(abs(plane[i])), Double(exponent)) }
                y[p] = Float(pow(sum, 1 / Double(exponent)))
            }
        }
    }

    init(kind: Kind, outputShapes: [[Int]], planes: Int, planeSize: Int) {
        self.kind = kind
        self.outputShapes = outputShapes
        self.planes = planes
        self.planeSize = planeSize
    }
}
