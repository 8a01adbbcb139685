/// ONNX `Cast` (6, 9, 13, 19, 21, 23, 24, 25) and `CastLike` (15, 19, 21, 23, 24, 25): each element
/// converted to the type named by `to` (Cast) or of input 1 (CastLike), between any two stored
/// types.
///
/// Float to integer truncates toward zero (values outside int64, and NaN, become int64's
/// minimum before narrowing; for the 4- and 2-bit integers, where ONNX leaves it undefined, 0 as
/// onnx's reference gives); integers wrap to the target width; nonzero becomes true; float to a
/// narrower float rounds to nearest even. To float8, `saturate` (default 1) makes ±infinity and
/// values beyond the largest finite one ±maximum; with 0 they become NaN, or ±infinity for
/// float8e5m2, as the operator's tables say (`NarrowFloat`). To float8e8m0, `round_mode` (`up`,
/// the default, `down`, `nearest`) and `saturate` apply as onnx's `to_float8e8m0` computes them
/// (`E8M0`). bfloat16 overflows to ±infinity and float4e2m1 (no infinity) to ±6, whatever
/// `saturate` says.
final class Cast: Operator {
    let dataInputs = [0]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    let source: ElementType
    let count: Int
    let saturate: Bool
    let rounding: E8M0.Rounding
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes(["to", "saturate", "round_mode"])
        guard let code = context.attribute("to")?.i else { throw context.error(.malformed, "attribute is required", attribute: "to") }
        guard let target = ElementType(onnxCode: Int(code)) else {
            throw context.error(.unsupported, "target type \(code) is not supported (supported: \(ElementType.allCases.map { $0.description }.joined(separator: ", ")))", attribute: "to")
        }
        return try make(context, target: target)
    }

    static let buildLike: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 2)
        try context.checkAttributes(["saturate", "round_mode"])
        return try make(context, target: try context.type(ofInput: 1))
    }

    private static func make(_ context: NodeContext, target: ElementType) throws(ModelError) -> Cast {
        let saturate = try context.int("saturate", default: 1, in: 0...1) == 1
        let rounding = E8M0.Rounding(rawValue: try context.choice("round_mode", E8M0.Rounding.allCases.map { $0.rawValue }, default: "up"))!
        let shape = try context.shape(ofInput: 0)
        return Cast(outputShapes: [shape], outputTypes: [target], source: try context.type(ofInput: 0), count: shape.reduce(1, *),
                    saturate: saturate, rounding: rounding)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = UnsafeRawPointer(inputs[0]), y = UnsafeMutableRawPointer(outputs[0])
        let target = outputTypes[0]
        if source == target {
            y.copyMemory(from: x, byteCount: count * target.byteSize)
        } else if source.isInteger && (target.isInteger || (source != .uint64 && !target.isNarrow)) {
            // Integers keep their low bits (uint64's too); to float32, float16 and double, an int64
            // is rounded once.
            for i in 0..<count { TensorElements.setInteger(TensorElements.integer(x, at: i, source), y, at: i, target) }
        } else {
            for i in 0..<count {
                TensorElements.setDouble(TensorElements.double(x, at: i, source), y, at: i, target, saturate: saturate, rounding: rounding)
            }
        }
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], source: ElementType, count: Int, saturate: Bool,
         rounding: E8M0.Rounding) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.source = source
        self.count = count
        self.saturate = saturate
        self.rounding = rounding
    }
}

enum CastLike {
    static let build = Cast.buildLike
}
