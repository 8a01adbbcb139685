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
/// on the full padded map (the 1x1 results of the rows two consecutive bands of one thread share
/// are moved to the top of the band buffer for the next band), so results equal the unbanded
/// pair bit for bit, on any thread count.
///
/// With 2 threads, a map of at least 2·``minimumRowsPerThread`` output rows is cut in two halves
/// of rows, each thread running its half's bands alone in its own band buffer; shorter maps run
/// both threads inside each band (the 1x1 split by pixels, the depthwise by channels).
///
/// - Parameters:
///   - input: dense, `pointwise.inputChannels` channels, H×W.
///   - bands: one per pool thread: a zero-bordered buffer (`pad` ≥ the depthwise pads) of
///     `pointwise.outputChannels` planes of W columns and at least `bandInputRows(...)` rows,
///     allocated zeroed and used by this pair alone, with the same map size, band height and
///     thread count on every call (a thread's job of one band leaves the rows it does not write
///     as an earlier call left them).
///   - residualIsInput: add the depthwise convolution's own input (the 1x1 output) after its
///     activation (stride 1 only), read from the band.
///   - residual: another residual, any layout, the output's size (ignored when `residualIsInput`).
///   - output: the depthwise output, any layout.
///   - gatedInput: when set, `input` is not read: the rows of it a band needs are first made
///     as `skip · gate + upsampled` (``applyGate(skip:upsampled:gate:output:pool:)``, the
///     decoder's attention gate) into `rows` (one per pool thread), a dense scratch map of the
///     input's channels and at least a band's input rows, so the gated map is never written whole.
package func pointwiseThenDepthwise(
    _ input: FeatureMap, gatedInput: GatedInput? = nil, pointwise: PointwiseWeights, pointwiseActivation: Activation,
    bands: [FeatureMapStorage], bandOutputRows: Int,
    depthwise: DepthwiseWeights, stride: Int, dilation: Int = 1, padTop: Int, padLeft: Int, depthwiseActivation: Activation,
    residualIsInput: Bool, residual: FeatureMap?, output: FeatureMap, pool: WorkerPool
) {
    let span = (depthwise.kernelSize - 1) * dilation + 1
    precondition(bands.count >= pool.threadCount && (gatedInput?.rows.count ?? pool.threadCount) >= pool.threadCount,
                 "one band buffer per thread")
    for part in 0..<pool.threadCount {
        // An index loop: iterating the array itself allocates in debug builds (its generic iterator).
        let band = bands[part]
        precondition(band.layout.width == input.layout.width && band.channels == pointwise.outputChannels
                     && band.layout.height >= (bandOutputRows - 1) * stride + span, "band buffer too small")
    }
    precondition(!residualIsInput || stride == 1, "a residual of the input needs stride 1")
    precondition(pool.holds(pointwiseThenDepthwiseScratch(pointwise)),
                 "1x1 of \(pointwise.inputChannels) input channels then depthwise: pool scratch too small")
    let job = BandedRows(input: input, gatedInput: gatedInput, pointwise: pointwise, pointwiseActivation: pointwiseActivation,
                         bands: bands, bandOutputRows: bandOutputRows, depthwise: depthwise, stride: stride,
                         dilation: dilation, padTop: padTop, padLeft: padLeft, depthwiseActivation: depthwiseActivation,
                         residualIsInput: residualIsInput, residual: residual, output: output)
    if pool.threadCount > 1 && output.layout.height >= pool.threadCount * minimumRowsPerThread {
        pool.run(job)
    } else {
        job.runBands(rows: 0..<output.layout.height, part: 0, pool: pool)
    }
}

/// Floats of pool scratch ``pointwiseThenDepthwise(_:gatedInput:pointwise:pointwiseActivation:bands:bandOutputRows:depthwise:stride:dilation:padTop:padLeft:depthwiseActivation:residualIsInput:residual:output:pool:)``
/// uses: its 1x1 convolution's, in each thread's scratch (each thread's lane runs its own bands);
/// the band buffers are the caller's.
package func pointwiseThenDepthwiseScratch(_ pointwise: PointwiseWeights) -> ScratchSize {
    pointwiseScratch(inputChannels: pointwise.inputChannels)
}

/// Output rows below which a map is not split between threads by rows: each thread's share
/// recomputes the 1x1 rows its first depthwise window shares with the other's, which costs more
/// than it saves on short maps (these run both threads inside each band instead). Measured on the
/// 2-core Emerald Rapids VM (whole forward pass, 2 threads, 4 interleaved rounds): 4 was as fast
/// as 1, 2 and 8 on the general model and the fastest on the landscape one, whose 9-row maps it splits.
let minimumRowsPerThread = 4

/// The fused pair over a range of output rows, band after band.
///
/// As a ``PoolJob`` each thread takes half the output rows and runs its bands alone, with its own
/// band buffer, in its own cache, and one fork/join for the whole map (instead of two per band).
struct BandedRows: PoolJob {
    let input: FeatureMap, gatedInput: GatedInput?, pointwise: PointwiseWeights, pointwiseActivation: Activation
    let bands: [FeatureMapStorage], bandOutputRows: Int
    let depthwise: DepthwiseWeights, stride: Int, dilation: Int, padTop: Int, padLeft: Int, depthwiseActivation: Activation
    let residualIsInput: Bool, residual: FeatureMap?, output: FeatureMap

    func run(part: Int, pool: WorkerPool) {
        runBands(rows: WorkerPool.range(output.layout.height, part: part, of: pool.threadCount), part: part, pool: pool.lane(part))
    }

