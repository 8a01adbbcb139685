/// What a pooling window computes.
package enum PoolKind: Sendable, Hashable {
    /// The largest input in the window (ONNX MaxPool).
    case max
    /// The mean of the window (ONNX AveragePool). With `countIncludesPad` the divisor is the
    /// full window, kernelHeight·kernelWidth; without, the number of input pixels in it.
    case average(countIncludesPad: Bool)
}

/// 2-D max or average pooling of every plane with ONNX MaxPool / AveragePool semantics
/// (dilation 1): output pixel (yo, xo) reduces the input window of rows
/// `yo·strideHeight − padTop ..< +kernelHeight` and columns `xo·strideWidth − padLeft ..< +kernelWidth`,
/// clipped to the input (padding never enters a maximum or, without `countIncludesPad`, the
/// count). The output size is the caller's (so ceil_mode is the caller's choice of size).
///
/// A window with no input pixel in it (only possible when a pad reaches a whole window) gives
/// −∞ for max and 0 for average. With `countIncludesPad` the divisor is always the full window:
/// exact for ONNX count_include_pad whenever no window overhangs the bottom/right pads, which
/// floor mode guarantees; with ceil_mode an overhanging window's divisor in ONNX Runtime counts
/// only up to the end pad, which this signature (no end pads) cannot know.
///
/// A 3×3 max pool of stride 1 or 2 on input rows of at least ``rowMaxPoolPreferredWidth`` runs
/// ``rowMaxPool(_:strideHeight:strideWidth:padTop:padLeft:output:pool:)`` when it fits
/// (``rowMaxPoolFits(inputWidth:inputHeight:outputWidth:outputHeight:kernelHeight:kernelWidth:strideHeight:strideWidth:padTop:padLeft:)``),
/// An average pool of a small map (``channelLaneAveragePoolPreferred(inputWidth:inputHeight:outputWidth:outputHeight:)``)
/// runs ``channelLaneAveragePool(_:kernelHeight:kernelWidth:strideHeight:strideWidth:padTop:padLeft:countIncludesPad:output:pool:)``
/// when the pool holds its scratch, else a 3×3 average pool that fits the row max pool, on rows
/// of any width, runs ``rowAveragePool(_:strideHeight:strideWidth:padTop:padLeft:countIncludesPad:output:pool:)``
/// when the pool holds its scratch (both the same values as the band kernel below).
/// Otherwise max pooling of small maps runs ``channelLaneMaxPool(_:kernelHeight:kernelWidth:strideHeight:strideWidth:padTop:padLeft:output:pool:)``
/// (vectorised over channels) when it fits (``channelLaneMaxPoolFits(inputWidth:inputHeight:outputWidth:outputHeight:)``)
/// and the pool holds its scratch (``pool2DScratch(input:output:kind:kernelHeight:kernelWidth:strideWidth:padLeft:)`` plans it),
/// else max pooling of output rows of at most 16 runs ``smallPlaneMaxPool(_:kernelHeight:kernelWidth:strideHeight:strideWidth:padTop:padLeft:output:pool:)``
/// when it fits (``smallPlaneMaxPoolFits(inputWidth:inputHeight:outputWidth:kernelWidth:strideWidth:padLeft:)``),
/// else ``rowMaxPool(_:strideHeight:strideWidth:padTop:padLeft:output:pool:)`` on narrower rows
/// when it fits. Otherwise, for a band of up to 16 output rows, each row's window rows are reduced (streamed row by row)
/// into per-thread scratch bordered by the reduction's identity (−∞ or 0), then, per row, the
/// window's columns are reduced 16 outputs per vector: loads at `xo + kx` for stride 1, a register deinterleave (`loadEven`) for
/// stride 2, scalar for other strides. Sums add the rows in order, then the columns in order,
/// then are multiplied by 1/count (within an ulp of dividing; a zmm division per 16 outputs
/// was the largest cost of a 3x3 average). Rows of all channels are split between threads;
/// every output is computed the same way on any thread count.
/// - Precondition: kernel sizes and strides ≥ 1, pads ≥ 0. `output` has the input's channel
///   count; any layouts on both sides. The pool's scratch holds at least one reduced row, `max(padLeft +
///   W, strideWidth·roundUp(outW, 16) + kernelWidth)` rounded up to 16, plus `(kernelHeight +
///   1)·roundUp(outW, 16) + 16` floats; ``pool2DScratch(input:output:kind:kernelHeight:kernelWidth:strideWidth:padLeft:)``
///   (a full band of rows) is what it is planned with. `output` must not overlap `input`.
@inline(never)
package func pool2D(_ input: FeatureMap, kind: PoolKind, kernelHeight: Int, kernelWidth: Int, strideHeight: Int, strideWidth: Int,
                   padTop: Int, padLeft: Int, output: FeatureMap, pool: WorkerPool) {
    precondition(kernelHeight >= 1 && kernelWidth >= 1 && strideHeight >= 1 && strideWidth >= 1, "pool2D: empty window or zero stride")
    precondition(padTop >= 0 && padLeft >= 0, "pool2D: negative pad")
    precondition(output.channels == input.channels, "pool2D: channel count differs")
    let rowFits = kind == .max && rowMaxPoolFits(inputWidth: input.layout.width, inputHeight: input.layout.height,
                                                  outputWidth: output.layout.width, outputHeight: output.layout.height,
                                                  kernelHeight: kernelHeight, kernelWidth: kernelWidth, strideHeight: strideHeight,
                                                  strideWidth: strideWidth, padTop: padTop, padLeft: padLeft)
    if rowFits && input.layout.width >= rowMaxPoolPreferredWidth {
        rowMaxPool(input, strideHeight: strideHeight, strideWidth: strideWidth, padTop: padTop, padLeft: padLeft,
                   output: output, pool: pool)
        return
    }
    if case .average(let countIncludesPad) = kind,
       channelLaneAveragePoolPreferred(inputWidth: input.layout.width, inputHeight: input.layout.height,
                                       outputWidth: output.layout.width, outputHeight: output.layout.height),
       pool.holds(smallMapDepthwiseScratch(inputWidth: input.layout.width, inputHeight: input.layout.height,
                                           outputWidth: output.layout.width, outputHeight: output.layout.height)) {
        channelLaneAveragePool(input, kernelHeight: kernelHeight, kernelWidth: kernelWidth, strideHeight: strideHeight,
                               strideWidth: strideWidth, padTop: padTop, padLeft: padLeft, countIncludesPad: countIncludesPad,
                               output: output, pool: pool)
        return
    }
    if case .average(let countIncludesPad) = kind,
       rowMaxPoolFits(inputWidth: input.layout.width, inputHeight: input.layout.height, outputWidth: output.layout.width,
                      outputHeight: output.layout.height, kernelHeight: kernelHeight, kernelWidth: kernelWidth,
                      strideHeight: strideHeight, strideWidth: strideWidth, padTop: padTop, padLeft: padLeft),
       pool.holds(rowAveragePoolScratch(inputWidth: input.layout.width, outputWidth: output.layout.width)) {
        rowAveragePool(input, strideHeight: strideHeight, strideWidth: strideWidth, padTop: padTop, padLeft: padLeft,
                       countIncludesPad: countIncludesPad, output: output, pool: pool)
        return
    }
    if case .max = kind, channelLaneMaxPoolFits(inputWidth: input.layout.width, inputHeight: input.layout.height,
                                                outputWidth: output.layout.width, outputHeight: output.layout.height),
       !smallPlaneMaxPoolPreferred(inputWidth: input.layout.width, inputHeight: input.layout.height, outputWidth: output.layout.width,
                                   kernelWidth: kernelWidth, strideWidth: strideWidth, padLeft: padLeft),
       pool.holds(smallMapDepthwiseScratch(inputWidth: input.layout.width, inputHeight: input.layout.height,
                                           outputWidth: output.layout.width, outputHeight: output.layout.height)) {
        channelLaneMaxPool(input, kernelHeight: kernelHeight, kernelWidth: kernelWidth, strideHeight: strideHeight,
                           strideWidth: strideWidth, padTop: padTop, padLeft: padLeft, output: output, pool: pool)
        return
    }
    if case .max = kind, smallPlaneMaxPoolFits(inputWidth: input.layout.width, inputHeight: input.layout.height,
                                               outputWidth: output.layout.width, kernelWidth: kernelWidth,
                                               strideWidth: strideWidth, padLeft: padLeft) {
        smallPlaneMaxPool(input, kernelHeight: kernelHeight, kernelWidth: kernelWidth, strideHeight: strideHeight,
                          strideWidth: strideWidth, padTop: padTop, padLeft: padLeft, output: output, pool: pool)
        return
    }
    if rowFits {
        rowMaxPool(input, strideHeight: strideHeight, strideWidth: strideWidth, padTop: padTop, padLeft: padLeft,
                   output: output, pool: pool)
        return
    }
    bandPool2D(input, kind: kind, kernelHeight: kernelHeight, kernelWidth: kernelWidth, strideHeight: strideHeight,
               strideWidth: strideWidth, padTop: padTop, padLeft: padLeft, output: output, pool: pool)
}

