/// ONNX `ConstantOfShape` (9, 20, 21): a tensor of the constant int64 `input` shape filled with
/// the one-element `value` tensor (float32 0 when absent), of `value`'s type.
final class ConstantOfShape: Operator {
    let dataInputs: [Int] = []
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    /// The fill element's bytes.
    let element: [UInt8]
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes(["value"])
        guard let dims = try context.constantIntegers(0, "input") else { throw context.error(.malformed, "input is required") }
        guard dims.allSatisfy({ $0 >= 0 && $0 <= Int64(Shapes.maximumElementCount) }) else {
            throw context.error(.invalidShape, "shape \(dims) has a negative or too large dim")
        }
        var value = ConstantTensor(shape: [1], floats: [0])
        if let attribute = context.attribute("value") {
            guard let tensor = attribute.t else { throw context.error(.malformed, "holds no tensor", attribute: "value") }
            do throws(ModelError) {
                value = try ConstantTensor(tensor, role: "value", requiresFinite: false)
            } catch {
                throw context.error(error.kind, error.message, attribute: "value")
            }
            guard value.elementCount == 1 else { throw context.error(.invalidShape, "must hold one element, it has \(value.elementCount)", attribute: "value") }
        }
        return ConstantOfShape(outputShapes: [dims.map { Int($0) }], outputTypes: [value.type], element: value.bytes)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let y = UnsafeMutableRawPointer(outputs[0])
        let size = element.count
        element.withUnsafeBytes { bytes in
            for i in 0..<outputShapes[0].reduce(1, *) { (y + i * size).copyMemory(from: bytes.baseAddress!, byteCount: size) }
        }
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], element: [UInt8]) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.element = element
    }
}