    /// Output rows `rows`, in bands of `bandOutputRows`, with band buffer `part`; `pool` runs the
    /// kernels of each band (both threads, or one thread's lane).
    func runBands(rows: Range<Int>, part: Int, pool: WorkerPool) {
        let h = input.layout.height, span = (depthwise.kernelSize - 1) * dilation + 1
        let bandMap = bands[part].map
        // Input rows the next band shares with this one: moved to the top of the buffer, not
        // recomputed (the same values either way).
        let shared = max(0, span - stride)
        var carried = 0
        var yo = rows.lowerBound
        let singleBand = rows.count <= bandOutputRows
        while yo < rows.upperBound {
            let count = min(bandOutputRows, rows.upperBound - yo)
            let top = yo * stride - padTop
            let rowsIn = (count - 1) * stride + span
            let first = max(0, top + carried), last = min(h, top + rowsIn)
            // Rows of the band outside the image are the zero border of the full map. A job of
            // one band writes the same rows of its buffer on every call, so the others stay as
            // they were allocated, zero.
            if !singleBand {
                zeroRows(bandMap, from: carried, count: min(rowsIn, first - top) - carried)
                zeroRows(bandMap, from: max(carried, last - top), count: rowsIn - max(carried, last - top))
            }
            if last > first {
                var source = input.rows(from: first, count: last - first)
                if let gated = gatedInput {
                    source = gated.rows[part].map.rows(from: 0, count: last - first)
                    applyGate(skip: gated.skip.rows(from: first, count: last - first),
                              upsampled: gated.upsampled.rows(from: first, count: last - first),
                              gate: gated.gate, output: source, pool: pool)
                }
                pointwiseConvolution(source, weights: pointwise, activation: pointwiseActivation,
                                     output: bandMap.rows(from: first - top, count: last - first), pool: pool)
            }
            // No closure here (`residual.map { … }`): capturing the loop variable boxes it on the
            // heap in debug builds, and the allocation tests run those.
            var bandResidual: FeatureMap? = nil
            if residualIsInput {
                bandResidual = bandMap.rows(from: padTop, count: count)
            } else if let residual {
                bandResidual = residual.rows(from: yo, count: count)
            }
            depthwiseConvolution(bandMap.rows(from: 0, count: rowsIn), weights: depthwise, stride: stride,
                                 dilation: dilation, padTop: 0, padLeft: padLeft, activation: depthwiseActivation,
                                 residual: bandResidual, output: output.rows(from: yo, count: count), pool: pool)
            yo += count
            carried = min(shared, rowsIn)
            if yo < rows.upperBound && carried > 0 { moveRows(bandMap, from: rowsIn - carried, count: carried) }
        }
    }
}

/// Input rows a band of `outputRows` depthwise output rows reads.
package func bandInputRows(outputRows: Int, stride: Int, kernelSize: Int) -> Int {
    (outputRows - 1) * stride + kernelSize
}

/// Moves rows `from ..< from + count` of every channel (whole rows, border columns included) to
/// rows `0 ..< count` (`from > 0`; the runs may overlap).
///
/// Vector loops rather than `memmove` and `memset`: the runs are a few hundred bytes, one per
/// channel, where a libc call's start-up costs as much as the copy.
@inline(never)
func moveRows(_ map: FeatureMap, from: Int, count: Int) {
    let l = map.layout, floats = count * l.rowStride
    precondition(from > 0, "moveRows: rows move up")
    for c in 0..<map.channels {
        let row0 = map.plane(c) - l.pad
        copyForward(from: UnsafePointer(row0 + from * l.rowStride), to: row0, count: floats)
    }
}

/// Zeroes rows `from ..< from + count` of every channel (whole rows, border columns included:
/// one run of memory per channel).
@inline(never)
func zeroRows(_ map: FeatureMap, from: Int, count: Int) {
    guard count > 0 else { return }
    let l = map.layout, floats = count * l.rowStride
    for c in 0..<map.channels {
        let run = map.plane(c) - l.pad + from * l.rowStride
        var i = 0
        while i + lanes <= floats { store(Vector(), run + i); i += lanes }
        while i < floats { run[i] = 0; i += 1 }
    }
}

/// Copies `count` floats to `destination` from `source` at or after it, first to last: runs
/// that overlap are copied as `memmove` would (whole vectors only while the source is a vector
/// or more ahead, so no store reaches a float not yet read).
@inline(always)
func copyForward(from source: UnsafePointer<Float>, to destination: UnsafeMutablePointer<Float>, count: Int) {
    var i = 0
    if UnsafePointer(destination) + lanes <= source {
        while i + lanes <= count { store(load(source + i), destination + i); i += lanes }
    }
    while i < count { destination[i] = source[i]; i += 1 }
}

/// The input of ``pointwiseThenDepthwise(_:gatedInput:pointwise:pointwiseActivation:band:bandOutputRows:depthwise:stride:padTop:padLeft:depthwiseActivation:residualIsInput:residual:output:pool:)``
/// made band by band as `skip · gate + upsampled`.
package struct GatedInput {
    package var skip: FeatureMap
    package var upsampled: FeatureMap
    package var gate: UnsafePointer<Float>
    /// Dense scratch for the gated rows of one band, one per thread.
    package var rows: [FeatureMapStorage]

    package init(skip: FeatureMap, upsampled: FeatureMap, gate: UnsafePointer<Float>, rows: [FeatureMapStorage]) {
        self.skip = skip
        self.upsampled = upsampled
        self.gate = gate
        self.rows = rows
    }
}
