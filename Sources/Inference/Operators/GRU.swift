/// ONNX `GRU` (versions 7, 14; 22 only added bfloat16), float32: the gated recurrent unit, with
/// W = [Wz, Wr, Wh], R = [Rz, Rr, Rh], B = [Wbz, Wbr, Wbh, Rbz, Rbr, Rbh]:
///
///     zt = f(Xt·Wzᵀ + Ht−1·Rzᵀ + Wbz + Rbz)
///     rt = f(Xt·Wrᵀ + Ht−1·Rrᵀ + Wbr + Rbr)
///     ht = g(Xt·Whᵀ + (rt ⊙ Ht−1)·Rhᵀ + Rbh + Wbh)      linear_before_reset = 0 (default)
///     ht = g(Xt·Whᵀ + rt ⊙ (Ht−1·Rhᵀ + Rbh) + Wbh)      linear_before_reset ≠ 0
///     Ht = (1 − zt) ⊙ ht + zt ⊙ Ht−1
///
/// with f Sigmoid and g Tanh by default (`activations`: f, g per direction). The inputs, outputs
/// and shared attributes are described in `Recurrent.swift`.
final class GRU: Operator {
    let common: Recurrent.Common
    let linearBeforeReset: Bool
    var checksInputTypes: Bool { true }
    var dataInputs: [Int] { common.dataInputs }
    var outputShapes: [[Int]] { common.outputShapes }
    var multiplyAccumulates: Int { 3 * common.multiplyAccumulates }

    static let build: OperatorBuilder = { context throws(ModelError) in
        let common = try Recurrent.common(context, gates: 3, defaultActivations: ["Sigmoid", "Tanh"],
                                          ownAttributes: ["linear_before_reset"], stateInputs: [5])
        return GRU(common: common, linearBeforeReset: try context.int("linear_before_reset", default: 0) != 0)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let hidden = common.hiddenSize, input = common.inputSize
        let w = inputs[1], r = inputs[2], bias = common.biasSlot.map { inputs[$0] }
        // Scratch: the X and H parts of the three gates (3 · hidden each), then rt (or rt ⊙ Ht−1).
        common.run(inputs: inputs, outputs: outputs, states: 1, scratchCount: 7 * hidden) { d, x, h, _, scratch in
            let f = common.activations[d][0], g = common.activations[d][1]
            let fromX = scratch, fromH = scratch + 3 * hidden, reset = scratch + 6 * hidden
            let wd = w + d * 3 * hidden * input, rd = r + d * 3 * hidden * hidden
            for j in 0..<(3 * hidden) {
                fromX[j] = bias.map { Double($0[d * 6 * hidden + j]) } ?? 0                // Wb[zrh]
                fromH[j] = bias.map { Double($0[d * 6 * hidden + 3 * hidden + j]) } ?? 0   // Rb[zrh]
            }
            Recurrent.accumulate(fromX, wd, rows: 3 * hidden, columns: input, x)          // Xt·W[zrh]ᵀ
            Recurrent.accumulate(fromH, rd, rows: 2 * hidden, columns: hidden, h)         // Ht−1·R[zr]ᵀ
            for j in 0..<hidden { reset[j] = Double(f(common.clipped(fromX[hidden + j] + fromH[hidden + j]))) }  // rt
            if linearBeforeReset {
                Recurrent.accumulate(fromH + 2 * hidden, rd + 2 * hidden * hidden, rows: hidden, columns: hidden, h)  // Ht−1·Rhᵀ + Rbh
                for j in 0..<hidden { fromX[2 * hidden + j] += reset[j] * fromH[2 * hidden + j] }
            } else {
                for j in 0..<hidden { reset[j] *= Double(h[j]) }                                    // rt ⊙ Ht−1
                Recurrent.accumulate(fromH + 2 * hidden, rd + 2 * hidden * hidden, rows: hidden, columns: hidden, reset)  // ·Rhᵀ + Rbh
                for j in 0..<hidden { fromX[2 * hidden + j] += fromH[2 * hidden + j] }
            }
            for j in 0..<hidden {
                let zt = f(common.clipped(fromX[j] + fromH[j]))
                let ht = g(common.clipped(fromX[2 * hidden + j]))
                h[j] = (1 - zt) * ht + zt * h[j]
            }
        }
    }

    init(common: Recurrent.Common, linearBeforeReset: Bool) {
        self.common = common
        self.linearBeforeReset = linearBeforeReset
    }
}
