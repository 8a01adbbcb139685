import ONNXFormat

/// A tensor whose value is known when the plan is built: an initializer, a `Constant` node's
/// value, or the result of folding a node whose inputs are all constant.
struct ConstantTensor: Sendable {
    enum Storage: Sendable {
        case floats([Float])
        case integers([Int64])
    }

    var shape: [Int]
    var storage: Storage

    var elementCount: Int {
        switch storage {
        case let .floats(values): values.count
        case let .integers(values): values.count
        }
    }

    var floats: [Float]? { if case let .floats(values) = storage { values } else { nil } }

    /// The values as integers (floats are not converted: a shape given as floats is an error).
    var integers: [Int64]? { if case let .integers(values) = storage { values } else { nil } }

    /// Decodes an initializer or attribute tensor.
    ///
    /// FLOAT, FLOAT16 and DOUBLE become floats (float16 exactly, double rounded); INT8, UINT8,
    /// INT32, INT64 and BOOL become integers.
    ///
    /// - Throws: `ModelError` naming the tensor when its dims are negative or exceed 2^31
    ///   elements, its type is unsupported, its data is external or its element count disagrees
    ///   with its dims, or a float is NaN or infinite.
    init(_ tensor: TensorProto, role: String) throws(ModelError) {
        let label = "\(role) '\(tensor.name)'"
        guard tensor.dims.allSatisfy({ $0 >= 0 && $0 <= Int64(Shapes.maximumElementCount) }),
              let count = Shapes.elementCount(tensor.dims.map { Int($0) })
        else {
            throw ModelError(.invalidShape, "\(label) has dims \(tensor.dims): negative, or more than 2^31 elements")
        }
        guard tensor.dataLocation == 0 else {
            throw ModelError(.unsupported, "\(label) keeps its data in an external file, which is not supported")
        }
        shape = tensor.dims.map { Int($0) }
        let type = tensor.dataType
        guard let elementSize = type.rawElementSize else {
            throw ModelError(.unsupported, "\(label) has data type \(type), which is not supported")
        }
        func mismatch(_ found: Int) -> ModelError {
            ModelError(.malformed, "\(label) has dims \(tensor.dims) (\(count) elements) but holds \(found)")
        }
        if tensor.hasRawData {
            guard tensor.rawData.count == count * elementSize else { throw mismatch(tensor.rawData.count / elementSize) }
            storage = Self.decodeRaw(tensor.rawData, type: type, count: count)
        } else {
            switch type {
            case .float:
                guard tensor.floatData.count == count else { throw mismatch(tensor.floatData.count) }
                storage = .floats(tensor.floatData)
            case .double:
                guard tensor.doubleData.count == count else { throw mismatch(tensor.doubleData.count) }
                storage = .floats(tensor.doubleData.map { Float($0) })
            case .float16:
                // float16 values are stored one per int32_data entry (their bit pattern).
                guard tensor.int32Data.count == count else { throw mismatch(tensor.int32Data.count) }
                storage = .floats(tensor.int32Data.map { Self.floatFromHalf(UInt16(truncatingIfNeeded: $0)) })
            case .int64:
                guard tensor.int64Data.count == count else { throw mismatch(tensor.int64Data.count) }
                storage = .integers(tensor.int64Data)
            default:  // INT32, INT8, UINT8, BOOL: int32_data
                guard tensor.int32Data.count == count else { throw mismatch(tensor.int32Data.count) }
                storage = .integers(tensor.int32Data.map { Int64($0) })
            }
        }
        if case let .floats(values) = storage, let bad = values.firstIndex(where: { !$0.isFinite }) {
            throw ModelError(.invalidValue, "\(label) holds \(values[bad]) at element \(bad); every value must be finite")
        }
    }

    init(shape: [Int], floats: [Float]) {
        self.shape = shape
        self.storage = .floats(floats)
    }

    init(shape: [Int], integers: [Int64]) {
        self.shape = shape
        self.storage = .integers(integers)
    }

    private static func decodeRaw(_ bytes: [UInt8], type: TensorProto.DataType, count: Int) -> Storage {
        bytes.withUnsafeBytes { raw in
            switch type {
            case .float:
                return .floats((0..<count).map { Float(bitPattern: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self).littleEndian) })
            case .double:
                return .floats((0..<count).map { Float(Double(bitPattern: raw.loadUnaligned(fromByteOffset: 8 * $0, as: UInt64.self).littleEndian)) })
            case .float16:
                return .floats((0..<count).map { floatFromHalf(raw.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self).littleEndian) })
            case .int64:
                return .integers((0..<count).map { Int64(bitPattern: raw.loadUnaligned(fromByteOffset: 8 * $0, as: UInt64.self).littleEndian) })
            case .int32:
                return .integers((0..<count).map { Int64(Int32(bitPattern: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self).littleEndian)) })
            case .int8:
                return .integers((0..<count).map { Int64(Int8(bitPattern: raw[$0])) })
            default:  // UINT8, BOOL
                return .integers((0..<count).map { Int64(raw[$0]) })
            }
        }
    }

    /// IEEE 754 binary16 → binary32, exact.
    static func floatFromHalf(_ half: UInt16) -> Float {
        let sign = UInt32(half & 0x8000) << 16
        let exponent = Int(half >> 10) & 0x1f
        let mantissa = UInt32(half & 0x3ff)
        if exponent == 0 {
            let magnitude = Float(mantissa) * 0x1p-24
            return sign == 0 ? magnitude : -magnitude
        }
        if exponent == 31 { return Float(bitPattern: sign | 0x7f80_0000 | (mantissa << 13)) }
        return Float(bitPattern: sign | UInt32(exponent - 15 + 127) << 23 | (mantissa << 13))
    }
}
