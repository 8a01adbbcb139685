import HalfPrecision
import ONNXFormat

/// The arithmetic every quantized operator shares, as onnx defines it and onnxruntime computes it:
/// a float value v quantizes to saturate(round_half_even(v / scale) + zero_point), computed in
/// float32 (one division); a quantized q dequantizes to float32(q − zero_point) · scale; an int32
/// accumulator requantizes to saturate(round_half_even(float32(acc) · multiplier) + zero_point)
/// with the multiplier computed once in float32 as input scale · weight scale / output scale.
///
/// QuantizeLinear and DequantizeLinear also take the float quantized types (float8 and
/// float4e2m1): a value quantizes to the float v / scale + zero point rounded to the type
/// (`NarrowFloat`, nearest even), and dequantizes to float32(q − zero_point) · scale.
enum Quantization {
    /// The quantized integer types the engine stores: int8, uint8, int16, uint16 and the 4- and
    /// 2-bit integers (held one per byte).
    static let integerTypes: Set<ElementType> = [.int8, .uint8, .int16, .uint16, .int4, .uint4, .int2, .uint2]

    /// The float quantized types QuantizeLinear and DequantizeLinear take: the four float8
    /// formats with a sign and float4e2m1.
    static let floatTypes: Set<ElementType> = [.float8e4m3fn, .float8e4m3fnuz, .float8e5m2, .float8e5m2fnuz, .float4e2m1]

    /// The values of a quantized integer type.
    static func range(_ type: ElementType) -> ClosedRange<Int32> {
        switch type {
        case .int8: -128...127
        case .uint8: 0...255
        case .int16: -32768...32767
        case .uint16: 0...65535
        case .int4: -8...7
        case .uint4: 0...15
        case .int2: -2...1
        case .uint2: 0...3
        default: Int32.min...Int32.max  // int32 (DequantizeLinear's input)
        }
    }

    /// Why a quantized type onnx defines is refused: the engine does not store it.
    static func unstoredTypeMessage(_ code: Int) -> String {
        let name = TensorProto.DataType(rawValue: Int32(clamping: code)).description
        return "quantized type \(name) is not supported: the engine quantizes to int8, uint8, int16, uint16, int4, uint4, int2, uint2, the four float8 types with a sign and float4e2m1 (not float6)"
    }

    /// Element `index` of an integer tensor of `type` (int8 to int32, the 4- and 2-bit types).
    @inline(__always)
    static func load(_ raw: UnsafeRawPointer, _ index: Int, _ type: ElementType) -> Int32 {
        switch type {
        case .int8, .int4, .int2: Int32(raw.load(fromByteOffset: index, as: Int8.self))
        case .uint8, .uint4, .uint2: Int32(raw.load(fromByteOffset: index, as: UInt8.self))
        case .int16: Int32(raw.load(fromByteOffset: 2 * index, as: Int16.self))
        case .uint16: Int32(raw.load(fromByteOffset: 2 * index, as: UInt16.self))
        default: raw.load(fromByteOffset: 4 * index, as: Int32.self)
        }
    }

    /// Stores `value`, already within the type's range, as element `index` of a tensor of `type`.
    @inline(__always)
    static func store(_ value: Int32, _ raw: UnsafeMutableRawPointer, _ index: Int, _ type: ElementType) {
        switch type {
        case .int8, .uint8, .int4, .uint4, .int2, .uint2:
            raw.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: index, as: UInt8.self)
        case .int16, .uint16: raw.storeBytes(of: UInt16(truncatingIfNeeded: value), toByteOffset: 2 * index, as: UInt16.self)
        default: raw.storeBytes(of: value, toByteOffset: 4 * index, as: Int32.self)
        }
    }

    /// Element `index` of a float32 or float16 tensor as float32.
    @inline(__always)
    static func loadFloat(_ raw: UnsafeRawPointer, _ index: Int, _ type: ElementType) -> Float {
        type == .float16 ? Half.float(raw.load(fromByteOffset: 2 * index, as: UInt16.self))
            : raw.load(fromByteOffset: 4 * index, as: Float.self)
    }

    /// Stores `value` as element `index` of a float32 or float16 tensor (float16 rounded to nearest even).
    @inline(__always)
    static func storeFloat(_ value: Float, _ raw: UnsafeMutableRawPointer, _ index: Int, _ type: ElementType) {
        if type == .float16 {
            raw.storeBytes(of: Half.bits(value), toByteOffset: 2 * index, as: UInt16.self)
        } else {
            raw.storeBytes(of: value, toByteOffset: 4 * index, as: Float.self)
        }
    }

    /// round_half_even(`value`) + `zeroPoint`, saturated to `range` (NaN gives the zero point).
    @inline(__always)
    static func saturate(_ value: Float, zeroPoint: Int32, _ range: ClosedRange<Int32>) -> Int32 {
        guard !value.isNaN else { return zeroPoint }
        let shifted = Double(value.rounded(.toNearestOrEven)) + Double(zeroPoint)
        return Int32(min(max(shifted, Double(range.lowerBound)), Double(range.upperBound)))
    }

    /// saturate(round_half_even(`value` / `scale`) + `zeroPoint`).
    @inline(__always)
    static func quantize(_ value: Float, scale: Float, zeroPoint: Int32, _ range: ClosedRange<Int32>) -> Int32 {
        saturate(value / scale, zeroPoint: zeroPoint, range)
    }

    /// saturate(round_half_even(float32(`accumulator`) · `multiplier`) + `zeroPoint`).
    @inline(__always)
    static func requantize(_ accumulator: Int32, multiplier: Float, zeroPoint: Int32, _ range: ClosedRange<Int32>) -> Int32 {
        saturate(Float(accumulator) * multiplier, zeroPoint: zeroPoint, range)
    }
}

