import Testing
import TestSupport
@testable import Inference

/// A one-node model reading `x` (of ONNX element type `elementType`) with undeclared output shapes.
private func spatialModel(_ op: String, inputs: [String] = ["x"], outputs: [String] = ["y"],
                          attributes: [ONNXBuilder.Attribute] = [], initializers: [[UInt8]] = [],
                          inputShape: [Int64] = [1, 2, 4, 4], elementType: Int64 = 1, opset: Int64 = 17) -> [UInt8] {
    ONNXBuilder.model(
        nodes: [ONNXBuilder.node(op, inputs: inputs, outputs: outputs, name: "node_0", attributes: attributes)],
        initializers: initializers,
        inputs: [ONNXBuilder.valueInfo("x", dims: inputShape.map { .value($0) }, elementType: elementType)],
        outputs: outputs.map { ONNXBuilder.valueInfo($0, dims: nil) },
        opset: opset)
}

/// Expects loading `model` to fail with `kind`, naming node_0, `op` and `attribute` (when given).
private func expectRefused(_ model: [UInt8], _ op: String, attribute: String?, kind: ModelError.Kind = .unsupported,
                           sourceLocation: SourceLocation = #_sourceLocation) {
    let error = loadError(model)
    #expect(error?.kind == kind, "\(String(describing: error))", sourceLocation: sourceLocation)
    #expect(error?.node == "node_0" && error?.op == op, sourceLocation: sourceLocation)
    #expect(error?.attribute == attribute, "\(String(describing: error))", sourceLocation: sourceLocation)
}

@Suite("Spatial, pooling, resampling and padding ops refuse what they do not implement, by name")
struct SpatialOperatorErrorTests {
    static let pads = ONNXBuilder.int64Tensor("pads", [8], [0, 0, 1, 1, 0, 0, 1, 1])

    @Test("Pad: wrap before opset 19, a mode that does not exist, reflect pads past the axis, integer data at Pad-2")
    func pad() {
        expectRefused(spatialModel("Pad", inputs: ["x", "pads"], attributes: [.string("mode", "wrap")], initializers: [Self.pads], opset: 18),
                      "Pad", attribute: "mode")
        expectRefused(spatialModel("Pad", inputs: ["x", "pads"], attributes: [.string("mode", "symmetric")], initializers: [Self.pads]),
                      "Pad", attribute: "mode")
        let far = ONNXBuilder.int64Tensor("pads", [8], [0, 0, 4, 0, 0, 0, 0, 0])
        expectRefused(spatialModel("Pad", inputs: ["x", "pads"], attributes: [.string("mode", "reflect")], initializers: [far]),
                      "Pad", attribute: nil, kind: .invalidShape)
        expectRefused(spatialModel("Pad", attributes: [.ints("pads", [0, 0, 1, 1, 0, 0, 1, 1]), .string("mode", "sideways")], opset: 10),
                      "Pad", attribute: "mode")
        let error = loadError(spatialModel("Pad", attributes: [.ints("pads", [0, 0, 1, 1, 0, 0, 1, 1])], elementType: 7, opset: 10))
        #expect(error?.kind == .unsupported && error?.message.contains("INT64") == true, "\(String(describing: error))")
    }

    @Test("Split: num_outputs that disagrees with the outputs, lengths that do not add up")
    func split() {
        expectRefused(spatialModel("Split", outputs: ["a", "b"], attributes: [.int("num_outputs", 3)], opset: 18),
                      "Split", attribute: "num_outputs", kind: .invalidShape)
        expectRefused(spatialModel("Split", outputs: ["a", "b"], attributes: [.ints("split", [1, 2])], opset: 11),
                      "Split", attribute: "split", kind: .invalidShape)
        expectRefused(spatialModel("Split", outputs: ["a", "b"], attributes: [.ints("split", [1, 1])], opset: 13),
                      "Split", attribute: "split")
    }

    @Test("DepthToSpace and SpaceToDepth: an unknown mode, a block that does not divide")
    func depthAndSpace() {
        expectRefused(spatialModel("DepthToSpace", attributes: [.int("blocksize", 2), .string("mode", "RCD")], inputShape: [1, 4, 2, 2]),
                      "DepthToSpace", attribute: "mode")
        expectRefused(spatialModel("DepthToSpace", attributes: [.int("blocksize", 2)], inputShape: [1, 6, 2, 2]),
                      "DepthToSpace", attribute: "blocksize", kind: .invalidShape)
        expectRefused(spatialModel("SpaceToDepth", attributes: [.int("blocksize", 3)]), "SpaceToDepth", attribute: "blocksize",
                      kind: .invalidShape)
    }

