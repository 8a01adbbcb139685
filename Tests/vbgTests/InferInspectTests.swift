import Foundation
import Testing
import NumpyFormat
import ONNXInference
import TestSupport
import ONNXInference
@testable import vbg

/// A fresh path in the temporary directory (nothing is created).
private func temporaryPath(_ name: String) -> String {
    NSTemporaryDirectory() + "vbg-tests-\(getpid())-\(UUID().uuidString)-\(name)"
}

@Suite("vbg infer and vbg inspect")
struct InferInspectTests {
    @Test("infer runs the built-in landscape model on the fixture input and writes its mask")
    func inferWritesMask() throws {
        let output = temporaryPath("mask.npy")
        defer { unlink(output) }
        let status = runMain(["infer", "--model", "landscape", "--input", Fixtures.url("model/landscape/input.npy").path,
                              "--output", output, "--path", "reference"])
        #expect(status == 0)
        let written = try NumpyArray(contentsOfFile: output)
        #expect(written.shape == [1, 144, 256, 1])
        let expected = try Fixtures.floats("model/landscape/mask.npy")
        let difference = Difference(try written.floats(), expected.values)
        #expect(difference.maxAbsolute <= 1e-4, "\(difference)")
    }

    @Test("infer names every input and output (NAME=FILE), reads a bool tensor and dumps every computed value")
    func inferNamedTensors() throws {
        let directory = "nodetests/test_where_example"
        let output = temporaryPath("z.npy"), dump = temporaryPath("dump")
        defer { unlink(output); try? FileManager.default.removeItem(atPath: dump) }
        let status = runMain(["infer", "--model", Fixtures.url("\(directory)/model.onnx").path,
                              "--input", "condition=" + Fixtures.url("\(directory)/input_0_condition.npy").path,
                              "--input", "x=" + Fixtures.url("\(directory)/input_1_x.npy").path,
                              "--input", "y=" + Fixtures.url("\(directory)/input_2_y.npy").path,
                              "--output", "z=" + output, "--dump", dump])
        #expect(status == 0)
        let expected = try NumpyArray(contentsOfFile: Fixtures.url("\(directory)/output_0_z.npy").path)
        #expect(try NumpyArray(contentsOfFile: output) == expected)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dump).sorted() == ["0_z.npy", "index.json"])
        #expect(try NumpyArray(contentsOfFile: dump + "/0_z.npy") == expected)
    }

