import Foundation
import Testing
import TestSupport

/// `vbg check` as a user runs it: what it prints and its exit status (0 agree, 1 differ, 2 usage).
@Suite("vbg check at the command line: exit 0 when the paths agree, 1 when they differ, naming the node")
struct CheckCLITests {
    /// x [1, 8, 10, 10] → Conv 3x3 (8 → 8, pads 1) → c → Relu → y, seeded weights.
    static let model: [UInt8] = {
        var state: UInt64 = 11
        let weights = (0..<(8 * 8 * 9)).map { _ -> Float in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(state >> 40) / Float(1 << 23) - 1
        }
        return ONNXBuilder.model(
            nodes: [ONNXBuilder.node("Conv", inputs: ["x", "w"], outputs: ["c"], name: "conv",
                                     attributes: [.ints("kernel_shape", [3, 3]), .ints("pads", [1, 1, 1, 1])]),
                    ONNXBuilder.node("Relu", inputs: ["c"], outputs: ["y"], name: "relu")],
            initializers: [ONNXBuilder.floatTensor("w", [8, 8, 3, 3], weights)],
            inputs: [ONNXBuilder.valueInfo("x", [1, 8, 10, 10])], outputs: [ONNXBuilder.valueInfo("y", [1, 8, 10, 10])])
    }()

    @Test("within the default tolerance: exit 0, each output's relative error printed")
    func agree() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let result = try VBG.run(["check", try scratch.input("conv.onnx", Self.model)], in: scratch.root)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("  output 'y' float32 [1, 8, 10, 10]: relative error "), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("result: the paths agree on every output"))
        #expect(result.standardError.isEmpty)
    }

    @Test("with --rtol 0 (the sums' last bits differ): exit 1, naming the first node whose value differs")
    func differ() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let result = try VBG.run(["check", try scratch.input("conv.onnx", Self.model), "--rtol", "0"], in: scratch.root)
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("first value that differs: node 'conv' (Conv), value 'c' float32 [1, 8, 10, 10]: relative error "),
                "\(result.standardOutput)")
        #expect(result.standardError == "vbg check: the fast path differs from the reference path on 1 of 1 output(s)\n", "\(result.standardError)")
    }

    @Test("a model that cannot run: exit 1 with every node that cannot run")
    func cannotRun() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let model = RepositoryPaths.root.appendingPathComponent("Fixtures/model/landscape_tf2onnx/model.onnx").path
        let result = try VBG.run(["check", model], in: scratch.root)
        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix("vbg check: 12 nodes cannot run:\n"), "\(result.standardError)")
        #expect(ModelProblemsCLITests.namesEveryNode(result.standardError))
    }
}
