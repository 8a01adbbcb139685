import CMath
import ONNXFormat

/// What ONNX `RNN`, `GRU` and `LSTM` (versions 7, 14; 22 only added bfloat16) share: the inputs
/// X, W, R, B, sequence_lens and initial_h, the attributes `direction`, `hidden_size`,
/// `activations`, `activation_alpha`, `activation_beta`, `clip` and `layout` (14+), the outputs Y
/// and Y_h, and the loop over directions, batch entries and time steps. Each op's file holds its
/// cell (`RNN.swift`, `GRU.swift`, `LSTM.swift`).
///
/// - Shapes (layout 0): X `[seq_length, batch_size, input_size]`; W `[num_directions,
///   gates·hidden_size, input_size]`; R `[num_directions, gates·hidden_size, hidden_size]`; B
///   `[num_directions, 2·gates·hidden_size]` (Wb then Rb, zeros when absent); sequence_lens int32
///   `[batch_size]`; initial_h `[num_directions, batch_size, hidden_size]` (zeros when absent). Y
///   `[seq_length, num_directions, batch_size, hidden_size]`, Y_h `[num_directions, batch_size,
///   hidden_size]`. With `layout` 1 the batch comes first: X `[batch_size, seq_length,
///   input_size]`, initial_h and Y_h `[batch_size, num_directions, hidden_size]`, Y `[batch_size,
///   seq_length, num_directions, hidden_size]`.
/// - Directions: `forward` runs t = 0…len−1, `reverse` t = len−1…0, `bidirectional` both
///   (direction 0 forward, 1 reverse), each with its own weights and activations.
/// - sequence_lens: batch entry b runs its first len_b steps only (in reverse, from len_b − 1
///   down); Y is 0 from len_b on, and Y_h is the state after its last step (0 when len_b is 0,
///   as onnxruntime). A value outside [0, seq_length] at run time is taken as clamped to it.
/// - Activations (`activations`, one list of the op's functions per direction): Relu, Tanh,
///   Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign,
///   Softplus (names compared without case). `activation_alpha` and `activation_beta` are
///   consumed in the order of the functions that take them (as onnxruntime): alpha by Affine,
///   LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu; beta by Affine, ScaledTanh,
///   HardSigmoid. A function left without its value takes its ONNX operator's default
///   (LeakyRelu 0.01, HardSigmoid 0.2 / 0.5, Elu 1); ThresholdedRelu, Affine and ScaledTanh
///   without theirs are refused, naming the attribute: ONNX's ThresholdedRelu defaults to 1,
///   onnxruntime's cell to 0, and Affine and ScaledTanh are no longer ONNX operators.
/// - `clip` c > 0: every gate's input to its activation is bounded to [−c, c] first.
///
/// Sums (the products with W and R and the biases) are taken in Double; activations in Float.
enum Recurrent {
    enum Activation: Sendable, Equatable {
        case relu, tanh, sigmoid, softsign, softplus
        case affine(alpha: Float, beta: Float)
        case leakyRelu(alpha: Float)
        case thresholdedRelu(alpha: Float)
        case scaledTanh(alpha: Float, beta: Float)
        case hardSigmoid(alpha: Float, beta: Float)
        case elu(alpha: Float)

        static let names = ["Relu", "Tanh", "Sigmoid", "Affine", "LeakyRelu", "ThresholdedRelu", "ScaledTanh", "HardSigmoid",
                            "Elu", "Softsign", "Softplus"]

        func callAsFunction(_ x: Float) -> Float {
            switch self {
            case .relu: return max(x, 0)
            case .tanh: return tanhf(x)
            case .sigmoid: return 1 / (1 + expf(-x))
            case let .affine(alpha, beta): return alpha * x + beta
            case let .leakyRelu(alpha): return x >= 0 ? x : alpha * x
            case let .thresholdedRelu(alpha): return x > alpha ? x : 0
            case let .scaledTanh(alpha, beta): return alpha * tanhf(beta * x)
            case let .hardSigmoid(alpha, beta): return min(max(alpha * x + beta, 0), 1)
            case let .elu(alpha): return x >= 0 ? x : alpha * (expf(x) - 1)
            case .softsign: return x / (1 + abs(x))
            case .softplus: return Float(CMath.log(1 + CMath.exp(Double(x))))
            }
        }
    }