/// Which scale and zero point apply to each element of a tensor: one for the whole tensor, one per
/// index along `axis` (a 1-D parameter of that dimension's size), or one per block of `blockSize`
/// consecutive indices along `axis` (a parameter of the tensor's rank, ⌈dim / blockSize⌉ on
/// `axis` and equal to the tensor elsewhere), as QuantizeLinear and DequantizeLinear define them.
struct QuantizationLayout: Sendable, Equatable {
    enum Kind: Sendable, Equatable { case perTensor, perAxis, blocked }
    let kind: Kind
    /// The size of `axis` and the product of the dimensions after it.
    let axisSize: Int, inner: Int
    let blockSize: Int, blockCount: Int

    static let perTensor = QuantizationLayout(kind: .perTensor, axisSize: 1, inner: 1, blockSize: 1, blockCount: 1)

    /// The layout of a parameter of shape `parameter` for a tensor of shape `shape`.
    ///
    /// - Throws: naming `role` when the parameter's shape fits none of the three layouts.
    init(_ context: NodeContext, shape: [Int], parameter: [Int], axis: Int, blockSize: Int, role: String) throws(ModelError) {
        let count = parameter.reduce(1, *)
        if blockSize == 0 && parameter.count <= 1 && count == 1 {
            self = .perTensor
            return
        }
        let axis = try context.axis(axis, rank: shape.count, attribute: "axis")
        let inner = shape[(axis + 1)...].reduce(1, *)
        if blockSize == 0 {
            guard parameter == [shape[axis]] else {
                throw context.error(.invalidShape, "\(role) has shape \(parameter): expected a scalar or [\(shape[axis])] (dimension \(axis) of \(shape))")
            }
            self.init(kind: .perAxis, axisSize: shape[axis], inner: inner, blockSize: 1, blockCount: shape[axis])
            return
        }
        var expected = shape
        expected[axis] = (shape[axis] + blockSize - 1) / blockSize
        guard parameter == expected else {
            throw context.error(.invalidShape, "\(role) has shape \(parameter): blocks of \(blockSize) along axis \(axis) of \(shape) need \(expected)",
                                attribute: "block_size")
        }
        self.init(kind: .blocked, axisSize: shape[axis], inner: inner, blockSize: blockSize, blockCount: expected[axis])
    }

    /// The layout of QuantizeLinear's or DequantizeLinear's scale (node input 1) for its data
    /// (input 0), after checking the scale (a scalar before opset 13) and that the zero point
    /// (input 2, if `hasZeroPoint`) has the scale's shape. `prefix` names the parameters in errors
    /// (`x` gives `x_scale` and `x_zero_point`).
    init(_ context: NodeContext, axis: Int, blockSize: Int, hasZeroPoint: Bool, prefix: String) throws(ModelError) {
        let shape = try context.shape(ofInput: 0), scale = try context.shape(ofInput: 1)
        if context.opVersion < 13, scale.reduce(1, *) != 1 || scale.count > 1 {
            throw context.error(.invalidShape, "\(prefix)_scale has shape \(scale); \(context.node.opType)-10 takes a scalar")
        }
        try self.init(context, shape: shape, parameter: scale, axis: axis, blockSize: blockSize, role: "\(prefix)_scale")
        if hasZeroPoint {
            let zero = try context.shape(ofInput: 2)
            guard Self.agree(zero, scale) else {
                throw context.error(.invalidShape, "\(prefix)_zero_point has shape \(zero), \(prefix)_scale \(scale); they must agree")
            }
        }
    }

    private init(kind: Kind, axisSize: Int, inner: Int, blockSize: Int, blockCount: Int) {
        self.kind = kind
        self.axisSize = axisSize
        self.inner = inner
        self.blockSize = blockSize
        self.blockCount = blockCount
    }

    /// Whether a zero point of shape `zero` fits a scale of shape `scale`: the same shape, or one
    /// element each (a scalar and a [1] are both per tensor, as onnxruntime's quantizer mixes them).
    static func agree(_ zero: [Int], _ scale: [Int]) -> Bool {
        zero == scale || (zero.count <= 1 && scale.count <= 1 && zero.reduce(1, *) == 1 && scale.reduce(1, *) == 1)
    }

    /// The parameter index for element `index` of the tensor (C order).
    @inline(__always)
    func parameterIndex(_ index: Int) -> Int {
        switch kind {
        case .perTensor: return 0
        case .perAxis: return (index / inner) % axisSize
        case .blocked:
            let outer = index / (axisSize * inner), position = (index / inner) % axisSize
            return (outer * blockCount + position / blockSize) * inner + index % inner
        }
    }
}
