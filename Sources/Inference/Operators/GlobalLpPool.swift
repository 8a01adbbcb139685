/// ONNX `GlobalLpPool` (GlobalLpPool-2): (Σ |x|^p)^(1/p) over all spatial dimensions, `p`
/// (default 2).
enum GlobalLpPool {
    static let build = GlobalPool.builder(attributes: ["p"]) { context throws(ModelError) in .lp(p: try context.int("p", default: 2, in: 1...64)) }
}
