import Foundation
import Testing
import TestSupport
@testable import Inference

/// The `ModelError` that loading `bytes` throws, or nil when it loads.
func loadError(_ bytes: [UInt8]) -> ModelError? {
    do { _ = try InferenceModel(bytes: bytes); return nil } catch { return error }
}

/// A one-node model `x [1,2,4,4] -> op -> y` with the given extra initializers.
/// Expects loading `bytes` to fail naming node_0, `op` and `attribute`.
func expectRefusal(_ bytes: [UInt8], op: String, attribute: String?, _ kind: ModelError.Kind = .unsupported,
                   sourceLocation: SourceLocation = #_sourceLocation) {
    let error = loadError(bytes)
    #expect(error?.kind == kind, "\(String(describing: error))", sourceLocation: sourceLocation)
    #expect(error?.node == "node_0" && error?.op == op, sourceLocation: sourceLocation)
    #expect(error?.attribute == attribute, "\(String(describing: error))", sourceLocation: sourceLocation)
}

func oneNodeModel(_ op: String, inputs: [String] = ["x"], attributes: [ONNXBuilder.Attribute] = [],
                  initializers: [[UInt8]] = [], inputShape: [Int64] = [1, 2, 4, 4], outputShape: [Int64]? = nil,
                  opset: Int64 = 17) -> [UInt8] {
    ONNXBuilder.model(
        nodes: [ONNXBuilder.node(op, inputs: inputs, outputs: ["y"], name: "node_0", attributes: attributes)],
        initializers: initializers,
        inputs: [ONNXBuilder.valueInfo("x", inputShape)],
        outputs: [outputShape.map { ONNXBuilder.valueInfo("y", $0) } ?? ONNXBuilder.valueInfo("y", inputShape)],
        opset: opset)
}

@Suite("What a bad model gets: a clear error, never a crash")
struct ModelErrorTests {
    @Test("a missing file is fileNotFound naming the path")
    func missingFile() {
        do {
            _ = try InferenceModel(contentsOfFile: "/no/such/model.onnx")
            Issue.record("loaded a missing file")
        } catch {
            #expect(error.kind == .fileNotFound(path: "/no/such/model.onnx"))
            #expect(error.description == "model not found: /no/such/model.onnx")
        }
    }

    @Test("a directory is unreadable, not a crash")
    func directory() {
        do {
            _ = try InferenceModel(contentsOfFile: NSTemporaryDirectory())
            Issue.record("loaded a directory")
        } catch {
            #expect(error.kind == .unreadable(path: NSTemporaryDirectory()))
        }
    }

    @Test("the general model cut at the first 64 offsets and every 997th byte throws")
    func truncatedModel() throws {
        let bytes = try InferenceModel.readFile(Fixtures.weights("selfie_segmentation.onnx").path)
        let cuts = Array(0..<64) + Array(stride(from: 64, to: bytes.count, by: 997))
        for cut in cuts {
            #expect(loadError(Array(bytes[..<cut])) != nil, "cut at \(cut) loaded")
        }
    }

    @Test("seeded byte flips in the general model throw or load, never crash or hang")
    func byteFlips() throws {
        let bytes = try InferenceModel.readFile(Fixtures.weights("selfie_segmentation.onnx").path)
        var generator = SplitMix64(seed: 2024)
        var rejected = 0
        let trials = 60
        for trial in 0..<trials {
            var corrupted = bytes
            // Half the trials flip bytes in the first 32 KiB (the nodes and their attributes come
            // first in the file), half anywhere (mostly weight data).
            let span = trial % 2 == 0 ? min(32_768, bytes.count) : bytes.count
            for _ in 0..<4 {
                let index = Int(generator.next() % UInt64(span))
                corrupted[index] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
            }
            do {
                let model = try InferenceModel(bytes: corrupted)
                // A flip that leaves a valid model (a changed weight) still describes one input and one output.
                #expect(model.inputs.count == 1 && model.outputs.count == 1, "trial \(trial)")
            } catch {
                rejected += 1
                #expect(!error.message.isEmpty, "trial \(trial)")
            }
        }
        print("byte flips: \(rejected) of \(trials) corrupted models rejected")
    }

