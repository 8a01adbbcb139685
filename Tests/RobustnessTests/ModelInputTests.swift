import Foundation
import Inference
import Testing
import TestSupport

/// ONNX models: every malformed model is a thrown `ModelError` with a one-line message,
/// never a crash, a hang or an unbounded allocation. Malformed bytes are made here from the
/// committed models.
@Suite("Bad ONNX models are thrown errors")
struct ModelInputTests {
    static let general = fixtureBytes("Weights/selfie_segmentation.onnx")
    static let relu = fixtureBytes("Fixtures/ops/relu/model.onnx")

    /// A one-input model whose input has `shape` (identity through Relu).
    static func reluModel(inputShape: [Int64], outputShape: [Int64]? = nil) -> [UInt8] {
        ONNXBuilder.model(
            nodes: [ONNXBuilder.node("Relu", inputs: ["x"], outputs: ["y"])],
            inputs: [ONNXBuilder.valueInfo("x", inputShape)],
            outputs: [ONNXBuilder.valueInfo("y", outputShape ?? inputShape)])
    }

    static let rows: [BadInput] = [
        BadInput(name: "empty file", bytes: { [] }, says: "the model is empty (0 bytes): not an ONNX model"),
        BadInput(name: "protobuf with no graph and no opset import (ir_version only)", bytes: { [0x08, 0x08] },
                 says: "not an ONNX model: it has no graph and no opset import"),
        BadInput(name: "a PNG instead of a model", bytes: { fixtureBytes("Fixtures/images/astronaut.png") }, says: "not a valid ONNX model"),
        BadInput(name: "random bytes (seed 1, 1 KB)", bytes: { randomBytes(count: 1024, seed: 1) }, says: ""),
        BadInput(name: "random bytes (seed 2, 64 KB)", bytes: { randomBytes(count: 65536, seed: 2) }, says: ""),
        BadInput(name: "the model cut in its first tag", bytes: { Array(general.prefix(1)) }, says: "not a valid ONNX model"),
        BadInput(name: "the model cut in half", bytes: { Array(general.prefix(general.count / 2)) }, says: "not a valid ONNX model"),
        BadInput(name: "the model minus its last byte", bytes: { Array(general.dropLast()) }, says: ""),
        BadInput(name: "a varint that never ends (runs off the end)", bytes: { [0x08] + [UInt8](repeating: 0xFF, count: 6) }, says: "not a valid ONNX model"),
        BadInput(name: "a varint longer than 10 bytes", bytes: { [0x08] + [UInt8](repeating: 0xFF, count: 12) + [0x01] }, says: "not a valid ONNX model"),
        BadInput(name: "the graph's length prefix is 2^32 - 1", bytes: { [0x08, 0x08, 0x3A, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x0A] }, says: "not a valid ONNX model"),
        BadInput(name: "the graph's length prefix is 2^63 - 1", bytes: { [0x3A] + [UInt8](repeating: 0xFF, count: 8) + [0x7F] }, says: "not a valid ONNX model"),
        BadInput(name: "wire type 7 (does not exist)", bytes: { [0x0F, 0x00] }, says: "not a valid ONNX model"),
        BadInput(name: "field number 0", bytes: { [0x00, 0x00] }, says: "not a valid ONNX model"),
        BadInput(name: "input dimension 2^40", bytes: { reluModel(inputShape: [1, 1 << 40, 1 << 40, 3]) }, says: ""),
        BadInput(name: "input dimension 2^62 (element count overflows Int)", bytes: { reluModel(inputShape: [1 << 62, 1 << 62]) }, says: ""),
        BadInput(name: "negative input dimension", bytes: { reluModel(inputShape: [1, -3, 4]) }, says: ""),
        BadInput(name: "output shape disagrees with the graph", bytes: { reluModel(inputShape: [1, 4], outputShape: [1, 5]) }, says: ""),
        BadInput(name: "initializer dims 2^31 x 2^31 with one value", bytes: {
            ONNXBuilder.model(
                nodes: [ONNXBuilder.node("Add", inputs: ["x", "w"], outputs: ["y"])],
                initializers: [ONNXBuilder.floatTensor("w", [1 << 31, 1 << 31], [1])],
                inputs: [ONNXBuilder.valueInfo("x", [1, 4])], outputs: [ONNXBuilder.valueInfo("y", [1, 4])])
        }, says: ""),
        BadInput(name: "Reshape to 2^40 x 2^40", bytes: {
            ONNXBuilder.model(
                nodes: [ONNXBuilder.node("Reshape", inputs: ["x", "s"], outputs: ["y"])],
                initializers: [ONNXBuilder.int64Tensor("s", [2], [1 << 40, 1 << 40])],
                inputs: [ONNXBuilder.valueInfo("x", [1, 4])], outputs: [ONNXBuilder.valueInfo("y", [1 << 40, 1 << 40])])
        }, says: ""),
        BadInput(name: "node reads a value nobody defines", bytes: {
            ONNXBuilder.model(
                nodes: [ONNXBuilder.node("Relu", inputs: ["nowhere"], outputs: ["y"])],
                inputs: [ONNXBuilder.valueInfo("x", [1, 4])], outputs: [ONNXBuilder.valueInfo("y", [1, 4])])
        }, says: "nowhere"),
    ]

