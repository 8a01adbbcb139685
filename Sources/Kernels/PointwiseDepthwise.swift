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
/// The band buffer of each thread (and its gated rows) is in the pool's scratch, after its 1x1
/// convolution's (`BandScratch`): scratch other kernels also use, so a band's zero border is
/// written again on every call. Narrow maps, whose band is mostly border
/// (`PlaneLayout.borderOutweighsInterior`), pass bands of their own (`ownBands`) instead, whose
/// border stays zero between calls.
///
/// - Parameters:
///   - input: dense, `pointwise.inputChannels` channels, H×W.
///   - bandOutputRows: depthwise output rows per band; a band buffer holds the input rows they
///     read (`bandInputRows`) with a zero border of `bandPad` (≥ the depthwise pads).
///   - ownBands: one per pool thread, of that layout and `pointwise.outputChannels` channels,
///     allocated zeroed and used by this pair alone; nil: the bands are in the pool's scratch.
///   - residualIsInput: add the depthwise convolution's own input (the 1x1 output) after its
///     activation (stride 1 only), read from the band.
///   - residual: another residual, any layout, the output's size (ignored when `residualIsInput`).
///   - output: the depthwise output, any layout.
///   - gatedInput: when set, `input` is not read: the rows of it a band needs are first made
///     as `skip · gate + upsampled` (``applyGate(skip:upsampled:gate:output:pool:)``, the
///     decoder's attention gate) into a dense map of a band's input rows in the scratch, so the
///     gated map is never written whole.
///   - pool: its scratch holds ``pointwiseThenDepthwiseScratch(_:width:bandOutputRows:stride:kernelSpan:bandPad:gated:)``.
package func pointwiseThenDepthwise(
    _ input: FeatureMap, gatedInput: GatedInput? = nil, pointwise: PointwiseWeights, pointwiseActivation: Activation,
    bandOutputRows: Int, bandPad: Int, ownBands: [FeatureMapStorage]? = nil,
    depthwise: DepthwiseWeights, stride: Int, dilation: Int = 1, padTop: Int, padLeft: Int, depthwiseActivation: Activation,
    residualIsInput: Bool, residual: FeatureMap?, output: FeatureMap, pool: WorkerPool
) {
    let span = (depthwise.kernelSize - 1) * dilation + 1
    let scratch = BandScratch(pointwise, width: input.layout.width, bandOutputRows: bandOutputRows, stride: stride,
                              kernelSpan: span, bandPad: bandPad, gated: gatedInput != nil, ownsBands: ownBands != nil)
    if let ownBands {
        precondition(ownBands.count >= pool.threadCount, "one band buffer per thread")
        for part in 0..<pool.threadCount {
            // An index loop: iterating the array itself allocates in debug builds (its generic iterator).
            precondition(ownBands[part].layout == scratch.band && ownBands[part].channels == scratch.bandChannels,
                         "band buffer of the wrong layout")
        }
    }
    precondition(bandPad >= padLeft && bandPad >= padTop, "the band's border is narrower than the depthwise pads")
    precondition(!residualIsInput || stride == 1, "a residual of the input needs stride 1")
    precondition(pool.holds(ScratchSize(perThread: scratch.count)),
                 "1x1 of \(pointwise.inputChannels) input channels then depthwise in bands of \(scratch.band): pool scratch too small")
    let job = BandedRows(input: input, gatedInput: gatedInput, pointwise: pointwise, pointwiseActivation: pointwiseActivation,
                         scratch: scratch, ownBands: ownBands, bandOutputRows: bandOutputRows, depthwise: depthwise, stride: stride,
                         dilation: dilation, padTop: padTop, padLeft: padLeft, depthwiseActivation: depthwiseActivation,
                         residualIsInput: residualIsInput, residual: residual, output: output)
    if pool.threadCount > 1 && output.layout.height >= pool.threadCount * minimumRowsPerThread {
        pool.run(job)
    } else {
        job.runBands(rows: 0..<output.layout.height, part: 0, pool: pool)
    }
}

/// Floats of pool scratch ``pointwiseThenDepthwise(_:gatedInput:pointwise:pointwiseActivation:bandOutputRows:bandPad:depthwise:stride:dilation:padTop:padLeft:depthwiseActivation:residualIsInput:residual:output:pool:)``
/// uses, in each thread's scratch (each thread's lane runs its own bands): its 1x1 convolution's,
/// then the band buffer (unless the caller owns the bands), then (`gated`) the gated rows.
package func pointwiseThenDepthwiseScratch(_ pointwise: PointwiseWeights, width: Int, bandOutputRows: Int, stride: Int,
                                           kernelSpan: Int, bandPad: Int, gated: Bool, ownsBands: Bool = false) -> ScratchSize {
    ScratchSize(perThread: BandScratch(pointwise, width: width, bandOutputRows: bandOutputRows, stride: stride,
                                       kernelSpan: kernelSpan, bandPad: bandPad, gated: gated, ownsBands: ownsBands).count)
}

/// The layout of the band buffers of a banded pair.
package func bandLayout(width: Int, bandOutputRows: Int, stride: Int, kernelSpan: Int, bandPad: Int) -> PlaneLayout {
    .padded(width: width, height: bandInputRows(outputRows: bandOutputRows, stride: stride, kernelSize: kernelSpan), pad: bandPad)
}

