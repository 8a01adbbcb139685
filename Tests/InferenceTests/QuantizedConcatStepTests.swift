import Testing
import TestSupport
@testable import Inference

/// The fast path's QLinearConcat step (`FastPath/QuantizedConcatSteps.swift`) against the reference
/// kernel: equal bytes, the node on its fast step.
@Suite("QLinearConcat on the fast path")
struct QuantizedConcatStepTests {
    typealias B = ONNXBuilder

    @Test("channels and last axis, uint8 and int8, one input at the output's parameters (a copy): equal to the reference")
    func concat() throws {
        var random = SeededGenerator(seed: 2525)
        for (axis, shapes) in [(Int64(1), [[Int64](arrayLiteral: 1, 3, 5, 7), [1, 16, 5, 7], [1, 1, 5, 7]]), (-1, [[2, 3, 4], [2, 3, 17], [2, 3, 1]])] {
            for type in [Int64(2), 3] {
                let zero: (Int) -> UInt8 = { k in type == 2 ? [128, 3, 250][k] : UInt8(bitPattern: [-128, 0, 100][k]) }
                let scales: [Float] = [0.05, 0.021, 0.05, 0.3]  // input 0 at the output's scale and zero point
                var nodes: [[UInt8]] = [], initializers: [[UInt8]] = [], concatInputs = ["sy", "zy"], graphInputs: [[UInt8]] = []
                for k in 0..<3 {
                    nodes.append(B.node("QuantizeLinear", inputs: ["x\(k)", "s\(k)", "z\(k)"], outputs: ["q\(k)"]))
                    initializers += [B.floatTensor("s\(k)", [], [scales[k]]), B.rawTensor("z\(k)", elementType: type, [], [zero(k)])]
                    concatInputs += ["q\(k)", "s\(k)", "z\(k)"]
                    graphInputs.append(B.valueInfo("x\(k)", shapes[k]))
                }
                initializers += [B.floatTensor("sy", [], [scales[0]]), B.rawTensor("zy", elementType: type, [], [zero(0)])]
                nodes.append(B.node("QLinearConcat", inputs: concatInputs, outputs: ["yq"], name: "concat", attributes: [.int("axis", axis)],
                                    domain: "com.microsoft"))
                nodes.append(B.node("DequantizeLinear", inputs: ["yq", "sy", "zy"], outputs: ["y"]))
                let model = B.model(nodes: nodes, initializers: initializers, inputs: graphInputs,
                                    outputs: [B.valueInfo("y", dims: nil, elementType: 1)], opset: 13)
                var feeds: [String: [Float]] = [:]
                for k in 0..<3 { feeds["x\(k)"] = random.floats(Int(shapes[k].reduce(1, *)), scale: 6) }
                try QuantizedStepTests.check(model, feeds: feeds, op: "QLinearConcat", "QLinearConcat axis \(axis) type \(type)")
            }
        }
    }
}
