/// Conversions written lane by lane, always inlined: the stdlib's generic SIMD conversion
/// initialisers are either scalarised (`init(_:rounding:)`) or called out of line in large
/// functions; these lower to single vector instructions (`vpmovzxbd`+`vcvtdq2ps`, `vpmovdb`).
enum FastConvert {
    /// 16 bytes → 16 floats.
    @inline(__always) static func floats(_ p: UnsafeRawPointer) -> SIMD16<Float> {
        let b = p.assumingMemoryBound(to: UInt8.self)
        return SIMD16<Float>(Float(b[0]), Float(b[1]), Float(b[2]), Float(b[3]), Float(b[4]), Float(b[5]),
                             Float(b[6]), Float(b[7]), Float(b[8]), Float(b[9]), Float(b[10]), Float(b[11]),
                             Float(b[12]), Float(b[13]), Float(b[14]), Float(b[15]))
    }

    /// 16 bytes → 16 `Int32` lanes.
    @inline(__always) static func int32s(_ p: UnsafeRawPointer) -> SIMD16<Int32> {
        let b = p.assumingMemoryBound(to: UInt8.self)
        return SIMD16<Int32>(Int32(b[0]), Int32(b[1]), Int32(b[2]), Int32(b[3]), Int32(b[4]), Int32(b[5]),
                             Int32(b[6]), Int32(b[7]), Int32(b[8]), Int32(b[9]), Int32(b[10]), Int32(b[11]),
                             Int32(b[12]), Int32(b[13]), Int32(b[14]), Int32(b[15]))
    }

    /// `Int32` lanes → floats (exact below 2²⁴).
    @inline(__always) static func floats(_ v: SIMD16<Int32>) -> SIMD16<Float> {
        SIMD16<Float>(Float(v[0]), Float(v[1]), Float(v[2]), Float(v[3]), Float(v[4]), Float(v[5]), Float(v[6]), Float(v[7]),
                      Float(v[8]), Float(v[9]), Float(v[10]), Float(v[11]), Float(v[12]), Float(v[13]), Float(v[14]), Float(v[15]))
    }

    /// The low byte of each lane.
    @inline(__always) static func lowBytes(_ v: SIMD16<Int32>) -> SIMD16<UInt8> {
        SIMD16<UInt8>(UInt8(truncatingIfNeeded: v[0]), UInt8(truncatingIfNeeded: v[1]), UInt8(truncatingIfNeeded: v[2]),
                      UInt8(truncatingIfNeeded: v[3]), UInt8(truncatingIfNeeded: v[4]), UInt8(truncatingIfNeeded: v[5]),
                      UInt8(truncatingIfNeeded: v[6]), UInt8(truncatingIfNeeded: v[7]), UInt8(truncatingIfNeeded: v[8]),
                      UInt8(truncatingIfNeeded: v[9]), UInt8(truncatingIfNeeded: v[10]), UInt8(truncatingIfNeeded: v[11]),
                      UInt8(truncatingIfNeeded: v[12]), UInt8(truncatingIfNeeded: v[13]), UInt8(truncatingIfNeeded: v[14]),
                      UInt8(truncatingIfNeeded: v[15]))
    }

    /// The low 16 bits of each lane, stored as 16 `UInt16`s.
    @inline(__always) static func storeLowHalves(_ v: SIMD16<Int32>, to p: UnsafeMutablePointer<UInt16>) {
        let h = SIMD16<UInt16>(UInt16(truncatingIfNeeded: v[0]), UInt16(truncatingIfNeeded: v[1]), UInt16(truncatingIfNeeded: v[2]),
                               UInt16(truncatingIfNeeded: v[3]), UInt16(truncatingIfNeeded: v[4]), UInt16(truncatingIfNeeded: v[5]),
                               UInt16(truncatingIfNeeded: v[6]), UInt16(truncatingIfNeeded: v[7]), UInt16(truncatingIfNeeded: v[8]),
                               UInt16(truncatingIfNeeded: v[9]), UInt16(truncatingIfNeeded: v[10]), UInt16(truncatingIfNeeded: v[11]),
                               UInt16(truncatingIfNeeded: v[12]), UInt16(truncatingIfNeeded: v[13]), UInt16(truncatingIfNeeded: v[14]),
                               UInt16(truncatingIfNeeded: v[15]))
        UnsafeMutableRawPointer(p).storeBytes(of: h, as: SIMD16<UInt16>.self)
    }