/// The band kernel of ``pool2D(_:kind:kernelHeight:kernelWidth:strideHeight:strideWidth:padTop:padLeft:output:pool:)``
/// (window rows reduced into scratch, then columns by vector), whatever the window: what pool2D
/// runs when no in-register kernel takes the problem, and the reference those kernels are
/// tested against. The same preconditions.
package func bandPool2D(_ input: FeatureMap, kind: PoolKind, kernelHeight: Int, kernelWidth: Int, strideHeight: Int,
                        strideWidth: Int, padTop: Int, padLeft: Int, output: FeatureMap, pool: WorkerPool) {
    precondition(kernelHeight >= 1 && kernelWidth >= 1 && strideHeight >= 1 && strideWidth >= 1, "pool2D: empty window or zero stride")
    precondition(padTop >= 0 && padLeft >= 0, "pool2D: negative pad")
    precondition(output.channels == input.channels, "pool2D: channel count differs")
    let geometry = PoolGeometry(input: input.layout, output: output.layout, kernelHeight: kernelHeight, kernelWidth: kernelWidth,
                                strideHeight: strideHeight, strideWidth: strideWidth, padTop: padTop, padLeft: padLeft,
                                scratchCount: pool.scratchCount)
    precondition(geometry.scratchNeeded <= pool.scratchCount,
                 "pool2D of a \(kernelHeight)x\(kernelWidth) window over width \(input.layout.width): pool scratch too small")
    switch kind {
    case .max:
        pool.run(PoolParts<MaxReduction>(input: input, output: output, geometry: geometry, countIncludesPad: false))
    case .average(let countIncludesPad):
        pool.run(PoolParts<SumReduction>(input: input, output: output, geometry: geometry, countIncludesPad: countIncludesPad))
    }
}

