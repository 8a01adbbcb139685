// com.microsoft QLinearAdd and QLinearMul of 8-bit tensors, 16 elements at a time, with the
// reference's float32 arithmetic (Inference's QLinearBinary, onnxruntime's kernels):
// - add: c = quantize((scaleA · (a − zeroA) + scaleB · (b − zeroB)) / scaleC);
// - mul: c = quantize(float((a − zeroA) · (b − zeroB)) · multiplier), the product exact in
//   float32 (|product| ≤ 255², below 2^24), multiplier = scaleA · scaleB / scaleC;
// quantize: round half to even, plus zeroC, saturated to the type (NaN → zeroC).

import TargetFeatures

/// One 8-bit operand: its values, zero point and scale.
package struct QuantizedOperand {
    package let values: UnsafeRawPointer, zero: Int32, scale: Float
    package init(values: UnsafeRawPointer, zero: Int32, scale: Float) {
        self.values = values; self.zero = zero; self.scale = scale
    }
}

package enum QuantizedBinaryKind: Sendable { case add, mul }

/// `a` (`planes` × `planeSize` values) with `b`, which has the same shape (`bPerPlane` false) or one
/// value per plane; both int8 when `signed`, else uint8; into `output` with `outputZero`, scale
/// `outputScale` (add) or `multiplier` (mul), saturated to minimum...maximum.
package func quantizedBinary(_ kind: QuantizedBinaryKind, _ a: QuantizedOperand, _ b: QuantizedOperand, bPerPlane: Bool,
                             signed: Bool, planes: Int, planeSize: Int, outputScale: Float, multiplier: Float,
                             outputZero: Int32, minimum: Int32, maximum: Int32, output: UnsafeMutablePointer<UInt8>) {
    let low = Float(minimum - outputZero), high = Float(maximum - outputZero)
    // add: Float(x − zero) · scale per operand; mul: Float(x − zero) (scale 1, exact).
    let aScale = kind == .add ? a.scale : 1, bScale = kind == .add ? b.scale : 1
    @inline(__always) func load(_ values: UnsafeRawPointer, _ at: Int, _ zero: Int32, _ scale: Float) -> Vector {
        signed ? vbg_dequantize_i8(values.loadUnaligned(fromByteOffset: at, as: SIMD16<Int8>.self), zero, scale)
            : vbg_dequantize_u8(values.loadUnaligned(fromByteOffset: at, as: SIMD16<UInt8>.self), zero, scale)
    }
    @inline(__always) func scalar(_ values: UnsafeRawPointer, _ at: Int, _ zero: Int32, _ scale: Float) -> Float {
        let q = signed ? Int32(values.load(fromByteOffset: at, as: Int8.self)) : Int32(values.load(fromByteOffset: at, as: UInt8.self))
        return Float(q &- zero) * scale
    }
    @inline(__always) func combine(_ x: Vector, _ y: Vector) -> SIMD16<UInt8> {
        kind == .add ? vbg_quantize((x + y) / Vector(repeating: outputScale), low, high, outputZero)
            : vbg_quantize((x * y) * Vector(repeating: multiplier), low, high, outputZero)
    }
    for plane in 0..<planes {
        let first = plane * planeSize
        let bPlane = bPerPlane ? Vector(repeating: scalar(b.values, plane, b.zero, bScale)) : Vector(repeating: 0)
        var i = 0
        while i + lanes <= planeSize {
            let x = load(a.values, first + i, a.zero, aScale)
            let y = bPerPlane ? bPlane : load(b.values, first + i, b.zero, bScale)
            UnsafeMutableRawPointer(output + first + i).storeBytes(of: combine(x, y), as: SIMD16<UInt8>.self)
            i += lanes
        }
        guard i < planeSize else { continue }
        var x = Vector(repeating: 0), y = bPlane
        for lane in 0..<(planeSize - i) {
            x[lane] = scalar(a.values, first + i + lane, a.zero, aScale)
            if !bPerPlane { y[lane] = scalar(b.values, first + i + lane, b.zero, bScale) }
        }
        let bytes = combine(x, y)
        for lane in 0..<(planeSize - i) { output[first + i + lane] = bytes[lane] }
    }
}
