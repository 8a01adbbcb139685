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

/// One STFT-17 node on the float signal `x` of `shape`, with constant int64 `frame_step` and
/// (when given) `frame_length`, and a float window initializer when given.
private func stftModel(shape: [Int64], step: Int64, frameLength: Int64?, window: [Float]? = nil,
                       attributes: [ONNXBuilder.Attribute] = []) -> [UInt8] {
    var initializers = [ONNXBuilder.int64Tensor("step", [], [step])]
    if let window { initializers.append(ONNXBuilder.floatTensor("w", [Int64(window.count)], window)) }
    if let frameLength { initializers.append(ONNXBuilder.int64Tensor("length", [], [frameLength])) }
    let inputs = ["x", "step", window == nil ? "" : "w"] + (frameLength == nil ? [] : ["length"])
    return ONNXBuilder.model(
        nodes: [ONNXBuilder.node("STFT", inputs: inputs, outputs: ["y"], name: "stft", attributes: attributes)],
        initializers: initializers,
        inputs: [ONNXBuilder.valueInfo("x", dims: shape.map { .value($0) })],
        outputs: [ONNXBuilder.valueInfo("y", dims: nil)], opset: 17)
}

private func run(_ bytes: [UInt8], _ inputs: [String: Inference.Tensor] = [:]) throws -> Inference.Tensor {
    try #require(try InferenceSession(model: InferenceModel(bytes: bytes), path: .reference).run(inputs)["y"])
}

/// The fixtures (`Tools/op_cases/signal.py`) check these ops against onnxruntime; these check the
/// spec's closed forms where onnxruntime rounds to float32, and identities of the transform.
@Suite("HannWindow, HammingWindow, BlackmanWindow, DFT and STFT: the spec's formulas")
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

    @Test("STFT of a cosine at bin 2 of an 8-sample frame is 4 in bin 2 and 0 elsewhere, in every frame")
    func stftCosine() throws {
        let signal = (0..<20).map { Float(cos(2 * Double.pi * 2 * Double($0) / 8)) }
        // Frames start every 4 samples, a whole number of periods: each frame holds the same cosine.
        let y = try run(stftModel(shape: [1, 20, 1], step: 4, frameLength: 8), ["x": Inference.Tensor(shape: [1, 20, 1], floats: signal)])
        #expect(y.shape == [1, 4, 5, 2])
        let values = try #require(y.floats)
        for frame in 0..<4 {
            for bin in 0..<5 {
                let at = (frame * 5 + bin) * 2
                #expect(abs(values[at] - (bin == 2 ? 4 : 0)) < 1e-5 && abs(values[at + 1]) < 1e-5, "frame \(frame) bin \(bin)")
            }
        }
    }

    @Test("STFT refuses onesided on a complex signal and a window whose length is not frame_length, naming the node")
    func stftRefusals() {
        let complex = loadError(stftModel(shape: [1, 8, 2], step: 2, frameLength: 4))
        #expect(complex?.node == "stft" && complex?.op == "STFT" && complex?.attribute == "onesided", "\(String(describing: complex))")
        let window = loadError(stftModel(shape: [1, 8, 1], step: 2, frameLength: 4, window: [1, 1, 1]))
        #expect(window?.node == "stft" && window?.message.contains("window") == true, "\(String(describing: window))")
    }
}