/// Whether a max pool both small-map kernels take runs on ``smallPlaneMaxPool(_:kernelHeight:kernelWidth:strideHeight:strideWidth:padTop:padLeft:output:pool:)``
/// rather than ``channelLaneMaxPool(_:kernelHeight:kernelWidth:strideHeight:strideWidth:padTop:padLeft:output:pool:)``:
/// input rows of at least a vector and a half (ResNet's 3x3 stride-2 pool on a 32×32 map), which
/// the small-plane pool reads once in mostly full vectors, where gathering the channels costs
/// more. Narrower rows (SqueezeNet's and GoogLeNet's 17×17 and 8×8 maps) gather.
func smallPlaneMaxPoolPreferred(inputWidth: Int, inputHeight: Int, outputWidth: Int, kernelWidth: Int, strideWidth: Int,
                                padLeft: Int) -> Bool {
    inputWidth >= lanes + lanes / 2
        && smallPlaneMaxPoolFits(inputWidth: inputWidth, inputHeight: inputHeight, outputWidth: outputWidth,
                                 kernelWidth: kernelWidth, strideWidth: strideWidth, padLeft: padLeft)
}

/// Floats of thread scratch ``pool2D(_:kind:kernelHeight:kernelWidth:strideHeight:strideWidth:padTop:padLeft:output:pool:)``
/// uses for this problem with a full band of ``PoolGeometry/maximumBandRows`` reduced rows (with
/// less it runs in smaller bands, down to one row).
package func pool2DScratch(input: PlaneLayout, output: PlaneLayout, kind: PoolKind, kernelHeight: Int, kernelWidth: Int,
                           strideWidth: Int, padLeft: Int) -> ScratchSize {
    let averageOverChannels = kind != .max && channelLaneAveragePoolPreferred(inputWidth: input.width, inputHeight: input.height,
                                                                               outputWidth: output.width, outputHeight: output.height)
    if averageOverChannels || (kind == .max && channelLaneMaxPoolFits(inputWidth: input.width, inputHeight: input.height,
                                                                      outputWidth: output.width, outputHeight: output.height)
                               && !smallPlaneMaxPoolPreferred(inputWidth: input.width, inputHeight: input.height,
                                                              outputWidth: output.width, kernelWidth: kernelWidth,
                                                              strideWidth: strideWidth, padLeft: padLeft)) {
        return smallMapDepthwiseScratch(inputWidth: input.width, inputHeight: input.height, outputWidth: output.width,
                                        outputHeight: output.height)
    }
    let g = PoolGeometry(input: input, output: output, kernelHeight: kernelHeight, kernelWidth: kernelWidth,
                         strideHeight: 1, strideWidth: strideWidth, padTop: 0, padLeft: padLeft, scratchCount: 0)
    // The small-plane max pool's reduced rows fit in this whenever it takes the problem, and so
    // do the row average pool's tables and zero row.
    return ScratchSize(perThread: max(g.bandOffset + PoolGeometry.maximumBandRows * g.rowPitch + lanes, input.height * lanes))
        .union(rowAveragePoolScratch(inputWidth: input.width, outputWidth: output.width))
}

