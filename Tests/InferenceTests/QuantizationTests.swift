import Testing
import TestSupport
@testable import Inference

/// A QuantizeLinear node `node_0` over a float32 input `x` of `shape`, with a scalar scale and an
/// optional scalar zero point of ONNX type `zeroType` (2 UINT8, 3 INT8) as initializers.
private func quantizeModel(shape: [Int64], scale: Float, zero: (type: Int64, byte: UInt8)?, attributes: [ONNXBuilder.Attribute] = [],
                           output: Int64 = 2, opset: Int64 = 21) -> [UInt8] {
    var initializers = [ONNXBuilder.floatTensor("s", [], [scale])]
    if let zero { initializers.append(ONNXBuilder.rawTensor("z", elementType: zero.type, [], [zero.byte])) }
    return ONNXBuilder.model(
        nodes: [ONNXBuilder.node("QuantizeLinear", inputs: zero == nil ? ["x", "s"] : ["x", "s", "z"], outputs: ["y"], name: "node_0",
                                 attributes: attributes)],
        initializers: initializers,
        inputs: [ONNXBuilder.valueInfo("x", dims: shape.map { .value($0) }, elementType: 1)],
        outputs: [ONNXBuilder.valueInfo("y", dims: nil, elementType: output)],
        opset: opset)
}

@Suite("Quantization follows the spec: ties to even, saturation, zero points; unstored types refused by name")
struct QuantizationTests {
    @Test("QuantizeLinear rounds halves to even and saturates, before and after the zero point, on both paths")
    func roundingAndSaturation() throws {
        let x: [Float] = [0.5, 1.5, 2.5, -0.5, -1.5, 126.5, 127.5, 1000, -1000, .infinity]
        let cases: [(zero: (type: Int64, byte: UInt8)?, output: Int64, expected: [Int64], type: ElementType)] = [
            (nil, 2, [0, 2, 2, 0, 0, 126, 128, 255, 0, 255], .uint8),
            ((3, UInt8(bitPattern: -1)), 3, [-1, 1, 1, -1, -3, 125, 127, 127, -128, 127], .int8),
            ((2, 128), 2, [128, 130, 130, 128, 126, 254, 255, 255, 0, 255], .uint8),
        ]
        for testCase in cases {
            let model = try InferenceModel(bytes: quantizeModel(shape: [10], scale: 1, zero: testCase.zero, output: testCase.output))
            for path in ExecutionPath.allCases {
                let y = try InferenceSession(model: model, path: path).run(["x": Tensor(shape: [10], floats: x)])["y"]
                #expect(y?.type == testCase.type)
                #expect(y?.constant.integers == testCase.expected, "zero point \(String(describing: testCase.zero)), \(path)")
            }
        }
    }

    /// In Double, 0.25 / 0.1 is 2.49999996 and 0.35 / 0.1 is 3.49999989 (both round down); in
    /// float32 they are the ties 2.5 and 3.5, which go to the even 2 and 4, as onnxruntime has them.
    @Test("QuantizeLinear divides by the scale in float32, then rounds the quotient")
    func divisionInFloat32() throws {
        let model = try InferenceModel(bytes: quantizeModel(shape: [3], scale: 0.1, zero: nil))
        let y = try InferenceSession(model: model, path: .reference).run(["x": Tensor(shape: [3], floats: [0.3, 0.25, 0.35])])["y"]
        #expect(y?.constant.integers == [3, 2, 4])
    }

    /// onnxruntime's quantizer writes a bias's DequantizeLinear with a [1] scale and a scalar zero point.
    @Test("a scalar zero point and a one-element scale are both per tensor")
    func scalarAndOneElementParameters() throws {
        let bytes = ONNXBuilder.model(
            nodes: [ONNXBuilder.node("DequantizeLinear", inputs: ["x", "s", "z"], outputs: ["y"], name: "node_0")],
            initializers: [ONNXBuilder.floatTensor("s", [1], [0.5]), ONNXBuilder.rawTensor("z", elementType: 3, [], [UInt8(bitPattern: -2)])],
            inputs: [ONNXBuilder.valueInfo("x", dims: [.value(3)], elementType: 3)],
            outputs: [ONNXBuilder.valueInfo("y", dims: nil, elementType: 1)], opset: 13)
        let model = try InferenceModel(bytes: bytes)
        let x = Tensor(type: .int8, shape: [3], bytes: [0, 1, UInt8(bitPattern: -128)])
        let y = try InferenceSession(model: model, path: .reference).run(["x": x])["y"]
        #expect(y?.floats == [1, 1.5, -63])
    }

    @Test("types the engine does not store are refused by name: int4 and float8 outputs")
    func unstoredTypes() {
        for (code, name) in [(22, "INT4"), (21, "UINT4"), (17, "FLOAT8E4M3FN"), (26, "INT2")] {
            let bytes = quantizeModel(shape: [4], scale: 1, zero: nil, attributes: [.int("output_dtype", Int64(code))])
            expectRefusal(bytes, op: "QuantizeLinear", attribute: "output_dtype")
            #expect(loadError(bytes)?.message.contains("quantized type \(name) is not supported") == true)
        }
    }

    @Test("a com.microsoft node's messages name its domain: an op not implemented there, a bad input type")
    func microsoftDomainMessages() {
        func model(_ op: String, inputType: Int64) -> [UInt8] {
            ONNXBuilder.model(
                nodes: [ONNXBuilder.node(op, inputs: ["x", "s", "", "s", ""], outputs: ["y"], name: "node_0", domain: "com.microsoft")],
                initializers: [ONNXBuilder.floatTensor("s", [], [0.5])],
                inputs: [ONNXBuilder.valueInfo("x", dims: [.value(4)], elementType: inputType)],
                outputs: [ONNXBuilder.valueInfo("y", dims: nil, elementType: inputType)])
        }
        let missing = loadError(model("QLinearSoftmaxish", inputType: 2))
        #expect(missing?.kind == .unsupported && missing?.op == "QLinearSoftmaxish")
        #expect(missing?.description.contains("(QLinearSoftmaxish, com.microsoft") == true, "\(String(describing: missing))")
        #expect(missing?.message.contains("of domain 'com.microsoft' is not supported") == true)
        let badType = loadError(model("QLinearSigmoid", inputType: 1))
        #expect(badType?.kind == .unsupported && badType?.op == "QLinearSigmoid", "\(String(describing: badType))")
        #expect(badType?.description.hasPrefix("node 'node_0' (QLinearSigmoid, com.microsoft") == true, "\(String(describing: badType))")
        #expect(loadError(model("QLinearSigmoid", inputType: 2)) == nil, "\(String(describing: loadError(model("QLinearSigmoid", inputType: 2))))")
    }

    @Test("opset 28's QuantizeLinear and DequantizeLinear resolve to the definitions of 23 (24, 25, 28 only added types)")
    func versions() throws {
        #expect(try OperatorRegistry.version(of: "QuantizeLinear", opset: 28, node: "n") == 23)
        #expect(try OperatorRegistry.version(of: "DequantizeLinear", opset: 25, node: "n") == 23)
        #expect(try OperatorRegistry.version(of: "QuantizeLinear", opset: 20, node: "n") == 19)
        #expect(try OperatorRegistry.version(of: "QLinearMatMul", opset: 28, node: "n") == 21)
    }
}
