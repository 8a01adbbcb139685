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

    /// The number of elements.
    package var elementCount: Int { shape.reduce(1, *) }

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
