import AllocationCounter
import Foundation
import Testing
import BuiltinModels
import FramePipeline
import Imaging
import ONNXInference
import TestSupport

private typealias Description = SegmentationModelDescription

/// A model whose mask is its input's first two channels: x [1, 3, 8, 6] → Slice(channels 0..<2).
private func twoChannelModel(producer: String? = nil, metadata: [(String, String)] = []) -> [UInt8] {
    var nodes = [ONNXBuilder.node("Slice", inputs: ["x", "starts", "ends", "axes"], outputs: [producer == nil ? "y" : "logits"])]
    if let producer { nodes.append(ONNXBuilder.node(producer, inputs: ["logits"], outputs: ["y"], attributes: [.int("axis", 1)])) }
    return ONNXBuilder.model(
        nodes: nodes,
        initializers: [ONNXBuilder.int64Tensor("starts", [1], [0]), ONNXBuilder.int64Tensor("ends", [1], [2]),
                       ONNXBuilder.int64Tensor("axes", [1], [1])],
        inputs: [ONNXBuilder.valueInfo("x", [1, 3, 8, 6])], outputs: [ONNXBuilder.valueInfo("y", [1, 2, 8, 6])],
        metadata: metadata)
}

private func descriptionError(_ body: () throws -> Void) -> Description.DescriptionError? {
    do { try body() } catch let error as Description.DescriptionError { return error } catch { return nil }
    return nil
}