    @Test("flips in the model's structure (its first bytes) are malformed, with an offset")
    func structuralFlip() throws {
        var bytes = try InferenceModel.readFile(Fixtures.weights("selfie_segmentation.onnx").path)
        bytes[0] = 0xff  // an invalid key: field 15 with wire type 7
        let error = try #require(loadError(bytes))
        #expect(error.kind == .malformed)
        #expect(error.message.contains("at byte 0"))
    }

    @Test("a varint that never ends is malformed")
    func endlessVarint() {
        let bytes: [UInt8] = [0x08] + Array(repeating: 0xff, count: 100_000)
        let error = loadError(bytes)
        #expect(error?.kind == .malformed)
        #expect(error?.message.contains("varint") == true)
    }

    @Test("an unsupported op names the node and the op")
    func unsupportedOp() {
        let error = loadError(oneNodeModel("MaxRoiPool"))
        #expect(error?.kind == .unsupported)
        #expect(error?.node == "node_0" && error?.op == "MaxRoiPool")
        #expect(error?.description == "node 'node_0' (MaxRoiPool): operator 'MaxRoiPool' is not supported")
    }

    @Test("an unsupported attribute names node, op and attribute")
    func unsupportedAttribute() {
        let error = loadError(oneNodeModel("Relu", attributes: [.int("frobnicate", 1)]))
        #expect(error?.kind == .unsupported && error?.attribute == "frobnicate")
        #expect(error?.description.hasPrefix("node 'node_0' (Relu), attribute 'frobnicate': ") == true)
    }

    @Test("an attribute with the wrong number of values says how many it expected")
    func attributeCount() {
        let model = oneNodeModel("Conv", inputs: ["x", "w"], attributes: [.ints("strides", [1, 1, 1])],
                                 initializers: [ONNXBuilder.floatTensor("w", [2, 2, 1, 1], [1, 0, 0, 1])])
        let error = loadError(model)
        #expect(error?.description == "node 'node_0' (Conv), attribute 'strides': expected 2 values, got 3")
    }

    @Test("an unsupported attribute value is named")
    func unsupportedValue() {
        let model = oneNodeModel("Resize", inputs: ["x", "", "s"], attributes: [.string("mode", "area")],
                                 initializers: [ONNXBuilder.floatTensor("s", [4], [1, 1, 2, 2])], outputShape: [1, 2, 8, 8])
        let error = loadError(model)
        #expect(error?.kind == .unsupported && error?.attribute == "mode")
    }

    @Test("a Constant node may state −∞ on purpose (the start of a maximum), unlike an initializer")
    func infiniteConstant() throws {
        let bytes = ONNXBuilder.model(
            nodes: [ONNXBuilder.node("Constant", inputs: [], outputs: ["floor"],
                                     attributes: [.tensor("value", ONNXBuilder.floatTensor("", [1], [-.infinity]))]),
                    ONNXBuilder.node("Max", inputs: ["x", "floor"], outputs: ["y"])],
            inputs: [ONNXBuilder.valueInfo("x", [3])], outputs: [ONNXBuilder.valueInfo("y", [3])])
        let session = try InferenceSession(model: try InferenceModel(bytes: bytes), path: .reference)
        #expect(try session.run(inputs: ["x": [-5, 0, 7]])["y"] == [-5, 0, 7])
    }

    @Test("NaN or infinity in an initializer names the initializer")
    func nanInitializer() {
        for bad in [Float.nan, .infinity] {
            let model = oneNodeModel("Add", inputs: ["x", "b"], initializers: [ONNXBuilder.floatTensor("bias_7", [1], [bad])])
            let error = loadError(model)
            #expect(error?.kind == .invalidValue)
            #expect(error?.message.contains("initializer 'bias_7'") == true)
        }
    }

    @Test("absurd dims are rejected before anything is allocated", arguments: [
        [1 << 20, 1 << 20] as [Int64],   // 2^40 elements
        [-1, 4],
        [Int64.max, 2],
    ])
    func absurdDims(dims: [Int64]) {
        // As an initializer (its data would be missing anyway) ...
        let initializer = oneNodeModel("Add", inputs: ["x", "b"], initializers: [ONNXBuilder.floatTensor("b", dims, [1])])
        #expect(loadError(initializer)?.kind == .invalidShape)
        // ... and as a graph input.
        #expect(loadError(oneNodeModel("Relu", inputShape: dims, outputShape: [1]))?.kind == .invalidShape)
    }

