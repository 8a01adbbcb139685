import Foundation
import Testing
import TestSupport
@testable import Inference

/// One `op` node at opset 17 reading the constant int64 scalar `size` (an initializer).
private func windowModel(_ op: String, size: Int64, attributes: [ONNXBuilder.Attribute]) -> [UInt8] {
    ONNXBuilder.model(
        nodes: [ONNXBuilder.node(op, inputs: ["size"], outputs: ["y"], name: "window", attributes: attributes)],
        initializers: [ONNXBuilder.int64Tensor("size", [], [size])],
        inputs: [], outputs: [ONNXBuilder.valueInfo("y", dims: nil)], opset: 17)
}

/// One DFT-17 node on the float input `x` of `shape`.
private func dftModel(shape: [Int64], attributes: [ONNXBuilder.Attribute]) -> [UInt8] {
    ONNXBuilder.model(
        nodes: [ONNXBuilder.node("DFT", inputs: ["x"], outputs: ["y"], name: "dft", attributes: attributes)],
        inputs: [ONNXBuilder.valueInfo("x", dims: shape.map { .value($0) })],
        outputs: [ONNXBuilder.valueInfo("y", dims: nil)], opset: 17)
}

private func run(_ bytes: [UInt8], _ inputs: [String: Inference.Tensor] = [:]) throws -> Inference.Tensor {
    try #require(try InferenceSession(model: InferenceModel(bytes: bytes), path: .reference).run(inputs)["y"])
}

/// The fixtures (`Tools/op_cases/signal.py`) check these ops against onnxruntime; these check the
/// spec's closed forms where onnxruntime rounds to float32, and identities of the transform.
@Suite("HannWindow, HammingWindow, BlackmanWindow and DFT: the spec's formulas")
struct SignalOperatorTests {
    @Test("double windows equal the closed forms in double (periodic: N = size; symmetric: size - 1)")
    func doubleWindows() throws {
        for (op, formula) in [("HammingWindow", { (p: Double) in 25.0 / 46 - 21.0 / 46 * cos(2 * p) }),
                              ("BlackmanWindow", { (p: Double) in 0.42 - 0.5 * cos(2 * p) + 0.08 * cos(4 * p) }),
                              ("HannWindow", { (p: Double) in sin(p) * sin(p) })] {
            for periodic: Int64 in [0, 1] {
                let y = try run(windowModel(op, size: 9, attributes: [.int("periodic", periodic), .int("output_datatype", 11)]))
                #expect(y.type == .double && y.shape == [9])
                let n = periodic == 1 ? 9.0 : 8.0
                let worst = y.doubles.enumerated().map { abs($0.element - formula(Double($0.offset) * .pi / n)) }.max() ?? 1
                #expect(worst <= 4e-16, "\(op) periodic \(periodic): max|Δ| \(worst)")
            }
        }
    }

    @Test("the DFT of a unit impulse is 1 in every bin; of a constant, its sum in bin 0")
    func impulseAndConstant() throws {
        let impulse = try run(dftModel(shape: [1, 8, 1], attributes: [.int("axis", 1)]),
                              ["x": Tensor(shape: [1, 8, 1], floats: [1, 0, 0, 0, 0, 0, 0, 0])])
        #expect(impulse.shape == [1, 8, 2] && impulse.floats == Array(repeating: [1, 0], count: 8).flatMap { $0 })
        let constant = try run(dftModel(shape: [1, 5, 1], attributes: [.int("axis", 1), .int("onesided", 1)]),
                               ["x": Tensor(shape: [1, 5, 1], floats: [2, 2, 2, 2, 2])])
        let bins = try #require(constant.floats)
        #expect(constant.shape == [1, 3, 2] && bins[0] == 10 && bins.dropFirst().allSatisfy { abs($0) < 1e-6 }, "\(bins)")
    }

    @Test("inverse with onesided takes a one-sided spectrum back to the real signal (irfft of rfft)")
    func onesidedInverse() throws {
        let signal: [Float] = [0.5, -1, 2, 0.25, -0.75, 1.5]
        let spectrum = try run(dftModel(shape: [1, 6, 1], attributes: [.int("axis", 1), .int("onesided", 1)]),
                               ["x": Tensor(shape: [1, 6, 1], floats: signal)])
        #expect(spectrum.shape == [1, 4, 2])
        let back = try run(dftModel(shape: [1, 4, 2], attributes: [.int("axis", 1), .int("onesided", 1), .int("inverse", 1)]),
                           ["x": spectrum])
        let values = try #require(back.floats)
        #expect(back.shape == [1, 6, 1])
        #expect(zip(values, signal).allSatisfy { abs($0 - $1) < 1e-6 }, "\(values)")
    }

    @Test("the last axis, a last dimension other than 1 or 2, and a bool output type are refused naming the node")
    func refusals() {
        let lastAxis = loadError(dftModel(shape: [1, 4, 2], attributes: [.int("axis", 2)]))
        #expect(lastAxis?.node == "dft" && lastAxis?.op == "DFT", "\(String(describing: lastAxis))")
        let components = loadError(dftModel(shape: [1, 4, 3], attributes: [.int("axis", 1)]))
        #expect(components?.node == "dft" && components?.message.contains("last axis") == true, "\(String(describing: components))")
        let bool = loadError(windowModel("HannWindow", size: 4, attributes: [.int("output_datatype", 9)]))
        #expect(bool?.node == "window" && bool?.attribute == "output_datatype", "\(String(describing: bool))")
    }
}
