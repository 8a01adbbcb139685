import Foundation
import Testing
import TestSupport
@testable import Inference

/// One recurrent node named "cell": X (and sequence_lens, initial_h, initial_c when given) are graph
/// inputs, W, R, B and P initializers; `inputs` lists the node's inputs by name ("" for absent).
private func recurrentModel(_ op: String, inputs: [String], outputs: [String], shapes: [String: [Int64]],
                            initializers: [String: [Float]], attributes: [ONNXBuilder.Attribute], opset: Int64 = 14) -> [UInt8] {
    let graphInputs = inputs.filter { !$0.isEmpty && initializers[$0] == nil }.map { name in
        ONNXBuilder.valueInfo(name, dims: shapes[name]!.map { .value($0) }, elementType: name == "sequence_lens" ? 6 : 1)
    }
    return ONNXBuilder.model(
        nodes: [ONNXBuilder.node(op, inputs: inputs, outputs: outputs, name: "cell", attributes: attributes)],
        initializers: initializers.sorted { $0.key < $1.key }.map { ONNXBuilder.floatTensor($0.key, shapes[$0.key]!, $0.value) },
        inputs: graphInputs, outputs: outputs.filter { !$0.isEmpty }.map { ONNXBuilder.valueInfo($0, dims: nil) }, opset: opset)
}

private func run(_ bytes: [UInt8], _ feeds: [String: Tensor]) throws -> [String: Tensor] {
    try InferenceSession(model: try InferenceModel(bytes: bytes), path: .reference).run(feeds)
}

private func expectClose(_ actual: [Float]?, _ expected: [Double], _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let actual, actual.count == expected.count else {
        Issue.record("\(what): got \(String(describing: actual)), expected \(expected)", sourceLocation: sourceLocation)
        return
    }
    for (a, e) in zip(actual, expected) {
        #expect(abs(Double(a) - e) <= 1e-6, "\(what): got \(actual), expected \(expected)", sourceLocation: sourceLocation)
    }
}

/// The fixtures (`Tools/op_cases/recurrent.py`) check the three ops against onnxruntime; these check
/// one step by hand, what onnxruntime cannot check (layout 1), and the refusals.
@Suite("RNN, GRU, LSTM: one step by hand, sequence_lens, layout 1, refusals by name")
struct RecurrentOperatorTests {
    @Test("RNN, one step: Ht = tanh(Xt·Wᵀ + Ht−1·Rᵀ + Wb + Rb)")
    func rnnOneStep() throws {
        // W = I, R = 0.5·I, Wb = [0.1, 0.2], Rb = [0, −0.1], H0 = [1, −1], X = [0.3, 0.6].
        let model = recurrentModel("RNN", inputs: ["X", "W", "R", "B", "", "initial_h"], outputs: ["Y", "Y_h"],
                                   shapes: ["X": [1, 1, 2], "W": [1, 2, 2], "R": [1, 2, 2], "B": [1, 4], "initial_h": [1, 1, 2]],
                                   initializers: ["W": [1, 0, 0, 1], "R": [0.5, 0, 0, 0.5], "B": [0.1, 0.2, 0, -0.1]],
                                   attributes: [.int("hidden_size", 2)])
        let out = try run(model, ["X": Tensor(shape: [1, 1, 2], floats: [0.3, 0.6]), "initial_h": Tensor(shape: [1, 1, 2], floats: [1, -1])])
        // [0.3 + 0.5 + 0.1 + 0, 0.6 − 0.5 + 0.2 − 0.1]
        let expected = [Foundation.tanh(0.9), Foundation.tanh(0.2)]
        #expect(out["Y"]?.shape == [1, 1, 1, 2] && out["Y_h"]?.shape == [1, 1, 2])
        expectClose(out["Y"]?.floats, expected, "Y")
        expectClose(out["Y_h"]?.floats, expected, "Y_h")
    }

