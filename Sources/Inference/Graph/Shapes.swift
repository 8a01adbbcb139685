/// Shape arithmetic shared by validation and the operators.
enum Shapes {
    /// The largest element count any tensor may have (2^31). Larger shapes are rejected before
    /// anything is allocated.
    static let maximumElementCount = 1 << 31

    /// The product of `shape` if every dimension is ≥ 0 and the product is at most
    /// `maximumElementCount`; nil otherwise.
    static func elementCount(_ shape: [Int]) -> Int? {
        var count = 1
        for dimension in shape {
            guard dimension >= 0, dimension <= maximumElementCount else { return nil }
            count *= dimension  // both ≤ 2^31 after the check below, so no overflow on 64-bit
            guard count <= maximumElementCount else { return nil }
        }
        return count
    }

    /// numpy-style multidirectional broadcasting of two shapes, or nil when they are incompatible.
    static func broadcast(_ a: [Int], _ b: [Int]) -> [Int]? {
        let rank = max(a.count, b.count)
        var result = [Int](repeating: 1, count: rank)
        for i in 0..<rank {
            let da = i < rank - a.count ? 1 : a[i - (rank - a.count)]
            let db = i < rank - b.count ? 1 : b[i - (rank - b.count)]
            guard da == db || da == 1 || db == 1 else { return nil }
            result[i] = da == 1 ? db : da
        }
        return result
    }

    /// C-order strides of `shape`.
    static func strides(_ shape: [Int]) -> [Int] {
        var strides = [Int](repeating: 1, count: shape.count)
        var running = 1
        for i in stride(from: shape.count - 1, through: 0, by: -1) {
            strides[i] = running
            running *= shape[i]
        }
        return strides
    }

    /// Strides for reading a tensor of `shape` while iterating over `target` (same rank or lower,
    /// right-aligned): broadcast dimensions get stride 0.
    static func broadcastStrides(_ shape: [Int], to target: [Int]) -> [Int] {
        let own = strides(shape)
        let offset = target.count - shape.count
        return target.indices.map { i in
            i < offset || shape[i - offset] == 1 ? 0 : own[i - offset]
        }
    }

    /// `floor(a / b)` for b > 0.
    static func floorDivide(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }

    /// `ceil(a / b)` for b > 0.
    static func ceilDivide(_ a: Int, _ b: Int) -> Int { a >= 0 ? (a + b - 1) / b : -((-a) / b) }
}

/// Loops over up to six dimensions with an offset into each of up to three tensors, without
/// allocating: shapes are right-aligned into six slots padded with 1.
/// Steps the C-order multi-index `index` of `shape` to the next position, counting on axes
/// `0...last` only (the axes after `last` are left alone); wraps to all zeros after the last one.
@inline(__always)
func advance<Index: MutableCollection>(_ index: inout Index, in shape: [Int], through last: Int)
    where Index.Index == Int, Index.Element == Int {
    var axis = last
    while axis >= 0 {
        index[axis] += 1
        if index[axis] < shape[axis] { return }
        index[axis] = 0
        axis -= 1
    }
}

struct StridedLoop: Sendable {
    static let maximumRank = 6
    /// Extents, outermost first, padded to six.
    let extents: [Int]
    /// Per operand, the stride of each of the six slots.
    let strides: [[Int]]

    /// - Precondition: `shape.count <= 6`, at most three operands, each with `shape.count` strides.
    init(shape: [Int], strides operandStrides: [[Int]]) {
        precondition(shape.count <= Self.maximumRank)
        let pad = Self.maximumRank - shape.count
        extents = [Int](repeating: 1, count: pad) + shape
        // Always three operands, so `forEach` never has to build a stride list while it runs.
        let padded = operandStrides + [[Int]](repeating: [Int](repeating: 0, count: shape.count), count: 3 - operandStrides.count)
        strides = padded.map { [Int](repeating: 0, count: pad) + $0 }
    }

    /// Calls `body` with the offsets of operands 0, 1 and 2 for every position, in C order.
    @inline(__always)
    func forEach(_ body: (Int, Int, Int) -> Void) {
        let e = extents
        let s0 = strides[0], s1 = strides[1], s2 = strides[2]
        for i0 in 0..<e[0] {
            let a0 = i0 * s0[0], b0 = i0 * s1[0], c0 = i0 * s2[0]
            for i1 in 0..<e[1] {
                let a1 = a0 + i1 * s0[1], b1 = b0 + i1 * s1[1], c1 = c0 + i1 * s2[1]
                for i2 in 0..<e[2] {
                    let a2 = a1 + i2 * s0[2], b2 = b1 + i2 * s1[2], c2 = c1 + i2 * s2[2]
                    for i3 in 0..<e[3] {
                        let a3 = a2 + i3 * s0[3], b3 = b2 + i3 * s1[3], c3 = c2 + i3 * s2[3]
                        for i4 in 0..<e[4] {
                            let a4 = a3 + i4 * s0[4], b4 = b3 + i4 * s1[4], c4 = c3 + i4 * s2[4]
                            let sa = s0[5], sb = s1[5], sc = s2[5]
                            for i5 in 0..<e[5] {
                                body(a4 + i5 * sa, b4 + i5 * sb, c4 + i5 * sc)
                            }
                        }
                    }
                }
            }
        }
    }
}
