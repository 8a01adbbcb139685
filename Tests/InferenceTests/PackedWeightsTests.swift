import Foundation
import Testing
import TestSupport
@testable import Inference

/// The fast path packs a model's weights once (`PackedWeights`), and a model's only session frees
/// the copy they were packed from (`InferenceSession.releasePackingSources`): the weights are then
/// held once, packed.
@Suite("Packed weights: once per model, and the unpacked copy freed")
struct PackedWeightsTests {
    typealias B = ONNXBuilder
    static let names = ["selfie_segmentation.onnx", "selfie_segmentation_landscape.onnx"]
        + ArchitectureCorpus.index.filter(\.quick).map(\.name)

    /// int8 models: QLinear nodes as written, and QDQ groups the fast path rewrites into them.
    static let quantizedNames = ["QLinearConv", "QLinearMatMul", "QDQ Conv group", "QDQ MatMul group"]

    static func modelBytes(_ name: String) throws -> [UInt8] {
        if quantizedNames.contains(name) { return quantizedModel(name) }
        return name.hasSuffix(".onnx") ? [UInt8](try Data(contentsOf: Fixtures.weights(name)))
            : try ArchitectureCorpus.model(named: name).regeneratedModel()
    }

    static func quantizedModel(_ name: String) -> [UInt8] {
        typealias Group = QuantizedGroupRewriteTests.Group
        switch name {
        case "QLinearConv":
            var random = SeededGenerator(seed: 91)
            return QuantizedStepTests.convModel(
                .init(cin: 24, cout: 40, group: 1, kernel: (3, 3), stride: 1, dilation: 1, pads: [1, 1, 1, 1], height: 10, width: 10,
                      xType: 2, wType: 3, yType: 2, xZero: 128, yZero: 100, perChannel: true, bias: true), &random).bytes
        case "QLinearMatMul": return QuantizedGroupRewriteTests.model(Group(perAxisWeights: true, matMul: true), explicit: true)
        case "QDQ Conv group": return QuantizedGroupRewriteTests.model(Group(perAxisWeights: true))
        default: return QuantizedGroupRewriteTests.model(Group(perAxisWeights: true, matMul: true))
        }
    }

    /// Each input of `model` filled with a ramp.
    static func feeds(_ model: InferenceModel) -> [String: Inference.Tensor] {
        var feeds: [String: Inference.Tensor] = [:]
        for input in model.inputs {
            feeds[input.name] = Inference.Tensor(shape: input.shape, floats: (0..<input.elementCount).map { Float($0 % 251) / 251 })
        }
        return feeds
    }

    @Test("a second fast session takes the weights the first packed: the model holds them once, the sessions the same bytes",
          arguments: names + quantizedNames)
    func sessionsShareThePackedWeights(_ name: String) throws {
        let model = try InferenceModel(bytes: try Self.modelBytes(name))
        let unpacked = model.heldBytes
        let first = try InferenceSession(model: model, path: .fast)
        let packed = model.heldBytes - unpacked
        #expect(packed > 0, "\(name): no weights packed")
        let second = try InferenceSession(model: model, path: .fast)
        #expect(model.heldBytes == unpacked + packed, "\(name): the second session packed again")
        #expect(second.heldBytes == first.heldBytes, "\(name)")
        #expect(try second.run(Self.feeds(model)) == first.run(Self.feeds(model)), "\(name)")
    }