    @Test("GRU, one step: the reset gate before or after the product with Rh (linear_before_reset)", arguments: [0, 1])
    func gruOneStep(linearBeforeReset: Int64) throws {
        // hidden 1, W = R = 0: zt = σ(Wbz + Rbz) = σ(0) = ½, rt = σ(0) = ½; Wbh = 0.5, Rbh = 1, H0 = 2.
        let model = recurrentModel("GRU", inputs: ["X", "W", "R", "B", "", "initial_h"], outputs: ["Y"],
                                   shapes: ["X": [1, 1, 1], "W": [1, 3, 1], "R": [1, 3, 1], "B": [1, 6], "initial_h": [1, 1, 1]],
                                   initializers: ["W": [0, 0, 0], "R": [0, 0, 0], "B": [0, 0, 0.5, 0, 0, 1]],
                                   attributes: [.int("linear_before_reset", linearBeforeReset)])
        let out = try run(model, ["X": Tensor(shape: [1, 1, 1], floats: [0.7]), "initial_h": Tensor(shape: [1, 1, 1], floats: [2])])
        // 0: ht = tanh(0 + (rt ⊙ H0)·0 + Rbh + Wbh) = tanh(1.5); 1: ht = tanh(0 + rt ⊙ (0 + Rbh) + Wbh) = tanh(1).
        let candidate = linearBeforeReset == 0 ? Foundation.tanh(1.5) : Foundation.tanh(1.0)
        expectClose(out["Y"]?.floats, [0.5 * candidate + 0.5 * 2], "Y")
    }

    @Test("LSTM, one step: Ct = ft ⊙ Ct−1 + it ⊙ ct, Ht = ot ⊙ tanh(Ct); the peephole Po reads Ct")
    func lstmOneStep() throws {
        // hidden 1, W = R = 0; biases 0 but Wbc = 1: it = ft = ½, ct = tanh(1); C0 = 2; Po = 1.
        let model = recurrentModel("LSTM", inputs: ["X", "W", "R", "B", "", "", "initial_c", "P"], outputs: ["Y", "Y_h", "Y_c"],
                                   shapes: ["X": [1, 1, 1], "W": [1, 4, 1], "R": [1, 4, 1], "B": [1, 8], "initial_c": [1, 1, 1], "P": [1, 3]],
                                   initializers: ["W": [0, 0, 0, 0], "R": [0, 0, 0, 0], "B": [0, 0, 0, 1, 0, 0, 0, 0], "P": [0, 1, 0]],
                                   attributes: [])
        let out = try run(model, ["X": Tensor(shape: [1, 1, 1], floats: [0.7]), "initial_c": Tensor(shape: [1, 1, 1], floats: [2])])
        let cell = 0.5 * 2 + 0.5 * Foundation.tanh(1.0)
        let output = 1 / (1 + Foundation.exp(-cell)) * Foundation.tanh(cell)  // ot = σ(0 + Po · Ct)
        expectClose(out["Y_c"]?.floats, [cell], "Y_c")
        expectClose(out["Y_h"]?.floats, [output], "Y_h")
        expectClose(out["Y"]?.floats, [output], "Y")
    }

