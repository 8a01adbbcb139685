/// What a pooling window computes.
public enum PoolKind: Sendable, Hashable {
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
/// Per output row the window's input rows are reduced column by column into per-thread scratch
/// bordered by the reduction's identity (−∞ or 0), then the window's columns are reduced 16
/// outputs per vector: loads at `xo + kx` for stride 1, a register deinterleave (`loadEven`) for
/// stride 2, scalar for other strides. Sums add the rows in order, then the columns in order,
/// and divide once. Rows of all channels are split between threads; every output is computed
/// the same way on any thread count.
/// - Precondition: kernel sizes and strides ≥ 1, pads ≥ 0. `output` has the input's channel
///   count; any layouts on both sides (the dense input of the spec included). The scratch row,
///   `max(padLeft + W, strideWidth·roundUp(outW, 16) + kernelWidth) + roundUp(outW, 16) + 16`
///   floats, fits `pool.scratchCount`. `output` must not overlap `input`.
@inline(never)
public func pool2D(_ input: FeatureMap, kind: PoolKind, kernelHeight: Int, kernelWidth: Int, strideHeight: Int, strideWidth: Int,
                   padTop: Int, padLeft: Int, output: FeatureMap, pool: WorkerPool) {
    precondition(kernelHeight >= 1 && kernelWidth >= 1 && strideHeight >= 1 && strideWidth >= 1, "pool2D: empty window or zero stride")
    precondition(padTop >= 0 && padLeft >= 0, "pool2D: negative pad")
    precondition(output.channels == input.channels, "pool2D: channel count differs")
    let geometry = PoolGeometry(input: input.layout, output: output.layout, kernelHeight: kernelHeight, kernelWidth: kernelWidth,
                                strideHeight: strideHeight, strideWidth: strideWidth, padTop: padTop, padLeft: padLeft)
    precondition(geometry.scratchNeeded <= pool.scratchCount, "pool2D: pool scratch too small")
    switch kind {
    case .max:
        pool.run(PoolParts<MaxReduction>(input: input, output: output, geometry: geometry, countIncludesPad: false))
    case .average(let countIncludesPad):
        pool.run(PoolParts<SumReduction>(input: input, output: output, geometry: geometry, countIncludesPad: countIncludesPad))
    }
}

struct PoolGeometry {
    var kernelHeight: Int, kernelWidth: Int, strideHeight: Int, strideWidth: Int, padTop: Int, padLeft: Int
    var inputWidth: Int, inputHeight: Int, outputWidth: Int, outputHeight: Int
    /// Floats of the reduced row (input column i at `padLeft + i`) including the identity border
    /// that whole-vector reads reach.
    var rowExtent: Int
    /// Where the per-column counts of the average start in scratch.
    var countsOffset: Int

    init(input: PlaneLayout, output: PlaneLayout, kernelHeight: Int, kernelWidth: Int, strideHeight: Int, strideWidth: Int,
         padTop: Int, padLeft: Int) {
        self.kernelHeight = kernelHeight; self.kernelWidth = kernelWidth
        self.strideHeight = strideHeight; self.strideWidth = strideWidth
        self.padTop = padTop; self.padLeft = padLeft
        inputWidth = input.width; inputHeight = input.height
        outputWidth = output.width; outputHeight = output.height
        let vectorColumns = roundUp(output.width, toMultipleOf: lanes)
        rowExtent = max(padLeft + input.width, strideWidth * vectorColumns + kernelWidth)
        countsOffset = roundUp(rowExtent, toMultipleOf: lanes)
    }

