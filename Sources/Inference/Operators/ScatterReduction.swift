/// How ScatterElements and ScatterND combine an update with the element it lands on: the
/// `reduction` attribute (from version 16; `max` and `min` from 18). `none` stores the update
/// (any type; of duplicate indices the last wins); the others combine in the element's type:
/// float32 in Float, float16 and double in Double, integers in Int64 wrapping to their width.
enum ScatterReduction: Sendable {
    case none, add, mul, max, min

    /// The node's `reduction`, refusing those its version does not define and arithmetic on bool;
    /// `attributes` are the op's other attributes.
    static func resolve(_ context: NodeContext, type: ElementType, attributes: Set<String>) throws(ModelError) -> ScatterReduction {
        let version = context.opVersion
        try context.checkAttributes(version >= 16 ? attributes.union(["reduction"]) : attributes)
        let choices = version >= 18 ? ["none", "add", "mul", "max", "min"] : ["none", "add", "mul"]
        let reduction: ScatterReduction = switch try context.choice("reduction", choices, default: "none") {
        case "add": .add
        case "mul": .mul
        case "max": .max
        case "min": .min
        default: .none
        }
        if reduction != .none && type == .bool {
            throw context.error(.unsupported, "a reduction on bool data is not supported", attribute: "reduction")
        }
        return reduction
    }

    /// Combines element `source` of `updates` into element `target` of `y`, both of `type`.
    func apply(_ y: UnsafeMutableRawPointer, _ target: Int, _ updates: UnsafeRawPointer, _ source: Int, _ type: ElementType) {
        switch (self, type) {
        case (.none, _):
            let size = type.byteSize
            (y + target * size).copyMemory(from: updates + source * size, byteCount: size)
        case (_, .float32):
            let out = y.assumingMemoryBound(to: Float.self)
            out[target] = combine(out[target], updates.assumingMemoryBound(to: Float.self)[source])
        case (_, .float16), (_, .double):
            let value = combine(TensorElements.double(y, at: target, type), TensorElements.double(updates, at: source, type))
            TensorElements.setDouble(value, y, at: target, type)
        default:
            let a = TensorElements.integer(y, at: target, type), b = TensorElements.integer(updates, at: source, type)
            let value: Int64 = switch self {
            case .add: a &+ b
            case .mul: a &* b
            case .max: type == .uint64 ? Int64(bitPattern: Swift.max(UInt64(bitPattern: a), UInt64(bitPattern: b))) : Swift.max(a, b)
            case .min: type == .uint64 ? Int64(bitPattern: Swift.min(UInt64(bitPattern: a), UInt64(bitPattern: b))) : Swift.min(a, b)
            case .none: b
            }
            TensorElements.setInteger(value, y, at: target, type)
        }
    }

    private func combine<T: FloatingPoint>(_ a: T, _ b: T) -> T {
        switch self {
        case .none: b
        case .add: a + b
        case .mul: a * b
        case .max: Swift.max(a, b)
        case .min: Swift.min(a, b)
        }
    }
}
