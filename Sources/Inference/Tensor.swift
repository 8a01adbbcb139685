import ONNXFormat

/// A tensor of any stored element type: what `InferenceSession.run(_:)` takes and returns, and
/// what `InferenceModel` may fix at plan time.
package struct Tensor: Sendable, Equatable {
    package var type: ElementType
    package var shape: [Int]
    /// `shape.reduce(1, *) * type.byteSize` bytes, little-endian, C order.
    package var bytes: [UInt8]

    /// - Precondition: `bytes.count == shape.reduce(1, *) * type.byteSize`.
    package init(type: ElementType, shape: [Int], bytes: [UInt8]) {
        precondition(bytes.count == shape.reduce(1, *) * type.byteSize, "\(bytes.count) bytes do not hold \(type) \(shape)")
        self.type = type
        self.shape = shape
        self.bytes = bytes
    }

    /// A float32 tensor.
    ///
    /// - Precondition: `floats.count == shape.reduce(1, *)`.
    package init(shape: [Int], floats: [Float]) {
        self.init(type: .float32, shape: shape, bytes: TensorElements.bytes(of: floats))
    }

    /// A tensor of a float type (float32, float16, double) holding `values`, each rounded to the
    /// type.
    ///
    /// - Precondition: `values.count == shape.reduce(1, *)`.
    package init(type: ElementType, shape: [Int], doubles values: [Double]) {
        precondition(values.count == shape.reduce(1, *), "\(values.count) values do not fill \(shape)")
        var bytes = [UInt8](repeating: 0, count: values.count * type.byteSize)
        bytes.withUnsafeMutableBytes { raw in
            for (index, value) in values.enumerated() { TensorElements.setDouble(value, raw.baseAddress!, at: index, type) }
        }
        self.init(type: type, shape: shape, bytes: bytes)
    }

    /// The number of elements.
    package var elementCount: Int { shape.reduce(1, *) }

    /// Every element as Double, whatever the type (exact but for 64-bit integers beyond 2^53).
    package var doubles: [Double] {
        bytes.withUnsafeBytes { raw in
            (0..<elementCount).map { TensorElements.double(raw.baseAddress!, at: $0, type) }
        }
    }

    /// The elements of a float32 tensor; nil for other types.
    package var floats: [Float]? { constant.floats }

    var constant: ConstantTensor { ConstantTensor(shape: shape, type: type, bytes: bytes) }
}

extension Tensor {
    /// Decodes a serialized ONNX `TensorProto` (the `.pb` files of onnx's backend tests and
    /// model zoo), keeping its element type.
    ///
    /// - Returns: the tensor and the name stored in it (empty when it has none).
    /// - Throws: `ModelError(.malformed)` for bytes that are not a TensorProto or whose data
    ///   disagrees with the dims; `.unsupported` for types the engine does not store.
    package static func decoding(serializedTensorProto bytes: [UInt8]) throws(ModelError) -> (name: String, tensor: Tensor) {
        let proto: TensorProto
        do {
            var reader = ProtobufReader(bytes)
            proto = try TensorProto(from: &reader)
        } catch {
            throw ModelError(.malformed, "not a serialized TensorProto: \(error.description)")
        }
        let constant = try ConstantTensor(proto, role: "tensor", requiresFinite: false, keepsStoredType: true)
        return (proto.name, Tensor(type: constant.type, shape: constant.shape, bytes: constant.bytes))
    }
}

extension Tensor {
    /// The tensor as a serialized ONNX `TensorProto` named `name`, its elements in `raw_data`
    /// (the 4- and 2-bit types packed as ONNX stores them): what `decoding(serializedTensorProto:)`
    /// reads back.
    package func serializedTensorProto(name: String) -> [UInt8] {
        var proto = TensorProto()
        proto.name = name
        proto.dims = shape.map { Int64($0) }
        proto.dataType = type.onnxType
        proto.rawData = type.bitWidth < 8 ? ConstantTensor.pack(bytes, type) : bytes
        proto.hasRawData = true
        return proto.serializedWithRawData()
    }
}
