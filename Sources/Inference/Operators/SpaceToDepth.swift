/// ONNX `SpaceToDepth` (SpaceToDepth-1/13, and 28 with `mode`), any element type: [N, C, H, W] →
/// [N, C·b², H/b, W/b] with b = `blocksize`. Input channel c's pixel (h·b + i, w·b + j) goes to
/// output channel (i·b + j)·C + c in `mode` DCR (the default, and the only order before
/// SpaceToDepth-28) and c·b² + i·b + j in CRD: the inverses of DepthToSpace's modes.
enum SpaceToDepth {
    static let build: OperatorBuilder = { context throws(ModelError) in
        let (b, x, type) = try Rearrangement.blockAndInput(context, attributes: context.opVersion >= 28 ? ["blocksize", "mode"] : ["blocksize"])
        let mode = try context.choice("mode", ["DCR", "CRD"], default: "DCR")
        let (n, c, h, w) = (x[0], x[1], x[2], x[3])
        guard h % b == 0, w % b == 0 else {
            throw context.error(.invalidShape, "height and width of \(x) are not multiples of \(b)", attribute: "blocksize")
        }
        // DCR: the output as [N, b, b, C, H/b, W/b], (n, i, j, c, h, w); CRD: as [N, C, b, b, H/b, W/b], (n, c, i, j, h, w).
        let view = mode == "DCR" ? [n, b, b, c, h / b, w / b] : [n, c, b, b, h / b, w / b]
        let source = mode == "DCR" ? [c * h * w, w, 1, h * w, b * w, b] : [c * h * w, h * w, w, 1, b * w, b]
        return Rearrangement(outputShapes: [[n, c * b * b, h / b, w / b]], outputTypes: [type],
                             loop: StridedLoop(shape: view, strides: [Shapes.strides(view), source]))
    }
}
