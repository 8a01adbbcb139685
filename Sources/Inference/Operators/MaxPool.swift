/// ONNX `MaxPool` (MaxPool-12): `auto_pad`, `ceil_mode`, `dilations`, `kernel_shape`, `pads`,
/// `strides` over 2-D NCHW input. The optional `Indices` output and `storage_order` = 1 are not
/// supported.
enum MaxPool {
    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes(["auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"])
        _ = try context.int("storage_order", default: 0, in: 0...0)
        return try Pool.build(context, kind: .max, allowsDilations: true)
    }
}