    @Test("a malformed model is a ModelError with a one-line message", arguments: rows)
    func malformedModel(_ row: BadInput) {
        let bytes = row.bytes()
        #expect(throws: ModelError.self) { _ = try InferenceModel(bytes: bytes) }
        do {
            _ = try InferenceModel(bytes: bytes)
        } catch {
            let text = String(describing: error)
            #expect(isClearMessage(text), "\(text)")
            #expect(row.says.isEmpty || text.lowercased().contains(row.says.lowercased()), "\(text)")
        }
    }

    @Test("a small model cut at every offset is a ModelError")
    func smallModelCutEverywhere() {
        let model = Self.relu
        for length in 0..<model.count {
            let cut = Array(model.prefix(length))
            #expect(throws: ModelError.self, "cut at \(length) of \(model.count)") { _ = try InferenceModel(bytes: cut) }
        }
    }

    @Test("the built-in model cut at 64 offsets spread over the file (and at each end) is a ModelError")
    func realModelCutAtManyOffsets() {
        let model = Self.general
        // The first 256 bytes hold the header and the start of the graph; the rest, mostly weights.
        let offsets = Array(0..<32).map { $0 * 8 } + (0..<32).map { 256 + $0 * (model.count - 257) / 31 }
        for length in Set(offsets) where length < model.count {
            let cut = Array(model.prefix(length))
            #expect(throws: ModelError.self, "cut at \(length) of \(model.count)") { _ = try InferenceModel(bytes: cut) }
        }
    }

    @Test("the small model with any one byte flipped loads or throws a ModelError, never crashes")
    func smallModelEveryByteFlipped() {
        let model = Self.relu
        var thrown = 0
        for position in model.indices {
            var flipped = model
            flipped[position] ^= 0xFF
            do {
                let loaded = try InferenceModel(bytes: flipped)
                // What loads must still satisfy the model contract: static, positive shapes.
                #expect(loaded.inputs.allSatisfy { $0.shape.allSatisfy { $0 > 0 } })
            } catch {
                thrown += 1
                #expect(isClearMessage(String(describing: error)), "flip at \(position): \(error)")
            }
        }
        // Most single-byte flips break the protobuf structure or a name that must match.
        #expect(thrown > model.count / 2)
    }

    @Test("the built-in model with bytes flipped in its structure loads or throws a ModelError")
    func realModelBytesFlipped() {
        let model = Self.general
        var generator = SplitMix64(seed: 7)
        // 40 positions in the header and graph structure, 8 in the weights.
        let positions = (0..<40).map { _ in Int.random(in: 0..<4096, using: &generator) }
            + (0..<8).map { _ in Int.random(in: 4096..<model.count, using: &generator) }
        for position in positions {
            var flipped = model
            flipped[position] ^= 0xFF
            do {
                _ = try InferenceModel(bytes: flipped)
            } catch {
                #expect(isClearMessage(String(describing: error)), "flip at \(position): \(error)")
            }
        }
    }

    @Test("a zero dimension is a legal empty tensor: the model loads and runs without touching memory")
    func zeroDimension() throws {
        let model = try InferenceModel(bytes: Self.reluModel(inputShape: [1, 0, 4]))
        #expect(model.inputs[0].elementCount == 0)
        let session = try InferenceSession(model: model, path: .reference)
        let outputs = try session.run(inputs: ["x": []])
        #expect(outputs["y"] == [])
    }

    @Test("a missing model file is fileNotFound naming the path")
    func missingFile() {
        let path = "/nonexistent/dir/model.onnx"
        #expect {
            _ = try InferenceModel(contentsOfFile: path)
        } throws: { error in
            (error as? ModelError)?.kind == .fileNotFound(path: path) && String(describing: error).contains(path)
        }
    }

    @Test("a directory given as the model is unreadable, not a crash")
    func directoryAsModel() {
        let path = NSTemporaryDirectory()
        #expect {
            _ = try InferenceModel(contentsOfFile: path)
        } throws: { error in
            (error as? ModelError)?.kind == .unreadable(path: path)
        }
    }

    @Test("a session given an input of the wrong size throws invalidInput")
    func wrongInputSize() throws {
        let model = try InferenceModel(bytes: Self.reluModel(inputShape: [1, 4]))
        let session = try InferenceSession(model: model, path: .reference)
        let input = [Float](repeating: 0, count: 5)
        var output = [Float](repeating: 0, count: 4)
        #expect {
            try input.withUnsafeBufferPointer { source in
                try output.withUnsafeMutableBufferPointer { destination in
                    try session.run(input: source, output: destination)
                }
            }
        } throws: { error in
            (error as? ModelError)?.kind == .invalidInput
        }
    }
}