    @Test("infer reads and writes TensorProto .pb files, which carry the types .npy cannot (float8 here)")
    func inferTensorProtoFiles() throws {
        let model = temporaryPath("cast.onnx"), input = temporaryPath("x.pb"), output = temporaryPath("y.pb"), npy = temporaryPath("y.npy")
        defer { for file in [model, input, output, npy] { unlink(file) } }
        let float8e4m3fn: Int64 = 17
        try Data(ONNXBuilder.model(
            nodes: [ONNXBuilder.node("Cast", inputs: ["x"], outputs: ["y"], name: "cast", attributes: [.int("to", float8e4m3fn)])],
            inputs: [ONNXBuilder.valueInfo("x", [4])], outputs: [ONNXBuilder.valueInfo("y", dims: [.value(4)], elementType: float8e4m3fn)],
            opset: 21)).write(to: URL(fileURLWithPath: model))
        try Data(Tensor(shape: [4], scalars: [Float(1), 448, 1000, -0.0]).serializedTensorProto(name: "x")).write(to: URL(fileURLWithPath: input))
        #expect(runMain(["infer", "--model", model, "--input", "x=" + input, "--output", "y=" + output]) == 0)
        let y = try Tensor(serializedTensorProto: try Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(y.elementType == .float8e4m3fn && y.shape == [4])
        // 1 = 0.0111.000; 448 the largest finite; 1000 saturates to it; -0 keeps its sign.
        #expect(y.withUnsafeBytes { Array($0) } == [0x38, 0x7E, 0x7E, 0x80])
        // A float8 output cannot be written as .npy: refused (exit 1), nothing written.
        #expect(runMain(["infer", "--model", model, "--input", "x=" + input, "--output", "y=" + npy]) == 1)
        #expect(!FileManager.default.fileExists(atPath: npy))
    }

    @Test("infer runs Robust Video Matting's own export on both paths: zero states, then the first frame's r*o, as onnxruntime",
          arguments: ["fast", "reference"])
    func inferRecurrentMatting(path: String) throws {
        let zero = temporaryPath("zero.npy"), ratio = temporaryPath("ratio.npy")
        let outputs = ["pha", "r1o", "r2o", "r3o", "r4o"].map { ($0, temporaryPath("\($0).npy")) }
        defer { unlink(zero); unlink(ratio); for (_, file) in outputs { unlink(file) } }
        try NumpyArray(shape: [1, 1, 1, 1], floats: [0]).write(toFile: zero)
        try NumpyArray(shape: [1], floats: [0.25]).write(toFile: ratio)
        let rvm = "rvm/"
        for (frame, source, states) in [("frame1", "src", [String](repeating: zero, count: 4)),
                                        ("frame2", "src2", (1...4).map { Fixtures.url(rvm + "frame1_r\($0)o.npy").path })] {
            var arguments = ["infer", "--model", Fixtures.url(rvm + "model.onnx").path, "--path", path,
                             "--input", "src=" + Fixtures.url(rvm + source + ".npy").path, "--input", "downsample_ratio=" + ratio]
            for k in 1...4 { arguments += ["--input", "r\(k)i=" + states[k - 1]] }
            for (name, file) in outputs { arguments += ["--output", "\(name)=" + file] }
            #expect(runMain(arguments) == 0)
            for (name, file) in outputs {
                let expected = try Fixtures.floats(rvm + "\(frame)_\(name).npy")
                let difference = Difference(try NumpyArray(contentsOfFile: file).floats(), expected.values)
                #expect(difference.relative <= 1e-4, "\(frame) \(name) on the \(path) path: \(difference)")
            }
        }
    }

    @Test("infer names the inputs a multi-input model needs when one is not named")
    func inferNeedsNames() {
        let directory = "nodetests/test_where_example"
        #expect(runMain(["infer", "--model", Fixtures.url("\(directory)/model.onnx").path,
                         "--input", Fixtures.url("\(directory)/input_0_condition.npy").path, "--output", temporaryPath("z.npy")]) == 2)
    }

    @Test("infer with bad input exits 1 and leaves no output file", arguments: [
        ["--model", "/no/such.onnx"],                                   // missing model
        ["--model", "general", "--input-override", "landscape"],        // (replaced below) wrong input shape
    ])
    func badInput(extra: [String]) throws {
        let output = temporaryPath("out.npy")
        var words = ["infer", "--output", output]
        if extra.contains("--input-override") {
            words += ["--model", "general", "--input", Fixtures.url("model/landscape/input.npy").path]
        } else {
            words += extra + ["--input", Fixtures.url("model/general/input.npy").path]
        }
        #expect(runMain(words) == 1)
        #expect(!FileManager.default.fileExists(atPath: output))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
            .filter { $0.contains("vbg-partial") && $0.contains((output as NSString).lastPathComponent) }
        #expect(leftovers.isEmpty)
    }

    @Test("infer with a malformed .npy input exits 1")
    func malformedInput() throws {
        let input = temporaryPath("bad.npy"), output = temporaryPath("out.npy")
        defer { unlink(input) }
        try Data("not numpy".utf8).write(to: URL(fileURLWithPath: input))
        #expect(runMain(["infer", "--model", "general", "--input", input, "--output", output]) == 1)
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test("infer usage errors exit 2", arguments: [
        ["infer"],
        ["infer", "--model", "general", "--input", "x.npy"],
        ["infer", "--model", "general", "--input", "x.npy", "--output", "y.npy", "--path", "turbo"],
        ["infer", "--model", "general", "--input", "x.npy", "--output", "y.npy", "--bogus", "1"],
        ["inspect"],
    ])
    func usageErrors(words: [String]) {
        #expect(runMain(words) == 2)
    }

    @Test("inspect succeeds on both built-in models and on a path")
    func inspectBuiltins() {
        #expect(runMain(["inspect", "general"]) == 0)
        #expect(runMain(["inspect", "landscape"]) == 0)
        #expect(runMain(["inspect", Fixtures.url("ops/conv_1x1/model.onnx").path]) == 0)
    }

    @Test("inspect tells the fast path's share of the MACs: all of the built-in model's, on fast kernels")
    func inspectFastPathShare() throws {
        let lines = fastPathSummary(try ModelArgument.load("general"))
        #expect(lines.first?.hasPrefix("fast path: 100.0% of MACs on fast kernels; 0 of ") == true, "\(lines)")
        #expect(lines.count == 1)
        // What the segmenter reports (`Segmenter.byteCount`) besides its frame buffers.
        let memory = memorySummary(try ModelArgument.load("general"))
        #expect(memory.hasPrefix("memory of the model and one fast session: "), "\(memory)")
        let converted = try #require(ConvertedModel.named("keras_mobilenet_nhwc"))
        #expect(runMain(["inspect", Fixtures.url(converted.path("model.onnx")).path]) == 0)
    }

    @Test("inspect --steps lists the lowered graph: every running node once, a fused step's nodes on its line, views apart")
    func inspectSteps() throws {
        #expect(runMain(["inspect", "landscape", "--steps"]) == 0)
        let converted = try #require(ConvertedModel.named("keras_mobilenet_nhwc"))
        for model in [try ModelArgument.load("landscape"), try ModelArgument.load(Fixtures.url(converted.path("model.onnx")).path)] {
            let session = try InferenceSession(planned: model, options: .init(path: .fast))
            let steps = session.loweredSteps
            let lines = loweredGraph(model)
            #expect(lines.count == steps.count + 1)
            #expect(steps.flatMap(\.nodes) == session.runningNodes.map(\.name), "each running node once, in order")
            #expect(steps.allSatisfy { $0.kernel != nil || $0.nodes.count == 1 }, "a view is one node")
            let views = steps.filter { $0.kernel == nil }.count
            #expect(lines.filter { $0.hasPrefix("      view: ") }.count == views)
        }
        let landscape = loweredGraph(try ModelArgument.load("landscape"))
        #expect(landscape.last?.hasSuffix(" TransposedConvolution: conv2d_transpose (ConvTranspose) + segment_back_nchw (Sigmoid) + segment_back (Reshape)") == true,
                "\(landscape.last ?? "")")
        #expect(landscape.contains { $0.hasSuffix(" Deinterleave: input_1_nchw (Transpose)") })
    }

    @Test("bench runs any model that loads: several outputs, a dynamic batch bound with --shape, a bool input")
    func benchAnyModel() throws {
        let multiOutput = Fixtures.url(try #require(ConvertedModel.named("multi_output")).path("model.onnx")).path
        let dynamicBatch = Fixtures.url(try #require(ConvertedModel.named("dynamic_batch")).path("model.onnx")).path
        #expect(runMain(["bench", "--model", multiOutput, "--iterations", "1"]) == 0)
        #expect(runMain(["bench", "--model", dynamicBatch, "--shape", "input=2x3x64x64", "--iterations", "1", "--json"]) == 0)
        #expect(runMain(["bench", "--model", Fixtures.url("nodetests/test_where_example/model.onnx").path, "--iterations", "1"]) == 0)
        #expect(runMain(["bench", "--model", dynamicBatch, "--shape", "image=1x3x64x64", "--iterations", "1"]) == 1)
        #expect(runMain(["bench", "--model", dynamicBatch, "--shape", "input=2x3", "--iterations", "1"]) == 1)
        #expect(runMain(["bench", "--model", dynamicBatch, "--shape", "input", "--iterations", "1"]) == 2)
        #expect(runMain(["bench", "--model", multiOutput, "--per-layer", "--iterations", "1"]) == 2)
    }

    @Test("infer reads and writes strings as numpy's <U dtype (StringNormalizer, computed when the model loads)")
    func inferStrings() throws {
        let directory = "ops/string_normalizer_stopwords_upper"
        let output = temporaryPath("strings.npy")
        defer { unlink(output) }
        let status = runMain(["infer", "--model", Fixtures.url("\(directory)/model.onnx").path,
                              "--input", "X=" + Fixtures.url("\(directory)/input_0.npy").path, "--output", "Y=" + output])
        #expect(status == 0)
        let expected = try NumpyStringArray(contentsOfFile: Fixtures.url("\(directory)/output_0.npy").path)
        #expect(try NumpyStringArray(contentsOfFile: output) == expected)
    }

    @Test("infer runs a model without graph inputs given no --input")
    func inferWithoutInputs() throws {
        let path = temporaryPath("no_input.onnx"), output = temporaryPath("has.npy")
        defer { unlink(path); unlink(output) }
        let model = ONNXBuilder.model(nodes: [ONNXBuilder.node("OptionalHasElement", inputs: [], outputs: ["y"], name: "has")],
                                      inputs: [], outputs: [ONNXBuilder.valueInfo("y", dims: [], elementType: 9)], opset: 18)
        try Data(model).write(to: URL(fileURLWithPath: path))
        #expect(runMain(["infer", "--model", path, "--output", output]) == 0)
        #expect(try NumpyArray(contentsOfFile: output) == NumpyArray(shape: [], dataType: .bool, data: [0]))
    }

    @Test("inspect lists unsupported ops and exits 1")
    func inspectUnsupported() throws {
        let path = temporaryPath("maxroipool.onnx")
        defer { unlink(path) }
        let model = ONNXBuilder.model(nodes: [ONNXBuilder.node("MaxRoiPool", inputs: ["x"], outputs: ["y"], name: "pool")],
                                      inputs: [ONNXBuilder.valueInfo("x", [1, 4])], outputs: [ONNXBuilder.valueInfo("y", [1, 4])])
        try Data(model).write(to: URL(fileURLWithPath: path))
        #expect(runMain(["inspect", path]) == 1)
        #expect(runMain(["inspect", "/no/such/model.onnx"]) == 1)
    }
}
