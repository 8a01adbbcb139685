import HalfPrecision

/// Reading and writing single elements of any `ElementType` in little-endian memory: what the
/// plan-time constants and the type-generic reference kernels (Cast, the shape and index ops)
/// use. Not for float32 hot loops, which read `Float` pointers directly.
enum TensorElements {
    /// Element `index` of an integer or bool tensor, as Int64 (uint64 above 2^63 wraps).
    static func integer(_ raw: UnsafeRawBufferPointer, at index: Int, _ type: ElementType) -> Int64 {
        integer(raw.baseAddress!, at: index, type)
    }

    static func integer(_ raw: UnsafeRawPointer, at index: Int, _ type: ElementType) -> Int64 {
        switch type {
        case .int8: Int64(raw.loadUnaligned(fromByteOffset: index, as: Int8.self))
        case .uint8: Int64(raw.loadUnaligned(fromByteOffset: index, as: UInt8.self))
        case .bool: raw.loadUnaligned(fromByteOffset: index, as: UInt8.self) == 0 ? 0 : 1
        case .int16: Int64(raw.loadUnaligned(fromByteOffset: 2 * index, as: Int16.self))
        case .uint16: Int64(raw.loadUnaligned(fromByteOffset: 2 * index, as: UInt16.self))
        case .int32: Int64(raw.loadUnaligned(fromByteOffset: 4 * index, as: Int32.self))
        case .uint32: Int64(raw.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self))
        case .int64: raw.loadUnaligned(fromByteOffset: 8 * index, as: Int64.self)
        case .uint64: Int64(bitPattern: raw.loadUnaligned(fromByteOffset: 8 * index, as: UInt64.self))
        case .int4, .int2: Int64(raw.loadUnaligned(fromByteOffset: index, as: Int8.self))
        case .uint4, .uint2: Int64(raw.loadUnaligned(fromByteOffset: index, as: UInt8.self))
        case .float32: Int64(exactly: raw.loadUnaligned(fromByteOffset: 4 * index, as: Float.self).rounded(.towardZero)) ?? 0
        case .float16: Int64(exactly: Half.float(raw.loadUnaligned(fromByteOffset: 2 * index, as: UInt16.self)).rounded(.towardZero)) ?? 0
        case .double: Int64(exactly: raw.loadUnaligned(fromByteOffset: 8 * index, as: Double.self).rounded(.towardZero)) ?? 0
        case .bfloat16, .float8e4m3fn, .float8e4m3fnuz, .float8e5m2, .float8e5m2fnuz, .float8e8m0, .float4e2m1:
            Int64(exactly: double(raw, at: index, type).rounded(.towardZero)) ?? 0
        }
    }

    /// Stores `value` as element `index` of a tensor of `type`, truncating to the type's width
    /// (bool: nonzero is 1).
    static func setInteger(_ value: Int64, _ raw: UnsafeMutableRawPointer, at index: Int, _ type: ElementType) {
        switch type {
        case .int8, .uint8: raw.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: index, as: UInt8.self)
        case .bool: raw.storeBytes(of: value == 0 ? 0 : 1, toByteOffset: index, as: UInt8.self)
        case .int16, .uint16: raw.storeBytes(of: UInt16(truncatingIfNeeded: value), toByteOffset: 2 * index, as: UInt16.self)
        case .int32, .uint32: raw.storeBytes(of: UInt32(truncatingIfNeeded: value), toByteOffset: 4 * index, as: UInt32.self)
        case .int64, .uint64: raw.storeBytes(of: value, toByteOffset: 8 * index, as: Int64.self)
        case .float32: raw.storeBytes(of: Float(value), toByteOffset: 4 * index, as: Float.self)
        case .float16: raw.storeBytes(of: Half.bits(Float(value)), toByteOffset: 2 * index, as: UInt16.self)
        case .double: raw.storeBytes(of: Double(value), toByteOffset: 8 * index, as: Double.self)
        case .int4: raw.storeBytes(of: Int8(truncatingIfNeeded: value &<< 4) >> 4, toByteOffset: index, as: Int8.self)
        case .int2: raw.storeBytes(of: Int8(truncatingIfNeeded: value &<< 6) >> 6, toByteOffset: index, as: Int8.self)
        case .uint4: raw.storeBytes(of: UInt8(truncatingIfNeeded: value) & 0x0F, toByteOffset: index, as: UInt8.self)
        case .uint2: raw.storeBytes(of: UInt8(truncatingIfNeeded: value) & 0x03, toByteOffset: index, as: UInt8.self)
        case .bfloat16, .float8e4m3fn, .float8e4m3fnuz, .float8e5m2, .float8e5m2fnuz, .float8e8m0, .float4e2m1:
            setDouble(Double(value), raw, at: index, type)
        }
    }

    /// Element `index` of any tensor as Double (exact for every type but 64-bit integers beyond 2^53).
    static func double(_ raw: UnsafeRawPointer, at index: Int, _ type: ElementType) -> Double {
        switch type {
        case .float32: Double(raw.loadUnaligned(fromByteOffset: 4 * index, as: Float.self))
        case .float16: Double(Half.float(raw.loadUnaligned(fromByteOffset: 2 * index, as: UInt16.self)))
        case .double: raw.loadUnaligned(fromByteOffset: 8 * index, as: Double.self)
        case .uint64: Double(raw.loadUnaligned(fromByteOffset: 8 * index, as: UInt64.self))
        case .bfloat16: NarrowFloat.bfloat16.decode(raw.loadUnaligned(fromByteOffset: 2 * index, as: UInt16.self))
        case .float8e4m3fn, .float8e4m3fnuz, .float8e5m2, .float8e5m2fnuz, .float4e2m1:
            NarrowFloat.format(of: type)!.decode(UInt16(raw.loadUnaligned(fromByteOffset: index, as: UInt8.self)))
        case .float8e8m0: E8M0.decode(raw.loadUnaligned(fromByteOffset: index, as: UInt8.self))
        default: Double(integer(raw, at: index, type))
        }
    }

    /// Stores `value` as element `index` of a tensor of `type`: rounded for float types,
    /// truncated toward zero (then to the type's width) for integer types, nonzero as 1 for bool.
    ///
    /// The narrow types, as ONNX's `Cast` and onnx's reference define them: bfloat16, float8 and
    /// float4e2m1 round to nearest even (`NarrowFloat`; `saturate` applies to float8, and to
    /// float8e8m0 with `rounding`, `E8M0`); a 4- or 2-bit integer is the value truncated toward
    /// zero, or 0 when that is outside the type's range or the value is NaN (ONNX leaves it
    /// undefined; 0 is what onnx's reference, through ml_dtypes, gives).
    static func setDouble(_ value: Double, _ raw: UnsafeMutableRawPointer, at index: Int, _ type: ElementType,
                          saturate: Bool = true, rounding: E8M0.Rounding = .up) {
        switch type {
        case .bfloat16:
            raw.storeBytes(of: NarrowFloat.bfloat16.encode(value, saturate: false), toByteOffset: 2 * index, as: UInt16.self)
        case .float8e4m3fn, .float8e4m3fnuz, .float8e5m2, .float8e5m2fnuz, .float4e2m1:
            let bits = NarrowFloat.format(of: type)!.encode(value, saturate: saturate)
            raw.storeBytes(of: UInt8(truncatingIfNeeded: bits), toByteOffset: index, as: UInt8.self)
        case .float8e8m0:
            raw.storeBytes(of: E8M0.encode(value, saturate: saturate, rounding: rounding), toByteOffset: index, as: UInt8.self)
        case .int4, .uint4, .int2, .uint2:
            let truncated = value.rounded(.towardZero), range = type.narrowIntegerRange!
            let inRange = truncated >= Double(range.lowerBound) && truncated <= Double(range.upperBound)  // false for NaN
            setInteger(inRange ? Int64(truncated) : 0, raw, at: index, type)
        case .float32: raw.storeBytes(of: Float(value), toByteOffset: 4 * index, as: Float.self)
        case .float16: raw.storeBytes(of: Half.bits(Float(value)), toByteOffset: 2 * index, as: UInt16.self)
        case .double: raw.storeBytes(of: value, toByteOffset: 8 * index, as: Double.self)
        case .bool: raw.storeBytes(of: value != 0 ? 1 : 0, toByteOffset: index, as: UInt8.self)
        case .uint64 where value >= 0x1p63 && value < 0x1p64:
            raw.storeBytes(of: UInt64(value), toByteOffset: 8 * index, as: UInt64.self)
        default:
            let truncated = value.rounded(.towardZero)
            setInteger(truncated.isFinite && abs(truncated) < 0x1p63 ? Int64(truncated) : Int64.min, raw, at: index, type)
        }
    }

    /// The little-endian bytes of float32 values.
    static func bytes(of values: [Float]) -> [UInt8] {
        values.withUnsafeBytes { Array($0) }
    }

    /// The little-endian bytes of integers stored as `type` (an integer or bool type).
    static func bytes(of values: [Int64], as type: ElementType) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: values.count * type.byteSize)
        bytes.withUnsafeMutableBytes { raw in
            for (index, value) in values.enumerated() { setInteger(value, raw.baseAddress!, at: index, type) }
        }
        return bytes
    }
}
