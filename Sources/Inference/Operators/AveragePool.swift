/// ONNX `AveragePool` (AveragePool-7/10/11/19): `auto_pad`, `ceil_mode`, `count_include_pad`,
/// `kernel_shape`, `pads`, `strides`, and from AveragePool-19 `dilations`, over 1-D [N, C, W] or
/// 2-D [N, C, H, W] input.
enum AveragePool {
    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        let dilations = context.opVersion >= 19
        let known: Set = ["auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"]
        try context.checkAttributes(dilations ? known.union(["dilations"]) : known)
        let includesPad = try context.int("count_include_pad", default: 0, in: 0...1) == 1
        return try Pool.build(context, kind: .average(countIncludesPad: includesPad), allowsDilations: dilations)
    }
}
