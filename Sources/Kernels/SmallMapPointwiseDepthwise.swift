/// A 1x1 convolution on a small map
/// (``smallMapPointwise(_:weights:activation:residual:rectifiesSum:output:pool:)``, no residual)
/// and the small-map depthwise convolution reading its output
/// (``smallMapDepthwise(_:weights:stride:dilation:padTop:padLeft:activation:residual:output:pool:)``)
/// as one kernel: the 1x1's pixel-major products are activated as the depthwise gathers its
/// blocks of channels from them (a copy of whole vectors per pixel), so they never go to planes
/// and back (two 16 × 16 transposes of every expanded value). Each output is the same value,
/// bit for bit, as the two kernels give one after the other.
///
/// With a `projection` (the small-map 1x1 reading the depthwise output,
/// ``smallMapPointwise(_:weights:activation:residual:rectifiesSum:output:pool:)``), the depthwise
/// stores its outputs pixel-major from its registers and the projection's GEMM reads them there
/// as its row-major left operand (``rowMajorMatrixMultiply(_:rows:weights:output:function:pool:)``,
/// the packed GEMM's bits), so the depthwise output is neither moved to planes nor packed; only
/// the projection's products go to its planes, with its activation and residual. `output` then
/// only gives the depthwise output's size.
///
/// The 1x1s' patches and products and the depthwise output are in the pool's shared scratch, the
/// depthwise blocks in each thread's
/// (``smallMapPointwiseDepthwiseScratch(inputWidth:inputHeight:outputWidth:outputHeight:pointwise:projection:)``).
///
/// - Precondition: `input` is dense with `pointwise.inner` channels; `depthwise` has
///   `pointwise.columns` channels; `output` (any layout) and `residual` (any layout) have them
///   too, at the depthwise output's size. `output` and `residual` overlap neither `input` nor
///   the pool's scratch.
package func smallMapPointwiseThenDepthwise(
    _ input: FeatureMap, pointwise: MatrixWeights, pointwiseActivation: Activation,
    depthwise: ChannelLaneDepthwiseWeights, stride: Int, dilation: Int = 1, padTop: Int, padLeft: Int,
    activation: Activation, residual: FeatureMap? = nil, output: FeatureMap, projection: SmallMapProjection? = nil,
    pool: WorkerPool
) {
    let (w, h) = (input.layout.width, input.layout.height)
    precondition(input.layout.isDense && input.channels == pointwise.inner, "small-map 1x1 + depthwise: input mismatch")
    precondition(depthwise.channels == pointwise.columns && output.channels == pointwise.columns,
                 "small-map 1x1 + depthwise: channel mismatch")
    precondition(stride >= 1 && dilation >= 1 && padTop >= 0 && padLeft >= 0, "small-map 1x1 + depthwise: bad window")
    precondition(pool.holds(smallMapPointwiseDepthwiseScratch(inputWidth: w, inputHeight: h, outputWidth: output.layout.width,
                                                              outputHeight: output.layout.height, pointwise: pointwise,
                                                              projection: projection?.weights)),
                 "small-map 1x1 + depthwise on \(w)x\(h): pool scratch too small")
    if let residual {
        precondition(residual.channels == output.channels && residual.layout.width == output.layout.width
                     && residual.layout.height == output.layout.height, "small-map 1x1 + depthwise residual shape mismatch")
    }
    let patches = pool.shared.baseAddress!
    let products = patches + smallMapProductsOffset(pixels: input.pixels, inputChannels: pointwise.inner)
    smallMapProducts(input, weights: pointwise, patches: patches, products: products, pool: pool)
    let expanded = FeatureMap(base: products, channels: pointwise.columns, layout: .dense(width: w, height: h))
    let source = PixelMajorInput(values: UnsafePointer(products), channels: pointwise.columns, activation: pointwiseActivation)
    guard let projection else {
        pool.run(SmallMapDepthwiseParts(input: expanded, weights: depthwise, stride: stride, dilation: dilation, padTop: padTop,
                                        padLeft: padLeft, activation: activation, residual: residual, output: output,
                                        pixelMajor: source))
        return
    }
    precondition(residual == nil && projection.weights.inner == pointwise.columns
                 && projection.output.channels == projection.weights.columns
                 && projection.output.layout.width == output.layout.width && projection.output.layout.height == output.layout.height,
                 "small-map 1x1 + depthwise + 1x1: shape mismatch")
    if let r = projection.residual {
        precondition(r.channels == projection.output.channels && r.layout.width == output.layout.width
                     && r.layout.height == output.layout.height, "small-map 1x1 + depthwise + 1x1: residual shape mismatch")
    }
    let pixels = output.layout.width * output.layout.height
    let depthwiseOutput = products + (input.pixels * pointwise.columns + 15) / 16 * 16
    let projected = depthwiseOutput + (pixels * pointwise.columns + 15) / 16 * 16
    let planes = FeatureMap(base: depthwiseOutput, channels: pointwise.columns,
                            layout: .dense(width: output.layout.width, height: output.layout.height))
    pool.run(SmallMapDepthwiseParts(input: expanded, weights: depthwise, stride: stride, dilation: dilation, padTop: padTop,
                                    padLeft: padLeft, activation: activation, residual: nil, output: planes,
                                    channelsLast: depthwiseOutput, pixelMajor: source))
    if pixels >= packedProductFrom {
        pool.run(ProjectionParts(a: UnsafePointer(depthwiseOutput), rows: pixels, weights: projection.weights, output: projected))
    } else {
        matrixMultiply(depthwiseOutput, rows: pixels, weights: projection.weights, output: projected, pool: pool)
    }
    pool.run(SpreadParts(products: projected, pixels: pixels, activation: projection.activation, residual: projection.residual,
                         floor: sumFloor(rectifiesSum: projection.rectifiesSum), output: projection.output))
}

