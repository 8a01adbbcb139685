/// Hand-encodes ONNX protobuf bytes for tests, field by field, so a test can build exactly the
/// model it needs (including malformed ones) without Python or generated code. Field numbers are
/// those of onnx/onnx.proto3.
package struct ProtoWriter: Sendable {
    package var bytes: [UInt8] = []

    package init() {}

    package static func varintBytes(_ value: UInt64) -> [UInt8] {
        var value = value, out: [UInt8] = []
        while value >= 0x80 { out.append(UInt8(value & 0x7f) | 0x80); value >>= 7 }
        out.append(UInt8(value))
        return out
    }

    package mutating func key(_ field: Int, _ wireType: Int) { bytes += Self.varintBytes(UInt64(field << 3 | wireType)) }
    package mutating func varint(_ field: Int, _ value: Int64) { key(field, 0); bytes += Self.varintBytes(UInt64(bitPattern: value)) }
    package mutating func fixed32(_ field: Int, _ value: Float) {
        key(field, 5)
        let bits = value.bitPattern
        bytes += [UInt8(bits & 0xff), UInt8((bits >> 8) & 0xff), UInt8((bits >> 16) & 0xff), UInt8(bits >> 24)]
    }
    package mutating func lengthDelimited(_ field: Int, _ payload: [UInt8]) {
        key(field, 2); bytes += Self.varintBytes(UInt64(payload.count)); bytes += payload
    }
    package mutating func string(_ field: Int, _ text: String) { lengthDelimited(field, Array(text.utf8)) }
    package mutating func packedVarints(_ field: Int, _ values: [Int64]) {
        lengthDelimited(field, values.flatMap { Self.varintBytes(UInt64(bitPattern: $0)) })
    }
}

/// Little ONNX models as bytes.
package enum ONNXBuilder {
    /// An attribute value, encoded with the `type` field set as onnx.helper does.
    package enum Attribute: Sendable {
        case int(String, Int64)
        case float(String, Float)
        case ints(String, [Int64])
        case floats(String, [Float])
        case string(String, String)
        case strings(String, [String])
        case tensor(String, [UInt8])

        package var encoded: [UInt8] {
            var w = ProtoWriter()
            switch self {
            case let .int(name, value): w.string(1, name); w.varint(3, value); w.varint(20, 2)
            case let .float(name, value): w.string(1, name); w.fixed32(2, value); w.varint(20, 1)
            case let .ints(name, values): w.string(1, name); w.packedVarints(8, values); w.varint(20, 7)
            case let .floats(name, values):
                w.string(1, name)
                for value in values { w.fixed32(7, value) }
                w.varint(20, 6)
            case let .string(name, value): w.string(1, name); w.string(4, value); w.varint(20, 3)
            case let .strings(name, values):
                w.string(1, name)
                for value in values { w.string(9, value) }
                w.varint(20, 8)
            case let .tensor(name, tensor): w.string(1, name); w.lengthDelimited(5, tensor); w.varint(20, 4)
            }
            return w.bytes
        }
    }

    /// A float tensor with its data in `raw_data`.
    package static func floatTensor(_ name: String, _ dims: [Int64], _ values: [Float]) -> [UInt8] {
        rawTensor(name, elementType: 1, dims, values.flatMap { value in
            let bits = value.bitPattern
            return [UInt8(bits & 0xff), UInt8((bits >> 8) & 0xff), UInt8((bits >> 16) & 0xff), UInt8(bits >> 24)]
        })
    }

    /// A tensor of ONNX element type `elementType` with `bytes` (little-endian) as its `raw_data`.
    package static func rawTensor(_ name: String, elementType: Int64, _ dims: [Int64], _ bytes: [UInt8]) -> [UInt8] {
        var w = ProtoWriter()
        w.packedVarints(1, dims)
        w.varint(2, elementType)
        w.string(8, name)
        w.lengthDelimited(9, bytes)
        return w.bytes
    }

    /// An int64 tensor with its data in `int64_data` (packed).
    package static func int64Tensor(_ name: String, _ dims: [Int64], _ values: [Int64]) -> [UInt8] {
        var w = ProtoWriter()
        w.packedVarints(1, dims)
        w.varint(2, 7)
        w.string(8, name)
        w.packedVarints(7, values)
        return w.bytes
    }

    package static func node(_ opType: String, inputs: [String], outputs: [String], name: String = "",
                            attributes: [Attribute] = [], domain: String = "") -> [UInt8] {
        var w = ProtoWriter()
        for input in inputs { w.string(1, input) }
        for output in outputs { w.string(2, output) }
        if !name.isEmpty { w.string(3, name) }
        w.string(4, opType)
        for attribute in attributes { w.lengthDelimited(5, attribute.encoded) }
        if !domain.isEmpty { w.string(7, domain) }
        return w.bytes
    }

    /// A float tensor value_info with a static shape.
    package static func valueInfo(_ name: String, _ shape: [Int64]) -> [UInt8] {
        valueInfo(name, dims: shape.map { .value($0) })
    }

    /// One declared dim of a value_info.
    package enum Dimension: Sendable {
        case value(Int64)
        case parameter(String)
        case unknown
    }

    /// A tensor value_info of ONNX element type `elementType` (1 = FLOAT, 7 = INT64, 9 = BOOL, ...)
    /// with the given dims, or no shape at all when `dims` is nil.
    package static func valueInfo(_ name: String, dims: [Dimension]?, elementType: Int64 = 1) -> [UInt8] {
        var shapeWriter = ProtoWriter()
        for dim in dims ?? [] {
            var d = ProtoWriter()
            switch dim {
            case let .value(size): d.varint(1, size)
            case let .parameter(parameter): d.string(2, parameter)
            case .unknown: break
            }
            shapeWriter.lengthDelimited(1, d.bytes)
        }
        var tensor = ProtoWriter()
        tensor.varint(1, elementType)
        if dims != nil { tensor.lengthDelimited(2, shapeWriter.bytes) }
        var type = ProtoWriter()
        type.lengthDelimited(1, tensor.bytes)
        var w = ProtoWriter()
        w.string(1, name)
        w.lengthDelimited(2, type.bytes)
        return w.bytes
    }

    package static func model(nodes: [[UInt8]], initializers: [[UInt8]] = [], inputs: [[UInt8]], outputs: [[UInt8]],
                             opset: Int64 = 17, irVersion: Int64 = 8, metadata: [(String, String)] = []) -> [UInt8] {
        var graph = ProtoWriter()
        for node in nodes { graph.lengthDelimited(1, node) }
        graph.string(2, "test")
        for initializer in initializers { graph.lengthDelimited(5, initializer) }
        for input in inputs { graph.lengthDelimited(11, input) }
        for output in outputs { graph.lengthDelimited(12, output) }
        var opsetWriter = ProtoWriter()
        opsetWriter.string(1, "")
        opsetWriter.varint(2, opset)
        var w = ProtoWriter()
        w.varint(1, irVersion)
        w.string(2, "swift-tests")
        w.lengthDelimited(7, graph.bytes)
        w.lengthDelimited(8, opsetWriter.bytes)
        for (key, value) in metadata {
            var entry = ProtoWriter()
            entry.string(1, key)
            entry.string(2, value)
            w.lengthDelimited(14, entry.bytes)
        }
        return w.bytes
    }
}