    @Test("Resize: an unknown mode, antialiased nearest, a crop without roi, linear on integers, Resize-18 attributes at 13")
    func resize() {
        let scales = ONNXBuilder.floatTensor("s", [4], [1, 1, 2, 2])
        expectRefused(spatialModel("Resize", inputs: ["x", "", "s"], attributes: [.string("mode", "area")], initializers: [scales]),
                      "Resize", attribute: "mode")
        expectRefused(spatialModel("Resize", inputs: ["x", "", "s"], attributes: [.int("antialias", 1)], initializers: [scales], opset: 18),
                      "Resize", attribute: "antialias")
        expectRefused(spatialModel("Resize", inputs: ["x", "", "s"], attributes: [.string("coordinate_transformation_mode", "tf_crop_and_resize")],
                                   initializers: [scales]),
                      "Resize", attribute: "coordinate_transformation_mode", kind: .malformed)
        expectRefused(spatialModel("Resize", inputs: ["x", "", "s"], attributes: [.ints("axes", [2, 3])], initializers: [scales], opset: 13),
                      "Resize", attribute: "axes")
        expectRefused(spatialModel("Resize", inputs: ["x", "", "s"], attributes: [.string("coordinate_transformation_mode", "half_pixel_symmetric")],
                                   initializers: [scales], opset: 18),
                      "Resize", attribute: "coordinate_transformation_mode")
        let error = loadError(spatialModel("Resize", inputs: ["x", "", "s"], attributes: [.string("mode", "linear")], initializers: [scales],
                                           elementType: 6))
        #expect(error?.kind == .unsupported && error?.message.contains("INT32") == true, "\(String(describing: error))")
    }

    @Test("Upsample: a scale below 1, the deprecated Upsample-10")
    func upsample() {
        expectRefused(spatialModel("Upsample", attributes: [.floats("scales", [1, 1, 0.5, 2])], opset: 7),
                      "Upsample", attribute: "scales", kind: .invalidValue)
        let scales = ONNXBuilder.floatTensor("s", [4], [1, 1, 2, 2])
        expectRefused(spatialModel("Upsample", inputs: ["x", "s"], initializers: [scales], opset: 10), "Upsample", attribute: nil)
    }

    @Test("Pools: storage_order 2, AveragePool dilations before opset 19, LpPool ceil_mode before 18, 4-D windows")
    func pools() {
        expectRefused(spatialModel("MaxPool", outputs: ["y", "i"], attributes: [.ints("kernel_shape", [2, 2]), .int("storage_order", 2)]),
                      "MaxPool", attribute: "storage_order")
        expectRefused(spatialModel("AveragePool", attributes: [.ints("kernel_shape", [2, 2]), .ints("dilations", [2, 2])], opset: 18),
                      "AveragePool", attribute: "dilations")
        expectRefused(spatialModel("LpPool", attributes: [.ints("kernel_shape", [2, 2]), .int("ceil_mode", 1)], opset: 17),
                      "LpPool", attribute: "ceil_mode")
        expectRefused(spatialModel("MaxPool", attributes: [.ints("kernel_shape", [2, 2, 2, 2])], inputShape: [1, 2, 3, 3, 3, 3]),
                      "MaxPool", attribute: nil)
    }

    @Test("ConvTranspose: auto_pad SAME longer than the natural size, pads with output_shape; Conv on 4-D windows")
    func convolutions() {
        let weights = ONNXBuilder.floatTensor("w", [2, 1, 1, 1], [0.5, 0.5])
        expectRefused(spatialModel("ConvTranspose", inputs: ["x", "w"], attributes: [.string("auto_pad", "SAME_UPPER"), .ints("strides", [2, 2])],
                                   initializers: [weights]),
                      "ConvTranspose", attribute: "auto_pad")
        expectRefused(spatialModel("ConvTranspose", inputs: ["x", "w"], attributes: [.ints("output_shape", [4, 4]), .ints("pads", [1, 0, 0, 0])],
                                   initializers: [weights]),
                      "ConvTranspose", attribute: "pads", kind: .malformed)
        let hypercube = ONNXBuilder.floatTensor("w", [2, 2, 1, 1, 1, 1], [1, 0, 0, 1])
        expectRefused(spatialModel("Conv", inputs: ["x", "w"], initializers: [hypercube], inputShape: [1, 2, 3, 3, 3, 3]), "Conv", attribute: nil)
    }
}