struct PoolGeometry {
    var kernelHeight: Int, kernelWidth: Int, strideHeight: Int, strideWidth: Int, padTop: Int, padLeft: Int
    var inputWidth: Int, inputHeight: Int, outputWidth: Int, outputHeight: Int
    /// Floats of a reduced row (input column i at `padLeft + i`) including the identity border
    /// that whole-vector reads reach, and from one reduced row of a band to the next.
    var rowExtent: Int
    var rowPitch: Int
    /// The average's reciprocal counts at the start of scratch: one table of `tableWidth` per
    /// number of window rows inside the input, 0 ... kernelHeight.
    var tableWidth: Int
    /// Where the band of reduced rows starts in scratch, and how many rows it holds.
    var bandOffset: Int
    var bandRows: Int

    init(input: PlaneLayout, output: PlaneLayout, kernelHeight: Int, kernelWidth: Int, strideHeight: Int, strideWidth: Int,
         padTop: Int, padLeft: Int, scratchCount: Int) {
        self.kernelHeight = kernelHeight; self.kernelWidth = kernelWidth
        self.strideHeight = strideHeight; self.strideWidth = strideWidth
        self.padTop = padTop; self.padLeft = padLeft
        inputWidth = input.width; inputHeight = input.height
        outputWidth = output.width; outputHeight = output.height
        let vectorColumns = roundUp(output.width, toMultipleOf: lanes)
        rowExtent = max(padLeft + input.width, strideWidth * vectorColumns + kernelWidth)
        rowPitch = roundUp(rowExtent, toMultipleOf: lanes)
        tableWidth = vectorColumns
        bandOffset = (kernelHeight + 1) * tableWidth
        bandRows = Swift.min(PoolGeometry.maximumBandRows, Swift.max(1, (scratchCount - bandOffset - lanes) / rowPitch))
    }

    /// Rows reduced before their columns are: enough that the stores of a row have left the
    /// store buffer when its columns are loaded at other offsets (reading a reduced row right
    /// after writing it stalled on store forwarding and cost half the time of a 3x3 average).
    static let maximumBandRows = 16

    var scratchNeeded: Int { bandOffset + rowPitch + lanes }

    /// Input rows of output row `yo`'s window.
    @inline(always)
    func windowRows(_ yo: Int) -> Range<Int> {
        let top = yo * strideHeight - padTop
        return Swift.max(top, 0)..<Swift.max(Swift.min(top + kernelHeight, inputHeight), Swift.max(top, 0))
    }

    /// Input columns of output column `xo`'s window.
    @inline(always)
    func columnCount(_ xo: Int) -> Int {
        let start = xo * strideWidth - padLeft
        return Swift.max(Swift.min(start + kernelWidth, inputWidth) - Swift.max(start, 0), 0)
    }
}

/// The reduction of a pooling window: its identity and how two values combine.
protocol PoolReduction {
    static var identity: Float { get }
    static func combine(_ a: Vector, _ b: Vector) -> Vector
    static func combine(_ a: Float, _ b: Float) -> Float
}

