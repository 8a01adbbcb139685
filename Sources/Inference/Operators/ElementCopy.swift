/// Moving elements of any stored type by their size (1, 2, 4 or 8 bytes): the kernels of the
/// data-movement operators, which never look at the values.
enum ElementCopy {
    /// Copies `source[loop operand 1]` to `destination[loop operand 0]` for every position of
    /// `loop`, offsets counted in elements of `byteSize` bytes.
    ///
    /// One concrete loop per size, not a generic one: an unspecialised generic closure (a debug
    /// build) captures values of unknown size in a heap-allocated context on every call.
    static func copy(_ loop: StridedLoop, from source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer, byteSize: Int) {
        switch byteSize {
        case 1:
            let x = source.assumingMemoryBound(to: UInt8.self), y = destination.assumingMemoryBound(to: UInt8.self)
            loop.forEach { o, i, _ in y[o] = x[i] }
        case 2:
            let x = source.assumingMemoryBound(to: UInt16.self), y = destination.assumingMemoryBound(to: UInt16.self)
            loop.forEach { o, i, _ in y[o] = x[i] }
        case 4:
            let x = source.assumingMemoryBound(to: UInt32.self), y = destination.assumingMemoryBound(to: UInt32.self)
            loop.forEach { o, i, _ in y[o] = x[i] }
        default:
            let x = source.assumingMemoryBound(to: UInt64.self), y = destination.assumingMemoryBound(to: UInt64.self)
            loop.forEach { o, i, _ in y[o] = x[i] }
        }
    }

    /// Copies `count` contiguous elements of `byteSize` bytes.
    static func copy(count: Int, from source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer, byteSize: Int) {
        destination.copyMemory(from: source, byteCount: count * byteSize)
    }

    /// The element types a data-movement operator accepts: every stored type.
    static let anyType = Set(ElementType.allCases)
}
