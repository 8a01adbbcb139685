/// ONNX `TopK` (versions 1, 10 and 11): the `k` largest (or, with `largest` = 0, smallest)
/// elements along `axis` (default −1) and their int64 indices, best first; equal values keep the
/// lower index first. Version 1 takes `k` as an attribute, versions 10+ as a constant one-element
/// int64 input; `largest` and `sorted` exist from version 11. Output is always sorted, which
/// `sorted` = 0 (order unspecified) also allows. Float32, double, int32, uint32, int64 or uint64 input.
final class TopK: Operator {
    let type: ElementType
    let largest: Bool
    let dataInputs = [0]
    let outputShapes: [[Int]]
    var outputTypes: [ElementType] { [type, .int64] }
    var checksInputTypes: Bool { true }
    let outer: Int, length: Int, inner: Int, k: Int

    static let build: OperatorBuilder = { context throws(ModelError) in
        let kIsInput = context.opVersion >= 10
        try context.checkArity(inputs: kIsInput ? 2 : 1, kIsInput ? 2 : 1, outputs: 2)
        try context.checkAttributes(context.opVersion >= 11 ? ["axis", "largest", "sorted"] : kIsInput ? ["axis"] : ["axis", "k"])
        let type = try context.requireType(ofInput: 0, in: [.float32, .double, .int32, .uint32, .int64, .uint64])
        let x = try context.shape(ofInput: 0)
        let axis = try context.axis(try context.int("axis", default: -1), rank: x.count, attribute: "axis")
        let k: Int
        if kIsInput {
            guard let values = try context.constantIntegers(1, "K"), values.count == 1 else {
                throw context.error(.invalidShape, "input 1 ('K') must hold one integer")
            }
            k = Int(clamping: values[0])
        } else {
            guard context.attribute("k") != nil else { throw context.error(.malformed, "the attribute is required", attribute: "k") }
            k = try context.int("k", default: 0)
        }
        guard k >= 0, k <= x[axis] else {
            throw context.error(.invalidShape, "k = \(k) is outside 0...\(x[axis]) (the length of axis \(axis))", attribute: kIsInput ? nil : "k")
        }
        _ = try context.int("sorted", default: 1, in: 0...1)
        var output = x
        output[axis] = k
        return TopK(type: type, largest: try context.int("largest", default: 1, in: 0...1) == 1, outputShapes: [output, output],
                    outer: x[..<axis].reduce(1, *), length: x[axis], inner: x[(axis + 1)...].reduce(1, *), k: k)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let indices = UnsafeMutableRawPointer(outputs[1]).assumingMemoryBound(to: Int64.self)
        if type == .float32 {
            let x = inputs[0], y = outputs[0]
            select(indices, read: { Double(x[$0]) }, write: { y[$0] = Float($1) })
        } else if type == .double {
            let x = UnsafeRawPointer(inputs[0]).assumingMemoryBound(to: Double.self)
            let y = UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: Double.self)
            select(indices, read: { x[$0] }, write: { y[$0] = $1 })
        } else if type == .uint64 {
            let x = UnsafeRawPointer(inputs[0]).assumingMemoryBound(to: UInt64.self)
            let y = UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: UInt64.self)
            select(indices, read: { x[$0] }, write: { y[$0] = $1 })
        } else {
            let x = UnsafeRawPointer(inputs[0]), y = UnsafeMutableRawPointer(outputs[0]), type = self.type
            select(indices, read: { TensorElements.integer(x, at: $0, type) }, write: { TensorElements.setInteger($1, y, at: $0, type) })
        }
    }

    /// For each line along the axis, picks the next element in the order (value best first, then
    /// index) after the one picked last, k times: O(k · length) without scratch memory.
    private func select<Value: Comparable>(_ indices: UnsafeMutablePointer<Int64>, read: (Int) -> Value, write: (Int, Value) -> Void) {
        let largest = self.largest
        func precedes(_ a: Value, _ i: Int, _ b: Value, _ j: Int) -> Bool {
            a == b ? i < j : (largest ? a > b : a < b)
        }
        for o in 0..<outer {
            for i in 0..<inner {
                let base = o * length * inner + i
                var last: (value: Value, index: Int)?
                for rank in 0..<k {
                    var best: (value: Value, index: Int)?
                    for position in 0..<length {
                        let value = read(base + position * inner)
                        if let last, !precedes(last.value, last.index, value, position) { continue }
                        if let current = best, !precedes(value, position, current.value, current.index) { continue }
                        best = (value, position)
                    }
                    guard let chosen = best else { break }
                    let out = (o * k + rank) * inner + i
                    write(out, chosen.value)
                    indices[out] = Int64(chosen.index)
                    last = chosen
                }
            }
        }
    }

    init(type: ElementType, largest: Bool, outputShapes: [[Int]], outer: Int, length: Int, inner: Int, k: Int) {
        self.type = type
        self.largest = largest
        self.outputShapes = outputShapes
        self.outer = outer
        self.length = length
        self.inner = inner
        self.k = k
    }
}
