import HalfPrecision

/// An output whose every element is one input element or a fill value, chosen independently
/// along each axis: output index o on axis a reads input index `sources[a][o]`, or the fill value
/// when that is −1 on any axis. Pad, Tile and nearest-neighbour resizing are this gather with
/// different tables; it moves elements of any type by their size.
final class AxisGather: Operator {
    var checksInputTypes: Bool { true }

    let dataInputs = [0]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    /// Per output axis, per output index: the input element offset along that axis (the input
    /// index times the input's stride), or −1 for the fill value.
    let sources: [[Int]]
    /// The fill value's bytes as the low bytes of a little-endian 64-bit pattern.
    let fill: UInt64

    /// The longest output axis a builder may make tables for: they cost 8 bytes per position on
    /// each axis and are built when the model loads, so their size is bounded before any is built.
    static let maximumAxisLength = 1 << 24

    /// Checks that `output` may be made: at most 2^31 elements, each axis at most
    /// ``maximumAxisLength`` long (before any table is built).
    static func checkOutput(_ output: [Int], _ context: NodeContext) throws(ModelError) {
        guard Shapes.elementCount(output) != nil else { throw context.error(.invalidShape, "output \(output) has more than 2^31 elements") }
        if let axis = output.firstIndex(where: { $0 > maximumAxisLength }) {
            throw context.error(.unsupported, "output \(output) has axis \(axis) longer than \(maximumAxisLength)")
        }
    }

    /// - Precondition: `sources[a].count == outputShape[a]`; the input indices lie in `input`.
    init(input: [Int], outputShape: [Int], type: ElementType, sourceIndices: [[Int]], fill: UInt64 = 0) {
        let strides = Shapes.strides(input)
        outputShapes = [outputShape]
        outputTypes = [type]
        sources = zip(sourceIndices, strides).map { table, stride in table.map { $0 < 0 ? -1 : $0 * stride } }
        self.fill = fill
    }

    /// The bit pattern of element 0 of `bytes` (a constant of the data's type), for `fill`.
    static func pattern(_ bytes: [UInt8]) -> UInt64 {
        bytes.prefix(8).enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
    }

    /// The bit pattern of `value` converted to `type` (integers truncate toward zero).
    static func pattern(_ value: Float, as type: ElementType) -> UInt64 {
        switch type {
        case .float32: UInt64(value.bitPattern)
        case .float16: UInt64(Half.bits(value))
        case .double: Double(value).bitPattern
        default: pattern(TensorElements.bytes(of: [Int64(value.rounded(.towardZero))], as: type))
        }
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = UnsafeRawPointer(inputs[0]), y = UnsafeMutableRawPointer(outputs[0])
        switch outputTypes[0].byteSize {
        case 1: gather(x, y, fill: UInt8(truncatingIfNeeded: fill))
        case 2: gather(x, y, fill: UInt16(truncatingIfNeeded: fill))
        case 4: gather(x, y, fill: UInt32(truncatingIfNeeded: fill))
        default: gather(x, y, fill: fill)
        }
    }

    /// Row by row along the last axis, with an odometer over the outer axes.
    private func gather<T>(_ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, fill: T) {
        let x = source.assumingMemoryBound(to: T.self)
        var y = destination.assumingMemoryBound(to: T.self)
        let shape = outputShapes[0], rank = shape.count
        guard rank > 0 else { y[0] = x[0]; return }
        guard !shape.contains(0) else { return }
        let rowLength = shape[rank - 1], rows = shape.dropLast().reduce(1, *)
        let last = sources[rank - 1]
        withUnsafeTemporaryAllocation(of: Int.self, capacity: rank) { index in
            index.initialize(repeating: 0)
            for _ in 0..<rows {
                var base = 0, inside = true
                for a in 0..<(rank - 1) {
                    let offset = sources[a][index[a]]
                    if offset < 0 { inside = false; break }
                    base += offset
                }
                if inside {
                    for j in 0..<rowLength { y[j] = last[j] < 0 ? fill : x[base + last[j]] }
                } else {
                    for j in 0..<rowLength { y[j] = fill }
                }
                y += rowLength
                var position = index  // the same memory: a buffer pointer
                advance(&position, in: shape, through: rank - 2)
            }
        }
    }
}
