import Foundation
import Testing
import TestSupport
@testable import Inference

/// `Fixtures/narrowtypes/casts.json` (`Tools/make_narrow_type_fixtures.py`): Cast to and from the
/// narrow types as onnx's reference implementation computes it. onnxruntime 1.32 cannot be the
/// oracle: its CPU provider lacks most of these casts.
private struct CastFixture: Decodable {
    struct Decoded: Decodable {
        let codes: [Int]
        let float32: [UInt32]
    }

    /// The float32 inputs, as bit patterns.
    let values: [UInt32]
    /// Target type → attribute setting → the stored element of each value.
    let encode: [String: [String: [Int]]]
    /// Source type → its codes and their float32 values.
    let decode: [String: Decoded]

    static let shared: CastFixture = {
        let data = try! Data(contentsOf: Fixtures.url("narrowtypes/casts.json"))
        return try! JSONDecoder().decode(CastFixture.self, from: data)
    }()
}

/// `x -> Cast(to, attributes) -> y` at opset 25, `x` a vector of `count` elements.
private func castModel(from: ElementType, to: ElementType, count: Int, attributes: [ONNXBuilder.Attribute] = []) -> [UInt8] {
    ONNXBuilder.model(
        nodes: [ONNXBuilder.node("Cast", inputs: ["x"], outputs: ["y"], name: "node_0",
                                 attributes: [.int("to", Int64(to.onnxType.rawValue))] + attributes)],
        inputs: [ONNXBuilder.valueInfo("x", dims: [.value(Int64(count))], elementType: Int64(from.onnxType.rawValue))],
        outputs: [ONNXBuilder.valueInfo("y", dims: nil, elementType: Int64(to.onnxType.rawValue))],
        opset: 25)
}

/// The attributes of a fixture setting (`saturate`, `nosaturate`, `up_nosaturate`, ...).
private func attributes(_ setting: String) -> [ONNXBuilder.Attribute] {
    var result: [ONNXBuilder.Attribute] = []
    if setting.contains("nosaturate") { result.append(.int("saturate", 0)) }
    if let mode = ["up", "down", "nearest"].first(where: { setting.hasPrefix($0) }) { result.append(.string("round_mode", mode)) }
    return result
}

/// The elements of `tensor` as the fixture writes them: bit patterns, int4 and int2 signed.
private func stored(_ tensor: Tensor) -> [Int] {
    switch tensor.type {
    case .bfloat16: tensor.bytes.withUnsafeBytes { raw in (0..<tensor.elementCount).map { Int(raw.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self)) } }
    case .int4, .int2: tensor.bytes.map { Int(Int8(bitPattern: $0)) }
    default: tensor.bytes.map { Int($0) }
    }
}

@Suite("Cast to and from the narrow types, against onnx's reference")
struct NarrowTypeCastTests {
    static let targets: [(ElementType, String)] = CastFixture.shared.encode.flatMap { name, settings in
        settings.keys.map { (ElementType(rawValue: name)!, $0) }
    }.sorted { ($0.0.rawValue, $0.1) < ($1.0.rawValue, $1.1) }

    @Test("float32 → narrow type: every element as onnx's reference gives it",
          arguments: targets.map { "\($0.0.rawValue) \($0.1)" })
    func encode(_ label: String) throws {
        let parts = label.split(separator: " ").map(String.init)
        let type = try #require(ElementType(rawValue: parts[0]))
        let fixture = CastFixture.shared
        let expected = try #require(fixture.encode[parts[0]]?[parts[1]])
        let x = Tensor(shape: [fixture.values.count], floats: fixture.values.map { Float(bitPattern: $0) })
        let model = try InferenceModel(bytes: castModel(from: .float32, to: type, count: x.elementCount, attributes: attributes(parts[1])))
        let y = try #require(try InferenceSession(model: model, path: .reference).run(["x": x])["y"])
        #expect(y.type == type && y.shape == x.shape)
        let actual = stored(y)
        let wrong = actual.indices.filter { actual[$0] != expected[$0] }
        #expect(wrong.isEmpty, "\(wrong.count) of \(actual.count) differ; first: \(wrong.prefix(5).map { "\(Float(bitPattern: fixture.values[$0])) → \(actual[$0]), expected \(expected[$0])" })")
    }

