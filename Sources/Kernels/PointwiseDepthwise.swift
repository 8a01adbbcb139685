/// A 1x1 convolution (+ activation) feeding a depthwise convolution (+ activation, + an
/// optional residual), computed in bands of output rows so the expanded map never leaves the
/// cache: for each band, the 1x1 convolution writes just the input rows the band's depthwise
/// windows read into `band` (a small zero-bordered buffer), then the depthwise convolution
/// reads them from there. On a 2-core Ice Lake the full expanded maps of the general model
/// (e.g. 72×64×64, 1.5 MB padded) exceed the 1.25 MB L2, and writing then re-reading them cost
/// more than the arithmetic.
///
/// Every output element is computed by the same operations in the same order as
/// ``pointwiseConvolution(_:weights:activation:residual:output:pool:)`` followed by
/// ``depthwiseConvolution(_:weights:stride:padTop:padLeft:activation:residual:output:pool:)``
/// on the full padded map (the 1x1 results of the rows two bands share are recomputed
/// identically), so results equal the unbanded pair bit for bit, on any thread count.
///
/// - Parameters:
///   - input: dense, `pointwise.inputChannels` channels, H×W.
///   - band: a zero-bordered buffer (`pad` ≥ the depthwise pads) of `pointwise.outputChannels`
///     planes of W columns and at least `bandInputRows(...)` rows.
///   - residualIsInput: add the depthwise convolution's own input (the 1x1 output) after its
///     activation (stride 1 only), read from the band.
///   - residual: another residual, any layout, the output's size (ignored when `residualIsInput`).
///   - output: the depthwise output, any layout.
///   - gatedInput: when set, `input` is not read: the rows of it a band needs are first made
///     as `skip · gate + upsampled` (``applyGate(skip:upsampled:gate:output:pool:)``, the
///     decoder's attention gate) into `rows`, a dense scratch map of the input's channels and at
///     least a band's input rows, so the gated map is never written whole.
public func pointwiseThenDepthwise(
    _ input: FeatureMap, gatedInput: GatedInput? = nil, pointwise: PointwiseWeights, pointwiseActivation: Activation,
    band: FeatureMapStorage, bandOutputRows: Int,
    depthwise: DepthwiseWeights, stride: Int, padTop: Int, padLeft: Int, depthwiseActivation: Activation,
    residualIsInput: Bool, residual: FeatureMap?, output: FeatureMap, pool: WorkerPool
) {
    let h = input.layout.height, k = depthwise.kernelSize
    let outH = output.layout.height
    precondition(band.layout.width == input.layout.width && band.channels == pointwise.outputChannels
                 && band.layout.height >= (bandOutputRows - 1) * stride + k, "band buffer too small")
    precondition(!residualIsInput || stride == 1, "a residual of the input needs stride 1")
    let bandMap = band.map
    var yo = 0
    while yo < outH {
        let rows = min(bandOutputRows, outH - yo)
        let top = yo * stride - padTop
        let rowsIn = (rows - 1) * stride + k
        let first = max(0, top), last = min(h, top + rowsIn)
        // Rows of the band outside the image are the zero border of the full map.
        for r in 0..<rowsIn where top + r < first || top + r >= last {
            zeroRow(bandMap, row: r)
        }
        if last > first {
            var source = input.rows(from: first, count: last - first)
            if let gated = gatedInput {
                source = gated.rows.map.rows(from: 0, count: last - first)
                applyGate(skip: gated.skip.rows(from: first, count: last - first),
                          upsampled: gated.upsampled.rows(from: first, count: last - first),
                          gate: gated.gate, output: source, pool: pool)
            }
            pointwiseConvolution(source, weights: pointwise,
                                 activation: pointwiseActivation,
                                 output: bandMap.rows(from: first - top, count: last - first), pool: pool)
        }
        let bandResidual = residualIsInput ? bandMap.rows(from: padTop, count: rows)
            : residual.map { $0.rows(from: yo, count: rows) }
        depthwiseConvolution(bandMap.rows(from: 0, count: rowsIn), weights: depthwise, stride: stride,
                             padTop: 0, padLeft: padLeft, activation: depthwiseActivation,
                             residual: bandResidual, output: output.rows(from: yo, count: rows), pool: pool)
        yo += rows
    }
}

/// Input rows a band of `outputRows` depthwise output rows reads.
public func bandInputRows(outputRows: Int, stride: Int, kernelSize: Int) -> Int {
    (outputRows - 1) * stride + kernelSize
}

/// Zeroes row `row` (interior columns) of every channel.
@inline(never)
func zeroRow(_ map: FeatureMap, row: Int) {
    for c in 0..<map.channels {
        (map.plane(c) + row * map.layout.rowStride).update(repeating: 0, count: map.layout.width)
    }
}

/// The input of ``pointwiseThenDepthwise(_:gatedInput:pointwise:pointwiseActivation:band:bandOutputRows:depthwise:stride:padTop:padLeft:depthwiseActivation:residualIsInput:residual:output:pool:)``
/// made band by band as `skip · gate + upsampled`.
public struct GatedInput {
    public var skip: FeatureMap
    public var upsampled: FeatureMap
    public var gate: UnsafePointer<Float>
    /// Dense scratch for the gated rows of one band.
    public var rows: FeatureMapStorage

    public init(skip: FeatureMap, upsampled: FeatureMap, gate: UnsafePointer<Float>, rows: FeatureMapStorage) {
        self.skip = skip
        self.upsampled = upsampled
        self.gate = gate
        self.rows = rows
    }
}
