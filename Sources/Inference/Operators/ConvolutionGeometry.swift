/// The geometry of a convolution (Conv, ConvInteger, QLinearConv) with the input at node input `x`
/// and the weights `[M, C/group, k…]` at `w`: 1-D to 3-D, any stride, dilation, padding and group.
struct ConvolutionGeometry: Sendable {
    let batch: Int, inputChannels: Int, outputChannels: Int, group: Int
    let depth: WindowAxis, height: WindowAxis, width: WindowAxis
    let outputShape: [Int]

    var multiplyAccumulates: Int {
        batch * outputChannels * depth.output * height.output * width.output * (inputChannels / group)
            * depth.kernel * height.kernel * width.kernel
    }

    static let attributes: Set<String> = ["auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"]

    init(_ context: NodeContext, x xIndex: Int, w wIndex: Int) throws(ModelError) {
        let x = try context.shape(ofInput: xIndex), w = try context.shape(ofInput: wIndex)
        guard (3...5).contains(x.count) else {
            throw context.error(.unsupported, "only 1-D, 2-D and 3-D convolution (rank 3 to 5 input) is supported, input has rank \(x.count)")
        }
        guard w.count == x.count else { throw context.error(.invalidShape, "weights must have rank \(x.count), got \(w)") }
        let group = try context.int("group", default: 1, in: 1...(1 << 20))
        guard x[1] % group == 0, w[0] % group == 0, w[1] * group == x[1] else {
            throw context.error(.invalidShape, "input channels \(x[1]), weights \(w) and group \(group) disagree", attribute: "group")
        }
        let axes = try WindowGeometry.resolveSpatial(context, spatialShape: Array(x[2...]), kernelFromWeights: Array(w[2...]))
        batch = x[0]
        inputChannels = x[1]
        outputChannels = w[0]
        self.group = group
        (depth, height, width) = (axes[0], axes[1], axes[2])
        outputShape = [x[0], w[0]] + WindowGeometry.spatialOutput(axes, rank: x.count - 2)
    }
}
