/// ONNX `AveragePool` (AveragePool-11): `auto_pad`, `ceil_mode`, `count_include_pad`,
/// `kernel_shape`, `pads`, `strides` over 2-D NCHW input. (`dilations` arrived in opset 19 and
/// is rejected.)
enum AveragePool {
    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes(["auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"])
        let includesPad = try context.int("count_include_pad", default: 0, in: 0...1) == 1
        return try Pool.build(context, kind: .average(countIncludesPad: includesPad), allowsDilations: false)
    }
}
