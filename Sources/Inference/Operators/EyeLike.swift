/// ONNX `EyeLike` (version 9): a matrix of the 2-D input's shape with ones on the diagonal moved
/// by `k` (default 0; column − row = k) and zeros elsewhere, of the type `dtype` names (default:
/// the input's). Only the input's shape is read.
final class EyeLike: Operator {
    let dataInputs: [Int] = []
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    let k: Int
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes(["dtype", "k"])
        let shape = try context.shape(ofInput: 0)
        guard shape.count == 2 else { throw context.error(.invalidShape, "input must have rank 2, not \(shape.count)") }
        var type = try context.type(ofInput: 0)
        if let code = context.attribute("dtype")?.i {
            guard let named = ElementType(onnxCode: Int(code)) else {
                throw context.error(.unsupported, "type \(code) is not supported", attribute: "dtype")
            }
            type = named
        }
        return EyeLike(outputShapes: [shape], outputTypes: [type], k: try context.int("k", default: 0))
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let y = UnsafeMutableRawPointer(outputs[0]), type = outputTypes[0]
        let rows = outputShapes[0][0], columns = outputShapes[0][1]
        y.initializeMemory(as: UInt8.self, repeating: 0, count: rows * columns * type.byteSize)
        for row in 0..<rows where row + k >= 0 && row + k < columns {
            TensorElements.setInteger(1, y, at: row * columns + row + k, type)
        }
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], k: Int) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.k = k
    }
}