    @Test("an op whose output would exceed 2^31 elements is rejected")
    func hugeOutput() {
        let model = oneNodeModel("Resize", inputs: ["x", "", "s"],
                                 initializers: [ONNXBuilder.floatTensor("s", [4], [1, 1, 30000, 30000])], outputShape: [1, 2, 4, 4])
        let error = loadError(model)
        #expect(error?.kind == .invalidShape)
        #expect(error?.node == "node_0")
    }

    @Test("inconsistent shapes are invalidShape naming the node")
    func inconsistentShapes() {
        let model = oneNodeModel("Add", inputs: ["x", "b"], initializers: [ONNXBuilder.floatTensor("b", [3], [1, 2, 3])])
        let error = loadError(model)
        #expect(error?.kind == .invalidShape && error?.op == "Add")
        // A declared output shape that disagrees with inference.
        #expect(loadError(oneNodeModel("Relu", outputShape: [1, 2, 4, 5]))?.kind == .invalidShape)
    }

    @Test("a dangling input names the node and the input")
    func danglingInput() {
        let error = loadError(oneNodeModel("Add", inputs: ["x", "nowhere"]))
        #expect(error?.kind == .invalidGraph && error?.node == "node_0")
        #expect(error?.message.contains("'nowhere'") == true)
    }

    @Test("a cycle is reported")
    func cycle() {
        let model = ONNXBuilder.model(
            nodes: [ONNXBuilder.node("Add", inputs: ["x", "b"], outputs: ["a"], name: "first"),
                    ONNXBuilder.node("Relu", inputs: ["a"], outputs: ["b"], name: "second")],
            inputs: [ONNXBuilder.valueInfo("x", [4])], outputs: [ONNXBuilder.valueInfo("b", [4])])
        let error = loadError(model)
        #expect(error?.kind == .invalidGraph)
        #expect(error?.message.contains("cycle") == true)
    }

    @Test("opsets 1 through the newest onnx release are read; others are unsupported")
    func opsets() {
        #expect(loadError(oneNodeModel("Relu", opset: 0))?.kind == .unsupported)
        #expect(loadError(oneNodeModel("Relu", opset: 29))?.kind == .unsupported)
        for opset: Int64 in [1, 6, 7, 11, 21, 28] { #expect(loadError(oneNodeModel("Relu", opset: opset)) == nil, "opset \(opset)") }
    }

    @Test("an op used at an opset before it existed is unsupported, naming the op and its first opset")
    func opBeforeItsOpset() {
        let error = loadError(oneNodeModel("HardSwish", opset: 13))
        #expect(error?.kind == .unsupported)
        #expect(error?.op == "HardSwish")
        #expect(error?.message.contains("introduced in opset 14") == true)
    }

    @Test("a session with 0 or absurd threads is invalidInput")
    func threads() throws {
        let model = try InferenceModel(bytes: oneNodeModel("Relu"))
        for threads in [0, -1, 1000] {
            #expect(throws: ModelError.self) { _ = try InferenceSession(model: model, threads: threads) }
        }
    }

    @Test("a run with a wrong-sized buffer is invalidInput, not a crash")
    func wrongBuffer() throws {
        let session = try InferenceSession(model: InferenceModel(bytes: oneNodeModel("Relu")))
        let short = [Float](repeating: 0, count: 3)
        var output = [Float](repeating: 0, count: 32)
        do {
            try short.withUnsafeBufferPointer { source in
                try output.withUnsafeMutableBufferPointer { try session.run(input: source, output: $0) }
            }
            Issue.record("ran with a short input")
        } catch let error as ModelError {
            #expect(error.kind == .invalidInput)
        }
        #expect(throws: ModelError.self) { _ = try session.run(inputs: ["y": []]) }
    }
}

/// A small seeded generator (SplitMix64) so the byte-flip test is reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