enum MaxReduction: PoolReduction {
    @inline(always) static var identity: Float { -.infinity }
    /// One `vmaxps`-class select (`pointwiseMax` is a scalar loop).
    @inline(always) static func combine(_ a: Vector, _ b: Vector) -> Vector { a.replacing(with: b, where: b .> a) }
    @inline(always) static func combine(_ a: Float, _ b: Float) -> Float { b > a ? b : a }
}

enum SumReduction: PoolReduction {
    @inline(always) static var identity: Float { 0 }
    @inline(always) static func combine(_ a: Vector, _ b: Vector) -> Vector { a + b }
    @inline(always) static func combine(_ a: Float, _ b: Float) -> Float { a + b }
}

struct PoolParts<Reduction: PoolReduction>: PoolJob {
    let input: FeatureMap, output: FeatureMap, geometry: PoolGeometry, countIncludesPad: Bool

    func run(part: Int, pool: WorkerPool) {
        let outH = geometry.outputHeight
        let range = WorkerPool.range(output.channels * outH, part: part, of: pool.threadCount)
        if range.isEmpty { return }
        let scratch = pool.scratch(part).baseAddress!
        let g = geometry
        // The identity border of the band's rows (their interiors are rewritten per output row)
        // and, for the average, 1/count for each output column and each number of window rows in
        // the input (a count of 0 is taken as 1: a window with no input pixel sums to 0).
        for b in 0..<g.bandRows {
            let row = scratch + g.bandOffset + b * g.rowPitch
            row.update(repeating: Reduction.identity, count: g.padLeft)
            (row + g.padLeft + g.inputWidth).update(repeating: Reduction.identity, count: g.rowExtent - g.padLeft - g.inputWidth)
        }
        if Reduction.self == SumReduction.self {
            let reciprocals = scratch
            for rows in 0...g.kernelHeight {
                for xo in 0..<g.tableWidth {
                    let count = countIncludesPad ? Float(g.kernelHeight * g.kernelWidth)
                        : Float(Swift.max(g.columnCount(xo), 1)) * Float(Swift.max(rows, 1))
                    reciprocals[rows * g.tableWidth + xo] = 1 / count
                }
            }
        }
        for c in (range.lowerBound / outH)...((range.upperBound - 1) / outH) {
            let first = Swift.max(range.lowerBound - c * outH, 0), last = Swift.min(range.upperBound - c * outH, outH)
            poolRows(self, channel: c, rows: first..<last, scratch: scratch)
        }
    }
}

/// Output rows `rows` of channel `c`.
@inline(never)
func poolRows<Reduction: PoolReduction>(_ job: PoolParts<Reduction>, channel c: Int, rows: Range<Int>,
                                        scratch: UnsafeMutablePointer<Float>) {
    let g = job.geometry
    let source = UnsafePointer(job.input.plane(c)), inRow = job.input.layout.rowStride
    let destination = job.output.plane(c), outRow = job.output.layout.rowStride
    let band = scratch + g.bandOffset
    let reciprocals = UnsafePointer(scratch)
    let isAverage = Reduction.self == SumReduction.self
    var first = rows.lowerBound
    while first < rows.upperBound {
        let count = Swift.min(g.bandRows, rows.upperBound - first)
        for b in 0..<count {
            reduceRows(source, rowStride: inRow, rows: g.windowRows(first + b), width: g.inputWidth,
                       into: band + b * g.rowPitch + g.padLeft, Reduction.self)
        }
        for b in 0..<count {
            let yo = first + b
            let row = UnsafePointer(band + b * g.rowPitch), out = destination + yo * outRow
            let counts = reciprocals + (job.countIncludesPad ? 0 : g.windowRows(yo).count) * g.tableWidth
            // 3-wide windows (ResNet's, SqueezeNet's and GoogLeNet's 3x3 max pools) with the
            // width a literal, so the window's columns unroll into independent loads.
            switch (g.strideWidth, g.kernelWidth) {
            case (1, 3): reduceColumnsVector(row, g, stride: 1, window: 3, counts: counts, average: isAverage, into: out, Reduction.self)
            case (2, 3): reduceColumnsVector(row, g, stride: 2, window: 3, counts: counts, average: isAverage, into: out, Reduction.self)
            case (1, _): reduceColumnsVector(row, g, stride: 1, window: g.kernelWidth, counts: counts, average: isAverage, into: out,
                                             Reduction.self)
            case (2, _): reduceColumnsVector(row, g, stride: 2, window: g.kernelWidth, counts: counts, average: isAverage, into: out,
                                             Reduction.self)
            default: reduceColumnsScalar(row, g, counts: counts, average: isAverage, into: out, Reduction.self)
            }
        }
        first += count
    }
}

