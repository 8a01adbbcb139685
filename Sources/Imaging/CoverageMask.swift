/// The person's coverage per pixel as a byte: a compact, composite-ready form of a ``Mask`` (a
/// quarter of its memory traffic).
///
/// **Rounding rule.** `value = round(255 · edge.coverage(m))`, ties to even (in `Float`), so 0
/// and 255 are exactly the ramp's 0 and 1. Compositing with it (``Compositor/composite(person:background:coverage:into:)``)
/// gives exactly `b + round((p − b) · a / 255)` per byte (no ties occur: 255 is odd), which
/// differs from the `Float` path by at most one level (`|a/255 − coverage| ≤ 1/510`).
package struct CoverageMask: Sendable, Equatable {
    package let width: Int
    package let height: Int
    /// `width · height` bytes, row-major, 255 = person.
    package var values: [UInt8]

    /// A zero coverage (all background).
    /// - Precondition: `width > 0`, `height > 0`.
    package init(width: Int, height: Int) {
        precondition(width > 0 && height > 0, "coverage size must be positive")
        self.width = width
        self.height = height
        values = [UInt8](repeating: 0, count: width * height)
    }

    /// Overwrites the coverage with that of `mask` (allocates nothing).
    /// - Precondition: `mask` has this size.
    package mutating func update(from mask: Mask, edge: EdgeRamp = .standard) {
        precondition(mask.width == width && mask.height == height, "mask size differs")
        let count = width * height
        mask.values.withUnsafeBufferPointer { m in
            values.withUnsafeMutableBufferPointer { c in
                Self.fill(m.baseAddress!, count: count, edge: edge, into: c.baseAddress!)
            }
        }
    }

    @inline(never)
    static func fill(_ mask: UnsafePointer<Float>, count: Int, edge: EdgeRamp, into out: UnsafeMutablePointer<UInt8>) {
        var i = 0
        while i + 16 <= count {
            let a = edge.coverage(UnsafeRawPointer(mask + i).loadUnaligned(as: SIMD16<Float>.self))
            UnsafeMutableRawPointer(out + i).storeBytes(of: FastConvert.lowBytes(FastConvert.roundedInt32(a * 255)),
                                                        as: SIMD16<UInt8>.self)
            i += 16
        }
        while i < count {
            out[i] = UInt8((edge.coverage(mask[i]) * 255).rounded(.toNearestOrEven))
            i += 1
        }
    }
}
