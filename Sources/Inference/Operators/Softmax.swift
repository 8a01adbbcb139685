import CMath

/// ONNX `Softmax`, `LogSoftmax` and `Hardmax`. Version 13+: along one `axis` (default −1).
/// Versions 1–12: the input is coerced to 2-D at `axis` (default 1) and the op runs over the
/// flattened trailing dimensions. Softmax and LogSoftmax subtract the maximum first for
/// stability; Hardmax writes 1 at the first maximum and 0 elsewhere. Float32 is computed in
/// float32, double in double.
final class Softmax: Operator {
    enum Kind: Sendable { case softmax, logSoftmax, hardmax }

    let kind: Kind
    let type: ElementType
    let dataInputs = [0]
    let outputShapes: [[Int]]
    var outputTypes: [ElementType] { [type] }
    var checksInputTypes: Bool { true }
    let outer: Int, length: Int, inner: Int

    /// A builder for `kind`.
    static func builder(_ kind: Kind) -> OperatorBuilder {
        return { context throws(ModelError) in
            try context.checkArity(inputs: 1, 1)
            try context.checkAttributes(["axis"])
            let type = try context.requireType(ofInput: 0, in: [.float32, .double])
            let x = try context.shape(ofInput: 0)
            let legacy = context.opVersion < 13
            guard !x.isEmpty else { throw context.error(.invalidShape, "the input must have rank ≥ 1") }
            let axis = try context.axis(try context.int("axis", default: legacy ? 1 : -1), rank: x.count, attribute: "axis")
            let outer = x[..<axis].reduce(1, *)
            if legacy {
                return Softmax(kind: kind, type: type, outputShapes: [x], outer: outer, length: x[axis...].reduce(1, *), inner: 1)
            }
            return Softmax(kind: kind, type: type, outputShapes: [x], outer: outer, length: x[axis], inner: x[(axis + 1)...].reduce(1, *))
        }
    }

    static let build = builder(.softmax)

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        if type == .double {
            run(UnsafeRawPointer(inputs[0]).assumingMemoryBound(to: Double.self),
                UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: Double.self))
        } else {
            run(inputs[0], outputs[0])
        }
    }

    private func run<F: FloatScalar>(_ x: UnsafePointer<F>, _ y: UnsafeMutablePointer<F>) {
        for o in 0..<outer {
            for i in 0..<inner {
                let base = o * length * inner + i
                var maximum = -F.infinity, first = 0
                for k in 0..<length where x[base + k * inner] > maximum {
                    maximum = x[base + k * inner]
                    first = k
                }
                switch kind {
                case .hardmax:
                    for k in 0..<length { y[base + k * inner] = k == first ? 1 : 0 }
                case .softmax:
                    var sum: F = 0
                    for k in 0..<length {
                        let e = F.exp(x[base + k * inner] - maximum)
                        y[base + k * inner] = e
                        sum += e
                    }
                    for k in 0..<length { y[base + k * inner] /= sum }
                case .logSoftmax:
                    var sum: F = 0
                    for k in 0..<length { sum += F.exp(x[base + k * inner] - maximum) }
                    let logSum = F.log(sum)
                    for k in 0..<length { y[base + k * inner] = x[base + k * inner] - maximum - logSum }
                }
            }
        }
    }

    init(kind: Kind, type: ElementType, outputShapes: [[Int]], outer: Int, length: Int, inner: Int) {
        self.kind = kind
        self.type = type
        self.outputShapes = outputShapes
        self.outer = outer
        self.length = length
        self.inner = inner
    }
}
