import CMath

/// ONNX `HannWindow`, `HammingWindow` and `BlackmanWindow` (17): the window of `size` points
/// (a constant scalar, int32 or int64), with N = `size` when `periodic` is 1 (the default) and
/// `size` − 1 when it is 0:
/// - Hann: sin²(πn / N);
/// - Hamming: α − β·cos(2πn / N), α = 25/46, β = 1 − α;
/// - Blackman: 0.42 − 0.5·cos(2πn / N) + 0.08·cos(4πn / N).
///
/// Computed in double and stored as `output_datatype` (default FLOAT; any number type onnx
/// allows there, rounded or truncated as `Cast` would). The output depends only on constants,
/// so the loader folds it.
final class Window: Operator {
    enum Kind: Sendable { case hann, hamming, blackman }

    let kind: Kind
    let dataInputs: [Int] = []
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    /// The N the phase is divided by (`size` or `size` − 1).
    let period: Double
    var checksInputTypes: Bool { true }

    static func builder(_ kind: Kind) -> OperatorBuilder {
        return { context throws(ModelError) in
            try context.checkArity(inputs: 1, 1)
            try context.checkAttributes(["output_datatype", "periodic"])
            _ = try context.requireType(ofInput: 0, in: [.int32, .int64])
            guard let values = try context.constantIntegers(0, "size"), values.count == 1 else {
                throw context.error(.invalidShape, "input 0 ('size') must be a scalar")
            }
            let size = values[0]
            guard size >= 0, size <= Int64(Shapes.maximumElementCount) else {
                throw context.error(.invalidValue, "input 0 ('size') is \(size); it must be between 0 and \(Shapes.maximumElementCount)")
            }
            let code = try context.int("output_datatype", default: 1)
            guard let type = ElementType(onnxCode: code), type != .bool else {
                throw context.error(.unsupported, "output type \(code) is not supported", attribute: "output_datatype")
            }
            let periodic = try context.int("periodic", default: 1, in: 0...1) == 1
            return Window(kind: kind, outputShapes: [[Int(size)]], outputTypes: [type],
                          period: Double(periodic ? size : size - 1))
        }
    }

    /// Point `n` of the window.
    func value(_ n: Int) -> Double {
        let phase = Double(n) * .pi / period
        switch kind {
        case .hann:
            let s = sin(phase)
            return s * s
        case .hamming:
            let alpha = 25.0 / 46.0
            return alpha - cos(2 * phase) * (1 - alpha)
        case .blackman:
            return 0.42 - 0.5 * cos(2 * phase) + 0.08 * cos(4 * phase)
        }
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let y = UnsafeMutableRawPointer(outputs[0]), type = outputTypes[0]
        for n in 0..<outputShapes[0][0] { TensorElements.setDouble(value(n), y, at: n, type) }
    }

    init(kind: Kind, outputShapes: [[Int]], outputTypes: [ElementType], period: Double) {
        self.kind = kind
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.period = period
    }
}

enum HannWindow { static let build = Window.builder(.hann) }
enum HammingWindow { static let build = Window.builder(.hamming) }
enum BlackmanWindow { static let build = Window.builder(.blackman) }
