/// Moving elements of any stored type by their size (1, 2, 4 or 8 bytes): the kernels of the
/// data-movement operators, which never look at the values.
enum ElementCopy {
    /// Copies `source[loop operand 1]` to `destination[loop operand 0]` for every position of
    /// `loop`, offsets counted in elements of `byteSize` bytes.
    static func copy(_ loop: StridedLoop, from source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer, byteSize: Int) {
        switch byteSize {
        case 1: copy(loop, source, destination, as: UInt8.self)
        case 2: copy(loop, source, destination, as: UInt16.self)
        case 4: copy(loop, source, destination, as: UInt32.self)
        default: copy(loop, source, destination, as: UInt64.self)
        }
    }

    private static func copy<T>(_ loop: StridedLoop, _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, as _: T.Type) {
        let x = source.assumingMemoryBound(to: T.self), y = destination.assumingMemoryBound(to: T.self)
        loop.forEach { o, i, _ in y[o] = x[i] }
    }

    /// Copies `count` contiguous elements of `byteSize` bytes.
    static func copy(count: Int, from source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer, byteSize: Int) {
        destination.copyMemory(from: source, byteCount: count * byteSize)
    }

    /// The element types a data-movement operator accepts: every stored type.
    static let anyType = Set(ElementType.allCases)
}