    @Test("sequence_lens: each direction runs the first len steps (reverse from len − 1); Y is 0 after, Y_h 0 for len 0")
    func sequenceLengths() throws {
        // Affine(1, 0) with W = R = 1: forward Ht = Xt + Ht−1, reverse the same from the last valid step down.
        let model = recurrentModel("RNN", inputs: ["X", "W", "R", "", "sequence_lens"], outputs: ["Y", "Y_h"],
                                   shapes: ["X": [3, 2, 1], "W": [2, 1, 1], "R": [2, 1, 1], "sequence_lens": [2]],
                                   initializers: ["W": [1, 1], "R": [1, 1]],
                                   attributes: [.string("direction", "bidirectional"), .strings("activations", ["Affine", "Affine"]),
                                                .floats("activation_alpha", [1, 1]), .floats("activation_beta", [0, 0])])
        // X[t, b]: entry 0 is 1, 2, 4 (length 2), entry 1 is 8, 16, 32 (length 0).
        let out = try run(model, ["X": Tensor(shape: [3, 2, 1], floats: [1, 8, 2, 16, 4, 32]),
                                  "sequence_lens": Tensor(type: .int32, shape: [2], doubles: [2, 0])])
        // Y [t, direction, b, 1]: forward 1, 3, 0; reverse (t = 1 then 0) 3, 2, 0; entry 1 all 0.
        expectClose(out["Y"]?.floats, [1, 0, 3, 0, /* t1 */ 3, 0, 2, 0, /* t2 */ 0, 0, 0, 0], "Y")
        // Y_h [direction, b, 1]: forward after t = 1, reverse after t = 0; length 0 gives 0.
        expectClose(out["Y_h"]?.floats, [3, 0, 3, 0], "Y_h")
    }

    @Test("layout 1 (batch first) on transposed data gives the transposed outputs of layout 0", arguments: ["RNN", "GRU", "LSTM"])
    func batchMajorLayout(op: String) throws {
        let (seq, batch, input, hidden, directions) = (4, 2, 3, 5, 2)
        let gates = ["RNN": 1, "GRU": 3, "LSTM": 4][op]!
        func values(_ count: Int, _ seed: Double) -> [Float] { (0..<count).map { Float(sin(Double($0) * 0.77 + seed) * 0.8) } }
        let isLSTM = op == "LSTM"
        let weights: [String: [Float]] = ["W": values(directions * gates * hidden * input, 1), "R": values(directions * gates * hidden * hidden, 2),
                                          "B": values(directions * 2 * gates * hidden, 3)]
        let x = values(seq * batch * input, 4), h0 = values(directions * batch * hidden, 5), c0 = values(directions * batch * hidden, 6)
        let lengths = Tensor(type: .int32, shape: [batch], doubles: [3, 4])
        /// Swaps the first two axes of a row-major [a, b, rest] array.
        func swap(_ v: [Float], _ a: Int, _ b: Int, _ rest: Int) -> [Float] {
            var out = v
            for i in 0..<a { for j in 0..<b { for k in 0..<rest { out[(j * a + i) * rest + k] = v[(i * b + j) * rest + k] } } }
            return out
        }
        var outputs = [[String: Tensor]]()
        for layout in [0, 1] {
            let xShape: [Int64] = layout == 0 ? [4, 2, 3] : [2, 4, 3], state: [Int64] = layout == 0 ? [2, 2, 5] : [2, 2, 5]
            var inputs = ["X", "W", "R", "B", "sequence_lens", "initial_h"], outs = ["Y", "Y_h"]
            if isLSTM { inputs.append("initial_c"); outs.append("Y_c") }
            let model = recurrentModel(op, inputs: inputs, outputs: outs,
                                       shapes: ["X": xShape, "W": [2, Int64(gates * hidden), 3], "R": [2, Int64(gates * hidden), 5],
                                                "B": [2, Int64(2 * gates * hidden)], "sequence_lens": [2], "initial_h": state, "initial_c": state],
                                       initializers: weights,
                                       attributes: [.string("direction", "bidirectional"), .int("layout", Int64(layout))])
            var feeds = ["X": Tensor(shape: xShape.map(Int.init), floats: layout == 0 ? x : swap(x, seq, batch, input)),
                         "sequence_lens": lengths,
                         "initial_h": Tensor(shape: state.map(Int.init), floats: layout == 0 ? h0 : swap(h0, directions, batch, hidden))]
            if isLSTM { feeds["initial_c"] = Tensor(shape: state.map(Int.init), floats: layout == 0 ? c0 : swap(c0, directions, batch, hidden)) }
            outputs.append(try run(model, feeds))
        }
        let (timeMajor, batchMajor) = (outputs[0], outputs[1])
        #expect(batchMajor["Y"]?.shape == [batch, seq, directions, hidden])
        // Y [seq, dirs, batch, hidden] → [batch, seq, dirs, hidden]
        let y = try #require(timeMajor["Y"]?.floats)
        var transposed = y
        for t in 0..<seq { for d in 0..<directions { for b in 0..<batch { for k in 0..<hidden {
            transposed[((b * seq + t) * directions + d) * hidden + k] = y[((t * directions + d) * batch + b) * hidden + k]
        } } } }
        #expect(batchMajor["Y"]?.floats == transposed, "\(op) Y")
        #expect(batchMajor["Y_h"]?.floats == swap(try #require(timeMajor["Y_h"]?.floats), directions, batch, hidden), "\(op) Y_h")
        if isLSTM {
            #expect(batchMajor["Y_c"]?.floats == swap(try #require(timeMajor["Y_c"]?.floats), directions, batch, hidden), "\(op) Y_c")
        }
        #expect(y.contains { $0 != 0 })
    }

