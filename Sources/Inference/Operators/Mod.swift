import Foundation

/// ONNX `Mod` (Mod-10, -13): the remainder of a / b with numpy broadcasting, on two inputs of one
/// type. `fmod` 0 (the default, integers only): the sign of the divisor, as Python's %; `fmod` 1:
/// the sign of the dividend, as C's fmod and %. Float32 requires `fmod` 1 (the spec's rule; 0 is
/// refused). Integers: int8–int64, uint8–uint32; x mod 0 is 0 (onnxruntime's result there is
/// undefined).
enum Mod {
    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkAttributes(["fmod"])
        let truncating = try context.int("fmod", default: 0, in: 0...1) == 1
        if !truncating, try context.type(ofInput: 0) == .float32 {
            throw context.error(.invalidValue, "fmod must be 1 for floating-point inputs", attribute: "fmod")
        }
        return try TypedElementwise.binary(context, integerTypes: ElementSets.integers, float: { fmodf($0, $1) }) { a, b in
            guard b != 0 else { return 0 }
            let remainder = a.remainderReportingOverflow(dividingBy: b).partialValue
            return truncating || remainder == 0 || (remainder < 0) == (b < 0) ? remainder : remainder + b
        }
    }
}
