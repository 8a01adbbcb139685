import AllocationCounter
import BuiltinModels
import Foundation
import Testing
import FramePipeline
import Imaging
import ONNXInference
import PipelineFakes
import TestSupport

private typealias Description = SegmentationModelDescription

private func descriptionError(_ body: () throws -> Void) -> Description.DescriptionError? {
    do { try body() } catch let error as Description.DescriptionError { return error } catch let error as SegmentationModel.LoadError {
        if case let .description(description) = error { return description }
        return nil
    } catch { return nil }
    return nil
}

/// The RVM fixture (`Tools/make_rvm_fixture.py`) and its description file.
private enum RVM {
    static var bytes: [UInt8] { get throws { [UInt8](try Data(contentsOf: Fixtures.url("rvm/model.onnx"))) } }
    static var file: Data { get throws { try Data(contentsOf: Fixtures.url("rvm/model.onnx.json")) } }
    static func segmentation(file: Data? = nil, code: Description? = nil) throws -> SegmentationModel {
        try SegmentationModel(parsed: ModelDeclarations(modelData: try bytes), code: code, file: try file ?? Self.file)
    }
    static func segmenter() throws -> ModelSegmenter { try ModelSegmenter(try segmentation()) }
    static func frame(shift: Int) -> Image {
        var image = Image(width: 160, height: 120, filledWith: (0, 0, 0, 255))
        for y in 0..<120 {
            for x in 0..<160 {
                let o = y * image.bytesPerRow + 4 * x
                image.bytes[o] = UInt8((x + shift) * 255 / 200)
                image.bytes[o + 1] = UInt8(y * 2)
                image.bytes[o + 2] = UInt8(((x + shift) ^ y) & 255)
            }
        }
        return image
    }
}

