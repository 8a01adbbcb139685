// com.microsoft QLinearAdd and QLinearMul of 8-bit tensors, 16 elements at a time, with the
// reference's float32 arithmetic (Inference's QLinearBinary, onnxruntime's kernels):
// - add: c = saturate(round(fma(a, a.scale, fma(b, b.scale, addConstant)))) on the raw values, as
//   MLAS's QLinearAdd computes it: the caller passes each operand's scale / scaleC as its scale and
//   the zero points folded into `addConstant` (Inference's `QLinearBinary.addConstant`); a is the
//   operand MLAS takes first (the one that varies within a plane);
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
/// value per plane; both int8 when `signed`, else uint8; into `output`: add with the operands'
/// ratios and `addConstant` (which holds the zero points), mul with `outputZero` and `multiplier`;
/// saturated to minimum...maximum.
package func quantizedBinary(_ kind: QuantizedBinaryKind, _ a: QuantizedOperand, _ b: QuantizedOperand, bPerPlane: Bool,
                             signed: Bool, planes: Int, planeSize: Int, multiplier: Float, addConstant: Float,
                             outputZero: Int32, minimum: Int32, maximum: Int32, output: UnsafeMutablePointer<UInt8>) {
    // add: the raw values (the zero points are in addConstant, outputZero too); mul: Float(x − zero) (exact).
    let zero = kind == .add ? 0 : outputZero
    let low = Float(minimum - zero), high = Float(maximum - zero)
    let aZero = kind == .add ? 0 : a.zero, bZero = kind == .add ? 0 : b.zero
    let aScale: Float = 1, bScale: Float = 1
    let constant = Vector(repeating: addConstant), ratioA = Vector(repeating: a.scale), ratioB = Vector(repeating: b.scale)
    @inline(__always) func load(_ values: UnsafeRawPointer, _ at: Int, _ zero: Int32, _ scale: Float) -> Vector {
        signed ? vbg_dequantize_i8(values.loadUnaligned(fromByteOffset: at, as: SIMD16<Int8>.self), zero, scale)
            : vbg_dequantize_u8(values.loadUnaligned(fromByteOffset: at, as: SIMD16<UInt8>.self), zero, scale)
    }
    @inline(__always) func scalar(_ values: UnsafeRawPointer, _ at: Int, _ zero: Int32, _ scale: Float) -> Float {
        let q = signed ? Int32(values.load(fromByteOffset: at, as: Int8.self)) : Int32(values.load(fromByteOffset: at, as: UInt8.self))
        return Float(q &- zero) * scale
    }
    @inline(__always) func combine(_ x: Vector, _ y: Vector) -> SIMD16<UInt8> {
        kind == .add ? vbg_quantize(constant.addingProduct(y, ratioB).addingProduct(x, ratioA), low, high, 0)
            : vbg_quantize((x * y) * Vector(repeating: multiplier), low, high, outputZero)
    }
    // One value of b per plane makes c a function of a's byte: on planes large enough, its 256
    // values computed once per plane (the same arithmetic on every byte), then a lookup per byte.
    if bPerPlane && planeSize >= tablePlaneSize && byteGatherIsFast {
        // Every byte value in order (the operand a plane's table is computed from), and the table.
        var every = (SIMD64<UInt8>(), SIMD64<UInt8>(), SIMD64<UInt8>(), SIMD64<UInt8>())
        for i in 0..<64 { every.0[i] = UInt8(i); every.1[i] = UInt8(64 + i); every.2[i] = UInt8(128 + i); every.3[i] = UInt8(192 + i) }
        var table = every
        withUnsafeBytes(of: every) { every in
            withUnsafeMutableBytes(of: &table) { table in
                for plane in 0..<planes {
                    let y = Vector(repeating: scalar(b.values, plane, bZero, bScale))
                    for i in stride(from: 0, to: 256, by: lanes) {
                        table.storeBytes(of: combine(load(every.baseAddress!, i, aZero, aScale), y), toByteOffset: i, as: SIMD16<UInt8>.self)
                    }
                    let t0 = table.load(fromByteOffset: 0, as: SIMD64<UInt8>.self), t1 = table.load(fromByteOffset: 64, as: SIMD64<UInt8>.self)
                    let t2 = table.load(fromByteOffset: 128, as: SIMD64<UInt8>.self), t3 = table.load(fromByteOffset: 192, as: SIMD64<UInt8>.self)
                    let source = a.values.assumingMemoryBound(to: UInt8.self) + plane * planeSize, out = output + plane * planeSize
                    var i = 0
                    while i + 64 <= planeSize {
                        let x = UnsafeRawPointer(source + i).loadUnaligned(as: SIMD64<UInt8>.self)
                        UnsafeMutableRawPointer(out + i).storeBytes(of: vbg_lookup_bytes(x, t0, t1, t2, t3), as: SIMD64<UInt8>.self)
                        i += 64
                    }
                    if i < planeSize {
                        let count = Int32(planeSize - i)
                        vbg_store_bytes64(out + i, vbg_lookup_bytes(vbg_load_bytes64(source + i, count), t0, t1, t2, t3), count)
                    }
                }
            }
        }
        return
    }
    // Planes under 32 values with one b value each (the per-channel Mul / Add on small maps, where
    // the loop below would do most of a plane in its scalar tail): runs of two or more whole planes, up to 64
    // values, loaded and stored by masks; one byte permute spreads the run's b values (value j of
    // the run reads plane j / planeSize of it), so every value takes the vector arithmetic above.
    if bPerPlane && planeSize < 32 && planeSize != lanes && byteGatherIsFast {
        let perRun = 64 / planeSize
        var spread = SIMD64<UInt8>()
        for j in 0..<64 { spread[j] = UInt8(min(j / planeSize, perRun - 1)) }
        @inline(__always) func dequantize(_ v: SIMD16<UInt8>, _ zero: Int32) -> Vector {
            signed ? vbg_dequantize_i8(unsafeBitCast(v, to: SIMD16<Int8>.self), zero, 1) : vbg_dequantize_u8(v, zero, 1)
        }
        let aBytes = a.values.assumingMemoryBound(to: UInt8.self), bBytes = b.values.assumingMemoryBound(to: UInt8.self)
        var plane = 0
        while plane < planes {
            let runPlanes = min(perRun, planes - plane), count = Int32(runPlanes * planeSize), first = plane * planeSize
            let xs = vbg_load_bytes64(aBytes + first, count)
            let bs = vbg_load_bytes64(bBytes + plane, Int32(runPlanes))
            let ys = vbg_permute_bytes(bs, bs, spread)
            // Quarters through memory (SIMD64's lowHalf / highHalf compile to lane-by-lane moves).
            var result = SIMD64<UInt8>()
            withUnsafeBytes(of: xs) { x in
                withUnsafeBytes(of: ys) { y in
                    withUnsafeMutableBytes(of: &result) { r in
                        for q in stride(from: 0, to: 64, by: lanes) {
                            let value = combine(dequantize(x.loadUnaligned(fromByteOffset: q, as: SIMD16<UInt8>.self), aZero),
                                                dequantize(y.loadUnaligned(fromByteOffset: q, as: SIMD16<UInt8>.self), bZero))
                            r.storeBytes(of: value, toByteOffset: q, as: SIMD16<UInt8>.self)
                        }
                    }
                }
            }
            vbg_store_bytes64(output + first, result, count)
            plane += runPlanes
        }
        return
    }
    for plane in 0..<planes {
        let first = plane * planeSize
        let bPlane = bPerPlane ? Vector(repeating: scalar(b.values, plane, bZero, bScale)) : Vector(repeating: 0)
        var i = 0
        while i + lanes <= planeSize {
            let x = load(a.values, first + i, aZero, aScale)
            let y = bPerPlane ? bPlane : load(b.values, first + i, bZero, bScale)
            UnsafeMutableRawPointer(output + first + i).storeBytes(of: combine(x, y), as: SIMD16<UInt8>.self)
            i += lanes
        }
        guard i < planeSize else { continue }
        var x = Vector(repeating: 0), y = bPlane
        for lane in 0..<(planeSize - i) {
            x[lane] = scalar(a.values, first + i + lane, aZero, aScale)
            if !bPerPlane { y[lane] = scalar(b.values, first + i + lane, bZero, bScale) }
        }
        let bytes = combine(x, y)
        for lane in 0..<(planeSize - i) { output[first + i + lane] = bytes[lane] }
    }
}

/// The plane size from which ``quantizedBinary(_:_:_:bPerPlane:signed:planes:planeSize:multiplier:addConstant:outputZero:minimum:maximum:output:)``
/// computes a plane's 256 results once and looks each byte up (the 256 cost what 256 bytes do).
package let tablePlaneSize = 384

