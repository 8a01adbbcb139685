import Foundation

/// ONNX `Pow` (Pow-7, -12, -13, -15): xʸ with numpy broadcasting, for a float32 base. The exponent
/// is float32 (powf), or from Pow-12 an integer type (int8–int64, uint8–uint32; computed in
/// double, exactly as onnxruntime's std::pow of a float and an integer, then rounded). Integer
/// bases are refused.
enum Pow {
    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 2)
        try context.checkAttributes([])
        _ = try context.requireType(ofInput: 0, in: [.float32])
        let exponent = try context.requireType(ofInput: 1, in: context.opVersion >= 12 ? ElementSets.floatAndIntegers : [.float32])
        guard let scalar = exponent.integerScalar else { return try TypedBinary<Float, Float, Float>(context) { powf($0, $1) } }
        func make<T: IntegerScalar>(_: T.Type) throws(ModelError) -> any Operator {
            try TypedBinary<Float, T, Float>(context) { x, y in Float(pow(Double(x), Double(y))) }
        }
        return try make(scalar)
    }
}