    private func refusal(_ op: String, _ attributes: [ONNXBuilder.Attribute], opset: Int64 = 14) -> ModelError? {
        let gates: Int64 = ["RNN": 1, "GRU": 3, "LSTM": 4][op]!
        return loadError(recurrentModel(op, inputs: ["X", "W", "R"], outputs: ["Y"],
                                        shapes: ["X": [2, 1, 3], "W": [1, gates * 2, 3], "R": [1, gates * 2, 2]],
                                        initializers: ["W": Array(repeating: 0.1, count: Int(gates) * 6),
                                                       "R": Array(repeating: 0.1, count: Int(gates) * 4)],
                                        attributes: attributes, opset: opset))
    }

    @Test("an unsupported activation, direction or activation count is refused naming node, op and attribute",
          arguments: ["RNN", "GRU", "LSTM"])
    func refusedAttributeValues(op: String) {
        let count = ["RNN": 1, "GRU": 2, "LSTM": 3][op]!
        let gelu = refusal(op, [.strings("activations", Array(repeating: "Gelu", count: count))])
        #expect(gelu?.node == "cell" && gelu?.op == op && gelu?.attribute == "activations" && gelu?.kind == .unsupported,
                "\(String(describing: gelu))")
        #expect(gelu?.message.contains("'Gelu'") == true, "\(String(describing: gelu))")
        let direction = refusal(op, [.string("direction", "sideways")])
        #expect(direction?.node == "cell" && direction?.op == op && direction?.attribute == "direction", "\(String(describing: direction))")
        let tooMany = refusal(op, [.strings("activations", Array(repeating: "Tanh", count: count + 1))])
        #expect(tooMany?.node == "cell" && tooMany?.attribute == "activations", "\(String(describing: tooMany))")
    }

    @Test("ThresholdedRelu without activation_alpha (the defaults disagree), layout before version 14, output_sequence (opsets 1–6), clip ≤ 0 are refused")
    func refusedDefinitions() {
        let thresholded = refusal("RNN", [.strings("activations", ["ThresholdedRelu"])])
        #expect(thresholded?.node == "cell" && thresholded?.op == "RNN" && thresholded?.attribute == "activation_alpha",
                "\(String(describing: thresholded))")
        let layout = refusal("GRU", [.int("layout", 0)], opset: 13)
        #expect(layout?.node == "cell" && layout?.op == "GRU" && layout?.attribute == "layout", "\(String(describing: layout))")
        // LSTM-1 is LSTM-7 with output_sequence; without it the node loads as LSTM-7.
        let old = refusal("LSTM", [.int("output_sequence", 1)], opset: 6)
        #expect(old?.node == "cell" && old?.op == "LSTM" && old?.attribute == "output_sequence", "\(String(describing: old))")
        #expect(refusal("LSTM", [], opset: 6) == nil)
        let clip = refusal("RNN", [.float("clip", 0)])
        #expect(clip?.node == "cell" && clip?.attribute == "clip", "\(String(describing: clip))")
    }
}
