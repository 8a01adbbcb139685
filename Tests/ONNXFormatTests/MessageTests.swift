import Testing
import TestSupport
@testable import ONNXFormat

/// The decoding error `body` throws, or nil when it succeeds.
private func decodeError(_ body: () throws -> Void) -> ProtobufDecodingError? {
    do { try body(); return nil } catch { return error as? ProtobufDecodingError }
}

/// A small but complete model: Conv with attributes, an initializer, typed inputs and outputs.
let smallModel: [UInt8] = ONNXBuilder.model(
    nodes: [ONNXBuilder.node("Conv", inputs: ["x", "w"], outputs: ["y"], name: "conv0",
                             attributes: [.ints("strides", [2, 2]), .floats("alpha", [0.5, -1]), .string("auto_pad", "VALID")])],
    initializers: [ONNXBuilder.floatTensor("w", [1, 1, 1, 1], [0.25])],
    inputs: [ONNXBuilder.valueInfo("x", [1, 1, 4, 4])],
    outputs: [ONNXBuilder.valueInfo("y", [1, 1, 2, 2])])

@Suite("ONNX message decoders")
struct MessageTests {
    @Test("a small model decodes field by field")
    func smallModelDecodes() throws {
        let model = try ModelProto(serializedBytes: smallModel)
        #expect(model.irVersion == 8)
        #expect(model.producerName == "swift-tests")
        #expect(model.opsetImports == [OperatorSetIdProto(domain: "", version: 17)])
        let graph = try #require(model.graph)
        #expect(graph.name == "test")
        #expect(graph.nodes.count == 1)
        let node = graph.nodes[0]
        #expect(node.opType == "Conv" && node.name == "conv0" && node.inputs == ["x", "w"] && node.outputs == ["y"])
        #expect(node.attributes.map(\.name) == ["strides", "alpha", "auto_pad"])
        #expect(node.attributes[0].ints == [2, 2] && node.attributes[0].type == .ints)
        #expect(node.attributes[1].floats == [0.5, -1] && node.attributes[1].type == .floats)
        #expect(node.attributes[2].s == Array("VALID".utf8))
        #expect(graph.initializers.count == 1)
        #expect(graph.initializers[0].dims == [1, 1, 1, 1] && graph.initializers[0].dataType == .float)
        #expect(graph.initializers[0].rawData == [0, 0, 0x80, 0x3e])
        #expect(graph.inputs[0].type?.tensorType?.shape?.dims == [.value(1), .value(1), .value(4), .value(4)])
        #expect(graph.outputs[0].name == "y")
    }

    @Test("unknown fields of every wire type are skipped")
    func unknownFieldsSkipped() throws {
        var w = ProtoWriter()
        w.varint(99, 12345)                 // unknown varint
        w.fixed32(98, 1)                    // unknown fixed32
        w.key(97, 1); w.bytes += Array(repeating: 0, count: 8)  // unknown fixed64
        w.string(96, "ignored")             // unknown length-delimited
        w.string(1, "named")
        w.varint(2, 3)
        var opset = OperatorSetIdProto()
        var reader = ProtobufReader(w.bytes)
        opset = try OperatorSetIdProto(from: &reader)
        #expect(opset == OperatorSetIdProto(domain: "named", version: 3))
    }

    @Test("repeated numbers decode the same packed and unpacked")
    func packedAndUnpacked() throws {
        var packed = ProtoWriter()
        packed.packedVarints(1, [1, 3, 300, -2])
        packed.lengthDelimited(4, [0, 0, 0x80, 0x3f, 0, 0, 0, 0x40])
        var unpacked = ProtoWriter()
        for dim: Int64 in [1, 3, 300, -2] { unpacked.varint(1, dim) }
        unpacked.fixed32(4, 1); unpacked.fixed32(4, 2)
        for bytes in [packed.bytes, unpacked.bytes] {
            var reader = ProtobufReader(bytes)
            let tensor = try TensorProto(from: &reader)
            #expect(tensor.dims == [1, 3, 300, -2])
            #expect(tensor.floatData == [1, 2])
        }
    }

    @Test("typed tensor fields: int32, int64, double")
    func typedFields() throws {
        var w = ProtoWriter()
        w.packedVarints(5, [-1, 7])
        w.packedVarints(7, [Int64.min, 9])
        w.lengthDelimited(10, [0, 0, 0, 0, 0, 0, 0xf0, 0x3f])
        w.varint(14, 1)
        var reader = ProtobufReader(w.bytes)
        let tensor = try TensorProto(from: &reader)
        #expect(tensor.int32Data == [-1, 7] && tensor.int64Data == [Int64.min, 9] && tensor.doubleData == [1] && tensor.dataLocation == 1)
    }

    @Test("a packed float field whose length is not a multiple of 4 is rejected")
    func misalignedPacked() {
        var w = ProtoWriter()
        w.lengthDelimited(4, [0, 0, 0])
        var reader = ProtobufReader(w.bytes)
        #expect(decodeError { _ = try TensorProto(from: &reader) }?.reason == .misalignedPackedField(length: 3, elementSize: 4))
    }

    @Test("a known field with the wrong wire type names the field")
    func wrongWireType() {
        var w = ProtoWriter()
        w.string(1, "x")  // ir_version is a varint
        let error = decodeError { _ = try ModelProto(serializedBytes: w.bytes) }
        #expect(error?.context == "ModelProto.ir_version")
        #expect(error?.reason == .unexpectedWireType(.lengthDelimited))
    }

    @Test("dim_param and unknown dimensions are kept")
    func symbolicDims() throws {
        var shape = ProtoWriter()
        var named = ProtoWriter(); named.string(2, "N")
        shape.lengthDelimited(1, named.bytes)
        shape.lengthDelimited(1, [])
        var reader = ProtobufReader(shape.bytes)
        #expect(try TensorShapeProto(from: &reader).dims == [.parameter("N"), .unknown])
    }

    @Test("the small model cut at every offset decodes only at top-level field boundaries, else throws")
    func truncationAtEveryOffset() throws {
        // The offsets where a top-level field ends: a cut there is a valid, shorter ModelProto.
        var boundaries: Set<Int> = [0]
        var reader = ProtobufReader(smallModel)
        while let (_, wireType) = try reader.nextField("ModelProto") {
            try reader.skip(wireType, "ModelProto")
            boundaries.insert(reader.offset)
        }
        #expect(boundaries.count == 5)  // ir_version, producer_name, graph, opset_import
        for cut in 0...smallModel.count {
            let error = decodeError { _ = try ModelProto(serializedBytes: Array(smallModel[..<cut])) }
            if boundaries.contains(cut) {
                #expect(error == nil, "cut at \(cut) is a field boundary but failed: \(String(describing: error))")
            } else {
                #expect(error != nil, "cut at \(cut) decoded")
                #expect(error.map { $0.offset <= cut } ?? true, "error offset past the cut at \(cut)")
            }
        }
    }

    @Test("graph attributes are skipped and flagged")
    func graphAttribute() throws {
        var w = ProtoWriter()
        w.string(1, "body")
        w.lengthDelimited(6, [0x12, 0x01, 0x41])
        w.varint(20, 5)
        var reader = ProtobufReader(w.bytes)
        let attribute = try AttributeProto(from: &reader)
        #expect(attribute.hasGraph && attribute.type == .graph)
    }
}
