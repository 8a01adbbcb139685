import TargetFeatures

// Byte kernels of the quantized ops that are a function of each byte alone (a 256-entry table:
// com.microsoft QLinearSigmoid, QLinearLeakyRelu), and the integer plane sums under
// QLinearGlobalAveragePool.

/// `table[x[i]]` into `y[i]` for `count` bytes: 64 at a time by ``vbg_lookup_bytes`` where the
/// build gathers bytes in one instruction (AVX512-VBMI), else byte by byte.
package func byteLookup(_ x: UnsafePointer<UInt8>, _ y: UnsafeMutablePointer<UInt8>, count: Int, table: UnsafePointer<UInt8>) {
    var i = 0
    if byteGatherIsFast {
        let raw = UnsafeRawPointer(table)
        let t0 = raw.loadUnaligned(as: SIMD64<UInt8>.self), t1 = raw.loadUnaligned(fromByteOffset: 64, as: SIMD64<UInt8>.self)
        let t2 = raw.loadUnaligned(fromByteOffset: 128, as: SIMD64<UInt8>.self), t3 = raw.loadUnaligned(fromByteOffset: 192, as: SIMD64<UInt8>.self)
        while i + 64 <= count {
            let v = UnsafeRawPointer(x + i).loadUnaligned(as: SIMD64<UInt8>.self)
            UnsafeMutableRawPointer(y + i).storeBytes(of: vbg_lookup_bytes(v, t0, t1, t2, t3), as: SIMD64<UInt8>.self)
            i += 64
        }
        if i < count {
            let rest = Int32(count - i)
            vbg_store_bytes64(y + i, vbg_lookup_bytes(vbg_load_bytes64(x + i, rest), t0, t1, t2, t3), rest)
            return
        }
    }
    while i < count { y[i] = table[Int(x[i])]; i += 1 }
}

/// The int32 sum (wrapping) of each of `planes` planes of `planeSize` bytes of `x` (int8 when
/// `signed`, else uint8) into `sums`: 16 bytes at a time widened to int32 lanes (exact in any order).
package func bytePlaneSums(_ x: UnsafeRawPointer, signed: Bool, planes: Int, planeSize: Int, sums: UnsafeMutablePointer<Int32>) {
    for plane in 0..<planes {
        let source = x + plane * planeSize
        var acc = SIMD16<Int32>()
        var i = 0
        while i + lanes <= planeSize {
            acc &+= signed ? vbg_widen_i8(source.loadUnaligned(fromByteOffset: i, as: SIMD16<Int8>.self), 0)
                : vbg_widen_u8(source.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self), 0)
            i += lanes
        }
        let half = acc.lowHalf &+ acc.highHalf
        var total: Int32 = 0
        for lane in 0..<8 { total &+= half[lane] }
        while i < planeSize {
            total &+= signed ? Int32(source.load(fromByteOffset: i, as: Int8.self)) : Int32(source.load(fromByteOffset: i, as: UInt8.self))
            i += 1
        }
        sums[plane] = total
    }
}

/// The geometry of a 2-D pooling window over planes of bytes: input and output sizes, kernel,
/// stride and the padding before each axis (no dilation).
package struct BytePoolGeometry: Sendable {
    package var inputHeight: Int, inputWidth: Int, outputHeight: Int, outputWidth: Int
    package var kernelHeight: Int, kernelWidth: Int, strideHeight: Int, strideWidth: Int, padTop: Int, padLeft: Int

    package init(inputHeight: Int, inputWidth: Int, outputHeight: Int, outputWidth: Int, kernelHeight: Int, kernelWidth: Int,
                 strideHeight: Int, strideWidth: Int, padTop: Int, padLeft: Int) {
        (self.inputHeight, self.inputWidth, self.outputHeight, self.outputWidth) = (inputHeight, inputWidth, outputHeight, outputWidth)
        (self.kernelHeight, self.kernelWidth, self.strideHeight, self.strideWidth) = (kernelHeight, kernelWidth, strideHeight, strideWidth)
        (self.padTop, self.padLeft) = (padTop, padLeft)
    }
}

/// The quantized mean of each window of each of `planes` byte planes of `x` into `y`: the window
/// (clipped to the plane) summed in float32 as `values[byte]`, row by row and left to right from
/// 0, divided by its tap count (`countIncludesPad`: the kernel's size), then
/// saturate(round_half_even(mean / scale + zero)) in `range` (a NaN to its upper bound), stored as
/// the value's low byte. `values` has 256 entries, indexed by the byte's bit pattern.
package func byteWindowMeans(_ x: UnsafePointer<UInt8>, _ y: UnsafeMutablePointer<UInt8>, planes: Int, _ g: BytePoolGeometry,
                             countIncludesPad: Bool, values: UnsafePointer<Float>, scale: Float, zero: Float, range: ClosedRange<Int32>) {
    let inPlane = g.inputHeight * g.inputWidth, outPlane = g.outputHeight * g.outputWidth
    let lower = Float(range.lowerBound), upper = Float(range.upperBound)
    for plane in 0..<planes {
        let source = x + plane * inPlane, target = y + plane * outPlane
        for oh in 0..<g.outputHeight {
            let top = oh * g.strideHeight - g.padTop
            let rows = max(top, 0)..<min(top + g.kernelHeight, g.inputHeight)
            for ow in 0..<g.outputWidth {
                let left = ow * g.strideWidth - g.padLeft
                let first = max(left, 0), end = min(left + g.kernelWidth, g.inputWidth)
                var sum: Float = 0
                for h in rows {
                    let row = source + h * g.inputWidth
                    var w = first
                    while w < end { sum += values[Int(row[w])]; w += 1 }
                }
                let count = countIncludesPad ? g.kernelHeight * g.kernelWidth : rows.count * max(end - first, 0)
                let rounded = (sum / Float(count) / scale + zero).rounded(.toNearestOrEven)
                let value = rounded < upper ? (rounded > lower ? Int32(rounded) : range.lowerBound) : range.upperBound
                target[oh * g.outputWidth + ow] = UInt8(truncatingIfNeeded: value)
            }
        }
    }
}