/// The rows `rows` of a plane reduced column by column into `out[0..<width]` (all identity
/// when `rows` is empty): 16 columns at a time, every row of the window combined in a register
/// in order, then one store (the row's last partial vector is one too: a masked move with
/// AVX-512). Each input element is read once and `out` is only written, never reloaded (a
/// reload right after a store stalls on store forwarding).
@inline(always)
func reduceRows<Reduction: PoolReduction>(_ source: UnsafePointer<Float>, rowStride: Int, rows: Range<Int>, width: Int,
                                          into out: UnsafeMutablePointer<Float>, _: Reduction.Type) {
    if rows.isEmpty {
        out.update(repeating: Reduction.identity, count: width)
        return
    }
    let top = source + rows.lowerBound * rowStride
    /// Columns `x ..< x + n` (n ≤ 16) of every window row, combined in order, stored once.
    @inline(always) func reduce(_ x: Int, _ n: Int) {
        var acc = load(top + x, count: n)
        var row = top + rowStride
        for _ in 1..<rows.count {
            acc = Reduction.combine(acc, load(row + x, count: n))
            row += rowStride
        }
        store(acc, out + x, count: n)
    }
    // Whole vectors with the count a constant (plain loads and stores), then the last
    // `width % 16` columns masked.
    var x = 0
    while x + lanes <= width {
        reduce(x, lanes)
        x += lanes
    }
    if x < width { reduce(x, width - x) }
}

/// Stores 16 (or the last `count`) window results, times their reciprocal counts for the average.
@inline(always)
func finishPool(_ acc: Vector, counts: UnsafePointer<Float>, average: Bool,
                into out: UnsafeMutablePointer<Float>, count: Int) {
    let value = average ? acc * load(counts) : acc
    store(value, out, count: count)
}

/// The `window` columns of 16 outputs starting at `xo`, stride 1 or 2 (whole-vector reads stay
/// inside the identity-bordered row), combined in column order.
@inline(always)
func reduceColumns<Reduction: PoolReduction>(_ row: UnsafePointer<Float>, stride: Int, window: Int, at xo: Int,
                                             _: Reduction.Type) -> Vector {
    let p = row + stride * xo
    var acc = stride == 1 ? load(p) : loadEven(p)
    for kx in 1..<window { acc = Reduction.combine(acc, stride == 1 ? load(p + kx) : loadEven(p + kx)) }
    return acc
}

/// One output row, 16 outputs per vector, for stride 1 or 2 (`stride` is a literal at every call
/// site, and `window` at some, so each inlined copy loads with `load` or `loadEven` and nothing is
/// decided per vector).
@inline(always)
func reduceColumnsVector<Reduction: PoolReduction>(_ row: UnsafePointer<Float>, _ g: PoolGeometry, stride: Int, window: Int,
                                                   counts: UnsafePointer<Float>, average: Bool,
                                                   into out: UnsafeMutablePointer<Float>, _: Reduction.Type) {
    var xo = 0
    while xo + lanes <= g.outputWidth {
        let acc = reduceColumns(row, stride: stride, window: window, at: xo, Reduction.self)
        finishPool(acc, counts: counts + xo, average: average, into: out + xo, count: lanes)
        xo += lanes
    }
    if xo < g.outputWidth {
        let acc = reduceColumns(row, stride: stride, window: window, at: xo, Reduction.self)
        finishPool(acc, counts: counts + xo, average: average, into: out + xo, count: g.outputWidth - xo)
    }
}

@inline(always)
func reduceColumnsScalar<Reduction: PoolReduction>(_ row: UnsafePointer<Float>, _ g: PoolGeometry, counts: UnsafePointer<Float>,
                                                   average: Bool, into out: UnsafeMutablePointer<Float>,
                                                   _: Reduction.Type) {
    for xo in 0..<g.outputWidth {
        let p = row + xo * g.strideWidth
        var acc = p[0]
        for kx in 1..<g.kernelWidth { acc = Reduction.combine(acc, p[kx]) }
        out[xo] = average ? acc * counts[xo] : acc
    }
}
