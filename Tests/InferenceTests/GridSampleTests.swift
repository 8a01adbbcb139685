import Testing
import TestSupport
@testable import Inference

/// `x` [1, 1, 2, 3] and `grid` [1, 1, points, 2] → GridSample → `y`, at `opset`.
private func gridSampleModel(points: Int64, attributes: [ONNXBuilder.Attribute], opset: Int64) -> [UInt8] {
    ONNXBuilder.model(
        nodes: [ONNXBuilder.node("GridSample", inputs: ["x", "grid"], outputs: ["y"], name: "node_0", attributes: attributes)],
        inputs: [ONNXBuilder.valueInfo("x", [1, 1, 2, 3]), ONNXBuilder.valueInfo("grid", [1, 1, points, 2])],
        outputs: [ONNXBuilder.valueInfo("y", dims: nil)],
        opset: opset)
}

/// The fixtures (`Tools/op_cases/gridsample.py`) check the sampling against onnxruntime; these
/// check what onnxruntime leaves undefined and the mode names of each version.
@Suite("GridSample: the mode names of each version, and grid values onnxruntime leaves undefined")
struct GridSampleTests {
    @Test("version 16 takes bilinear / bicubic, version 20 linear / cubic; the other names are refused naming mode")
    func modeNames() {
        for (mode, opset) in [("cubic", Int64(16)), ("linear", 16), ("bicubic", 20), ("bilinear", 20)] {
            let error = loadError(gridSampleModel(points: 1, attributes: [.string("mode", mode)], opset: opset))
            #expect(error?.node == "node_0" && error?.op == "GridSample" && error?.attribute == "mode",
                    "\(mode) at opset \(opset): \(String(describing: error))")
        }
        for (mode, opset) in [("bicubic", Int64(16)), ("bilinear", 16), ("cubic", 20), ("linear", 20), ("nearest", 20)] {
            #expect(loadError(gridSampleModel(points: 1, attributes: [.string("mode", mode)], opset: opset)) == nil, "\(mode) at \(opset)")
        }
    }

    @Test("a NaN or infinite grid value gives NaN; one far outside is clamped, so border padding reads the corner pixel",
          arguments: ["bilinear", "nearest", "bicubic"], ["zeros", "border", "reflection"])
    func extremeGridValues(mode: String, padding: String) throws {
        let model = try InferenceModel(bytes: gridSampleModel(points: 4, attributes: [.string("mode", mode), .string("padding_mode", padding)],
                                                              opset: 16))
        let x = Tensor(shape: [1, 1, 2, 3], floats: [1, 2, 3, 4, 5, 6])
        let grid = Tensor(shape: [1, 1, 4, 2], floats: [.nan, 0, 0, .infinity, 1e30, 1e30, -1e30, -1e30])
        let y = try #require(try InferenceSession(model: model, path: .reference).run(["x": x, "grid": grid])["y"]?.floats)
        #expect(y.count == 4)
        #expect(y[0].isNaN && y[1].isNaN, "\(y)")
        let farValuesAreFinite = y[2].isFinite && y[3].isFinite
        #expect(farValuesAreFinite, "\(y)")
        if padding == "border" { #expect(Array(y.dropFirst(2)) == [6, 1], "\(y)") }
        if padding == "zeros" { #expect(Array(y.dropFirst(2)) == [0, 0], "\(y)") }
    }
}