    /// The resolved node: sizes, layout, activations, clip and where each optional input sits in
    /// `run`'s inputs.
    struct Common: Sendable {
        let sequenceLength: Int, batch: Int, inputSize: Int, hiddenSize: Int, directions: Int
        /// Whether a single direction runs in reverse.
        let reverse: Bool
        /// `layout` 1: batch-major X, Y, initial states and final states.
        let batchMajor: Bool
        /// Per direction, the op's functions (f; f, g; or f, g, h).
        let activations: [[Activation]]
        /// The `clip` threshold, or nil.
        let clip: Float?
        let dataInputs: [Int]
        /// Positions in `run`'s inputs of B, sequence_lens, initial_h, initial_c and P (the last two
        /// LSTM only), nil where absent. X, W and R are at 0, 1, 2.
        let biasSlot: Int?, lengthsSlot: Int?, initialHSlot: Int?, initialCSlot: Int?, peepholeSlot: Int?
        let outputShapes: [[Int]]

        func xOffset(_ t: Int, _ b: Int) -> Int { (batchMajor ? b * sequenceLength + t : t * batch + b) * inputSize }
        func yOffset(_ t: Int, _ d: Int, _ b: Int) -> Int {
            (batchMajor ? (b * sequenceLength + t) * directions + d : (t * directions + d) * batch + b) * hiddenSize
        }
        func stateOffset(_ d: Int, _ b: Int) -> Int { (batchMajor ? b * directions + d : d * batch + b) * hiddenSize }

        /// The bound of an activation's input: `clip` applied.
        @inline(__always) func clipped(_ x: Double) -> Float {
            guard let clip else { return Float(x) }
            return min(max(Float(x), -clip), clip)
        }

        var multiplyAccumulates: Int { sequenceLength * batch * directions * (inputSize + hiddenSize) * hiddenSize }

