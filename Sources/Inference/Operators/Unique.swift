/// ONNX `Unique` (11): the distinct elements of X (without `axis`, X flattened) or its distinct
/// slices along `axis`, sorted ascending (`sorted` 1, the default; slices compared element by
/// element in C order) or in the order of their first occurrence (`sorted` 0), as numpy's `unique`
/// and onnx's reference compute them; with the optional outputs `indices` (the first occurrence
/// of each in X), `inverse_indices` (for each element or slice of X, its position in Y) and
/// `counts`, all int64. Elements compare by value (−0 equals +0).
///
/// The outputs' shapes depend on X's values, so X must be a plan-time constant (an initializer,
/// a constant computation, or a graph input fixed into the plan), and Unique is computed when the
/// plan is built.
final class Unique: Operator {
    let dataInputs: [Int] = []
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    /// Each output's bytes.
    let values: [[UInt8]]
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        let outputCount = context.node.outputs.count
        try context.checkArity(inputs: 1, 1, outputs: min(max(outputCount, 1), 4))
        try context.checkAttributes(["axis", "sorted"])
        let sorted = try context.int("sorted", default: 1, in: 0...1) == 1
        guard let x = try context.constant(0, "X") else { throw context.error(.malformed, "input 0 is required but empty") }
        let hasAxis = context.attribute("axis") != nil
        let axis = hasAxis ? try context.axis(try context.int("axis", default: 0), rank: x.shape.count, attribute: "axis") : 0
        // Slice k: the elements of X with index k along the axis (or element k of the flattened X).
        let sliceCount = hasAxis ? x.shape[axis] : x.elementCount
        let inner = hasAxis ? x.shape[(axis + 1)...].reduce(1, *) : 1
        let outer = hasAxis ? x.shape[..<axis].reduce(1, *) : 1
        let sliceSize = outer * inner
        let keys: [[Double]] = x.bytes.withUnsafeBytes { raw in
            (0..<sliceCount).map { k in
                (0..<outer).flatMap { o in (0..<inner).map { i in TensorElements.double(raw.baseAddress!, at: (o * sliceCount + k) * inner + i, x.type) } }
            }
        }
        func less(_ a: [Double], _ b: [Double]) -> Bool {
            for (u, v) in zip(a, b) where u != v { return u < v }
            return false
        }
        // Stable sort by value groups equal slices with their first occurrence first.
        let order = (0..<sliceCount).sorted { less(keys[$0], keys[$1]) || (keys[$0] == keys[$1] && $0 < $1) }
        var groups: [[Int]] = []
        for k in order {
            if let last = groups.last?.first, keys[last] == keys[k] { groups[groups.count - 1].append(k) } else { groups.append([k]) }
        }
        if !sorted { groups.sort { $0[0] < $1[0] } }
        var inverse = [Int64](repeating: 0, count: sliceCount)
        for (position, group) in groups.enumerated() { for k in group { inverse[k] = Int64(position) } }
        // Y: the first occurrence of each group, laid out as X with `groups.count` along the axis.
        let size = x.type.byteSize
        var y = [UInt8](repeating: 0, count: groups.count * sliceSize * size)
        for (position, group) in groups.enumerated() {
            for o in 0..<outer {
                let source = ((o * sliceCount + group[0]) * inner) * size, destination = ((o * groups.count + position) * inner) * size
                y.replaceSubrange(destination..<(destination + inner * size), with: x.bytes[source..<(source + inner * size)])
            }
        }
        var yShape = hasAxis ? x.shape : [groups.count]
        if hasAxis { yShape[axis] = groups.count }
        let shapes = [yShape, [groups.count], [sliceCount], [groups.count]]
        let types = [x.type, .int64, .int64, .int64]
        let values = [y, TensorElements.bytes(of: groups.map { Int64($0[0]) }, as: .int64), TensorElements.bytes(of: inverse, as: .int64),
                      TensorElements.bytes(of: groups.map { Int64($0.count) }, as: .int64)]
        let count = max(outputCount, 1)
        return Unique(outputShapes: Array(shapes.prefix(count)), outputTypes: Array(types.prefix(count)), values: Array(values.prefix(count)))
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        for (output, bytes) in zip(outputs, values) {
            bytes.withUnsafeBytes { if let base = $0.baseAddress { UnsafeMutableRawPointer(output).copyMemory(from: base, byteCount: $0.count) } }
        }
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], values: [[UInt8]]) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.values = values
    }
}