    @Test("the model's only session frees the constants its steps packed, and computes bit for bit what it did",
          arguments: names)
    func onlySessionFreesTheUnpackedWeights(_ name: String) throws {
        let bytes = try Self.modelBytes(name)
        let model = try InferenceModel(bytes: bytes)
        let feeds = Self.feeds(model)
        let expected = try InferenceSession(model: try InferenceModel(bytes: bytes), path: .fast).run(feeds)
        let session = try InferenceSession(model: model, path: .fast)
        let held = model.constants.byteCount
        // Poisoned: the freed bytes are kept as NaN, so a step still reading one would show.
        let freed = session.releasePackingSources(poisoning: true)
        print("packed weights \(name): \(freed) of \(held) constant bytes freed")
        #expect(freed > 0, "\(name): nothing freed")
        #expect(model.constants.byteCount == held - freed, "\(name)")
        #expect(try session.run(feeds) == expected, "\(name)")
        // Later fast sessions take the packed weights; no other kind can be made.
        #expect(try InferenceSession(model: model, path: .fast, threads: 2).run(feeds) == expected, "\(name)")
        #expect(throws: ModelError.self) { try InferenceSession(model: model, path: .reference) }
        #expect(throws: ModelError.self) { try InferenceSession(model: model, path: .fast, keepsIntermediates: true) }
    }

    @Test("nothing is freed while a second session reads the model, or on the reference path")
    func otherReadersKeepTheWeights() throws {
        let bytes = try Self.modelBytes(Self.names[0])
        let model = try InferenceModel(bytes: bytes)
        let session = try InferenceSession(model: model, path: .fast)
        do {
            let other = try InferenceSession(model: model, path: .reference)
            #expect(session.releasePackingSources() == 0)
            #expect(other.releasePackingSources() == 0)
        }
        #expect(session.releasePackingSources(poisoning: true) > 0)
    }

    @Test("a node left to its reference kernel reads its weights when it runs: they are not freed")
    func referenceKernelsKeepTheirWeights() throws {
        // A 3-D convolution, which no fast kernel takes.
        let bytes = B.model(
            nodes: [B.node("Conv", inputs: ["x", "w"], outputs: ["y"], name: "volume", attributes: [.ints("kernel_shape", [1, 1, 1])])],
            initializers: [B.floatTensor("w", [2, 3, 1, 1, 1], (0..<6).map(Float.init))],
            inputs: [B.valueInfo("x", [1, 3, 2, 2, 2])], outputs: [B.valueInfo("y", [1, 2, 2, 2, 2])])
        let model = try InferenceModel(bytes: bytes)
        let session = try InferenceSession(model: model, path: .fast)
        #expect(session.nodeKernels.map(\.runsOnReference) == [true])
        #expect(session.releasePackingSources() == 0)
        #expect(try InferenceSession(model: model, path: .reference).arenaBytes > 0)
    }

    @Test("an int8 model's only session frees the integer weights its steps packed, and a QDQ model's graph as written, and computes bit for bit what it did",
          arguments: quantizedNames)
    func onlySessionFreesTheQuantizedWeights(_ name: String) throws {
        let bytes = Self.quantizedModel(name)
        let model = try InferenceModel(bytes: bytes)
        let feeds = Self.feeds(model)
        let expected = try InferenceSession(model: try InferenceModel(bytes: bytes), path: .fast).run(feeds)
        let session = try InferenceSession(model: model, path: .fast)
        #expect(session.nodeKernels.filter(\.runsOnReference).isEmpty, "\(name): \(session.nodeKernels.map(\.op))")
        let rewritten = model.fastGraph?.constants
        #expect((rewritten != nil) == name.hasPrefix("QDQ"), "\(name)")
        let held = model.constants.byteCount + (rewritten?.byteCount ?? 0)
        let freed = session.releasePackingSources(poisoning: true)
        print("packed weights \(name): \(freed) of \(held) constant bytes freed")
        #expect(freed > 0, "\(name): nothing freed")
        #expect(model.constants.byteCount + (rewritten?.byteCount ?? 0) == held - freed, "\(name)")
        // The graph as written, which only the reference path and inspection run, is gone.
        if rewritten != nil { #expect(model.constants.byteCount == 0, "\(name)") }
        #expect(try session.run(feeds) == expected, "\(name)")
        #expect(try InferenceSession(model: model, path: .fast, threads: 2).run(feeds) == expected, "\(name)")
        #expect(throws: ModelError.self) { try InferenceSession(model: model, path: .reference) }
        #expect(throws: ModelError.self) { try InferenceSession(model: model, path: .fast, keepsIntermediates: true) }
    }
}
