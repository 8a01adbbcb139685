/// ONNX `DepthToSpace` (DepthToSpace-11/13), any element type: [N, C, H, W] →
/// [N, C/b², H·b, W·b] with b = `blocksize`. Output pixel (h·b + i, w·b + j) of channel c reads
/// input channel (i·b + j)·C/b² + c in `mode` DCR (the default) and c·b² + i·b + j in CRD.
enum DepthToSpace {
    static let build: OperatorBuilder = { context throws(ModelError) in
        let (b, x, type) = try Rearrangement.blockAndInput(context, attributes: ["blocksize", "mode"])
        let mode = try context.choice("mode", ["DCR", "CRD"], default: "DCR")
        let (n, c, h, w) = (x[0], x[1], x[2], x[3])
        guard c % (b * b) == 0 else {
            throw context.error(.invalidShape, "channels \(c) are not a multiple of blocksize² \(b * b)", attribute: "blocksize")
        }
        let depth = c / (b * b), plane = h * w
        // The output as [N, C/b², H, b, W, b]: (n, c, h, i, w, j).
        let view = [n, depth, h, b, w, b]
        let source = mode == "DCR" ? [c * plane, plane, w, b * depth * plane, 1, depth * plane]
                                   : [c * plane, b * b * plane, w, b * plane, 1, plane]
        return Rearrangement(outputShapes: [[n, depth, h * b, w * b]], outputTypes: [type],
                             loop: StridedLoop(shape: view, strides: [Shapes.strides(view), source]))
    }
}
