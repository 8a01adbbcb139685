/// ONNX `LpPool` (LpPool-11/18): (Σ |x|^p)^(1/p) over each window of a 1-D [N, C, W] or 2-D
/// [N, C, H, W] input, padding counting as zero; `p` (default 2), `auto_pad`, `kernel_shape`,
/// `pads`, `strides`, and from LpPool-18 `ceil_mode` and `dilations`.
enum LpPool {
    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        let newer = context.opVersion >= 18
        let known: Set = ["auto_pad", "kernel_shape", "p", "pads", "strides"]
        try context.checkAttributes(newer ? known.union(["ceil_mode", "dilations"]) : known)
        let p = try context.int("p", default: 2, in: 1...64)
        return try Pool.build(context, kind: .lp(p: p), allowsDilations: newer, allowsCeilMode: newer)
    }
}