/// Where a thread's band buffer and gated rows sit in its scratch: after the 1x1 convolution's
/// part (`pointwiseScratch`), each at a multiple of 16 floats.
struct BandScratch {
    /// The band buffer: the 1x1's output channels, a band's input rows, zero-bordered.
    let band: PlaneLayout, bandChannels: Int, bandOffset: Int
    /// The gated rows (dense, the 1x1's input channels), when the input is gated.
    let rows: PlaneLayout?, rowsChannels: Int, rowsOffset: Int
    /// Floats of scratch in all.
    let count: Int

    init(_ pointwise: PointwiseWeights, width: Int, bandOutputRows: Int, stride: Int, kernelSpan: Int, bandPad: Int, gated: Bool,
         ownsBands: Bool) {
        let aligned = { (floats: Int) in (floats + 15) / 16 * 16 }
        band = bandLayout(width: width, bandOutputRows: bandOutputRows, stride: stride, kernelSpan: kernelSpan, bandPad: bandPad)
        bandChannels = pointwise.outputChannels
        bandOffset = aligned(pointwiseScratch(inputChannels: pointwise.inputChannels).perThread)
        rows = gated ? .dense(width: width, height: band.height) : nil
        rowsChannels = pointwise.inputChannels
        rowsOffset = ownsBands ? bandOffset : aligned(bandOffset + band.storageCount(channels: bandChannels))
        if let rows {
            count = rowsOffset + rows.storageCount(channels: rowsChannels)
        } else {
            count = rowsOffset
        }
    }
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
    let scratch: BandScratch, ownBands: [FeatureMapStorage]?, bandOutputRows: Int
    let depthwise: DepthwiseWeights, stride: Int, dilation: Int, padTop: Int, padLeft: Int, depthwiseActivation: Activation
    let residualIsInput: Bool, residual: FeatureMap?, output: FeatureMap

    func run(part: Int, pool: WorkerPool) {
        runBands(rows: WorkerPool.range(output.layout.height, part: part, of: pool.threadCount), part: part, pool: pool.lane(part))
    }

    /// Output rows `rows`, in bands of `bandOutputRows`, in band buffer `part` (the caller's, or
    /// the one in `pool`'s first thread's scratch); `pool` runs the kernels of each band (both
    /// threads, or one thread's lane).
    func runBands(rows: Range<Int>, part: Int, pool: WorkerPool) {
        let h = input.layout.height, span = (depthwise.kernelSize - 1) * dilation + 1
        let base = pool.scratch(0).baseAddress!
        let bandMap: FeatureMap
        if let ownBands {
            bandMap = ownBands[part].map
        } else {
            bandMap = FeatureMap(base: base + scratch.bandOffset, channels: scratch.bandChannels, layout: scratch.band)
            // The scratch holds what other kernels left there: the border is made zero again.
            zeroBorder(bandMap)
        }
        // Input rows the next band shares with this one: moved to the top of the buffer, not
        // recomputed (the same values either way).
        let shared = max(0, span - stride)
        var carried = 0
        var yo = rows.lowerBound
        while yo < rows.upperBound {
            let count = min(bandOutputRows, rows.upperBound - yo)
            let top = yo * stride - padTop
            let rowsIn = (count - 1) * stride + span
            let first = max(0, top + carried), last = min(h, top + rowsIn)
            // Rows of the band outside the image are the zero border of the full map.
            zeroRows(bandMap, from: carried, count: min(rowsIn, first - top) - carried)
            zeroRows(bandMap, from: max(carried, last - top), count: rowsIn - max(carried, last - top))
            if last > first {
                var source = input.rows(from: first, count: last - first)
                if let gated = gatedInput, let layout = scratch.rows {
                    source = FeatureMap(base: base + scratch.rowsOffset, channels: scratch.rowsChannels, layout: layout)
                        .rows(from: 0, count: last - first)
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

/// Zeroes every channel's border (the border rows, the border columns and the rest of each row's
/// stride) and the slack after the last plane, in whole vectors: each run is rounded up to a
/// vector, so up to a vector less one float of the interior after it may be zeroed too. Call it
/// before the interior is written.
@inline(never)
package func zeroBorder(_ map: FeatureMap) {
    let l = map.layout
    let gap = l.rowStride - l.width
    for c in 0..<map.channels {
        let plane = map.plane(c) - l.origin
        // The top border with the first row's left columns; then each row's right columns with
        // the next one's left ones; then the last row's right columns and the bottom border.
        zeroVectors(plane, count: l.origin)
        for y in 0..<(l.height - 1) { zeroVectors(plane + l.origin + y * l.rowStride + l.width, count: gap) }
        let end = l.origin + (l.height - 1) * l.rowStride + l.width
        zeroVectors(plane + end, count: l.planeStride - end)
    }
    zeroVectors(map.plane(map.channels - 1) - l.origin + l.planeStride, count: PlaneLayout.slack)
}

/// Zeroes `count` floats rounded up to whole vectors.
@inline(always)
private func zeroVectors(_ start: UnsafeMutablePointer<Float>, count: Int) {
    var i = 0
    while i < count { store(Vector(), start + i); i += lanes }
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

    package init(skip: FeatureMap, upsampled: FeatureMap, gate: UnsafePointer<Float>) {
        self.skip = skip
        self.upsampled = upsampled
        self.gate = gate
    }
}
