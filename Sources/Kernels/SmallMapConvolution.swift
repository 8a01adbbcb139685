/// Dense K×K convolution (one group) vectorised over output channels, for output rows too
/// narrow to fill the pixel vectors of ``convolution(_:weights:stride:padTop:padLeft:activation:output:pool:)``:
/// register tiles of up to 12 pixels of one output row × 32 output channels (one panel of
/// `weights`, whose inner index is (input channel, ky, kx)), every input value broadcast from the
/// zero-bordered input where it lies (no patch matrix), then the pixel-major products spread to
/// the output planes with the activation, `output[o] = act(bias[o] + Σ w[o][c][ky][kx] · x)`.
///
/// Every output is the bias followed by fused multiply-adds in (input channel, ky, kx) order,
/// the taps that read the border included, as the patch GEMM over the same window computes it.
/// A row's last pixels take a tile of 4, 8 or 12 rows, whichever is the smallest that holds them.
///
/// - Precondition: the input's border covers the window (as for the direct convolution: stride
///   1 or 2, pads within the border); `weights.inner` is the input's channels · k², and
///   `weights.columns` the output's channels. `products` holds `productCount` ≥ the output's
///   pixels × channels floats (the caller's scratch) and overlaps neither map; `output` does not
///   overlap `input`.
package func smallMapConvolution(
    _ input: FeatureMap, weights: MatrixWeights, kernelSize k: Int, stride: Int, dilation: Int, padTop: Int, padLeft: Int,
    activation: Activation, output: FeatureMap, products: UnsafeMutablePointer<Float>, productCount: Int, pool: WorkerPool
) {
    checkWindow(input.layout, output.layout, kernelSize: k, stride: stride, dilation: dilation,
                padTop: padTop, padLeft: padLeft, kind: "small-map convolution")
    precondition(weights.inner == input.channels * k * k && weights.columns == output.channels,
                 "small-map convolution: weights are \(weights.inner)x\(weights.columns), expected "
                 + "\(input.channels * k * k)x\(output.channels)")
    precondition(productCount >= output.pixels * output.channels,
                 "small-map convolution: \(productCount) floats for the products of \(output.pixels) pixels × \(output.channels) channels")
    pool.run(SmallMapConvolutionParts(input: input, weights: weights, kernelSize: k, stride: stride, dilation: dilation,
                                      padTop: padTop, padLeft: padLeft, outputHeight: output.layout.height,
                                      outputWidth: output.layout.width, products: products))
    pool.run(SpreadParts(products: products, pixels: output.pixels, activation: activation, residual: nil, output: output))
}

/// Output rows split between threads, or the weight panels when there are fewer rows than threads.
struct SmallMapConvolutionParts: PoolJob {
    let input: FeatureMap, weights: MatrixWeights
    let kernelSize: Int, stride: Int, dilation: Int, padTop: Int, padLeft: Int
    let outputHeight: Int, outputWidth: Int
    let products: UnsafeMutablePointer<Float>

    func run(part: Int, pool: WorkerPool) {
        let byRows = outputHeight >= pool.threadCount
        let rows = byRows ? WorkerPool.range(outputHeight, part: part, of: pool.threadCount) : 0..<outputHeight
        let panels = byRows ? 0..<weights.panels : WorkerPool.range(weights.panels, part: part, of: pool.threadCount)
        if stride == 1 {
            smallMapConvolutionRows(self, rows: rows, panels: panels, UnitStep.self)
        } else {
            smallMapConvolutionRows(self, rows: rows, panels: panels, DoubleStep.self)
        }
    }
}

/// The distance between the windows of neighbouring output pixels in an input row: the stride,
/// known at compile time so that a tile's twelve broadcasts are at constant offsets.
protocol PixelStep { static var step: Int { get } }
enum UnitStep: PixelStep { static var step: Int { 1 } }
enum DoubleStep: PixelStep { static var step: Int { 2 } }

/// Every tile of `rows` × `panels`.
@inline(always)
func smallMapConvolutionRows<S: PixelStep>(_ job: SmallMapConvolutionParts, rows: Range<Int>, panels: Range<Int>, _: S.Type) {
    let step = S.step
    let inL = job.input.layout, n = job.weights.columns, width = MatrixWeights.panelWidth
    let origin = UnsafePointer(job.input.plane(0))
    for oy in rows {
        let rowBase = origin + (oy * step - job.padTop) * inL.rowStride - job.padLeft
        var ox = 0
        while ox < job.outputWidth {
            let count = min(packedRows, job.outputWidth - ox)
            for p in panels {
                let column = p * width
                let tile = SmallMapTile(
                    window: rowBase + ox * step, channels: job.input.channels, planeStride: inL.planeStride,
                    rowStride: inL.rowStride, kernelSize: job.kernelSize, dilation: job.dilation,
                    weights: job.weights.panel(p), bias: UnsafePointer(job.weights.bias.baseAddress + column),
                    output: job.products + (oy * job.outputWidth + ox) * n + column, outputStride: n,
                    pixels: count, width: min(width, n - column))
                smallMapConvolutionTile(tile, S.self)
            }
            ox += count
        }
    }
}

/// One register tile's operands: `pixels` (1…12) outputs of one row whose windows start at
/// `window`, `step` floats apart, and one weight panel.
struct SmallMapTile {
    let window: UnsafePointer<Float>
    let channels: Int, planeStride: Int, rowStride: Int, kernelSize: Int, dilation: Int
    let weights: UnsafePointer<Float>, bias: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>, outputStride: Int
    let pixels: Int, width: Int
}

/// The tile with the smallest register tile that holds its pixels.
@inline(never)
func smallMapConvolutionTile<S: PixelStep>(_ t: SmallMapTile, _: S.Type) {
    if !wideRegisterFile {
        smallMapConvolutionTile(PackedTile4.self, t, S.self)
        return
    }
    switch t.pixels {
    case ...4: smallMapConvolutionTile(PackedTile4.self, t, S.self)
    case ...8: smallMapConvolutionTile(PackedTile8.self, t, S.self)
    default: smallMapConvolutionTile(PackedTile.self, t, S.self)
    }
}

/// The first `t.pixels` pixels (at most `T`'s rows; on register files of 16 vectors or fewer,
/// four at a time) over every (input channel, ky, kx) in order.
@inline(always)
func smallMapConvolutionTile<T: PackedRowTile, S: PixelStep>(_: T.Type, _ t: SmallMapTile, _: S.Type) {
    let step = S.step, rowsPerTile = wideRegisterFile ? t.pixels : 4
    var first = 0
    while first < t.pixels {
        var acc = T(t.bias)
        var w = t.weights, plane = t.window + first * step
        for _ in 0..<t.channels {
            var row = plane
            for _ in 0..<t.kernelSize {
                var tap = row
                for _ in 0..<t.kernelSize {
                    acc.accumulate(tap, step: step, w)
                    w += MatrixWeights.panelWidth
                    tap += t.dilation
                }
                row += t.dilation * t.rowStride
            }
            plane += t.planeStride
        }
        acc.store(t.output + first * t.outputStride, stride: t.outputStride, rows: min(rowsPerTile, t.pixels - first),
                  width: t.width)
        first += rowsPerTile
    }
}