@Suite("A model's conventions: described in code, in a JSON file, in metadata, or detected")
struct ModelConventionTests {
    @Test("the JSON form reads every field")
    func json() throws {
        let description = try Description(json: Data("""
            {"input": {"name": "data", "layout": "NCHW", "channels": "BGR", "range": [0, 255],
                       "mean": [102.9, 111.3, 126.9], "std": [62.9, 62.8, 66.4]},
             "output": {"name": "Softmax/1", "layout": "NCHW", "activation": "none", "personChannel": 1}}
            """.utf8))
        #expect(description == Description(
            input: .init(name: "data", layout: .nchw, channels: .bgr, range: (0, 255), mean: [102.9, 111.3, 126.9], std: [62.9, 62.8, 66.4]),
            output: .init(name: "Softmax/1", layout: .nchw, activation: Description.Activation.none, personChannel: 1)))
        #expect(try Description(json: Data("{}".utf8)) == Description())
    }

    @Test("a bad JSON description names the field", arguments: [
        (#"{"input": {"mean": [1, 2]}}"#, "input.mean"),
        (#"{"input": {"std": [1, 0, 1]}}"#, "input.std"),
        (#"{"input": {"layout": "CHW"}}"#, "input.layout"),
        (#"{"input": {"scale": 2}}"#, "input.scale"),
        (#"{"output": {"personChannel": true}}"#, "output.personChannel"),
        (#"{"output": {"activation": 1}}"#, "output.activation"),
        (#"{"outputs": {}}"#, "outputs"),
    ])
    func badJSON(text: String, field: String) {
        let error = descriptionError { _ = try Description(json: Data(text.utf8)) }
        #expect(error?.field == field, "\(text): \(String(describing: error))")
        #expect(error?.description.contains(field) == true)
    }

    @Test("the built-in general model is detected as NHWC RGB in [0, 1] with a sigmoid already applied")
    func builtinDetected() throws {
        let model = try PlannedModel(modelData: BuiltinModel.general.bytes)
        let convention = try ModelConvention(model: model)
        #expect(convention.inputLayout == .nhwc && convention.channels == .rgb && convention.range == .init(low: 0, high: 1))
        #expect(convention.outputChannels == 1 && convention.activation == .none && convention.personChannel == 0)
        #expect(convention.sources["input.layout"] == .detected && convention.sources["input.range"] == .default)
    }

    @Test("two conventions are equal only when every field is, the output's size and channels included")
    func equalityCoversEveryField() throws {
        let convention = try ModelConvention(model: PlannedModel(modelData: BuiltinModel.general.bytes))
        #expect(convention == convention)
        let changes: [(String, (inout ModelConvention) -> Void)] = [
            ("outputHeight", { $0.outputHeight += 1 }), ("outputWidth", { $0.outputWidth += 1 }),
            ("outputChannels", { $0.outputChannels += 1 }), ("inputHeight", { $0.inputHeight += 1 }),
            ("inputWidth", { $0.inputWidth += 1 }), ("range", { $0.range.high = 255 }),
            ("sources", { $0.sources["input.range"] = .code }),
        ]
        for (field, change) in changes {
            var other = convention
            change(&other)
            #expect(other != convention, "\(field)")
        }
    }

    @Test("two channels: a softmax with the person in channel 1, none when a Softmax computes the output")
    func twoChannelsDetected() throws {
        let raw = try ModelConvention(model: try PlannedModel(modelData: twoChannelModel()))
        #expect(raw.inputLayout == .nchw && raw.outputLayout == .nchw && raw.activation == .softmax && raw.personChannel == 1)
        let softmax = try ModelConvention(model: try PlannedModel(modelData: twoChannelModel(producer: "Softmax")))
        #expect(softmax.activation == .none)
    }

    @Test("code wins over the JSON file, which wins over the metadata entry, field by field")
    func precedence() throws {
        let model = try PlannedModel(modelData: twoChannelModel(metadata: [
            (ModelConvention.metadataKey, #"{"input": {"channels": "BGR", "range": [-1, 1]}, "output": {"activation": "sigmoid"}}"#),
        ]))
        let convention = try ModelConvention(model: model, code: Description(output: .init(personChannel: 0)),
                                             file: Data(#"{"input": {"range": [0, 255]}}"#.utf8))
        #expect(convention.personChannel == 0 && convention.sources["output.personChannel"] == .code)
        #expect(convention.range == .init(low: 0, high: 255) && convention.sources["input.range"] == .file)
        #expect(convention.channels == .bgr && convention.sources["input.channels"] == .metadata)
        #expect(convention.activation == .sigmoid && convention.sources["output.activation"] == .metadata)
    }

    @Test("a name that is not in the graph, or a channel the output lacks, names the field")
    func badAgainstModel() throws {
        let model = try PlannedModel(modelData: twoChannelModel())
        #expect(descriptionError { _ = try ModelConvention(model: model, code: Description(output: .init(name: "mask"))) }?.field == "output.name")
        #expect(descriptionError { _ = try ModelConvention(model: model, code: Description(input: .init(name: "image"))) }?.field == "input.name")
        #expect(descriptionError { _ = try ModelConvention(model: model, code: Description(output: .init(personChannel: 2))) }?.field == "output.personChannel")
    }

    @Test("the segmenter feeds the model its convention and reads the person channel after the activation")
    func segmenterConverts() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vbg-convention-\(getpid()).onnx").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(twoChannelModel()).write(to: URL(fileURLWithPath: path))
        let description = Description(input: .init(channels: .bgr, range: (-1, 1)))
        let segmenter = try ModelSegmenter(modelPath: path, description: description)
        let (r, g, b): (UInt8, UInt8, UInt8) = (200, 40, 90)
        let frame = Image(width: 12, height: 16, filledWith: (r, g, b, 255))
        var mask = [Float](repeating: -1, count: 12 * 16)
        try mask.withUnsafeMutableBufferPointer { try segmenter.segment(frame, into: $0) }
        // Tensor channel 0 is blue, 1 green, each p / 255 · 2 − 1; the person is channel 1 of a softmax.
        let blue = Float(b) / 255 * 2 - 1, green = Float(g) / 255 * 2 - 1
        let expected = 1 / (1 + expf(blue - green))
        #expect(mask.allSatisfy { abs($0 - expected) < 1e-6 }, "\(mask[0]) vs \(expected)")
    }

    @Test("steady-state segmentation with a described model (conversions both ways) allocates nothing",
          .disabled(if: vbg_built_with_sanitizer() != 0, "a sanitizer's allocator replaces the counted malloc"),
          .disabled(if: isDebugBuild, "unspecialised generics allocate in debug builds; run in release: swift test -c release -Xswiftc -enable-testing --filter Allocat"))
    func describedModelAllocatesNothing() throws {
        let segmenter = try ModelSegmenter(modelBytes: twoChannelModel(), description: Description(input: .init(channels: .bgr, range: (-1, 1))))
        let frame = Image(width: 12, height: 16, filledWith: (200, 40, 90, 255))
        let allocations = try SteadyState.segmentationAllocations(segmenter, frame: frame, runs: 10).allocations
        #expect(allocations == 0, "\(allocations) allocations in 10 segmentations")
    }
}
