import HalfPrecision
import ONNXFormat

/// A tensor whose value is known when the plan is built: an initializer, a `Constant` node's
/// value, a graph input fixed at plan time, or the result of folding a node whose inputs are all
/// constant.
///
/// The elements are kept as little-endian bytes of `type`, exactly as the arena holds them.
struct ConstantTensor: Sendable {
    var shape: [Int]
    var type: ElementType
    /// `elementCount * type.byteSize` bytes, C order.
    var bytes: [UInt8]

    var elementCount: Int { bytes.count / type.byteSize }

    /// The values when the type is float32; nil otherwise.
    var floats: [Float]? {
        guard type == .float32 else { return nil }
        return bytes.withUnsafeBytes { raw in (0..<elementCount).map { raw.loadUnaligned(fromByteOffset: 4 * $0, as: Float.self) } }
    }

    /// The values of an integer or bool tensor as 64-bit integers (uint64 above 2^63 wraps);
    /// nil for float types (a shape given as floats is an error).
    var integers: [Int64]? {
        guard type.isInteger else { return nil }
        return bytes.withUnsafeBytes { raw in (0..<elementCount).map { TensorElements.integer(raw, at: $0, type) } }
    }

    /// Decodes an initializer or attribute tensor.
    ///
    /// FLOAT16 and DOUBLE become float32 (float16 exactly, double rounded); the integer types,
    /// BOOL and the narrow types (bfloat16, float8, float4e2m1, the 4- and 2-bit integers,
    /// unpacked to one element per byte) keep their type.
    ///
    /// - Parameter requiresFinite: whether a NaN or infinite float is an error: true for weights
    ///   (initializers), where one is a corrupt file; false for values a node states on purpose
    ///   (a `Constant` of −∞ to start a maximum, a fill value).
    /// - Throws: `ModelError` naming the tensor when its dims are negative or exceed 2^31
    ///   elements, its type is unsupported, its data is external or its element count disagrees
    ///   with its dims, or (with `requiresFinite`) a float is NaN or infinite.
    /// - Parameter keepsStoredType: keep FLOAT16 and DOUBLE as they are (for tensors read as
    ///   data, such as onnx's test-data files) instead of converting them to float32.
    init(_ tensor: TensorProto, role: String, requiresFinite: Bool = true, keepsStoredType: Bool = false) throws(ModelError) {
        let label = "\(role) '\(tensor.name)'"
        guard tensor.dims.allSatisfy({ $0 >= 0 && $0 <= Int64(Shapes.maximumElementCount) }),
              let count = Shapes.elementCount(tensor.dims.map { Int($0) })
        else {
            throw ModelError(.invalidShape, "\(label) has dims \(tensor.dims): negative, or more than 2^31 elements")
        }
        guard tensor.dataLocation == 0 else {
            throw ModelError(.unsupported, "\(label) keeps its data in an external file, which is not supported")
        }
        func mismatch(_ found: Int) -> ModelError {
            ModelError(.malformed, "\(label) has dims \(tensor.dims) (\(count) elements) but holds \(found)")
        }
        if let narrow = ElementType(tensor.dataType), narrow.isNarrow {
            shape = tensor.dims.map { Int($0) }
            type = narrow
            bytes = try Self.narrowBytes(tensor, narrow, count: count, mismatch: mismatch)
            return
        }
        guard let stored = ElementType(tensor.dataType), let elementSize = tensor.dataType.rawElementSize else {
            throw ModelError(.unsupported, "\(label) has data type \(tensor.dataType), which is not supported")
        }
        shape = tensor.dims.map { Int($0) }
        type = !keepsStoredType && (stored == .float16 || stored == .double) ? .float32 : stored
        if keepsStoredType && tensor.hasRawData {
            guard tensor.rawData.count == count * elementSize else { throw mismatch(tensor.rawData.count / elementSize) }
            bytes = tensor.rawData
        } else if keepsStoredType && stored == .double {
            guard tensor.doubleData.count == count else { throw mismatch(tensor.doubleData.count) }
            bytes = tensor.doubleData.withUnsafeBytes { Array($0) }
        } else if keepsStoredType && stored == .float16 {
            guard tensor.int32Data.count == count else { throw mismatch(tensor.int32Data.count) }
            bytes = tensor.int32Data.map { UInt16(truncatingIfNeeded: $0) }.withUnsafeBytes { Array($0) }
        } else if tensor.hasRawData {
            guard tensor.rawData.count == count * elementSize else { throw mismatch(tensor.rawData.count / elementSize) }
            switch stored {
            case .float16:
                bytes = tensor.rawData.withUnsafeBytes { raw in
                    TensorElements.bytes(of: (0..<count).map { Half.float(raw.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self).littleEndian) })
                }
            case .double:
                bytes = tensor.rawData.withUnsafeBytes { raw in
                    TensorElements.bytes(of: (0..<count).map { Float(Double(bitPattern: raw.loadUnaligned(fromByteOffset: 8 * $0, as: UInt64.self).littleEndian)) })
                }
            default:
                bytes = tensor.rawData
            }
        } else {
            switch stored {
            case .float32:
                guard tensor.floatData.count == count else { throw mismatch(tensor.floatData.count) }
                bytes = TensorElements.bytes(of: tensor.floatData)
            case .double:
                guard tensor.doubleData.count == count else { throw mismatch(tensor.doubleData.count) }
                bytes = TensorElements.bytes(of: tensor.doubleData.map { Float($0) })
            case .float16:
                // float16 values are stored one per int32_data entry (their bit pattern).
                guard tensor.int32Data.count == count else { throw mismatch(tensor.int32Data.count) }
                bytes = TensorElements.bytes(of: tensor.int32Data.map { Half.float(UInt16(truncatingIfNeeded: $0)) })
            case .int64:
                guard tensor.int64Data.count == count else { throw mismatch(tensor.int64Data.count) }
                bytes = TensorElements.bytes(of: tensor.int64Data, as: .int64)
            case .uint32, .uint64:
                guard tensor.uint64Data.count == count else { throw mismatch(tensor.uint64Data.count) }
                bytes = TensorElements.bytes(of: tensor.uint64Data.map { Int64(bitPattern: $0) }, as: stored)
            default:  // INT8, INT16, INT32, UINT8, UINT16, BOOL: int32_data
                guard tensor.int32Data.count == count else { throw mismatch(tensor.int32Data.count) }
                bytes = TensorElements.bytes(of: tensor.int32Data.map { Int64($0) }, as: stored)
            }
        }
        if requiresFinite, let values = floats, let bad = values.firstIndex(where: { !$0.isFinite }) {
            throw ModelError(.invalidValue, "\(label) holds \(values[bad]) at element \(bad); every value must be finite")
        }
    }

    /// The in-memory bytes of a tensor of a narrow type (`ElementType`): bfloat16 and float8 as
    /// they are in `raw_data`, or from `int32_data` (one bit pattern per entry); the 4- and 2-bit
    /// types unpacked from `raw_data` or `int32_data` (one packed byte per entry, the first
    /// element in the low bits), the signed ones sign-extended to a byte.
    private static func narrowBytes(_ tensor: TensorProto, _ type: ElementType, count: Int,
                                    mismatch: (Int) -> ModelError) throws(ModelError) -> [UInt8] {
        if let perByte = tensor.dataType.elementsPerByte {
            let packedCount = (count + perByte - 1) / perByte
            let packed = tensor.hasRawData ? tensor.rawData : tensor.int32Data.map { UInt8(truncatingIfNeeded: $0) }
            guard packed.count == packedCount else { throw mismatch(packed.count * perByte) }
            return unpack(packed, count: count, type)
        }
        if tensor.hasRawData {
            guard tensor.rawData.count == count * type.byteSize else { throw mismatch(tensor.rawData.count / type.byteSize) }
            return tensor.rawData
        }
        guard tensor.int32Data.count == count else { throw mismatch(tensor.int32Data.count) }
        return type.byteSize == 2
            ? tensor.int32Data.map { UInt16(truncatingIfNeeded: $0) }.withUnsafeBytes { Array($0) }
            : tensor.int32Data.map { UInt8(truncatingIfNeeded: $0) }
    }

    /// `count` elements of `type` (4- or 2-bit) from packed bytes, one per byte.
    static func unpack(_ packed: [UInt8], count: Int, _ type: ElementType) -> [UInt8] {
        let bits = type.bitWidth, perByte = 8 / bits, mask = UInt8((1 << bits) - 1)
        let signed = type == .int4 || type == .int2
        return (0..<count).map { index in
            let field = (packed[index / perByte] >> UInt8((index % perByte) * bits)) & mask
            // Sign extension: move the field to the top of the byte, shift back arithmetically.
            return signed ? UInt8(bitPattern: Int8(bitPattern: field << UInt8(8 - bits)) >> UInt8(8 - bits)) : field
        }
    }

    /// The packed bytes of `count` elements of `type` (4- or 2-bit) held one per byte: the
    /// inverse of `unpack`, the unused high bits of the last byte zero.
    static func pack(_ bytes: [UInt8], _ type: ElementType) -> [UInt8] {
        let bits = type.bitWidth, perByte = 8 / bits, mask = UInt8((1 << bits) - 1)
        var packed = [UInt8](repeating: 0, count: (bytes.count + perByte - 1) / perByte)
        for (index, byte) in bytes.enumerated() {
            packed[index / perByte] |= (byte & mask) << UInt8((index % perByte) * bits)
        }
        return packed
    }

    init(shape: [Int], type: ElementType, bytes: [UInt8]) {
        self.shape = shape
        self.type = type
        self.bytes = bytes
    }

    init(shape: [Int], floats: [Float]) {
        self.init(shape: shape, type: .float32, bytes: TensorElements.bytes(of: floats))
    }

    init(shape: [Int], integers: [Int64], type: ElementType = .int64) {
        self.init(shape: shape, type: type, bytes: TensorElements.bytes(of: integers, as: type))
    }
}
