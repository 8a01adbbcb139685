/// ONNX `SpaceToDepth` (SpaceToDepth-13, same as 1), any element type: [N, C, H, W] →
/// [N, C·b², H/b, W/b] with b = `blocksize`; output channel (i·b + j)·C + c holds input channel c's
/// pixels (h·b + i, w·b + j).
enum SpaceToDepth {
    static let build: OperatorBuilder = { context throws(ModelError) in
        let (b, x, type) = try Rearrangement.blockAndInput(context, attributes: ["blocksize"])
        let (n, c, h, w) = (x[0], x[1], x[2], x[3])
        guard h % b == 0, w % b == 0 else {
            throw context.error(.invalidShape, "height and width of \(x) are not multiples of \(b)", attribute: "blocksize")
        }
        // The output as [N, b, b, C, H/b, W/b]: (n, i, j, c, h, w).
        let view = [n, b, b, c, h / b, w / b]
        return Rearrangement(outputShapes: [[n, c * b * b, h / b, w / b]], outputTypes: [type],
                             loop: StridedLoop(shape: view, strides: [Shapes.strides(view), [c * h * w, w, 1, h * w, b * w, b]]))
    }
}