    var scratchNeeded: Int { countsOffset + roundUp(outputWidth, toMultipleOf: lanes) + lanes }

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
    /// One `vmaxps`-class select (`pointwiseMax` is a scalar loop, swiftsimd.md §3.3).
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
        let scratch = pool.scratch(part)
        let g = geometry
        // The identity border of the reduced row (the interior is rewritten per output row) and,
        // for the average, each output column's count of input columns (at least 1: a window
        // with no input pixel sums to 0).
        scratch.update(repeating: Reduction.identity, count: g.padLeft)
        (scratch + g.padLeft + g.inputWidth).update(repeating: Reduction.identity, count: g.rowExtent - g.padLeft - g.inputWidth)
        let counts = scratch + g.countsOffset
        for xo in 0..<roundUp(g.outputWidth, toMultipleOf: lanes) {
            counts[xo] = countIncludesPad ? Float(g.kernelHeight * g.kernelWidth) : Float(Swift.max(g.columnCount(xo), 1))
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
    let reduced = scratch + g.padLeft
    let counts = UnsafePointer(scratch + g.countsOffset)
    let isAverage = Reduction.self == SumReduction.self
    for yo in rows {
        let top = yo * g.strideHeight - g.padTop
        let windowRows = Swift.max(top, 0)..<Swift.min(top + g.kernelHeight, g.inputHeight)
        reduceRows(source, rowStride: inRow, rows: windowRows, width: g.inputWidth, into: reduced, Reduction.self)
        let out = destination + yo * outRow
        let rowScale: Float = job.countIncludesPad ? 1 : Float(Swift.max(windowRows.count, 1))
        switch g.strideWidth {
        case 1: reduceColumnsStride1(UnsafePointer(scratch), g, counts: counts, rowScale: rowScale, average: isAverage, into: out, Reduction.self)
        case 2: reduceColumnsStride2(UnsafePointer(scratch), g, counts: counts, rowScale: rowScale, average: isAverage, into: out, Reduction.self)
        default: reduceColumnsScalar(UnsafePointer(scratch), g, counts: counts, rowScale: rowScale, average: isAverage, into: out, Reduction.self)
        }
    }
}

/// The rows `rows` of a plane reduced column by column into `out[0..<width]` (all identity
/// when `rows` is empty).
@inline(always)
func reduceRows<Reduction: PoolReduction>(_ source: UnsafePointer<Float>, rowStride: Int, rows: Range<Int>, width: Int,
                                          into out: UnsafeMutablePointer<Float>, _: Reduction.Type) {
    if rows.isEmpty {
        out.update(repeating: Reduction.identity, count: width)
        return
    }
    var x = 0
    while x < width {
        let n = Swift.min(lanes, width - x)
        var p = source + rows.lowerBound * rowStride + x
        var acc = load(p, count: n)
        for _ in 1..<rows.count {
            p += rowStride
            acc = Reduction.combine(acc, load(p, count: n))
        }
        store(acc, out + x, count: n)
        x += lanes
    }
}

/// Stores 16 (or the last `count`) window results, divided by their counts for the average.
@inline(always)
func finishPool(_ acc: Vector, counts: UnsafePointer<Float>, rowScale: Float, average: Bool,
                into out: UnsafeMutablePointer<Float>, count: Int) {
    let value = average ? acc / (load(counts) * rowScale) : acc
    store(value, out, count: count)
}

@inline(always)
func reduceColumnsStride1<Reduction: PoolReduction>(_ row: UnsafePointer<Float>, _ g: PoolGeometry, counts: UnsafePointer<Float>,
                                                    rowScale: Float, average: Bool, into out: UnsafeMutablePointer<Float>,
                                                    _: Reduction.Type) {
    var xo = 0
    while xo < g.outputWidth {
        let p = row + xo
        var acc = load(p)
        for kx in 1..<g.kernelWidth { acc = Reduction.combine(acc, load(p + kx)) }
        finishPool(acc, counts: counts + xo, rowScale: rowScale, average: average, into: out + xo, count: g.outputWidth - xo)
        xo += lanes
    }
}

@inline(always)
func reduceColumnsStride2<Reduction: PoolReduction>(_ row: UnsafePointer<Float>, _ g: PoolGeometry, counts: UnsafePointer<Float>,
                                                    rowScale: Float, average: Bool, into out: UnsafeMutablePointer<Float>,
                                                    _: Reduction.Type) {
    var xo = 0
    while xo < g.outputWidth {
        let p = row + 2 * xo
        var acc = loadEven(p)
        for kx in 1..<g.kernelWidth { acc = Reduction.combine(acc, loadEven(p + kx)) }
        finishPool(acc, counts: counts + xo, rowScale: rowScale, average: average, into: out + xo, count: g.outputWidth - xo)
        xo += lanes
    }
}

@inline(always)
func reduceColumnsScalar<Reduction: PoolReduction>(_ row: UnsafePointer<Float>, _ g: PoolGeometry, counts: UnsafePointer<Float>,
                                                   rowScale: Float, average: Bool, into out: UnsafeMutablePointer<Float>,
                                                   _: Reduction.Type) {
    for xo in 0..<g.outputWidth {
        let p = row + xo * g.strideWidth
        var acc = p[0]
        for kx in 1..<g.kernelWidth { acc = Reduction.combine(acc, p[kx]) }
        out[xo] = average ? acc / (counts[xo] * rowScale) : acc
    }
}
