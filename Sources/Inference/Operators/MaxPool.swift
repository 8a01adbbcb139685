/// ONNX `MaxPool` (MaxPool-8/10/11/12): `auto_pad`, `ceil_mode`, `dilations`, `kernel_shape`,
/// `pads`, `strides` over 1-D [N, C, W], 2-D [N, C, H, W] or 3-D input (float32, and from
/// MaxPool-12 int8 and uint8), and the optional int64 `Indices` output (the flattened input
/// position of each maximum, the first in window order on ties) in `storage_order` 0 (row
/// major) or 1 (column major).
enum MaxPool {
    static let build: OperatorBuilder = { context throws(ModelError) in
        let outputs = context.node.outputs.count == 2 ? 2 : 1
        try context.checkArity(inputs: 1, 1, outputs: outputs)
        try context.checkAttributes(["auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"])
        let order: Pool.IndexOrder = try context.int("storage_order", default: 0, in: 0...1) == 0 ? .rowMajor : .columnMajor
        return try Pool.build(context, kind: .max, allowsDilations: true, indexOrder: outputs == 2 ? order : nil,
                              types: context.opVersion >= 12 ? [.float32, .int8, .uint8] : [.float32])
    }
}
