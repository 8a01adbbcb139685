import CMath

/// How a reduction walks its input (rank ≤ 6): `outer` visits every output element, giving its
/// offset in the output (operand 0) and the input offset of the first element it reduces (operand
/// 1); `inner` visits the reduced elements, giving input offsets relative to that first one
/// (operand 0). With no reduced axes each output reduces exactly one element.
struct ReductionGeometry: Sendable {
    let outer: StridedLoop
    let inner: StridedLoop
    /// The input shape with every reduced axis 1 (the output shape when `keepdims` = 1).
    let keptShape: [Int]
    /// Elements reduced into each output element.
    let count: Int

    init(input x: [Int], axes: Set<Int>) {
        var kept = x, reduced = x.map { _ in 1 }
        for axis in axes { kept[axis] = 1; reduced[axis] = x[axis] }
        let strides = Shapes.strides(x)
        outer = StridedLoop(shape: kept, strides: [Shapes.strides(kept), strides])
        inner = StridedLoop(shape: reduced, strides: [strides])
        keptShape = kept
        count = reduced.reduce(1, *)
    }

    /// `body` folded over the input offsets of the elements one output element reduces.
    @inline(__always)
    func fold<Value>(_ initial: Value, from base: Int, _ body: (Value, Int) -> Value) -> Value {
        var value = initial
        inner.forEach { r, _, _ in value = body(value, base + r) }
        return value
    }
}

/// The ONNX reductions ReduceMax, ReduceMin, ReduceSum, ReduceProd, ReduceMean, ReduceL1,
/// ReduceL2, ReduceSumSquare, ReduceLogSum and ReduceLogSumExp over rank ≤ 6.
///
/// Before the version that moved `axes` to an input (ReduceSum-13, the others 18) `axes` is an
/// attribute; from it on, `axes` is an optional constant input and `noop_with_empty_axes` = 1
/// makes empty axes reduce nothing (each output is the op applied to one element, e.g. x² for
/// ReduceSumSquare). Otherwise empty or absent axes reduce every axis. `keepdims` (default 1)
/// keeps reduced dimensions as 1. An empty reduction gives the identity: 0 for the sums, 1 for
/// the product, −∞ for ReduceLogSum(Exp), −∞ / +∞ (the type's minimum / maximum for integers)
/// for ReduceMax / ReduceMin, and 0 for ReduceMean (as onnxruntime).
///
/// Every reduction takes float32 and double; both accumulate in Double. ReduceMax / ReduceMin also
/// take int8, uint8, int32, uint32, int64 and (version 20) bool; ReduceSum / ReduceProd int32,
/// uint32, int64 and uint64 (wrapping as the type does).
final class Reduce: Operator {
    enum Kind: Sendable { case max, min, sum, prod, mean, l1, l2, sumSquare, logSum, logSumExp }

    let kind: Kind
    let type: ElementType
    let dataInputs = [0]
    let outputShapes: [[Int]]
    var outputTypes: [ElementType] { [type] }
    var checksInputTypes: Bool { true }
    let geometry: ReductionGeometry

    /// A builder for `kind`; `axesInputSince` is the version that made `axes` an input.
    static func builder(_ kind: Kind, axesInputSince: Int = 18) -> OperatorBuilder {
        return { context throws(ModelError) in
            let usesInput = context.opVersion >= axesInputSince
            try context.checkArity(inputs: 1, usesInput ? 2 : 1)
            try context.checkAttributes(usesInput ? ["keepdims", "noop_with_empty_axes"] : ["axes", "keepdims"])
            let type = try context.requireType(ofInput: 0, in: supportedTypes(kind, version: context.opVersion))
            let x = try context.shape(ofInput: 0)
            guard x.count <= StridedLoop.maximumRank else { throw context.error(.unsupported, "rank \(x.count) is above 6") }
            let keepDims = try context.int("keepdims", default: 1, in: 0...1) == 1
            let given: [Int]? = usesInput ? try context.constantIntegers(1, "axes")?.map { Int(clamping: $0) } : try context.ints("axes")
            let noop = usesInput ? try context.int("noop_with_empty_axes", default: 0, in: 0...1) == 1 : false
            var axes = Set<Int>()
            if let given, !given.isEmpty {
                for axis in given { axes.insert(try context.axis(axis, rank: x.count, attribute: usesInput ? nil : "axes")) }
            } else if !noop {
                axes = Set(x.indices)
            }
            let geometry = ReductionGeometry(input: x, axes: axes)
            let outputShape = keepDims ? geometry.keptShape : x.indices.filter { !axes.contains($0) }.map { x[$0] }
            return Reduce(kind: kind, type: type, outputShapes: [outputShape], geometry: geometry)
        }
    }

