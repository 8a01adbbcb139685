/// ONNX `Add` (Add-7, -13, -14): a + b with numpy broadcasting, on float32, double or on two inputs
/// of one integer type (int8–int64, uint8–uint64; wrapping on overflow).
enum Add {
    static let build = ElementwiseBinary.arithmetic(.add, integerTypes: ElementSets.allIntegers, float: { $0 + $1 }, double: { $0 + $1 }, integer: { $0 &+ $1 })
}
