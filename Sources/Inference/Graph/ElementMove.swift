/// Moving elements of any element type by their byte size: what the type-generic data-movement
/// operators (Transpose, Slice, Expand, Gather, ...) run.
enum ElementMove {
    /// `y[o] = x[i]` for every position of `loop`, whose operand 0 indexes `y` and operand 1 `x`,
    /// in elements of `size` bytes (1, 2, 4 or 8).
    static func gather(_ loop: StridedLoop, from x: UnsafeRawPointer, to y: UnsafeMutableRawPointer, size: Int) {
        switch size {
        case 1: gather(loop, x, y, UInt8.self)
        case 2: gather(loop, x, y, UInt16.self)
        case 4: gather(loop, x, y, UInt32.self)
        default: gather(loop, x, y, UInt64.self)
        }
    }

    private static func gather<T>(_ loop: StridedLoop, _ x: UnsafeRawPointer, _ y: UnsafeMutableRawPointer, _: T.Type) {
        let source = x.assumingMemoryBound(to: T.self), destination = y.assumingMemoryBound(to: T.self)
        loop.forEach { o, i, _ in destination[o] = source[i] }
    }

    /// Copies `count` elements of `size` bytes.
    static func copy(_ count: Int, from x: UnsafeRawPointer, to y: UnsafeMutableRawPointer, size: Int) {
        y.copyMemory(from: x, byteCount: count * size)
    }
}