@Suite("Descriptions of recurrent and free-size models: state, constants, input.size, sampling, alpha")
struct RecurrentDescriptionTests {
    @Test("the JSON form reads state, constants, sampling, size and kind")
    func json() throws {
        let description = try Description(json: Data("""
            {"input": {"name": "src", "sampling": "half_pixel", "size": [288, 512]},
             "output": {"name": "pha", "activation": "none", "kind": "alpha"},
             "state": [{"input": "r1i", "output": "r1o"}, {"input": "r2i", "output": "r2o"}],
             "constants": {"downsample_ratio": [0.25], "scale": 2}}
            """.utf8))
        #expect(description == Description(
            input: .init(name: "src", sampling: .halfPixel, size: (288, 512)),
            output: .init(name: "pha", activation: Description.Activation.none, kind: .alpha),
            state: [.init(input: "r1i", output: "r1o"), .init(input: "r2i", output: "r2o")],
            constants: ["downsample_ratio": [0.25], "scale": [2]]))
    }

    @Test("a bad value names its field", arguments: [
        (#"{"input": {"sampling": "bilinear"}}"#, "input.sampling"),
        (#"{"input": {"size": [288]}}"#, "input.size"),
        (#"{"input": {"size": [0, 512]}}"#, "input.size"),
        (#"{"input": {"size": [28.5, 512]}}"#, "input.size"),
        (#"{"output": {"kind": "matte"}}"#, "output.kind"),
        (#"{"state": {"input": "a"}}"#, "state"),
        (#"{"state": [{"input": "a"}]}"#, "state[0]"),
        (#"{"state": [{"input": "a", "output": "b", "shape": 1}]}"#, "state[0].shape"),
        (#"{"state": [{"input": "a", "output": "b"}, {"input": "a", "output": "c"}]}"#, "state[1].input"),
        (#"{"constants": {"ratio": "0.25"}}"#, "constants.ratio"),
        (#"{"constants": {"ratio": []}}"#, "constants.ratio"),
    ])
    func badJSON(text: String, field: String) {
        let error = descriptionError { _ = try Description(json: Data(text.utf8)) }
        #expect(error?.field == field, "\(text): \(String(describing: error))")
    }

    @Test("RVM's description plans it: the image at input.size, the ratio fixed, each state at its output's shape")
    func plansRVM() throws {
        let segmentation = try RVM.segmentation()
        let convention = segmentation.convention
        #expect(convention.inputName == "src" && convention.inputHeight == 96 && convention.inputWidth == 128)
        #expect(convention.outputName == "pha" && convention.outputKind == .alpha && convention.sampling == .halfPixel)
        #expect(segmentation.model.fixedInputs == ["downsample_ratio"])
        #expect(segmentation.stateShapes == ["r1i": [1, 8, 12, 16], "r2i": [1, 8, 6, 8], "r3i": [1, 16, 3, 4], "r4i": [1, 16, 2, 2]])
        #expect(convention.summary.contains("input.size = [96, 128] (JSON file)"))
    }

    @Test("a model whose input takes any size needs input.size; the error says so")
    func freeSizeNeedsInputSize() throws {
        let file = Data(#"{"state": [{"input": "r1i", "output": "r1o"}, {"input": "r2i", "output": "r2o"}, {"input": "r3i", "output": "r3o"}, {"input": "r4i", "output": "r4o"}], "constants": {"downsample_ratio": [0.25]}}"#.utf8)
        let error = descriptionError { _ = try RVM.segmentation(file: file) }
        #expect(error?.field == "input.size", "\(String(describing: error))")
        #expect(error?.message.contains("src [batch_size, 3, height, width] takes any size") == true, "\(String(describing: error))")
    }

    @Test("an input the frame, the state and the constants leave unfed is named")
    func unfedInput() throws {
        let file = Data(#"{"input": {"size": [96, 128]}, "state": [{"input": "r1i", "output": "r1o"}], "constants": {"downsample_ratio": [0.25]}}"#.utf8)
        let error = descriptionError { _ = try RVM.segmentation(file: file) }
        #expect(error?.field == "constants" && error?.message.contains("r2i") == true, "\(String(describing: error))")
    }

    /// x → MaxPool 2x2 → Resize x2 → Add x: only even sizes fit (as a stride-2 encoder and its decoder).
    static func evenSizeModel() -> [UInt8] {
        ONNXBuilder.model(
            nodes: [ONNXBuilder.node("MaxPool", inputs: ["x"], outputs: ["p"], attributes: [.ints("kernel_shape", [2, 2]), .ints("strides", [2, 2])]),
                    ONNXBuilder.node("Resize", inputs: ["p", "roi", "scales"], outputs: ["u"], attributes: [.string("mode", "nearest")]),
                    ONNXBuilder.node("Add", inputs: ["x", "u"], outputs: ["s"], name: "skip"),
                    ONNXBuilder.node("ReduceMean", inputs: ["s"], outputs: ["m"], attributes: [.ints("axes", [1]), .int("keepdims", 1)]),
                    ONNXBuilder.node("Sigmoid", inputs: ["m"], outputs: ["y"])],
            initializers: [ONNXBuilder.floatTensor("roi", [0], []), ONNXBuilder.floatTensor("scales", [4], [1, 1, 2, 2])],
            inputs: [ONNXBuilder.valueInfo("x", dims: [.value(1), .value(3), .parameter("h"), .parameter("w")])],
            outputs: [ONNXBuilder.valueInfo("y", dims: nil)], opset: 13)
    }

    @Test("input.size is checked against the graph: a size its strides do not divide is an input.size error")
    func inputSizeChecked() throws {
        let parsed = try ModelDeclarations(modelData: Self.evenSizeModel())
        let fits = try SegmentationModel(parsed: parsed, code: Description(input: .init(size: (32, 48))))
        #expect(fits.convention.inputHeight == 32 && fits.convention.inputWidth == 48)
        let error = descriptionError { _ = try SegmentationModel(parsed: parsed, code: Description(input: .init(size: (33, 48)))) }
        #expect(error?.field == "input.size", "\(String(describing: error))")
        #expect(error?.message.contains("[33, 48] does not fit the graph") == true && error?.message.contains("skip") == true,
                "\(String(describing: error))")
    }

    @Test("input.size on a model of fixed size must be that size")
    func inputSizeOfFixedModel() throws {
        let error = descriptionError {
            _ = try ModelConvention(model: try PlannedModel(modelData: BuiltinModel.general.bytes), code: Description(input: .init(size: (144, 256))))
        }
        #expect(error?.field == "input.size", "\(String(describing: error))")
    }
}

@Suite("A recurrent model carries its state from frame to frame")
struct RecurrentSegmenterTests {
    static func mask(_ segmenter: ModelSegmenter, _ frame: Image, state: SegmenterStreamState?) throws -> [Float] {
        var mask = [Float](repeating: -1, count: frame.width * frame.height)
        try mask.withUnsafeMutableBufferPointer { try segmenter.segment(frame, into: $0, state: state) }
        return mask
    }

    @Test("the stream's state advances each inference; reset goes back to zeros; no state is one frame alone")
    func stateSemantics() throws {
        let segmenter = try RVM.segmenter()
        let a = RVM.frame(shift: 0), b = RVM.frame(shift: 9)
        let alone = try Self.mask(segmenter, a, state: nil)
        #expect(try Self.mask(segmenter, a, state: nil) == alone)
        let state = try #require(segmenter.makeStreamState())
        #expect(try Self.mask(segmenter, a, state: state) == alone, "the first frame of a stream starts from zeros")
        let second = try Self.mask(segmenter, b, state: state)
        #expect(second != (try Self.mask(segmenter, b, state: nil)), "the second frame reads the first's state")
        state.reset()
        #expect(try Self.mask(segmenter, a, state: state) == alone)
        #expect(segmenter.maskIsAlpha)
    }

    /// The same two frames through the engine by hand: the sampler, the NCHW tensor, the state
    /// fed back by name, the clamped alpha upsampled. The segmenter must give these exact masks.
    @Test("the segmenter feeds the image, each state and the constant where the graph takes them")
    func wiring() throws {
        let segmentation = try RVM.segmentation()
        let segmenter = try ModelSegmenter(segmentation)
        let session = try InferenceSession(planned: segmentation.model)
        let sampler = InputSampling.halfPixel.sampler(sourceWidth: 160, sourceHeight: 120, tensorWidth: 128, tensorHeight: 96)
        let upsampler = MaskUpsampler(sourceWidth: 128, sourceHeight: 96, targetWidth: 160, targetHeight: 120)
        var feeds: [String: Tensor] = [:]
        for (name, shape) in segmentation.stateShapes { feeds[name] = Tensor(zeros: .float32, shape: shape) }
        let state = try #require(segmenter.makeStreamState())
        for shift in [0, 9] {
            let frame = RVM.frame(shift: shift)
            var nhwc = [Float](repeating: 0, count: 96 * 128 * 3)
            nhwc.withUnsafeMutableBufferPointer { sampler.sample(frame, into: $0) }
            var nchw = [Float](repeating: 0, count: nhwc.count)
            // The segmenter's conversion of level p (the sample · 255): (p / 255 · (1 − 0) + 0 − 0) / 1 = p / 255.
            for c in 0..<3 { for i in 0..<(96 * 128) { nchw[c * 96 * 128 + i] = (nhwc[3 * i + c] * 255).rounded() / 255 } }
            feeds["src"] = Tensor(shape: [1, 3, 96, 128], scalars: nchw)
            let outputs = try session.run(inputs: feeds)
            let alpha = try #require(outputs["pha"]).scalars(as: Float.self).map { min(max($0, 0), 1) < 0x1p-64 ? 0 : min(max($0, 0), 1) }
            var expected = [Float](repeating: 0, count: 160 * 120)
            alpha.withUnsafeBufferPointer { a in expected.withUnsafeMutableBufferPointer { upsampler.upsample(a, into: $0) } }
            #expect(try Self.mask(segmenter, frame, state: state) == expected, "frame shifted by \(shift)")
            for k in 1...4 { feeds["r\(k)i"] = outputs["r\(k)o"] }
        }
    }

    /// Records what the processor hands the segmenter.
    final class Spy: Segmenter {
        let wrapped: ModelSegmenter
        var states: [(state: ObjectIdentifier?, wasReset: Bool)] = []
        init(_ wrapped: ModelSegmenter) { self.wrapped = wrapped }
        func segment(_ frame: Image, into mask: UnsafeMutableBufferPointer<Float>) throws { try wrapped.segment(frame, into: mask) }
        var byteCount: Int { wrapped.byteCount }
        var maskIsAlpha: Bool { wrapped.maskIsAlpha }
        func makeStreamState() -> SegmenterStreamState? { wrapped.makeStreamState() }
        func segment(_ frame: Image, into mask: UnsafeMutableBufferPointer<Float>, state: SegmenterStreamState?) throws {
            states.append((state.map(ObjectIdentifier.init), state?.isReset ?? true))
            try wrapped.segment(frame, into: mask, state: state)
        }
    }

    @Test("the processor keeps one state per stream: advanced on inferred frames only, zeroed on reset, off → on and a new model")
    func processorCarriesState() throws {
        let spy = Spy(try RVM.segmenter())
        let processor = FrameProcessor()
        let frame = VideoFrame(image: RVM.frame(shift: 0), timestamp: 0, sequenceNumber: 0)
        let every2 = FrameSettings(isEnabled: true, inferenceInterval: 2)
        for _ in 0..<4 { _ = processor.process(frame, settings: every2, segmenter: spy, compositor: FakeCompositor()) }
        #expect(spy.states.count == 2, "an interval of 2 infers frames 1 and 3")
        #expect(spy.states.allSatisfy { $0.state != nil && $0.state == spy.states[0].state })
        #expect(spy.states.map(\.wasReset) == [true, false])
        processor.reset()
        _ = processor.process(frame, settings: every2, segmenter: spy, compositor: FakeCompositor())
        #expect(spy.states.last?.wasReset == true && spy.states.last?.state == spy.states[0].state)
        _ = processor.process(frame, settings: FrameSettings(isEnabled: false), segmenter: spy, compositor: FakeCompositor())
        _ = processor.process(frame, settings: every2, segmenter: spy, compositor: FakeCompositor())
        #expect(spy.states.last?.wasReset == true, "switching on starts from zeros")
        let other = Spy(try RVM.segmenter())
        _ = processor.process(frame, settings: FrameSettings(isEnabled: true), segmenter: other, compositor: FakeCompositor())
        #expect(other.states.count == 1 && other.states[0].wasReset && other.states[0].state != spy.states.last?.state,
                "a new model gets a state of its own")
    }

    @Test("steady-state segmentation of a recurrent model allocates nothing",
          .disabled(if: vbg_built_with_sanitizer() != 0, "a sanitizer's allocator replaces the counted malloc"),
          .disabled(if: isDebugBuild, "unspecialised generics allocate in debug builds; run in release: swift test -c release -Xswiftc -enable-testing --filter Allocat"))
    func recurrentAllocatesNothing() throws {
        let segmenter = try RVM.segmenter()
        let frame = RVM.frame(shift: 0)
        let state = try #require(segmenter.makeStreamState())
        var mask = [Float](repeating: 0, count: frame.width * frame.height)
        try mask.withUnsafeMutableBufferPointer { try segmenter.segment(frame, into: $0, state: state) }
        let before = vbg_thread_allocation_count()
        try mask.withUnsafeMutableBufferPointer { buffer in
            for _ in 0..<5 { try segmenter.segment(frame, into: buffer, state: state) }
            state.reset()
            try segmenter.segment(frame, into: buffer, state: state)
        }
        let allocations = Int(vbg_thread_allocation_count() - before)
        #expect(allocations == 0, "\(allocations) allocations in 6 segmentations")
    }
}
