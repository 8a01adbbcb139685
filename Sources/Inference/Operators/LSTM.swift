/// ONNX `LSTM` (versions 7, 14; 22 only added bfloat16), float32: long short-term memory, with
/// W = [Wi, Wo, Wf, Wc], R = [Ri, Ro, Rf, Rc], B = [Wbi, Wbo, Wbf, Wbc, Rbi, Rbo, Rbf, Rbc] and the
/// peepholes P = [Pi, Po, Pf] (zeros when absent):
///
///     it = f(Xt·Wiᵀ + Ht−1·Riᵀ + Pi ⊙ Ct−1 + Wbi + Rbi)
///     ft = f(Xt·Wfᵀ + Ht−1·Rfᵀ + Pf ⊙ Ct−1 + Wbf + Rbf)     (1 − it with input_forget = 1)
///     ct = g(Xt·Wcᵀ + Ht−1·Rcᵀ + Wbc + Rbc)
///     Ct = ft ⊙ Ct−1 + it ⊙ ct
///     ot = f(Xt·Woᵀ + Ht−1·Roᵀ + Po ⊙ Ct + Wbo + Rbo)
///     Ht = ot ⊙ h(Ct)
///
/// with f Sigmoid, g and h Tanh by default (`activations`: f, g, h per direction). `clip` bounds
/// the inputs of f and g (not Ct, h's input, as onnxruntime). Inputs 6 and 7 are initial_c
/// (`[num_directions, batch_size, hidden_size]`, batch first with layout 1) and P; the third
/// output Y_c is the last cell state, shaped as Y_h. The rest is described in `Recurrent.swift`.
final class LSTM: Operator {
    let common: Recurrent.Common
    let inputForget: Bool
    var checksInputTypes: Bool { true }
    var dataInputs: [Int] { common.dataInputs }
    var outputShapes: [[Int]] { common.outputShapes }
    var multiplyAccumulates: Int { 4 * common.multiplyAccumulates }

    static let build: OperatorBuilder = { context throws(ModelError) in
        let common = try Recurrent.common(context, gates: 4, defaultActivations: ["Sigmoid", "Tanh", "Tanh"],
                                          ownAttributes: ["input_forget"], stateInputs: [5, 6], peepholeInput: 7)
        return LSTM(common: common, inputForget: try context.int("input_forget", default: 0, in: 0...1) == 1)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let hidden = common.hiddenSize, input = common.inputSize
        let w = inputs[1], r = inputs[2], bias = common.biasSlot.map { inputs[$0] }, p = common.peepholeSlot.map { inputs[$0] }
        // Scratch: the sums of the four gates, in W's order i, o, f, c.
        common.run(inputs: inputs, outputs: outputs, states: 2, scratchCount: 4 * hidden) { d, x, h, c, gates in
            let f = common.activations[d][0], g = common.activations[d][1], hAct = common.activations[d][2]
            for j in 0..<(4 * hidden) {
                gates[j] = bias.map { Double($0[d * 8 * hidden + j]) + Double($0[d * 8 * hidden + 4 * hidden + j]) } ?? 0  // Wb + Rb
            }
            Recurrent.accumulate(gates, w + d * 4 * hidden * input, rows: 4 * hidden, columns: input, x)    // Xt·W[iofc]ᵀ
            Recurrent.accumulate(gates, r + d * 4 * hidden * hidden, rows: 4 * hidden, columns: hidden, h)  // Ht−1·R[iofc]ᵀ
            let peephole = p.map { $0 + d * 3 * hidden }
            for j in 0..<hidden {
                let previous = Double(c[j])
                let it = f(common.clipped(gates[j] + (peephole.map { Double($0[j]) * previous } ?? 0)))
                let ft = inputForget ? 1 - it : f(common.clipped(gates[2 * hidden + j] + (peephole.map { Double($0[2 * hidden + j]) * previous } ?? 0)))
                let ct = g(common.clipped(gates[3 * hidden + j]))
                let cell = ft * c[j] + it * ct
                let ot = f(common.clipped(gates[hidden + j] + (peephole.map { Double($0[hidden + j]) * Double(cell) } ?? 0)))
                c[j] = cell
                h[j] = ot * hAct(cell)
            }
        }
    }

    init(common: Recurrent.Common, inputForget: Bool) {
        self.common = common
        self.inputForget = inputForget
    }
}
