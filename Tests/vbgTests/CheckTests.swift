import Foundation
import ONNXInference
import NumpyFormat
import Testing
import TestSupport
@testable import vbg

/// `vbg check`: the fast path against the reference path on one model.
///
/// How the tests make the paths differ, honestly: the fast kernels sum in another order than the
/// reference kernels (SIMD lanes, fused multiply-adds), so on a convolution their results differ
/// in the last bits; with `--rtol 0` that is a difference, and `vbg check` must find it and say
/// where. A fusion that computes something else cannot be made without breaking the engine, so
/// that branch is tested on `PathCheck` with a stand-in: its fused sessions, when they plan one
/// chosen fusion, come from a copy of the graph whose weights differ.
@Suite("vbg check: the fast path against the reference path")
struct CheckTests {
    /// Seeded values in [-1, 1), for weights.
    static func values(_ count: Int, seed: UInt64) -> [Float] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in Float(random.nextUnit() * 2 - 1) }
    }

    /// x [1, 16, 12, 12] → Abs → a → Conv 3x3 (16 → 16, pads 1) → c → Relu → y: the Abs is exact
    /// on both paths, the convolution's sums are not.
    static func convolutionModel(weightScale: Float = 1) -> [UInt8] {
        ONNXBuilder.model(
            nodes: [
                ONNXBuilder.node("Abs", inputs: ["x"], outputs: ["a"], name: "abs"),
                ONNXBuilder.node("Conv", inputs: ["a", "w", "b"], outputs: ["c"], name: "conv",
                                 attributes: [.ints("kernel_shape", [3, 3]), .ints("pads", [1, 1, 1, 1])]),
                ONNXBuilder.node("Relu", inputs: ["c"], outputs: ["y"], name: "relu"),
            ],
            initializers: [ONNXBuilder.floatTensor("w", [16, 16, 3, 3], values(16 * 16 * 9, seed: 3).map { $0 * weightScale }),
                           ONNXBuilder.floatTensor("b", [16], values(16, seed: 4))],
            inputs: [ONNXBuilder.valueInfo("x", [1, 16, 12, 12])], outputs: [ONNXBuilder.valueInfo("y", [1, 16, 12, 12])])
    }

    /// A model file in the temporary directory, removed by the caller.
    static func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = NSTemporaryDirectory() + "vbg-check-\(getpid())-\(UUID().uuidString)-\(name)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("the paths agree within the default tolerance: exit 0, on 1 and 2 threads and on the unfused kernels")
    func agree() throws {
        let path = try Self.write(Self.convolutionModel(), "conv.onnx")
        defer { unlink(path) }
        #expect(runMain(["check", path]) == 0)
        #expect(runMain(["check", path, "--threads", "2", "--seed", "7"]) == 0)
        #expect(runMain(["check", path, "--path", "unfused", "--range", "-1,1"]) == 0)
        #expect(runMain(["check", "general"]) == 0)
    }

    @Test("with --rtol 0 the last bits differ: exit 1, and the first value that differs is the convolution's, wrong alone")
    func lastBits() throws {
        let path = try Self.write(Self.convolutionModel(), "conv.onnx")
        defer { unlink(path) }
        #expect(runMain(["check", path, "--rtol", "0"]) == 1)

        let model = try PlannedModel(modelData: Self.convolutionModel())
        let feeds = ["x": Tensor(shape: [1, 16, 12, 12], scalars: Self.values(16 * 144, seed: 5))]
        let report = try PathCheck(model: model, feeds: feeds, candidate: .fast, threads: 1,
                                   relativeTolerance: 0, absoluteTolerance: 0).run()
        #expect(!report.agrees)
        let first = try #require(report.firstDifference)
        #expect(first.node?.name == "conv" && first.node?.op == "Conv" && first.name == "c" && first.shape == [1, 16, 12, 12])
        let relative = try #require(first.difference?.relative)
        #expect(relative > 0 && relative < 1e-5, "a difference in the last bits, not a wrong kernel: \(relative)")
        #expect(report.nodeValues?.first?.agrees == true, "Abs is exact on both paths")
        #expect(report.firstAlone?.agrees == false)
        #expect(report.wrongAlone.first?.node?.name == "conv")
        #expect(report.fusionCount == nil, "a fusion is looked for only when every value agrees node by node")
        let lines = report.lines(candidate: .fast, threads: 1)
        #expect(lines.contains { $0.hasPrefix("first value that differs: node 'conv' (Conv), value 'c' float32 [1, 16, 12, 12]: relative error ") },
                "\(lines.joined(separator: "\n"))")
        #expect(lines.contains("  out of tolerance alone: this node's fast kernel is at fault"))
    }

    @Test("a fusion at fault is named with the nodes it spans (a stand-in fusion: its sessions come from a graph with other weights)")
    func fusionAtFault() throws {
        let model = try PlannedModel(modelData: Self.convolutionModel())
        let other = try PlannedModel(modelData: Self.convolutionModel(weightScale: 1.5))
        let spans = try InferenceSession(planned: model, options: .init(path: .fast)).fusionSpans
        let conv = 1  // runningNodes: abs, conv, relu
        try #require(spans.contains { $0.first == conv }, "the convolution leads a fusion: \(spans)")
        // Any fused session that plans the fusion led by the convolution computes with other
        // weights; every other session is the model's own.
        var check = PathCheck(model: model, feeds: ["x": Tensor(shape: [1, 16, 12, 12], scalars: Self.values(16 * 144, seed: 5))],
                              candidate: .fast, threads: 1, relativeTolerance: 1e-4, absoluteTolerance: 0)
        check.makeFusedSession = { fusions in
            let plansIt: Bool
            switch fusions {
            case .all: plansIt = true
            case let .ledBy(leaders): plansIt = leaders.contains(conv)
            }
            return try InferenceSession(planned: plansIt ? other : model, options: .init(path: .fast), fusions: fusions)
        }
        let report = try check.run()
        #expect(!report.agrees)
        #expect(report.firstDifference == nil && report.unfusedOutputsAgree == true)
        #expect(report.fusionCount == spans.count)
        #expect(report.faultyFusions.count == 1)
        let names = report.faultyFusions.first?.nodes.map(\.name)
        #expect(names?.first == "conv" && names?.contains("relu") == true, "\(String(describing: names))")
        let lines = report.lines(candidate: .fast, threads: 1)
        #expect(lines.contains { $0.hasPrefix("every value agrees node by node, so a fusion is at fault") }, "\(lines.joined(separator: "\n"))")
        #expect(lines.contains { $0.hasPrefix("  the fusion of 'conv' (Conv), 'relu' (Relu): output 'y' float32 [1, 16, 12, 12]: relative error ") },
                "\(lines.joined(separator: "\n"))")
    }

    /// data [4, 3] (initializer) gathered at int64 indices [2], a graph input.
    static let gatherModel = ONNXBuilder.model(
        nodes: [ONNXBuilder.node("Gather", inputs: ["data", "indices"], outputs: ["y"], name: "gather")],
        initializers: [ONNXBuilder.floatTensor("data", [4, 3], (0..<12).map(Float.init))],
        inputs: [ONNXBuilder.valueInfo("indices", dims: [.value(2)], elementType: 7)],
        outputs: [ONNXBuilder.valueInfo("y", [2, 3])])

    @Test("an integer input is not made up: usage error naming it until --input gives it")
    func integerInput() throws {
        let path = try Self.write(Self.gatherModel, "gather.onnx")
        let indices = NSTemporaryDirectory() + "vbg-check-\(getpid())-\(UUID().uuidString)-indices.npy"
        defer { unlink(path); unlink(indices) }
        #expect(runMain(["check", path]) == 2)
        try NumpyArray(shape: [2], dataType: .int64, data: [3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]).write(toFile: indices)
        #expect(runMain(["check", path, "--input", "indices=" + indices]) == 0)
        #expect(runMain(["check", path, "--input", indices]) == 0)
    }

    @Test("usage errors exit 2", arguments: [
        ["check"],
        ["check", "general", "--rtol", "-1"],
        ["check", "general", "--rtol", "small"],
        ["check", "general", "--range", "1,0"],
        ["check", "general", "--path", "reference"],
        ["check", "general", "--input", "nope=x.npy"],
        ["check", "general", "--shape", "input"],
        ["check", "general", "--threads", "0"],
    ])
    func usage(_ words: [String]) {
        #expect(runMain(words) == 2)
    }
}
