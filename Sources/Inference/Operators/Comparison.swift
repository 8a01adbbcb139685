/// The comparison ops: two inputs of one type, broadcast (numpy rules), a bool output.
enum Comparison {
    case equal, greater, greaterOrEqual, less, lessOrEqual

    func holds<T: Comparable>(_ a: T, _ b: T) -> Bool {
        switch self {
        case .equal: a == b
        case .greater: a > b
        case .greaterOrEqual: a >= b
        case .less: a < b
        case .lessOrEqual: a <= b
        }
    }

    /// A builder for `relation` on float32 from op version `floatSince`, on the integer types
    /// (int8–int64, uint8–uint64; uint64 ordered as unsigned) from `integerSince`, and on bool when
    /// `bool` is set. Float
    /// comparisons are IEEE: NaN is unequal to everything.
    static func builder(_ relation: Comparison, floatSince: Int = 0, integerSince: Int = 0, bool: Bool = false) -> OperatorBuilder {
        return { context throws(ModelError) in
            try context.checkArity(inputs: 2, 2)
            try context.checkAttributes([])
            var types: Set<ElementType> = bool ? [.bool] : []
            if context.opVersion >= floatSince { types.insert(.float32) }
            if context.opVersion >= integerSince { types.formUnion(ElementSets.allIntegers) }
            let type = try context.commonType(ofInputs: [0, 1], in: types)
            if type == .float32 { return try TypedBinary<Float, Float, BoolScalar>(context) { relation.holds($0, $1) } }
            guard type.isIntegerScalar else { return try TypedBinary<BoolScalar, BoolScalar, BoolScalar>(context) { $0 == $1 } }
            if type == .uint64 {
                // Held by bit pattern: ordered as unsigned.
                return try TypedBinary<UInt64, UInt64, BoolScalar>(context) { relation.holds(UInt64(bitPattern: $0), UInt64(bitPattern: $1)) }
            }
            struct Make: IntegerScalarFunction {
                let context: NodeContext, relation: Comparison
                func callAsFunction<T: IntegerScalar>(_: T.Type) throws(ModelError) -> any Operator {
                    try TypedBinary<T, T, BoolScalar>(context) { [relation] in relation.holds($0, $1) }
                }
            }
            return try type.withIntegerScalar(Make(context: context, relation: relation))!
        }
    }
}

/// ONNX `Equal` (Equal-7, -11, -13, -19): a = b, on bool and the integer types (uint64 too), and from Equal-11
/// on float32 (strings are not stored).
enum Equal { static let build = Comparison.builder(.equal, floatSince: 11, bool: true) }
/// ONNX `Greater` (Greater-7, -9, -13): a > b, on float32, and from Greater-9 on the integer types.
enum Greater { static let build = Comparison.builder(.greater, integerSince: 9) }
/// ONNX `GreaterOrEqual` (GreaterOrEqual-12, -16): a ≥ b, on float32 and the integer types.
enum GreaterOrEqual { static let build = Comparison.builder(.greaterOrEqual) }
/// ONNX `Less` (Less-7, -9, -13): a < b, on float32, and from Less-9 on the integer types.
enum Less { static let build = Comparison.builder(.less, integerSince: 9) }
/// ONNX `LessOrEqual` (LessOrEqual-12, -16): a ≤ b, on float32 and the integer types.
enum LessOrEqual { static let build = Comparison.builder(.lessOrEqual) }
