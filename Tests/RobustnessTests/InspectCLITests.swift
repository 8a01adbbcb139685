import Foundation
import Testing
import TestSupport

/// `vbg inspect` on any model: symbolic input dims bound with `--shape`, and `--time-load` whether
/// or not the model is a segmentation model.
@Suite("vbg inspect: --shape for symbolic dims, --time-load for any model")
struct InspectCLITests {
    /// Relu on x [1, 3, height, width]: symbolic spatial dims, and (3 output channels) no
    /// segmentation convention.
    static let symbolic = ONNXBuilder.model(
        nodes: [ONNXBuilder.node("Relu", inputs: ["x"], outputs: ["y"], name: "relu")],
        inputs: [ONNXBuilder.valueInfo("x", dims: [.value(1), .value(3), .parameter("height"), .parameter("width")])],
        outputs: [ONNXBuilder.valueInfo("y", dims: [.value(1), .value(3), .parameter("height"), .parameter("width")])])

    @Test("without --shape the symbolic dims are a problem that says to give --shape (exit 1)")
    func needsShape() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let result = try VBG.run(["inspect", try scratch.input("symbolic.onnx", Self.symbolic)], in: scratch.root)
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("graph input 'x' axis 2 is the symbolic dimension 'height'"), "\(result.standardOutput)")
        #expect(result.standardError.contains("give input shapes with --shape NAME=DIMS"), "\(result.standardError)")
    }

    @Test("a segmentation model of any input size: inspect says it needs input.size, and plans at the one its description gives")
    func freeInputSize() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // Sigmoid of the channel mean: a 1-channel mask of x's size, any size.
        let model = ONNXBuilder.model(
            nodes: [ONNXBuilder.node("ReduceMean", inputs: ["x"], outputs: ["m"], attributes: [.ints("axes", [1]), .int("keepdims", 1)]),
                    ONNXBuilder.node("Sigmoid", inputs: ["m"], outputs: ["y"])],
            inputs: [ONNXBuilder.valueInfo("x", dims: [.value(1), .value(3), .parameter("height"), .parameter("width")])],
            outputs: [ONNXBuilder.valueInfo("y", dims: [.value(1), .value(1), .parameter("height"), .parameter("width")])], opset: 13)
        let path = try scratch.input("free.onnx", model)
        let bare = try VBG.run(["inspect", path], in: scratch.root)
        #expect(bare.status == 1)
        #expect(bare.standardOutput.contains("segmentation: model description: input.size: input x [1, 3, height, width] takes any size: give input.size [height, width]"),
                "\(bare.standardOutput)")
        try Data(#"{"input": {"size": [72, 128]}}"#.utf8).write(to: URL(fileURLWithPath: path + ".json"))
        let described = try VBG.run(["inspect", path], in: scratch.root)
        #expect(described.status == 0, "\(described.standardError)")
        let lines = described.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("  x [1, 3, 72, 128]") && lines.contains("  input.size = [72, 128] (JSON file)"), "\(described.standardOutput)")
    }

    @Test("--shape binds them, and --time-load prints for a model with no segmentation convention")
    func shapeAndTimeLoad() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = try scratch.input("symbolic.onnx", Self.symbolic)
        let result = try VBG.run(["inspect", path, "--shape", "x=1x3x24x40", "--time-load"], in: scratch.root)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("  x [1, 3, 24, 40]"), "\(result.standardOutput)")
        #expect(lines.contains("  y [1, 3, 24, 40]"), "\(result.standardOutput)")
        #expect(lines.contains { $0.hasPrefix("segmentation: not usable as is:") }, "\(result.standardOutput)")
        #expect(lines.last?.hasPrefix("load (read + parse + validate + plan + session), 20 runs: median ") == true, "\(result.standardOutput)")
    }

    @Test("--shape naming no input, or not NAME=DIMS, is refused", arguments: [
        (["--shape", "image=1x3x8x8"], Int32(2), "--shape: the model has no input 'image' (inputs: x)"),
        (["--shape", "x"], Int32(2), "--shape takes NAME=DIMS"),
        (["--shape", "x=1x3x8x8", "--shape", "x=1x3x8x8"], Int32(2), "given twice"),
    ])
    func badShape(_ extra: [String], _ status: Int32, _ says: String) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let result = try VBG.run(["inspect", try scratch.input("symbolic.onnx", Self.symbolic)] + extra, in: scratch.root)
        #expect(result.status == status, "\(result.standardError)")
        #expect(result.standardError.contains(says), "\(result.standardError)")
    }
}
