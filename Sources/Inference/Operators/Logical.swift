/// A builder for a logical op of two broadcast bool inputs.
private func logical(_ function: @escaping @Sendable (Bool, Bool) -> Bool) -> OperatorBuilder {
    return { context throws(ModelError) in
        try context.checkArity(inputs: 2, 2)
        try context.checkAttributes([])
        _ = try context.commonType(ofInputs: [0, 1], in: [.bool])
        return try TypedBinary<BoolScalar, BoolScalar, BoolScalar>(context, function)
    }
}

/// ONNX `And` (And-7): a ∧ b on broadcast bool inputs.
enum And { static let build = logical { $0 && $1 } }
/// ONNX `Or` (Or-7): a ∨ b on broadcast bool inputs.
enum Or { static let build = logical { $0 || $1 } }
/// ONNX `Xor` (Xor-7): a ⊕ b on broadcast bool inputs.
enum Xor { static let build = logical { $0 != $1 } }

/// ONNX `Not` (Not-1): ¬x on a bool input.
enum Not {
    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes([])
        _ = try context.requireType(ofInput: 0, in: [.bool])
        return try TypedUnary<BoolScalar, BoolScalar>(context) { !$0 }
    }
}

/// ONNX `BitShift` (BitShift-11): x shifted by y bits, `direction` (required) "LEFT" or "RIGHT",
/// on two broadcast inputs of one unsigned type (uint8–uint64); bits shifted past the type's width
/// are lost, so a shift by the width or more gives 0. Also the signed types int8–int64, as
/// BitShift-28 defines them: the right shift is arithmetic, and a shift by a negative amount or
/// by the width or more gives the sign fill (−1 for a right shift of a negative x, else 0).
enum BitShift {
    static let build: OperatorBuilder = { context throws(ModelError) in
        guard context.attribute("direction") != nil else {
            throw context.error(.malformed, "the attribute is required", attribute: "direction")
        }
        try context.checkAttributes(["direction"])
        let left = try context.choice("direction", ["LEFT", "RIGHT"], default: "LEFT") == "LEFT"
        let types = ElementSets.unsignedIntegers.union(ElementSets.signedIntegers)
        guard try ElementSets.signedIntegers.contains(context.requireType(ofInput: 0, in: types)) else {
            // Unsigned elements are zero-extended to Int64 (uint64: its bit pattern), so a logical
            // shift of the 64-bit pattern, truncated back to the type, is the shift of the type.
            return try TypedElementwise.binary(context, integerTypes: ElementSets.unsignedIntegers, float: nil) { x, y in
                let bits = UInt64(bitPattern: x), amount = UInt64(bitPattern: y)
                return Int64(bitPattern: left ? bits << amount : bits >> amount)
            }
        }
        // Signed elements are sign-extended, so Int64's arithmetic shift is the type's.
        return try TypedElementwise.binary(context, integerTypes: ElementSets.signedIntegers, float: nil) { x, y in
            guard y >= 0 else { return !left && x < 0 ? -1 : 0 }
            return left ? x << y : x >> y
        }
    }
}

/// A builder for a bitwise op of two broadcast inputs of one integer type (int8–int64,
/// uint8–uint64). Int64 holds every element's bits (signed sign-extended, unsigned
/// zero-extended, uint64 by pattern), and the op truncated back to the type is the type's own.
private func bitwise(_ function: @escaping @Sendable (Int64, Int64) -> Int64) -> OperatorBuilder {
    return { context throws(ModelError) in
        try context.checkAttributes([])
        return try TypedElementwise.binary(context, integerTypes: ElementSets.allIntegers, float: nil, integer: function)
    }
}

/// ONNX `BitwiseAnd` (BitwiseAnd-18): a & b on broadcast inputs of one integer type.
enum BitwiseAnd { static let build = bitwise { $0 & $1 } }
/// ONNX `BitwiseOr` (BitwiseOr-18): a | b on broadcast inputs of one integer type.
enum BitwiseOr { static let build = bitwise { $0 | $1 } }
/// ONNX `BitwiseXor` (BitwiseXor-18): a ^ b on broadcast inputs of one integer type.
enum BitwiseXor { static let build = bitwise { $0 ^ $1 } }

/// ONNX `BitwiseNot` (BitwiseNot-18): ~x on an integer type (int8–int64, uint8–uint64).
enum BitwiseNot {
    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes([])
        let type = try context.requireType(ofInput: 0, in: ElementSets.allIntegers)
        return try type.withIntegerScalar(IntegerUnaryBuilder(context: context) { ~$0 })!
    }
}
