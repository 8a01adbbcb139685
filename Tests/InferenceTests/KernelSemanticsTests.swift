import Testing
import TestSupport
@testable import Inference

/// Runs a one-node model on one input and returns output 'y'.
private func run(_ model: [UInt8], _ input: [Float]) throws -> [Float] {
    let session = try InferenceSession(model: InferenceModel(bytes: model), path: .reference)
    return try session.run(inputs: ["x": input])["y"] ?? []
}

/// Hand-computed cases that read as the spec (the onnxruntime fixtures cover the variants).
@Suite("Reference kernels on hand-computed examples")
struct KernelSemanticsTests {
    @Test("Conv 2x2 all-ones kernel, stride 1, no padding, sums each window plus the bias")
    func convWindowSums() throws {
        let model = oneNodeModel("Conv", inputs: ["x", "w", "b"],
                                 initializers: [ONNXBuilder.floatTensor("w", [1, 1, 2, 2], [1, 1, 1, 1]),
                                                ONNXBuilder.floatTensor("b", [1], [10])],
                                 inputShape: [1, 1, 3, 3], outputShape: [1, 1, 2, 2])
        #expect(try run(model, [1, 2, 3, 4, 5, 6, 7, 8, 9]) == [22, 26, 34, 38])
    }

    @Test("Conv SAME_UPPER with stride 2 pads at the end (TF SAME)")
    func convSameUpper() throws {
        let model = oneNodeModel("Conv", inputs: ["x", "w"], attributes: [.string("auto_pad", "SAME_UPPER"), .ints("strides", [2, 2])],
                                 initializers: [ONNXBuilder.floatTensor("w", [1, 1, 3, 3], Array(repeating: 1, count: 9))],
                                 inputShape: [1, 1, 4, 4], outputShape: [1, 1, 2, 2])
        // Total padding 1 per axis, all at the end: windows start at rows/cols 0 and 2.
        let input = (1...16).map(Float.init)
        #expect(try run(model, input) == [54, 45, 72, 54])
    }

    @Test("Resize linear half_pixel ×2 on a row blends with 1/4, 3/4 weights and clamps the edges")
    func resizeLinear() throws {
        let model = oneNodeModel("Resize", inputs: ["x", "", "s"], attributes: [.string("mode", "linear")],
                                 initializers: [ONNXBuilder.floatTensor("s", [4], [1, 1, 1, 2])],
                                 inputShape: [1, 1, 1, 2], outputShape: [1, 1, 1, 4])
        #expect(try run(model, [0, 4]) == [0, 1, 3, 4])
    }

    @Test("Add broadcasts a per-channel [C,1,1] tensor")
    func addBroadcast() throws {
        let model = oneNodeModel("Add", inputs: ["x", "b"], initializers: [ONNXBuilder.floatTensor("b", [2, 1, 1], [100, 200])],
                                 inputShape: [1, 2, 1, 2])
        #expect(try run(model, [1, 2, 3, 4]) == [101, 102, 203, 204])
    }

    @Test("HardSwish is x·clamp(x/6 + 1/2, 0, 1)")
    func hardSwish() throws {
        let model = oneNodeModel("HardSwish", inputShape: [4])
        #expect(try run(model, [-4, -1.5, 0, 3.5]) == [0, -1.5 * 0.25, 0, 3.5])
    }

    @Test("Slice with a negative step walks backwards")
    func sliceBackwards() throws {
        let model = oneNodeModel("Slice", inputs: ["x", "st", "en", "ax", "sp"],
                                 initializers: [ONNXBuilder.int64Tensor("st", [1], [-1]), ONNXBuilder.int64Tensor("en", [1], [Int64.min]),
                                                ONNXBuilder.int64Tensor("ax", [1], [0]), ONNXBuilder.int64Tensor("sp", [1], [-2])],
                                 inputShape: [5], outputShape: [3])
        #expect(try run(model, [0, 1, 2, 3, 4]) == [4, 2, 0])
    }
}