    private static func supportedTypes(_ kind: Kind, version: Int) -> Set<ElementType> {
        switch kind {
        case .max, .min: version >= 20 ? [.float32, .double, .int8, .uint8, .int32, .uint32, .int64, .bool] : [.float32, .double, .int8, .uint8, .int32, .uint32, .int64]
        case .sum, .prod: [.float32, .double, .int32, .uint32, .int64, .uint64]
        default: [.float32, .double]
        }
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        if type == .float32 {
            runFloat(inputs[0], outputs[0])
        } else if type == .double {
            runFloat(UnsafeRawPointer(inputs[0]).assumingMemoryBound(to: Double.self),
                     UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: Double.self))
        } else {
            runInteger(UnsafeRawPointer(inputs[0]), UnsafeMutableRawPointer(outputs[0]))
        }
    }

    private func runFloat<F: FloatScalar>(_ x: UnsafePointer<F>, _ y: UnsafeMutablePointer<F>) {
        let geometry = self.geometry, kind = self.kind
        geometry.outer.forEach { o, base, _ in
            func sum(_ term: (Double) -> Double) -> Double { geometry.fold(0, from: base) { $0 + term(Double(x[$1])) } }
            let value: Double
            switch kind {
            case .max: value = geometry.fold(-Double.infinity, from: base) { Swift.max($0, Double(x[$1])) }
            case .min: value = geometry.fold(Double.infinity, from: base) { Swift.min($0, Double(x[$1])) }
            case .sum: value = sum { $0 }
            case .prod: value = geometry.fold(1, from: base) { $0 * Double(x[$1]) }
            case .mean: value = sum { $0 } / Double(Swift.max(geometry.count, 1))
            case .l1: value = sum { abs($0) }
            case .l2: value = sum { $0 * $0 }.squareRoot()
            case .sumSquare: value = sum { $0 * $0 }
            case .logSum: value = log(sum { $0 })
            case .logSumExp:
                let maximum = geometry.fold(-Double.infinity, from: base) { Swift.max($0, Double(x[$1])) }
                value = maximum.isFinite ? maximum + log(sum { exp($0 - maximum) }) : maximum
            }
            y[o] = F(value)
        }
    }

    private func runInteger(_ x: UnsafeRawPointer, _ y: UnsafeMutableRawPointer) {
        let geometry = self.geometry, kind = self.kind, type = self.type
        let (lowest, highest) = Self.bounds(type)
        geometry.outer.forEach { o, base, _ in
            func element(_ index: Int) -> Int64 { TensorElements.integer(x, at: index, type) }
            let value: Int64
            switch kind {
            case .max: value = geometry.fold(lowest, from: base) { Swift.max($0, element($1)) }
            case .min: value = geometry.fold(highest, from: base) { Swift.min($0, element($1)) }
            case .prod: value = geometry.fold(1, from: base) { $0 &* element($1) }
            default: value = geometry.fold(0, from: base) { $0 &+ element($1) }
            }
            TensorElements.setInteger(value, y, at: o, type)
        }
    }

    /// The smallest and largest value of an integer type the max/min reductions take.
    private static func bounds(_ type: ElementType) -> (Int64, Int64) {
        switch type {
        case .bool: (0, 1)
        case .int8: (Int64(Int8.min), Int64(Int8.max))
        case .uint8: (0, Int64(UInt8.max))
        case .int32: (Int64(Int32.min), Int64(Int32.max))
        case .uint32: (0, Int64(UInt32.max))
        default: (Int64.min, Int64.max)
        }
    }

    init(kind: Kind, type: ElementType, outputShapes: [[Int]], geometry: ReductionGeometry) {
        self.kind = kind
        self.type = type
        self.outputShapes = outputShapes
        self.geometry = geometry
    }
}
