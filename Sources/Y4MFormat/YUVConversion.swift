import Imaging

/// BT.601 limited-range ("studio swing") conversion between 8-bit YUV planes and RGBA/BGRA, in
/// 8-bit fixed point (the classic integer coefficients, ×256):
///
///     YUV → RGB:  c = Y − 16, d = U − 128, e = V − 128
///                 R = clamp((298c + 409e + 128) >> 8)
///                 G = clamp((298c − 100d − 208e + 128) >> 8)
///                 B = clamp((298c + 516d + 128) >> 8)
///     RGB → YUV:  Y = ((66R + 129G + 25B + 128) >> 8) + 16
///                 U = ((−38R − 74G + 112B + 128) >> 8) + 128
///                 V = ((112R − 94G − 18B + 128) >> 8) + 128
///
/// (`>>` is an arithmetic shift: floor division, so `+128` rounds half up.) For 4:2:0 the chroma
/// of a 2x2 block is computed from the block's mean colour (rounded half up), and on the way back
/// each chroma sample is repeated over its block (nearest; the 420jpeg/paldv/mpeg2 sitings are
/// not distinguished). Alpha is 255 on the way in and ignored on the way out. The row loops work
/// on raw pointers with no per-pixel branches so the compiler vectorises them.
package enum YUVConversion {
    /// Fills `image` (which must have the header's size) from Y, U, V planes packed back to back.
    package static func toImage(planes: UnsafePointer<UInt8>, header: Y4MHeader, into image: inout Image) {
        precondition(image.width == header.width && image.height == header.height, "image size differs from the stream's")
        let w = header.width, h = header.height
        let (cw, ch) = header.chromaSize
        let yPlane = planes, uPlane = planes + w * h, vPlane = uPlane + cw * ch
        let (ro, go, bo) = image.format.channelOffsets
        let shift = header.chroma.isSubsampled ? 1 : 0
        let stride = image.bytesPerRow
        image.bytes.withUnsafeMutableBufferPointer { out in
            for y in 0..<h {
                let row = out.baseAddress! + y * stride
                let ys = yPlane + y * w
                let us = uPlane + (y >> shift) * cw, vs = vPlane + (y >> shift) * cw
                var x = 0
                if shift == 1 {
                    // 16 pixels per step: the same integer formula on 16 lanes.
                    while x + 16 <= w {
                        let words = rgbaWords(y: ys + x, u: us + x / 2, v: vs + x / 2, redShift: ro, greenShift: go, blueShift: bo)
                        UnsafeMutableRawPointer(row + 4 * x).storeBytes(of: words, as: SIMD16<UInt32>.self)
                        x += 16
                    }
                }
                for x in x..<w {
                    let c = 298 &* (Int32(ys[x]) &- 16)
                    let d = Int32(us[x >> shift]) &- 128, e = Int32(vs[x >> shift]) &- 128
                    let r = (c &+ 409 &* e &+ 128) >> 8
                    let g = (c &- 100 &* d &- 208 &* e &+ 128) >> 8
                    let b = (c &+ 516 &* d &+ 128) >> 8
                    row[4 * x + ro] = UInt8(min(max(r, 0), 255))
                    row[4 * x + go] = UInt8(min(max(g, 0), 255))
                    row[4 * x + bo] = UInt8(min(max(b, 0), 255))
                    row[4 * x + 3] = 255
                }
            }
        }
    }

    /// 16 pixels of a 4:2:0 row (16 Y samples, 8 U and 8 V, each repeated twice) as 32-bit RGBA
    /// words in memory order: the formula above on 16 integer lanes.
    @_transparent
    static func rgbaWords(y: UnsafePointer<UInt8>, u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>,
                          redShift ro: Int, greenShift go: Int, blueShift bo: Int) -> SIMD16<UInt32> {
        let c = SIMD16<Int32>(Int32(y[0]), Int32(y[1]), Int32(y[2]), Int32(y[3]), Int32(y[4]), Int32(y[5]), Int32(y[6]),
                              Int32(y[7]), Int32(y[8]), Int32(y[9]), Int32(y[10]), Int32(y[11]), Int32(y[12]), Int32(y[13]),
                              Int32(y[14]), Int32(y[15])) &- 16 &* 1
        @inline(__always) func doubled(_ p: UnsafePointer<UInt8>) -> SIMD16<Int32> {
            SIMD16<Int32>(Int32(p[0]), Int32(p[0]), Int32(p[1]), Int32(p[1]), Int32(p[2]), Int32(p[2]), Int32(p[3]), Int32(p[3]),
                          Int32(p[4]), Int32(p[4]), Int32(p[5]), Int32(p[5]), Int32(p[6]), Int32(p[6]), Int32(p[7]), Int32(p[7])) &- 128
        }
        let d = doubled(u), e = doubled(v)
        let luma = 298 &* c &+ 128
        // Clamp into [0, 255] with shifts and masks (`replacing(with:where:)` compiled to mask
        // registers and branches here): negative → 0, above 255 → all ones, then the low byte.
        @inline(__always) func clamped(_ t: SIMD16<Int32>) -> SIMD16<UInt32> {
            let t = t &>> 8
            let nonNegative = t & ~(t &>> 31)
            let saturated = nonNegative | ((255 &- nonNegative) &>> 31)
            return unsafeBitCast(saturated, to: SIMD16<UInt32>.self) & 0xFF
        }
        let r = clamped(luma &+ 409 &* e)
        let g = clamped(luma &- 100 &* d &- 208 &* e)
        let b = clamped(luma &+ 516 &* d)
        return (r &<< UInt32(8 * ro)) | (g &<< UInt32(8 * go)) | (b &<< UInt32(8 * bo)) | 0xFF00_0000
    }

    /// Writes Y, U, V planes (back to back, `header.frameByteCount` bytes) for `image`.
    package static func toPlanes(_ image: Image, header: Y4MHeader, into planes: UnsafeMutablePointer<UInt8>) {
        precondition(image.width == header.width && image.height == header.height, "image size differs from the stream's")
        let w = header.width, h = header.height
        let (cw, ch) = header.chromaSize
        let yPlane = planes, uPlane = planes + w * h, vPlane = uPlane + cw * ch
        let (ro, go, bo) = image.format.channelOffsets
        let stride = image.bytesPerRow
        @inline(__always) func chroma(_ r: Int32, _ g: Int32, _ b: Int32) -> (UInt8, UInt8) {
            (UInt8(truncatingIfNeeded: ((-38 &* r &- 74 &* g &+ 112 &* b &+ 128) >> 8) &+ 128),
             UInt8(truncatingIfNeeded: ((112 &* r &- 94 &* g &- 18 &* b &+ 128) >> 8) &+ 128))
        }
        image.bytes.withUnsafeBufferPointer { src in
            let base = src.baseAddress!
            for y in 0..<h {
                let row = base + y * stride
                let out = yPlane + y * w
                var x = 0
                while x + 16 <= w {
                    let words = UnsafeRawPointer(row + 4 * x).loadUnaligned(as: SIMD16<UInt32>.self)
                    @inline(__always) func channel(_ offset: Int) -> SIMD16<Int32> {
                        unsafeBitCast((words &>> UInt32(8 * offset)) & 0xFF, to: SIMD16<Int32>.self)
                    }
                    let luma = ((66 &* channel(ro) &+ 129 &* channel(go) &+ 25 &* channel(bo) &+ 128) &>> 8) &+ 16
                    UnsafeMutableRawPointer(out + x).storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: luma), as: SIMD16<UInt8>.self)
                    x += 16
                }
                for x in x..<w {
                    let r = Int32(row[4 * x + ro]), g = Int32(row[4 * x + go]), b = Int32(row[4 * x + bo])
                    out[x] = UInt8(truncatingIfNeeded: ((66 &* r &+ 129 &* g &+ 25 &* b &+ 128) >> 8) &+ 16)
                }
            }
            if !header.chroma.isSubsampled {
                for y in 0..<h {
                    let row = base + y * stride
                    for x in 0..<w {
                        let (u, v) = chroma(Int32(row[4 * x + ro]), Int32(row[4 * x + go]), Int32(row[4 * x + bo]))
                        uPlane[y * cw + x] = u; vPlane[y * cw + x] = v
                    }
                }
                return
            }
            for cy in 0..<ch {
                let r0 = base + (2 * cy) * stride, r1 = base + min(2 * cy + 1, h - 1) * stride
                var cx = 0
                // 8 chroma samples (16 pixels of both rows) per step; a 64-bit lane holds a pixel pair.
                while 2 * cx + 16 <= w {
                    let q0 = UnsafeRawPointer(r0 + 8 * cx).loadUnaligned(as: SIMD8<UInt64>.self)
                    let q1 = UnsafeRawPointer(r1 + 8 * cx).loadUnaligned(as: SIMD8<UInt64>.self)
                    @inline(__always) func mean(_ offset: Int) -> SIMD8<Int64> {
                        let low = UInt64(8 * offset), high = UInt64(8 * offset + 32)
                        let sum = ((q0 &>> low) & 0xFF) &+ ((q0 &>> high) & 0xFF) &+ ((q1 &>> low) & 0xFF) &+ ((q1 &>> high) & 0xFF)
                        return unsafeBitCast((sum &+ 2) &>> 2, to: SIMD8<Int64>.self)
                    }
                    let r = mean(ro), g = mean(go), b = mean(bo)
                    let u = ((-38 &* r &- 74 &* g &+ 112 &* b &+ 128) &>> 8) &+ 128
                    let v = ((112 &* r &- 94 &* g &- 18 &* b &+ 128) &>> 8) &+ 128
                    UnsafeMutableRawPointer(uPlane + cy * cw + cx).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: u), as: SIMD8<UInt8>.self)
                    UnsafeMutableRawPointer(vPlane + cy * cw + cx).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: v), as: SIMD8<UInt8>.self)
                    cx += 8
                }
                for cx in cx..<cw {
                    let x0 = 4 * (2 * cx), x1 = 4 * min(2 * cx + 1, w - 1)
                    @inline(__always) func mean(_ o: Int) -> Int32 {
                        (Int32(r0[x0 + o]) &+ Int32(r0[x1 + o]) &+ Int32(r1[x0 + o]) &+ Int32(r1[x1 + o]) &+ 2) >> 2
                    }
                    let (u, v) = chroma(mean(ro), mean(go), mean(bo))
                    uPlane[cy * cw + cx] = u; vPlane[cy * cw + cx] = v
                }
            }
        }
    }
}