    /// Four pixels (16 `UInt16` lanes) from four rows, one pixel each, as floats.
    @inline(__always) static func floats(_ a: UnsafePointer<UInt16>, _ b: UnsafePointer<UInt16>,
                                         _ c: UnsafePointer<UInt16>, _ d: UnsafePointer<UInt16>) -> SIMD16<Float> {
        SIMD16<Float>(Float(a[0]), Float(a[1]), Float(a[2]), Float(a[3]), Float(b[0]), Float(b[1]), Float(b[2]), Float(b[3]),
                      Float(c[0]), Float(c[1]), Float(c[2]), Float(c[3]), Float(d[0]), Float(d[1]), Float(d[2]), Float(d[3]))
    }

    /// The low byte of each lane, stored as 16 bytes.
    @inline(__always) static func storeLowBytes(_ v: SIMD16<Int32>, to p: UnsafeMutableRawPointer) {
        let b = p.assumingMemoryBound(to: UInt8.self)
        b[0] = UInt8(truncatingIfNeeded: v[0]); b[1] = UInt8(truncatingIfNeeded: v[1])
        b[2] = UInt8(truncatingIfNeeded: v[2]); b[3] = UInt8(truncatingIfNeeded: v[3])
        b[4] = UInt8(truncatingIfNeeded: v[4]); b[5] = UInt8(truncatingIfNeeded: v[5])
        b[6] = UInt8(truncatingIfNeeded: v[6]); b[7] = UInt8(truncatingIfNeeded: v[7])
        b[8] = UInt8(truncatingIfNeeded: v[8]); b[9] = UInt8(truncatingIfNeeded: v[9])
        b[10] = UInt8(truncatingIfNeeded: v[10]); b[11] = UInt8(truncatingIfNeeded: v[11])
        b[12] = UInt8(truncatingIfNeeded: v[12]); b[13] = UInt8(truncatingIfNeeded: v[13])
        b[14] = UInt8(truncatingIfNeeded: v[14]); b[15] = UInt8(truncatingIfNeeded: v[15])
    }

    /// Rounds to the nearest integer (ties to even), staying in `Float`: adding and subtracting
    /// 1.5·2²³ leaves no fraction bits. Two adds on any x86-64, where `rounded(_:)` needs SSE4.1
    /// (`roundps`) and is a `roundf` call per lane in a baseline build.
    /// - Precondition: every lane in `[−2²², 2²²]`.
    @inline(__always) static func roundedToInteger(_ v: SIMD16<Float>) -> SIMD16<Float> {
        (v + 12_582_912) - 12_582_912
    }

    /// Rounds to the nearest integer (ties to even) and returns it as Int32 lanes.
    /// - Precondition: every lane in `[−2²², 2²²]`.
    @inline(__always) static func roundedInt32(_ v: SIMD16<Float>) -> SIMD16<Int32> {
        unsafeBitCast(v + 12_582_912, to: SIMD16<Int32>.self) &- 0x4B40_0000
    }

    /// Rounds and saturates to bytes: lanes are clamped into [0, 255] first.
    @inline(__always) static func bytes(_ v: SIMD16<Float>) -> SIMD16<UInt8> {
        var c = v.replacing(with: 0, where: v .< 0)
        c = c.replacing(with: 255, where: c .> 255)
        return SIMD16<UInt8>(truncatingIfNeeded: roundedInt32(c))
    }

    /// Each of lanes `4k…4k+3` of a 16-lane vector repeated four times (one value per pixel →
    /// one per channel), for the four pixels starting at lane `4k`.
    @inline(__always) static func spread<T: SIMDScalar>(_ v: SIMD16<T>, quarter k: Int) -> SIMD16<T> {
        let b = 4 * k
        return SIMD16(v[b], v[b], v[b], v[b], v[b + 1], v[b + 1], v[b + 1], v[b + 1],
                      v[b + 2], v[b + 2], v[b + 2], v[b + 2], v[b + 3], v[b + 3], v[b + 3], v[b + 3])
    }
}
