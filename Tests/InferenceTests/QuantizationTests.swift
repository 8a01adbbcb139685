import Foundation
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

/// QuantizeLinear and DequantizeLinear of the narrow types, from onnx's reference implementation.
private struct QuantizationFixture: Decodable {
    struct Entry: Decodable {
        let zero_point: [Int]
        /// Setting (`default`, `saturate`, `nosaturate`) → the stored element of each x.
        let quantize: [String: [Int]]
        /// Every value (integers) or bit pattern (floats) of the type, and its dequantized float32 bits.
        let held: [Int]
        let dequantize: [UInt32]
    }

    let x: [UInt32]
    let x_special: [UInt32]
    let scale: [Float]
    let types: [String: Entry]

    static let shared: QuantizationFixture = {
        let data = try! Data(contentsOf: Fixtures.url("narrowtypes/quantization.json"))
        return try! JSONDecoder().decode(QuantizationFixture.self, from: data)
    }()
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

    @Test("the float6 types, which the engine does not store, are refused by name")
    func unstoredTypes() {
        for (code, name) in [(27, "FLOAT6E2M3"), (28, "FLOAT6E3M2")] {
            let bytes = quantizeModel(shape: [4], scale: 1, zero: nil, attributes: [.int("output_dtype", Int64(code))], opset: 25)
            expectRefusal(bytes, op: "QuantizeLinear", attribute: "output_dtype")
            #expect(loadError(bytes)?.message.contains("quantized type \(name) is not supported") == true)
        }
    }

    static let narrowTypes = ["int4", "uint4", "int2", "uint2", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "float4e2m1"]

    /// `Fixtures/narrowtypes/quantization.json` (`Tools/make_narrow_type_fixtures.py`), from onnx's
    /// reference implementation: onnxruntime 1.32 runs none of these types' node tests.
    @Test("QuantizeLinear to the 4-/2-bit integers, float8 (both saturate settings) and float4e2m1, per axis, as onnx's reference",
          arguments: narrowTypes)
    func quantizeNarrowTypes(_ name: String) throws {
        let fixture = QuantizationFixture.shared, type = try #require(ElementType(rawValue: name))
        let entry = try #require(fixture.types[name])
        let x = (type.isInteger ? fixture.x : fixture.x_special).map { Float(bitPattern: $0) }
        let code = Int64(type.onnxType.rawValue)
        for (setting, expected) in entry.quantize {
            let model = try InferenceModel(bytes: ONNXBuilder.model(
                nodes: [ONNXBuilder.node("QuantizeLinear", inputs: ["x", "s", "z"], outputs: ["y"], name: "node_0",
                                         attributes: [.int("axis", 0)] + (setting == "nosaturate" ? [.int("saturate", 0)] : []))],
                inputs: [ONNXBuilder.valueInfo("x", [2, 64]), ONNXBuilder.valueInfo("s", [2]),
                         ONNXBuilder.valueInfo("z", dims: [.value(2)], elementType: code)],
                outputs: [ONNXBuilder.valueInfo("y", dims: nil, elementType: code)], opset: 25))
            let zero = Tensor(type: type, shape: [2], bytes: entry.zero_point.map { UInt8(truncatingIfNeeded: $0) })
            let y = try #require(try InferenceSession(model: model, path: .reference)
                .run(["x": Tensor(shape: [2, 64], floats: x), "s": Tensor(shape: [2], floats: fixture.scale), "z": zero])["y"])
            #expect(y.type == type && y.shape == [2, 64])
            let actual = y.bytes.map { type == .int4 || type == .int2 ? Int(Int8(bitPattern: $0)) : Int($0) }
            let wrong = actual.indices.filter { actual[$0] != expected[$0] }
            #expect(wrong.isEmpty, "\(setting): \(wrong.count) differ; first: \(wrong.prefix(4).map { "x \(x[$0]) → \(actual[$0]), expected \(expected[$0])" })")
        }
    }

    @Test("DequantizeLinear of every value of the 4-/2-bit integers, float8 and float4e2m1, as onnx's reference", arguments: narrowTypes)
    func dequantizeNarrowTypes(_ name: String) throws {
        let entry = try #require(QuantizationFixture.shared.types[name]), type = try #require(ElementType(rawValue: name))
        let code = Int64(type.onnxType.rawValue)
        let model = try InferenceModel(bytes: ONNXBuilder.model(
            nodes: [ONNXBuilder.node("DequantizeLinear", inputs: ["q", "s", "z"], outputs: ["y"], name: "node_0")],
            inputs: [ONNXBuilder.valueInfo("q", dims: [.value(1), .value(Int64(entry.held.count))], elementType: code),
                     ONNXBuilder.valueInfo("s", []), ONNXBuilder.valueInfo("z", dims: [], elementType: code)],
            outputs: [ONNXBuilder.valueInfo("y", dims: nil, elementType: 1)], opset: 25))
        let q = Tensor(type: type, shape: [1, entry.held.count], bytes: entry.held.map { UInt8(truncatingIfNeeded: $0) })
        let zero = Tensor(type: type, shape: [], bytes: [type.isInteger ? 1 : 0])
        let y = try #require(try InferenceSession(model: model, path: .reference).run(["q": q, "s": Tensor(shape: [], floats: [0.5]), "z": zero])["y"]?.floats)
        let expected = entry.dequantize.map { Float(bitPattern: $0) }
        let wrong = y.indices.filter { !(y[$0] == expected[$0] || (y[$0].isNaN && expected[$0].isNaN)) }
        #expect(wrong.isEmpty, "\(wrong.count) differ; first: \(wrong.prefix(4).map { "\(entry.held[$0]) → \(y[$0]), expected \(expected[$0])" })")
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
