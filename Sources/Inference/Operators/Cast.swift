/// ONNX `Cast` (6, 9, 13, 19, 21) and `CastLike` (15, 19, 21): each element converted to the
/// type named by `to` (Cast) or of input 1 (CastLike), between any two stored types.
///
/// Float to integer truncates toward zero (values outside int64, and NaN, become int64's
/// minimum before narrowing); integers wrap to the target width; nonzero becomes true;
/// float32 to float16 rounds to nearest even. `saturate` only concerns float8 targets, which are
/// not stored, so it is accepted and has no effect; `round_mode` only concerns float8e8m0 and
/// must keep its default.
struct Cast: Operator {
    let dataInputs = [0]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    let source: ElementType
    let count: Int
    static var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes(["to", "saturate", "round_mode"])
        guard let code = context.attribute("to")?.i else { throw context.error(.malformed, "attribute is required", attribute: "to") }
        guard let target = ElementType(onnxCode: Int(code)) else {
            throw context.error(.unsupported, "target type \(code) is not supported (supported: \(ElementType.allCases.map(\.description).joined(separator: ", ")))", attribute: "to")
        }
        return try make(context, target: target)
    }

    static let buildLike: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 2)
        try context.checkAttributes(["saturate", "round_mode"])
        return try make(context, target: try context.type(ofInput: 1))
    }

    private static func make(_ context: NodeContext, target: ElementType) throws(ModelError) -> Cast {
        _ = try context.int("saturate", default: 1, in: 0...1)
        _ = try context.choice("round_mode", ["up"], default: "up")
        let shape = try context.shape(ofInput: 0)
        return Cast(outputShapes: [shape], outputTypes: [target], source: try context.type(ofInput: 0), count: shape.reduce(1, *))
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = UnsafeRawPointer(inputs[0]), y = UnsafeMutableRawPointer(outputs[0])
        let target = outputTypes[0]
        if source == target {
            y.copyMemory(from: x, byteCount: count * target.byteSize)
        } else if source.isInteger && source != .uint64 {
            for i in 0..<count { TensorElements.setInteger(TensorElements.integer(x, at: i, source), y, at: i, target) }
        } else {
            for i in 0..<count { TensorElements.setDouble(TensorElements.double(x, at: i, source), y, at: i, target) }
        }
    }
}

enum CastLike {
    static let build = Cast.buildLike
}