    @Test("narrow float → float32: every bit pattern's value (NaN as NaN)",
          arguments: CastFixture.shared.decode.keys.sorted())
    func decode(_ name: String) throws {
        let type = try #require(ElementType(rawValue: name))
        let table = try #require(CastFixture.shared.decode[name])
        var bytes: [UInt8] = []
        for code in table.codes {
            bytes += type.byteSize == 2 ? [UInt8(code & 0xFF), UInt8(code >> 8)] : [UInt8(code)]
        }
        let x = Tensor(type: type, shape: [table.codes.count], bytes: bytes)
        let model = try InferenceModel(bytes: castModel(from: type, to: .float32, count: table.codes.count))
        let y = try #require(try InferenceSession(model: model, path: .reference).run(["x": x])["y"]?.floats)
        let expected = table.float32.map { Float(bitPattern: $0) }
        let wrong = y.indices.filter { !(y[$0] == expected[$0] && y[$0].sign == expected[$0].sign) && !(y[$0].isNaN && expected[$0].isNaN) }
        #expect(wrong.isEmpty, "\(wrong.count) differ; first: \(wrong.prefix(5).map { "code \(table.codes[$0]) → \(y[$0]), expected \(expected[$0])" })")
    }

    @Test("4- and 2-bit integers widen with their sign; integers narrow to them keeping the low bits")
    func narrowIntegers() throws {
        let values: [Int64] = [-9, -8, -3, -2, -1, 0, 1, 2, 7, 8, 15, 16, 17]
        let x = Tensor(type: .int64, shape: [values.count], bytes: TensorElements.bytes(of: values, as: .int64))
        for (type, expected) in [(ElementType.int4, [7, -8, -3, -2, -1, 0, 1, 2, 7, -8, -1, 0, 1]),
                                 (.uint4, [7, 8, 13, 14, 15, 0, 1, 2, 7, 8, 15, 0, 1]),
                                 (.int2, [-1, 0, 1, -2, -1, 0, 1, -2, -1, 0, -1, 0, 1]),
                                 (.uint2, [3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 3, 0, 1])] {
            let model = try InferenceModel(bytes: castModel(from: .int64, to: type, count: values.count))
            let y = try #require(try InferenceSession(model: model, path: .reference).run(["x": x])["y"])
            #expect(stored(y) == expected, "\(type)")
            let back = try InferenceModel(bytes: castModel(from: type, to: .int32, count: values.count))
            let z = try #require(try InferenceSession(model: back, path: .reference).run(["x": y])["y"])
            #expect(z.doubles == expected.map(Double.init), "\(type) → int32")
        }
    }

    @Test("a serialized TensorProto of a packed type round-trips, packed two or four to a byte")
    func packedTensorProto() throws {
        let int4 = Tensor(type: .int4, shape: [5], bytes: [0xF8, 0x07, 0xFF, 0x00, 0x03].map { $0 })  // -8, 7, -1, 0, 3
        let bytes = int4.serializedTensorProto(name: "q")
        let decoded = try Tensor.decoding(serializedTensorProto: bytes)
        #expect(decoded.name == "q" && decoded.tensor == int4)
        // raw_data: (7 << 4 | 8), (0 << 4 | 0xF), 3
        #expect(bytes.suffix(3) == [0x78, 0x0F, 0x03])
        let uint2 = Tensor(type: .uint2, shape: [2, 3], bytes: [3, 2, 1, 0, 1, 2])
        let back = try Tensor.decoding(serializedTensorProto: uint2.serializedTensorProto(name: ""))
        #expect(back.tensor == uint2)
        #expect(uint2.serializedTensorProto(name: "").suffix(2) == [0x1B, 0x09])  // 3 | 2<<2 | 1<<4 | 0<<6, then 1 | 2<<2
    }

    @Test("BitCast refuses the 4- and 2-bit types, which the engine holds one per byte")
    func bitCastRefusesPackedTypes() {
        let model = ONNXBuilder.model(
            nodes: [ONNXBuilder.node("BitCast", inputs: ["x"], outputs: ["y"], name: "node_0", attributes: [.int("to", 3)])],
            inputs: [ONNXBuilder.valueInfo("x", dims: [.value(4)], elementType: Int64(ElementType.int4.onnxType.rawValue))],
            outputs: [ONNXBuilder.valueInfo("y", dims: nil, elementType: 3)], opset: 26)
        expectRefusal(model, op: "BitCast", attribute: "to")
    }
}