        /// Runs every direction over every batch entry: `cell(d, x, h, c, scratch)` replaces the
        /// state h (and c for LSTM, `states` 2) by the next one from the input row x, and may use
        /// `scratch` (`scratchCount` Doubles). Writes Y, Y_h and Y_c (those the node has).
        func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>], states: Int, scratchCount: Int,
                 cell: (_ d: Int, _ x: UnsafePointer<Float>, _ h: UnsafeMutablePointer<Float>, _ c: UnsafeMutablePointer<Float>,
                        _ scratch: UnsafeMutablePointer<Double>) -> Void) {
            let x = inputs[0]
            let lengths = lengthsSlot.map { UnsafeRawPointer(inputs[$0]).assumingMemoryBound(to: Int32.self) }
            let initialH = initialHSlot.map { inputs[$0] }, initialC = initialCSlot.map { inputs[$0] }
            let y = outputs.count > 0 ? outputs[0] : nil
            let finalH = outputs.count > 1 ? outputs[1] : nil, finalC = outputs.count > 2 && states > 1 ? outputs[2] : nil
            y?.update(repeating: 0, count: sequenceLength * directions * batch * hiddenSize)
            withUnsafeTemporaryAllocation(of: Double.self, capacity: max(scratchCount, 1)) { scratchBuffer in
                withUnsafeTemporaryAllocation(of: Float.self, capacity: 2 * hiddenSize) { buffer in
                    let h = buffer.baseAddress!, c = h + hiddenSize, scratch = scratchBuffer.baseAddress!
                    func start(_ state: UnsafeMutablePointer<Float>, from initial: UnsafePointer<Float>?, _ d: Int, _ b: Int) {
                        if let initial { state.update(from: initial + stateOffset(d, b), count: hiddenSize) } else { state.update(repeating: 0, count: hiddenSize) }
                    }
                    func finish(_ target: UnsafeMutablePointer<Float>?, from state: UnsafeMutablePointer<Float>, empty: Bool, _ d: Int, _ b: Int) {
                        guard let target = target.map({ $0 + stateOffset(d, b) }) else { return }
                        if empty { target.update(repeating: 0, count: hiddenSize) } else { target.update(from: state, count: hiddenSize) }
                    }
                    for d in 0..<directions {
                        let backward = reverse || d == 1
                        for b in 0..<batch {
                            let length = lengths.map { min(max(Int($0[b]), 0), sequenceLength) } ?? sequenceLength
                            start(h, from: initialH, d, b)
                            start(c, from: initialC, d, b)
                            for step in 0..<length {
                                let t = backward ? length - 1 - step : step
                                cell(d, x + xOffset(t, b), h, c, scratch)
                                if let y { (y + yOffset(t, d, b)).update(from: h, count: hiddenSize) }
                            }
                            finish(finalH, from: h, empty: length == 0, d, b)
                            finish(finalC, from: c, empty: length == 0, d, b)
                        }
                    }
                }
            }
        }
    }

    /// `out[r] += Σ_k W[r, k] · v[k]` over `rows` rows of `columns` (in Double), for a vector of
    /// Floats (an input step) or Doubles (a state).
    @inline(__always)
    static func accumulate<V: BinaryFloatingPoint>(_ out: UnsafeMutablePointer<Double>, _ weights: UnsafePointer<Float>,
                                                   rows: Int, columns: Int, _ vector: UnsafePointer<V>) {
        for r in 0..<rows {
            var sum = 0.0
            let row = weights + r * columns
            for k in 0..<columns { sum += Double(row[k]) * Double(vector[k]) }
            out[r] += sum
        }
    }

    /// Checks the inputs and attributes every recurrent op shares and resolves them.
    ///
    /// - Parameters:
    ///   - gates: the number of gate blocks in W, R and B (RNN 1, GRU 3, LSTM 4).
    ///   - defaultActivations: the op's functions when `activations` is absent.
    ///   - ownAttributes: the op's own attributes (`linear_before_reset`, `input_forget`).
    ///   - stateInputs: the node inputs holding initial states (5; or 5 and 6 for LSTM).
    ///   - peepholeInput: LSTM's P (7), nil for the others.
    static func common(_ context: NodeContext, gates: Int, defaultActivations: [String], ownAttributes: Set<String>,
                       stateInputs: [Int], peepholeInput: Int? = nil) throws(ModelError) -> Common {
        // Opsets 1–6 reach here as version 7 (`LegacyDefinitions`): the older definitions differ only by
        // `output_sequence`, which is refused by name below.
        let version = context.opVersion
        let inputCount = 6 + stateInputs.count - 1 + (peepholeInput == nil ? 0 : 1)
        let outputCount = context.node.outputs.count
        try context.checkArity(inputs: 3, inputCount, outputs: outputCount <= stateInputs.count + 1 ? outputCount : stateInputs.count + 1)
        var known: Set<String> = ["activation_alpha", "activation_beta", "activations", "clip", "direction", "hidden_size"]
        if version >= 14 { known.insert("layout") }
        try context.checkAttributes(known.union(ownAttributes))
        for index in [0, 1, 2, 3] + stateInputs + (peepholeInput.map { [$0] } ?? []) where context.hasInput(index) {
            _ = try context.requireType(ofInput: index, in: [.float32])
        }

        let direction = try context.choice("direction", ["forward", "reverse", "bidirectional"], default: "forward")
        let directions = direction == "bidirectional" ? 2 : 1
        let batchMajor = try context.int("layout", default: 0, in: 0...1) == 1
        let x = try context.shape(ofInput: 0), w = try context.shape(ofInput: 1), r = try context.shape(ofInput: 2)
        guard x.count == 3 else { throw context.error(.invalidShape, "X must be 3-D, got \(x)") }
        let (sequenceLength, batch, inputSize) = batchMajor ? (x[1], x[0], x[2]) : (x[0], x[1], x[2])
        guard r.count == 3, r[0] == directions, r[1] % gates == 0, r[1] / gates == r[2] else {
            throw context.error(.invalidShape, "R \(r) must be [num_directions, \(gates)·hidden_size, hidden_size] with num_directions \(directions)")
        }
        let hiddenSize = r[2]
        if context.attribute("hidden_size") != nil {
            let value = try context.int("hidden_size", default: hiddenSize, in: 1...(1 << 30))
            guard value == hiddenSize else {
                throw context.error(.invalidShape, "hidden_size \(value) differs from R's \(hiddenSize)", attribute: "hidden_size")
            }
        }
        guard w == [directions, gates * hiddenSize, inputSize] else {
            throw context.error(.invalidShape, "W \(w) must be [num_directions, \(gates)·hidden_size, input_size] = \([directions, gates * hiddenSize, inputSize])")
        }
        var dataInputs = [0, 1, 2]
        func slot(_ index: Int, shape expected: [Int], _ role: String) throws(ModelError) -> Int? {
            guard context.hasInput(index) else { return nil }
            let shape = try context.shape(ofInput: index)
            guard shape == expected else { throw context.error(.invalidShape, "\(role) \(shape) must be \(expected)") }
            dataInputs.append(index)
            return dataInputs.count - 1
        }
        let biasSlot = try slot(3, shape: [directions, 2 * gates * hiddenSize], "B")
        if context.hasInput(4) { _ = try context.requireType(ofInput: 4, in: [.int32]) }
        let lengthsSlot = try slot(4, shape: [batch], "sequence_lens")
        let stateShape = batchMajor ? [batch, directions, hiddenSize] : [directions, batch, hiddenSize]
        let initialHSlot = try slot(stateInputs[0], shape: stateShape, "initial_h")
        let initialCSlot = stateInputs.count > 1 ? try slot(stateInputs[1], shape: stateShape, "initial_c") : nil
        let peepholeSlot = try peepholeInput.flatMap { index throws(ModelError) in try slot(index, shape: [directions, 3 * hiddenSize], "P") }

        let activations = try Self.activations(context, defaults: defaultActivations, directions: directions)
        var clip: Float?
        if context.attribute("clip") != nil {
            let value = try context.float("clip", default: 0)
            guard value > 0 else { throw context.error(.invalidValue, "clip must be > 0, got \(value)", attribute: "clip") }
            clip = value
        }
        let y = batchMajor ? [batch, sequenceLength, directions, hiddenSize] : [sequenceLength, directions, batch, hiddenSize]
        let shapes = [y] + Array(repeating: stateShape, count: stateInputs.count)
        return Common(sequenceLength: sequenceLength, batch: batch, inputSize: inputSize, hiddenSize: hiddenSize, directions: directions,
                      reverse: direction == "reverse", batchMajor: batchMajor, activations: activations, clip: clip,
                      dataInputs: dataInputs, biasSlot: biasSlot, lengthsSlot: lengthsSlot, initialHSlot: initialHSlot,
                      initialCSlot: initialCSlot, peepholeSlot: peepholeSlot, outputShapes: Array(shapes.prefix(outputCount)))
    }

    /// `activations` with `activation_alpha` / `activation_beta`, one list per direction.
    static func activations(_ context: NodeContext, defaults: [String], directions: Int) throws(ModelError) -> [[Activation]] {
        let count = defaults.count * directions
        var names = Array((0..<directions).map { _ in defaults }.joined())
        if let attribute = context.attribute("activations") {
            guard attribute.type == .strings || attribute.type == .undefined else {
                throw context.error(.malformed, "expected a value of type STRINGS, got \(attribute.type)", attribute: "activations")
            }
            guard attribute.strings.count == count else {
                throw context.error(.unsupported, "expected \(count) functions (\(defaults.count) per direction), got \(attribute.strings.count)",
                                    attribute: "activations")
            }
            names = attribute.strings.map { String(decoding: $0, as: UTF8.self) }
        }
        func values(_ name: String) throws(ModelError) -> [Float] {
            guard let attribute = context.attribute(name) else { return [] }
            guard attribute.type == .floats || attribute.type == .undefined else {
                throw context.error(.malformed, "expected a value of type FLOATS, got \(attribute.type)", attribute: name)
            }
            return attribute.floats
        }
        var alphas = try values("activation_alpha")[...], betas = try values("activation_beta")[...]
        var resolved: [Activation] = []
        for name in names {
            guard let canonical = Activation.names.first(where: { $0.lowercased() == name.lowercased() }) else {
                throw context.error(.unsupported, "activation '\(name)' is not supported (supported: \(Activation.names.joined(separator: ", ")))",
                                    attribute: "activations")
            }
            func parameter(_ list: inout ArraySlice<Float>, _ attribute: String, default value: Float?) throws(ModelError) -> Float {
                if let first = list.popFirst() { return first }
                guard let value else {
                    throw context.error(.unsupported, "\(canonical) needs its value in \(attribute) (its default is not defined consistently)",
                                        attribute: attribute)
                }
                return value
            }
            switch canonical {
            case "Relu": resolved.append(.relu)
            case "Tanh": resolved.append(.tanh)
            case "Sigmoid": resolved.append(.sigmoid)
            case "Softsign": resolved.append(.softsign)
            case "Softplus": resolved.append(.softplus)
            case "Affine":
                let alpha = try parameter(&alphas, "activation_alpha", default: nil)
                resolved.append(.affine(alpha: alpha, beta: try parameter(&betas, "activation_beta", default: nil)))
            case "LeakyRelu": resolved.append(.leakyRelu(alpha: try parameter(&alphas, "activation_alpha", default: 0.01)))
            case "ThresholdedRelu": resolved.append(.thresholdedRelu(alpha: try parameter(&alphas, "activation_alpha", default: nil)))
            case "ScaledTanh":
                let alpha = try parameter(&alphas, "activation_alpha", default: nil)
                resolved.append(.scaledTanh(alpha: alpha, beta: try parameter(&betas, "activation_beta", default: nil)))
            case "HardSigmoid":
                let alpha = try parameter(&alphas, "activation_alpha", default: 0.2)
                resolved.append(.hardSigmoid(alpha: alpha, beta: try parameter(&betas, "activation_beta", default: 0.5)))
            default: resolved.append(.elu(alpha: try parameter(&alphas, "activation_alpha", default: 1)))
            }
        }
        guard alphas.isEmpty else {
            throw context.error(.malformed, "\(alphas.count) value(s) more than the activations take", attribute: "activation_alpha")
        }
        guard betas.isEmpty else {
            throw context.error(.malformed, "\(betas.count) value(s) more than the activations take", attribute: "activation_beta")
        }
        return (0..<directions).map { Array(resolved[($0 * defaults.count)..<(($0 + 1) * defaults.count)]) }
    }
}
