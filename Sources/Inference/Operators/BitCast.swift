/// ONNX `BitCast` (BitCast-26): the input's bytes (little endian) read as the type named by `to`,
/// which must have the input type's width; the output has the input's shape. Any stored type to
/// any stored type (bool is one byte). A float16 or double initializer is held as float32
/// (`ConstantTensor`), so BitCast of one is refused as a width mismatch rather than cast wrongly.
/// The 4- and 2-bit types are refused: the engine holds them one per byte, not as their bits.
final class BitCast: Operator {
    let dataInputs = [0]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    let byteCount: Int
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes(["to"])
        guard let code = context.attribute("to")?.i else { throw context.error(.malformed, "attribute is required", attribute: "to") }
        guard let target = ElementType(onnxCode: Int(code)) else {
            throw context.error(.unsupported, "target type \(code) is not supported (supported: \(ElementType.allCases.map { $0.description }.joined(separator: ", ")))", attribute: "to")
        }
        let source = try context.type(ofInput: 0)
        for type in [source, target] where type.bitWidth < 8 {
            throw context.error(.unsupported, "\(type) (\(type.bitWidth) bits) is not supported: the engine holds it one element per byte", attribute: "to")
        }
        guard source.byteSize == target.byteSize else {
            throw context.error(.invalidValue, "input 0 ('\(context.node.inputs[0])') is \(source) (\(8 * source.byteSize) bits), \(target) has \(8 * target.byteSize); the widths must match", attribute: "to")
        }
        let shape = try context.shape(ofInput: 0)
        return BitCast(outputShapes: [shape], outputTypes: [target], byteCount: shape.reduce(1, *) * source.byteSize)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        UnsafeMutableRawPointer(outputs[0]).copyMemory(from: inputs[0], byteCount: byteCount)
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], byteCount: Int) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.byteCount = byteCount
    }
}