/// The 1x1 convolution reading the depthwise output of
/// ``smallMapPointwiseThenDepthwise(_:pointwise:pointwiseActivation:depthwise:stride:dilation:padTop:padLeft:activation:residual:output:projection:pool:)``,
/// with its fusions (activation, residual after it, the rectified sum) and where it writes.
package struct SmallMapProjection {
    package let weights: MatrixWeights, activation: Activation, residual: FeatureMap?, rectifiesSum: Bool, output: FeatureMap

    package init(weights: MatrixWeights, activation: Activation, residual: FeatureMap?, rectifiesSum: Bool = false,
                 output: FeatureMap) {
        precondition(!rectifiesSum || residual != nil, "small-map projection: a rectified sum needs a residual")
        self.weights = weights
        self.activation = activation
        self.residual = residual
        self.rectifiesSum = rectifiesSum
        self.output = output
    }
}

/// The projection's row-major GEMM split between threads as the packed GEMM splits its own
/// (``PackedMatrixParts``: whole weight panels, or row panels when there are fewer weight
/// panels than threads), so each thread streams only its weight panels.
struct ProjectionParts: PoolJob {
    let a: UnsafePointer<Float>, rows: Int, weights: MatrixWeights, output: UnsafeMutablePointer<Float>
    func run(part: Int, pool: WorkerPool) {
        let job = RowMajorMatrixParts(a: a, rows: rows, weights: weights, output: output, function: nil)
        let rowPanels = (rows + packedRows - 1) / packedRows
        if weights.panels >= pool.threadCount || rowPanels < pool.threadCount {
            rowMajorMatrixRows(job, rows: 0..<rows, panels: WorkerPool.range(weights.panels, part: part, of: pool.threadCount))
        } else {
            let mine = WorkerPool.range(rowPanels, part: part, of: pool.threadCount)
            rowMajorMatrixRows(job, rows: mine.lowerBound * packedRows ..< min(rows, mine.upperBound * packedRows),
                               panels: 0..<weights.panels)
        }
    }
}

/// Pool scratch ``smallMapPointwiseThenDepthwise(_:pointwise:pointwiseActivation:depthwise:stride:dilation:padTop:padLeft:activation:residual:output:projection:pool:)``
/// uses: the 1x1's (shared) and the depthwise convolution's (per thread).
/// With a projection of `projection` weights, also the depthwise output and the projection's
/// products after the 1x1's.
package func smallMapPointwiseDepthwiseScratch(inputWidth: Int, inputHeight: Int, outputWidth: Int, outputHeight: Int,
                                               pointwise: MatrixWeights, projection: MatrixWeights? = nil) -> ScratchSize {
    let expanding = smallMapPointwiseScratch(pixels: inputWidth * inputHeight, weights: pointwise).shared
    let pixels = outputWidth * outputHeight
    let projecting = projection.map { (expanding + 15) / 16 * 16 + (pixels * pointwise.columns + 15) / 16 * 16 + pixels * $0.columns }
    return ScratchSize(perThread: smallMapDepthwiseScratch(inputWidth: inputWidth, inputHeight: inputHeight, outputWidth: outputWidth,
                                                           outputHeight: outputHeight).perThread,
                       shared: projecting ?? expanding)
}
