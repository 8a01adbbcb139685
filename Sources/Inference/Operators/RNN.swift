/// ONNX `RNN` (versions 7, 14; 22 only added bfloat16), float32: the simple recurrent network,
///
///     Ht = f(Xt·Wiᵀ + Ht−1·Riᵀ + Wbi + Rbi)
///
/// with f Tanh by default, one function per direction in `activations`. The inputs, outputs and
/// the attributes it shares with GRU and LSTM (`direction`, `hidden_size`, `layout` from 14,
/// `clip`, `activation_alpha` / `activation_beta`, sequence_lens and initial_h) are described in
/// `Recurrent.swift`.
final class RNN: Operator {
    let common: Recurrent.Common
    var checksInputTypes: Bool { true }
    var dataInputs: [Int] { common.dataInputs }
    var outputShapes: [[Int]] { common.outputShapes }
    var multiplyAccumulates: Int { common.multiplyAccumulates }

    static let build: OperatorBuilder = { context throws(ModelError) in
        RNN(common: try Recurrent.common(context, gates: 1, defaultActivations: ["Tanh"], ownAttributes: [], stateInputs: [5]))
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let hidden = common.hiddenSize, input = common.inputSize
        let w = inputs[1], r = inputs[2], bias = common.biasSlot.map { inputs[$0] }
        common.run(inputs: inputs, outputs: outputs, states: 1, scratchCount: hidden) { d, x, h, _, gate in
            let f = common.activations[d][0]
            for j in 0..<hidden {
                // Wbi + Rbi
                gate[j] = bias.map { Double($0[d * 2 * hidden + j]) + Double($0[d * 2 * hidden + hidden + j]) } ?? 0
            }
            Recurrent.accumulate(gate, w + d * hidden * input, rows: hidden, columns: input, x)   // Xt·Wiᵀ
            Recurrent.accumulate(gate, r + d * hidden * hidden, rows: hidden, columns: hidden, h)  // Ht−1·Riᵀ
            for j in 0..<hidden { h[j] = f(common.clipped(gate[j])) }
        }
    }

    init(common: Recurrent.Common) {
        self.common = common
    }
}
