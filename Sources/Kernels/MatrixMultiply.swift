import TargetFeatures

/// A constant right-hand matrix B (K×N) and bias for ``matrixMultiply(_:rows:weights:output:pool:)``
/// and ``packedMatrixMultiply(_:rows:weights:output:function:pool:)``: column panels of
/// ``MatrixWeights/panelWidth`` (32) columns, each panel K rows of 32 floats back to back (the
/// last panel padded with zero columns), so a tile's loads for one k are one contiguous run and
/// a panel is read front to back.
package final class MatrixWeights {
    package let inner: Int
    package let columns: Int
    let values: FloatBuffer
    let bias: FloatBuffer

    /// Columns per panel: a register tile's two vectors.
    static let panelWidth = 2 * lanes

    var panels: Int { (columns + MatrixWeights.panelWidth - 1) / MatrixWeights.panelWidth }

    /// `values` row-major K×N (`inner` × `columns`); `bias` N values, or zero when nil.
    package init(values: [Float], bias: [Float]?, inner: Int, columns: Int) {
        precondition(inner > 0 && columns > 0, "empty matrix")
        precondition(values.count == inner * columns, "matrix: expected \(inner)x\(columns)")
        precondition(bias == nil || bias!.count == columns, "matrix bias: expected \(columns)")
        self.inner = inner
        self.columns = columns
        let width = MatrixWeights.panelWidth, panels = (columns + width - 1) / width
        self.values = FloatBuffer(count: panels * inner * width)
        for k in 0..<inner {
            for n in 0..<columns {
                self.values.baseAddress[((n / width) * inner + k) * width + n % width] = values[k * columns + n]
            }
        }
        self.bias = FloatBuffer(count: panels * width)
        for n in 0..<columns { self.bias.baseAddress[n] = bias?[n] ?? 0 }
    }

    /// Row 0 of panel `index`.
    func panel(_ index: Int) -> UnsafePointer<Float> {
        UnsafePointer(values.baseAddress + index * inner * MatrixWeights.panelWidth)
    }
}

/// `output[m][n] = bias[n] + Σ_k a[m][k] · B[k][n]` for `rows` rows of `a` (row-major, K
/// floats each) into `output` (row-major, N floats each).
///
/// Register tiles: 4 rows × 32 columns (8 accumulators; per k one broadcast of `a[m][k]` per
/// row and two loads of the panel's row k); a single row (a matrix-vector product: a
/// classifier, a squeeze-excite on a 1×1 map) takes 1 row × 4 panels (8 accumulators; per k one
/// broadcast and four contiguous 128-byte runs). Every output is the bias followed by fused
/// multiply-adds in k order (multiply then add in the portable build), whatever the tile or the
/// thread, so results do not depend on the thread count. Rows are split between threads, or
/// panels of columns when there are too few rows for every thread.
///
/// `function`, if any, is then applied to each group of rows a thread computed, while it is in
/// cache.
package func matrixMultiply(_ a: UnsafePointer<Float>, rows: Int, weights: MatrixWeights,
                           output: UnsafeMutablePointer<Float>, function: VectorFunction? = nil, pool: WorkerPool) {
    pool.run(MatrixParts(a: a, rows: rows, weights: weights, output: output, function: function))
}

struct MatrixParts: PoolJob {
    let a: UnsafePointer<Float>, rows: Int, weights: MatrixWeights, output: UnsafeMutablePointer<Float>
    let function: VectorFunction?
    func run(part: Int, pool: WorkerPool) {
        if rows < 4 * pool.threadCount {
            matrixRows(self, 0..<rows, panels: WorkerPool.range(weights.panels, part: part, of: pool.threadCount))
        } else {
            matrixRows(self, WorkerPool.range(rows, part: part, of: pool.threadCount, granularity: 4), panels: 0..<weights.panels)
        }
    }
}

@inline(never)
func matrixRows(_ job: MatrixParts, _ rows: Range<Int>, panels: Range<Int>) {
    panelRows(a: job.a, inner: job.weights.inner, columns: job.weights.columns, b: job.weights.panel(0),
              bias: UnsafePointer(job.weights.bias.baseAddress), rows: rows, panels: panels, output: job.output,
              function: job.function)
}

/// `rows` of `a` (K floats each) times the columns of `panels` of the panel-packed `b` (panel
/// p at `b + p·K·32`, as ``MatrixWeights`` packs them), each output the bias then fused
/// multiply-adds in k order, stored into `output` (rows of `columns` floats); then `function`
/// on each group of rows, while it is in cache.
@inline(always)
func panelRows(a: UnsafePointer<Float>, inner k: Int, columns n: Int, b: UnsafePointer<Float>, bias: UnsafePointer<Float>,
               rows: Range<Int>, panels: Range<Int>, output: UnsafeMutablePointer<Float>, function: VectorFunction?) {
    let width = MatrixWeights.panelWidth
    var m = rows.lowerBound
    while m < rows.upperBound {
        let count = min(4, rows.upperBound - m)
        var p = panels.lowerBound
        while p < panels.upperBound {
            let column = p * width
            if count == 1 && wideRegisterFile {
                let taken = min(4, panels.upperBound - p)
                matrixRowTile(a: a + m * k, inner: k, b: b + p * k * width, panels: taken, bias: bias + column,
                              output: output + m * n + column, width: min(taken * width, n - column))
                p += taken
            } else {
                matrixTile(a: a + m * k, inner: k, rows: count, b: b + p * k * width, bias: bias + column,
                           output: output + m * n + column, outputStride: n, width: min(width, n - column))
                p += 1
            }
        }
        if let function {
            let first = panels.lowerBound * width, last = min(panels.upperBound * width, n)
            for r in m..<(m + count) {
                let row = output + r * n + first
                apply(function, row, output: row, count: last - first)
            }
        }
        m += count
    }
}

/// Up to 4 rows × one panel (up to 32 columns stored).
@inline(always)
func matrixTile(a: UnsafePointer<Float>, inner: Int, rows: Int, b: UnsafePointer<Float>,
                bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, outputStride: Int, width: Int) {
    let bias0 = load(bias), bias1 = load(bias + lanes)
    var acc0 = (bias0, bias0, bias0, bias0), acc1 = (bias1, bias1, bias1, bias1)
    let a1 = a + (rows > 1 ? inner : 0), a2 = a + (rows > 2 ? 2 * inner : 0), a3 = a + (rows > 3 ? 3 * inner : 0)
    var row = b
    for kk in 0..<inner {
        prefetchPanelRow(row)
        let b0 = load(row), b1 = load(row + lanes)
        acc0.0 = multiplyAdd(acc0.0, a[kk], b0)
        acc0.1 = multiplyAdd(acc0.1, a1[kk], b0)
        acc0.2 = multiplyAdd(acc0.2, a2[kk], b0)
        acc0.3 = multiplyAdd(acc0.3, a3[kk], b0)
        acc1.0 = multiplyAdd(acc1.0, a[kk], b1)
        acc1.1 = multiplyAdd(acc1.1, a1[kk], b1)
        acc1.2 = multiplyAdd(acc1.2, a2[kk], b1)
        acc1.3 = multiplyAdd(acc1.3, a3[kk], b1)
        row += MatrixWeights.panelWidth
    }
    let first = min(width, lanes), second = width - first
    for r in 0..<rows {
        let v0 = r == 0 ? acc0.0 : r == 1 ? acc0.1 : r == 2 ? acc0.2 : acc0.3
        store(v0, output + r * outputStride, count: first)
        if second > 0 {
            let v1 = r == 0 ? acc1.0 : r == 1 ? acc1.1 : r == 2 ? acc1.2 : acc1.3
            store(v1, output + r * outputStride + lanes, count: second)
        }
    }
}

/// One row × `panels` (1...4) adjacent panels: eight accumulators; each k one broadcast of
/// `a[k]` and a contiguous 128-byte run of each panel. Columns past `width` are computed on
/// zero padding (or a panel's repeat) and not stored.
@inline(never)
func matrixRowTile(a: UnsafePointer<Float>, inner: Int, b: UnsafePointer<Float>, panels: Int, bias: UnsafePointer<Float>,
                   output: UnsafeMutablePointer<Float>, width: Int) {
    let step = inner * MatrixWeights.panelWidth
    var p0 = b, p1 = b + (panels > 1 ? step : 0), p2 = b + (panels > 2 ? 2 * step : 0), p3 = b + (panels > 3 ? 3 * step : 0)
    var acc = MatrixRow8(bias, panels: panels)
    for kk in 0..<inner {
        let x = a[kk]
        prefetchPanelRow(p0); prefetchPanelRow(p1); prefetchPanelRow(p2); prefetchPanelRow(p3)
        acc.v0 = multiplyAdd(acc.v0, x, load(p0)); acc.v1 = multiplyAdd(acc.v1, x, load(p0 + lanes))
        acc.v2 = multiplyAdd(acc.v2, x, load(p1)); acc.v3 = multiplyAdd(acc.v3, x, load(p1 + lanes))
        acc.v4 = multiplyAdd(acc.v4, x, load(p2)); acc.v5 = multiplyAdd(acc.v5, x, load(p2 + lanes))
        acc.v6 = multiplyAdd(acc.v6, x, load(p3)); acc.v7 = multiplyAdd(acc.v7, x, load(p3 + lanes))
        p0 += MatrixWeights.panelWidth; p1 += MatrixWeights.panelWidth
        p2 += MatrixWeights.panelWidth; p3 += MatrixWeights.panelWidth
    }
    acc.store(output, count: width)
}

/// Eight vectors of one output row (128 columns).
struct MatrixRow8 {
    var v0, v1, v2, v3, v4, v5, v6, v7: Vector

    /// The bias of `panels` panels' columns (the others are never stored).
    @inline(always) init(_ p: UnsafePointer<Float>, panels: Int) {
        v0 = load(p); v1 = load(p + 16)
        v2 = panels > 1 ? load(p + 32) : v0; v3 = panels > 1 ? load(p + 48) : v1
        v4 = panels > 2 ? load(p + 64) : v0; v5 = panels > 2 ? load(p + 80) : v1
        v6 = panels > 3 ? load(p + 96) : v0; v7 = panels > 3 ? load(p + 112) : v1
    }

    /// The first `count` columns (1...128).
    @inline(always) func store(_ p: UnsafeMutablePointer<Float>, count: Int) {
        @inline(always) func put(_ v: Vector, _ i: Int) {
            let rest = count - i * lanes
            if rest > 0 { Kernels.store(v, p + i * lanes, count: rest) }
        }
        put(v0, 0); put(v1, 1); put(v2, 2); put(v3, 3); put(v4, 4); put(v5, 5); put(v6, 6); put(v7, 7)
    }
}

/// Asks for the panel row `prefetchDistance` floats after `row` (its two cache lines): a layer's
/// weights are read once per inference, from beyond the L2 when the model's weights outgrow it,
/// and the hardware's stream prefetcher stops at page ends.
@inline(always)
func prefetchPanelRow(_ row: UnsafePointer<Float>) {
    vbg_prefetch(row + prefetchDistance)
    vbg_prefetch(row + prefetchDistance + lanes)
}

/// Floats ahead of the current panel row that ``prefetchPanelRow(_:)`` asks for (4 KiB: 32 rows).
let prefetchDistance = 1024

/// How a tile reads its weight panel: the first tile over a panel streams it from memory (and
/// prefetches ahead), the tiles after it find it in cache (where a prefetch is a wasted load).
protocol PanelReading {
    static func ahead(_ row: UnsafePointer<Float>)
}

enum StreamedPanel: PanelReading {
    @inline(always) static func ahead(_ row: UnsafePointer<Float>) { prefetchPanelRow(row) }
}

enum CachedPanel: PanelReading {
    @inline(always) static func ahead(_ row: UnsafePointer<Float>) {}
}

/// Rows of A per panel of ``packedMatrixMultiply(_:rows:weights:output:function:pool:)``'s packed left
/// operand: the register tile's rows.
package let packedRows = 12

/// Products of at least this many rows of A (pixels of a small map, tokens) take the packed
/// 12-row GEMM; fewer, the unpacked one (4-row tiles, which a 2x2 map fills; one row is a
/// matrix-vector product).
package let packedProductFrom = 5

/// Floats of a packed left operand of `rows` rows and `inner` columns: whole panels of
/// ``packedRows`` rows, each [k][12].
package func packedOperandCount(rows: Int, inner: Int) -> Int {
    (rows + packedRows - 1) / packedRows * packedRows * inner
}

/// Zeroes the last panel of a packed left operand of `rows` rows and `inner` columns, whose rows
/// past `rows` ``packedMatrixMultiply(_:rows:weights:output:function:pool:)`` needs finite: for an
/// operand in memory other kernels also use. One contiguous run (the panel's rows are
/// interleaved per column), so call it before the operand is packed.
package func zeroPackedPadding(_ packed: UnsafeMutablePointer<Float>, rows: Int, inner: Int) {
    guard rows % packedRows > 0 else { return }
    let panel = packed + (rows / packedRows) * inner * packedRows
    var i = 0, count = inner * packedRows
    while i + lanes <= count { store(Vector(), panel + i); i += lanes }
    while i < count { panel[i] = 0; i += 1 }
}

/// Where element (`row`, `k`) of a packed left operand with `inner` columns sits.
package func packedOperandOffset(row: Int, k: Int, inner: Int) -> Int {
    ((row / packedRows) * inner + k) * packedRows + row % packedRows
}

/// ``matrixMultiply(_:rows:weights:output:pool:)`` with A packed in panels of ``packedRows``
/// rows (``packedOperandOffset(row:k:inner:)``; rows past `rows` in the last panel must be
/// finite, e.g. zero): a register tile of 12 rows × 32 columns (24 accumulators; per k two loads
/// of the weight panel and twelve broadcasts from one contiguous 48-byte run), so each weight
/// panel is read once per 12 rows. Each thread takes whole weight panels, or whole row panels
/// when there are fewer weight panels than threads. Every output is the bias followed by fused
/// multiply-adds in k order, as in the unpacked product.
///
/// `function`, if any, is then applied to each tile's outputs, while they are in cache.
package func packedMatrixMultiply(_ a: UnsafePointer<Float>, rows: Int, weights: MatrixWeights,
                                  output: UnsafeMutablePointer<Float>, function: VectorFunction? = nil, pool: WorkerPool) {
    pool.run(PackedMatrixParts(a: a, rows: rows, weights: weights, output: output, function: function))
}

struct PackedMatrixParts: PoolJob {
    let a: UnsafePointer<Float>, rows: Int, weights: MatrixWeights, output: UnsafeMutablePointer<Float>
    let function: VectorFunction?
    func run(part: Int, pool: WorkerPool) {
        let rowPanels = (rows + packedRows - 1) / packedRows
        if weights.panels >= pool.threadCount || rowPanels < pool.threadCount {
            packedMatrixPanels(self, rowPanels: 0..<rowPanels,
                               panels: WorkerPool.range(weights.panels, part: part, of: pool.threadCount))
        } else {
            packedMatrixPanels(self, rowPanels: WorkerPool.range(rowPanels, part: part, of: pool.threadCount),
                               panels: 0..<weights.panels)
        }
    }
}

@inline(never)
func packedMatrixPanels(_ job: PackedMatrixParts, rowPanels: Range<Int>, panels: Range<Int>) {
    let k = job.weights.inner, n = job.weights.columns, width = MatrixWeights.panelWidth, function = job.function
    for p in panels {
        let column = p * width
        for r in rowPanels {
            let first = r * packedRows, rows = min(packedRows, job.rows - first), stored = min(width, n - column)
            let output = job.output + first * n + column
            packedMatrixTile(a: job.a + r * packedRows * k, inner: k, rows: rows,
                             b: job.weights.panel(p), bias: UnsafePointer(job.weights.bias.baseAddress + column),
                             output: output, outputStride: n, width: stored, streamed: r == rowPanels.lowerBound)
            if let function {
                for row in 0..<rows { apply(function, output + row * n, output: output + row * n, count: stored) }
            }
        }
    }
}

/// 12 rows × one panel; stores `rows` rows of `width` columns. A panel's last rows take a tile
/// of 4, 8 or 10 rows (the 12-row tile would compute its empty rows too). `streamed`: the panel
/// is read for the first time (``PanelReading``).
func packedMatrixTile(a: UnsafePointer<Float>, inner: Int, rows: Int, b: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                      output: UnsafeMutablePointer<Float>, outputStride: Int, width: Int, streamed: Bool) {
    if streamed {
        packedMatrixTile(a: a, inner: inner, rows: rows, b: b, bias: bias, output: output, outputStride: outputStride,
                         width: width, StreamedPanel.self)
    } else {
        packedMatrixTile(a: a, inner: inner, rows: rows, b: b, bias: bias, output: output, outputStride: outputStride,
                         width: width, CachedPanel.self)
    }
}

@inline(never)
func packedMatrixTile<R: PanelReading>(a: UnsafePointer<Float>, inner: Int, rows: Int, b: UnsafePointer<Float>,
                                       bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, outputStride: Int,
                                       width: Int, _: R.Type) {
    guard wideRegisterFile else {
        // 16 vector registers or fewer: four rows at a time (as the unpacked tile).
        for first in stride(from: 0, to: rows, by: 4) {
            packedMatrixTile(PackedTile4.self, a: a + first, inner: inner, rows: min(4, rows - first), b: b, bias: bias,
                             output: output + first * outputStride, outputStride: outputStride, width: width, R.self)
        }
        return
    }
    switch rows {
    case ...4:
        packedMatrixTile(PackedTile4.self, a: a, inner: inner, rows: rows, b: b, bias: bias, output: output,
                         outputStride: outputStride, width: width, R.self)
    case ...8:
        packedMatrixTile(PackedTile8.self, a: a, inner: inner, rows: rows, b: b, bias: bias, output: output,
                         outputStride: outputStride, width: width, R.self)
    case ...10:
        packedMatrixTile(PackedTile10.self, a: a, inner: inner, rows: rows, b: b, bias: bias, output: output,
                         outputStride: outputStride, width: width, R.self)
    default:
        packedMatrixTile(PackedTile.self, a: a, inner: inner, rows: rows, b: b, bias: bias, output: output,
                         outputStride: outputStride, width: width, R.self)
    }
}

/// The first `rows` rows (at most `T`'s) of a packed panel with the tile `T`.
@inline(always)
func packedMatrixTile<T: PackedRowTile, R: PanelReading>(_: T.Type, a: UnsafePointer<Float>, inner: Int, rows: Int,
                                                         b: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                                                         output: UnsafeMutablePointer<Float>, outputStride: Int, width: Int,
                                                         _: R.Type) {
    var acc = T(bias)
    var ap = a, bp = b
    for _ in 0..<inner {
        R.ahead(bp)
        acc.accumulate(ap, step: 1, bp)
        ap += packedRows
        bp += MatrixWeights.panelWidth
    }
    acc.store(output, stride: outputStride, rows: rows, width: width)
}

/// Row `row` of a register tile, `low` and `high` its 32 columns: the first `width` stored at `p`
/// when the row is among the first `rows`.
@inline(always)
func storeTileRow(_ low: Vector, _ high: Vector, _ p: UnsafeMutablePointer<Float>, row: Int, rows: Int, width: Int) {
    guard row < rows else { return }
    let first = min(width, lanes)
    store(low, p, count: first)
    if width > first { store(high, p + lanes, count: width - first) }
}

/// Row `row` (at most `rows − 1`) of stored partial sums: its first `width` of 32 columns at
/// `p + row · stride`, zero past them.
@inline(always)
func loadTileRow(_ p: UnsafePointer<Float>, row: Int, rows: Int, stride: Int, width: Int) -> (Vector, Vector) {
    let q = p + min(row, rows - 1) * stride, first = min(width, lanes)
    return (load(q, count: first), width > first ? load(q + lanes, count: width - first) : Vector())
}

/// A register tile of rows × 32 columns over a packed left operand's panel.
protocol PackedRowTile {
    init(_ bias: UnsafePointer<Float>)
    /// The partial sums a tile stored: row r's `width` columns at `p + r · stride` (rows past
    /// `rows` repeat the last), to go on accumulating over the next block of the inner index.
    init(continuing p: UnsafePointer<Float>, stride: Int, rows: Int, width: Int)
    /// One k: row r's value at `x[r · step]`, `w` the weight panel's row k.
    mutating func accumulate(_ x: UnsafePointer<Float>, step: Int, _ w: UnsafePointer<Float>)
    /// The first `rows` rows, `width` columns each.
    func store(_ p: UnsafeMutablePointer<Float>, stride: Int, rows: Int, width: Int)
    /// One k: row r's value at `x[offsets.o`r`]`, `w` the weight panel's row k.
    mutating func accumulate(_ x: UnsafePointer<Float>, at offsets: PixelOffsets, _ w: UnsafePointer<Float>)
    /// One k of two groups: the low columns from row r's value at `x[offsets.o`r`]`, the high
    /// ones from `y[offsets.o`r`]`.
    mutating func accumulate(_ x: UnsafePointer<Float>, _ y: UnsafePointer<Float>, at offsets: PixelOffsets,
                             _ w: UnsafePointer<Float>)
}

/// 8 rows × 32 columns of accumulators: a panel's last 5 to 8 rows.
struct PackedTile8: PackedRowTile {
    var a0, a1, a2, a3, a4, a5, a6, a7, b0, b1, b2, b3, b4, b5, b6, b7: Vector

    @inline(always) init(_ bias: UnsafePointer<Float>) {
        let l = load(bias), h = load(bias + lanes)
        (a0, a1, a2, a3, a4, a5, a6, a7) = (l, l, l, l, l, l, l, l)
        (b0, b1, b2, b3, b4, b5, b6, b7) = (h, h, h, h, h, h, h, h)
    }

    @inline(always) init(continuing p: UnsafePointer<Float>, stride: Int, rows: Int, width: Int) {
        (a0, b0) = loadTileRow(p, row: 0, rows: rows, stride: stride, width: width)
        (a1, b1) = loadTileRow(p, row: 1, rows: rows, stride: stride, width: width)
        (a2, b2) = loadTileRow(p, row: 2, rows: rows, stride: stride, width: width)
        (a3, b3) = loadTileRow(p, row: 3, rows: rows, stride: stride, width: width)
        (a4, b4) = loadTileRow(p, row: 4, rows: rows, stride: stride, width: width)
        (a5, b5) = loadTileRow(p, row: 5, rows: rows, stride: stride, width: width)
        (a6, b6) = loadTileRow(p, row: 6, rows: rows, stride: stride, width: width)
        (a7, b7) = loadTileRow(p, row: 7, rows: rows, stride: stride, width: width)
    }

    @inline(always) mutating func accumulate(_ x: UnsafePointer<Float>, step: Int, _ w: UnsafePointer<Float>) {
        let l = load(w), h = load(w + lanes)
        a0 = multiplyAdd(a0, x[0 * step], l); b0 = multiplyAdd(b0, x[0 * step], h)
        a1 = multiplyAdd(a1, x[1 * step], l); b1 = multiplyAdd(b1, x[1 * step], h)
        a2 = multiplyAdd(a2, x[2 * step], l); b2 = multiplyAdd(b2, x[2 * step], h)
        a3 = multiplyAdd(a3, x[3 * step], l); b3 = multiplyAdd(b3, x[3 * step], h)
        a4 = multiplyAdd(a4, x[4 * step], l); b4 = multiplyAdd(b4, x[4 * step], h)
        a5 = multiplyAdd(a5, x[5 * step], l); b5 = multiplyAdd(b5, x[5 * step], h)
        a6 = multiplyAdd(a6, x[6 * step], l); b6 = multiplyAdd(b6, x[6 * step], h)
        a7 = multiplyAdd(a7, x[7 * step], l); b7 = multiplyAdd(b7, x[7 * step], h)
    }

    @inline(always) mutating func accumulate(_ x: UnsafePointer<Float>, at o: PixelOffsets, _ w: UnsafePointer<Float>) {
        let l = load(w), h = load(w + lanes)
        a0 = multiplyAdd(a0, x[o.o0], l); b0 = multiplyAdd(b0, x[o.o0], h)
        a1 = multiplyAdd(a1, x[o.o1], l); b1 = multiplyAdd(b1, x[o.o1], h)
        a2 = multiplyAdd(a2, x[o.o2], l); b2 = multiplyAdd(b2, x[o.o2], h)
        a3 = multiplyAdd(a3, x[o.o3], l); b3 = multiplyAdd(b3, x[o.o3], h)
        a4 = multiplyAdd(a4, x[o.o4], l); b4 = multiplyAdd(b4, x[o.o4], h)
        a5 = multiplyAdd(a5, x[o.o5], l); b5 = multiplyAdd(b5, x[o.o5], h)
        a6 = multiplyAdd(a6, x[o.o6], l); b6 = multiplyAdd(b6, x[o.o6], h)
        a7 = multiplyAdd(a7, x[o.o7], l); b7 = multiplyAdd(b7, x[o.o7], h)
    }

    @inline(always) mutating func accumulate(_ x: UnsafePointer<Float>, _ y: UnsafePointer<Float>, at o: PixelOffsets,
                                             _ w: UnsafePointer<Float>) {
        let l = load(w), h = load(w + lanes)
        a0 = multiplyAdd(a0, x[o.o0], l); b0 = multiplyAdd(b0, y[o.o0], h)
        a1 = multiplyAdd(a1, x[o.o1], l); b1 = multiplyAdd(b1, y[o.o1], h)
        a2 = multiplyAdd(a2, x[o.o2], l); b2 = multiplyAdd(b2, y[o.o2], h)
        a3 = multiplyAdd(a3, x[o.o3], l); b3 = multiplyAdd(b3, y[o.o3], h)
        a4 = multiplyAdd(a4, x[o.o4], l); b4 = multiplyAdd(b4, y[o.o4], h)
        a5 = multiplyAdd(a5, x[o.o5], l); b5 = multiplyAdd(b5, y[o.o5], h)
        a6 = multiplyAdd(a6, x[o.o6], l); b6 = multiplyAdd(b6, y[o.o6], h)
        a7 = multiplyAdd(a7, x[o.o7], l); b7 = multiplyAdd(b7, y[o.o7], h)
    }

    @inline(always) func store(_ p: UnsafeMutablePointer<Float>, stride: Int, rows: Int, width: Int) {
        @inline(always) func put(_ l: Vector, _ h: Vector, _ r: Int) {
            storeTileRow(l, h, p + r * stride, row: r, rows: rows, width: width)
        }
        put(a0, b0, 0); put(a1, b1, 1); put(a2, b2, 2); put(a3, b3, 3); put(a4, b4, 4); put(a5, b5, 5)
        put(a6, b6, 6); put(a7, b7, 7)
    }
}

/// 4 rows × 32 columns of accumulators: a panel's last 1 to 4 rows, and every panel on register
/// files of 16 vectors or fewer.
struct PackedTile4: PackedRowTile {
    var a0, a1, a2, a3, b0, b1, b2, b3: Vector

    @inline(always) init(_ bias: UnsafePointer<Float>) {
        let l = load(bias), h = load(bias + lanes)
        (a0, a1, a2, a3) = (l, l, l, l)
        (b0, b1, b2, b3) = (h, h, h, h)
    }

    @inline(always) init(continuing p: UnsafePointer<Float>, stride: Int, rows: Int, width: Int) {
        (a0, b0) = loadTileRow(p, row: 0, rows: rows, stride: stride, width: width)
        (a1, b1) = loadTileRow(p, row: 1, rows: rows, stride: stride, width: width)
        (a2, b2) = loadTileRow(p, row: 2, rows: rows, stride: stride, width: width)
        (a3, b3) = loadTileRow(p, row: 3, rows: rows, stride: stride, width: width)
    }

    @inline(always) mutating func accumulate(_ x: UnsafePointer<Float>, step: Int, _ w: UnsafePointer<Float>) {
        let l = load(w), h = load(w + lanes)
        a0 = multiplyAdd(a0, x[0 * step], l); b0 = multiplyAdd(b0, x[0 * step], h)
        a1 = multiplyAdd(a1, x[1 * step], l); b1 = multiplyAdd(b1, x[1 * step], h)
        a2 = multiplyAdd(a2, x[2 * step], l); b2 = multiplyAdd(b2, x[2 * step], h)
        a3 = multiplyAdd(a3, x[3 * step], l); b3 = multiplyAdd(b3, x[3 * step], h)
    }

    @inline(always) mutating func accumulate(_ x: UnsafePointer<Float>, at o: PixelOffsets, _ w: UnsafePointer<Float>) {
        let l = load(w), h = load(w + lanes)
        a0 = multiplyAdd(a0, x[o.o0], l); b0 = multiplyAdd(b0, x[o.o0], h)
        a1 = multiplyAdd(a1, x[o.o1], l); b1 = multiplyAdd(b1, x[o.o1], h)
        a2 = multiplyAdd(a2, x[o.o2], l); b2 = multiplyAdd(b2, x[o.o2], h)
        a3 = multiplyAdd(a3, x[o.o3], l); b3 = multiplyAdd(b3, x[o.o3], h)
    }

    @inline(always) mutating func accumulate(_ x: UnsafePointer<Float>, _ y: UnsafePointer<Float>, at o: PixelOffsets,
                                             _ w: UnsafePointer<Float>) {
        let l = load(w), h = load(w + lanes)
        a0 = multiplyAdd(a0, x[o.o0], l); b0 = multiplyAdd(b0, y[o.o0], h)
        a1 = multiplyAdd(a1, x[o.o1], l); b1 = multiplyAdd(b1, y[o.o1], h)
        a2 = multiplyAdd(a2, x[o.o2], l); b2 = multiplyAdd(b2, y[o.o2], h)
        a3 = multiplyAdd(a3, x[o.o3], l); b3 = multiplyAdd(b3, y[o.o3], h)
    }

    @inline(always) func store(_ p: UnsafeMutablePointer<Float>, stride: Int, rows: Int, width: Int) {
        @inline(always) func put(_ l: Vector, _ h: Vector, _ r: Int) {
            storeTileRow(l, h, p + r * stride, row: r, rows: rows, width: width)
        }
        put(a0, b0, 0); put(a1, b1, 1); put(a2, b2, 2); put(a3, b3, 3)
    }
}

/// 10 rows × 32 columns of accumulators: a panel's last 9 or 10 rows (a 3×3 map's 9 pixels),
/// which the 12-row tile would compute with two or three empty rows.
struct PackedTile10: PackedRowTile {
    var a0, a1, a2, a3, a4, a5, a6, a7, a8, a9: Vector
    var b0, b1, b2, b3, b4, b5, b6, b7, b8, b9: Vector

    @inline(always) init(_ bias: UnsafePointer<Float>) {
        let l = load(bias), h = load(bias + lanes)
        (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9) = (l, l, l, l, l, l, l, l, l, l)
        (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9) = (h, h, h, h, h, h, h, h, h, h)
    }

    @inline(always) init(continuing p: UnsafePointer<Float>, stride: Int, rows: Int, width: Int) {
        (a0, b0) = loadTileRow(p, row: 0, rows: rows, stride: stride, width: width)
        (a1, b1) = loadTileRow(p, row: 1, rows: rows, stride: stride, width: width)
        (a2, b2) = loadTileRow(p, row: 2, rows: rows, stride: stride, width: width)
        (a3, b3) = loadTileRow(p, row: 3, rows: rows, stride: stride, width: width)
        (a4, b4) = loadTileRow(p, row: 4, rows: rows, stride: stride, width: width)
        (a5, b5) = loadTileRow(p, row: 5, rows: rows, stride: stride, width: width)
        (a6, b6) = loadTileRow(p, row: 6, rows: rows, stride: stride, width: width)
        (a7, b7) = loadTileRow(p, row: 7, rows: rows, stride: stride, width: width)
        (a8, b8) = loadTileRow(p, row: 8, rows: rows, stride: stride, width: width)
        (a9, b9) = loadTileRow(p, row: 9, rows: rows, stride: stride, width: width)
    }

    @inline(always) mutating func accumulate(_ x: UnsafePointer<Float>, step: Int, _ w: UnsafePointer<Float>) {
        let l = load(w), h = load(w + lanes)
        a0 = multiplyAdd(a0, x[0 * step], l); b0 = multiplyAdd(b0, x[0 * step], h)
        a1 = multiplyAdd(a1, x[1 * step], l); b1 = multiplyAdd(b1, x[1 * step], h)
        a2 = multiplyAdd(a2, x[2 * step], l); b2 = multiplyAdd(b2, x[2 * step], h)
        a3 = multiplyAdd(a3, x[3 * step], l); b3 = multiplyAdd(b3, x[3 * step], h)
        a4 = multiplyAdd(a4, x[4 * step], l); b4 = multiplyAdd(b4, x[4 * step], h)
        a5 = multiplyAdd(a5, x[5 * step], l); b5 = multiplyAdd(b5, x[5 * step], h)
        a6 = multiplyAdd(a6, x[6 * step], l); b6 = multiplyAdd(b6, x[6 * step], h)
        a7 = multiplyAdd(a7, x[7 * step], l); b7 = multiplyAdd(b7, x[7 * step], h)
        a8 = multiplyAdd(a8, x[8 * step], l); b8 = multiplyAdd(b8, x[8 * step], h)
        a9 = multiplyAdd(a9, x[9 * step], l); b9 = multiplyAdd(b9, x[9 * step], h)
    }

    @inline(always) mutating func accumulate(_ x: UnsafePointer<Float>, at o: PixelOffsets, _ w: UnsafePointer<Float>) {
        let l = load(w), h = load(w + lanes)
        a0 = multiplyAdd(a0, x[o.o0], l); b0 = multiplyAdd(b0, x[o.o0], h)
        a1 = multiplyAdd(a1, x[o.o1], l); b1 = multiplyAdd(b1, x[o.o1], h)
        a2 = multiplyAdd(a2, x[o.o2], l); b2 = multiplyAdd(b2, x[o.o2], h)
        a3 = multiplyAdd(a3, x[o.o3], l); b3 = multiplyAdd(b3, x[o.o3], h)
        a4 = multiplyAdd(a4, x[o.o4], l); b4 = multiplyAdd(b4, x[o.o4], h)
        a5 = multiplyAdd(a5, x[o.o5], l); b5 = multiplyAdd(b5, x[o.o5], h)
        a6 = multiplyAdd(a6, x[o.o6], l); b6 = multiplyAdd(b6, x[o.o6], h)
        a7 = multiplyAdd(a7, x[o.o7], l); b7 = multiplyAdd(b7, x[o.o7], h)
        a8 = multiplyAdd(a8, x[o.o8], l); b8 = multiplyAdd(b8, x[o.o8], h)
        a9 = multiplyAdd(a9, x[o.o9], l); b9 = multiplyAdd(b9, x[o.o9], h)
    }

    @inline(always) mutating func accumulate(_ x: UnsafePointer<Float>, _ y: UnsafePointer<Float>, at o: PixelOffsets,
                                             _ w: UnsafePointer<Float>) {
        let l = load(w), h = load(w + lanes)
        a0 = multiplyAdd(a0, x[o.o0], l); b0 = multiplyAdd(b0, y[o.o0], h)
        a1 = multiplyAdd(a1, x[o.o1], l); b1 = multiplyAdd(b1, y[o.o1], h)
        a2 = multiplyAdd(a2, x[o.o2], l); b2 = multiplyAdd(b2, y[o.o2], h)
        a3 = multiplyAdd(a3, x[o.o3], l); b3 = multiplyAdd(b3, y[o.o3], h)
        a4 = multiplyAdd(a4, x[o.o4], l); b4 = multiplyAdd(b4, y[o.o4], h)
        a5 = multiplyAdd(a5, x[o.o5], l); b5 = multiplyAdd(b5, y[o.o5], h)
        a6 = multiplyAdd(a6, x[o.o6], l); b6 = multiplyAdd(b6, y[o.o6], h)
        a7 = multiplyAdd(a7, x[o.o7], l); b7 = multiplyAdd(b7, y[o.o7], h)
        a8 = multiplyAdd(a8, x[o.o8], l); b8 = multiplyAdd(b8, y[o.o8], h)
        a9 = multiplyAdd(a9, x[o.o9], l); b9 = multiplyAdd(b9, y[o.o9], h)
    }

    @inline(always) func store(_ p: UnsafeMutablePointer<Float>, stride: Int, rows: Int, width: Int) {
        @inline(always) func put(_ l: Vector, _ h: Vector, _ r: Int) {
            storeTileRow(l, h, p + r * stride, row: r, rows: rows, width: width)
        }
        put(a0, b0, 0); put(a1, b1, 1); put(a2, b2, 2); put(a3, b3, 3); put(a4, b4, 4); put(a5, b5, 5)
        put(a6, b6, 6); put(a7, b7, 7); put(a8, b8, 8); put(a9, b9, 9)
    }
}

/// 12 rows × 32 columns of accumulators.
struct PackedTile: PackedRowTile {
    var a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11: Vector
    var b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11: Vector

    @inline(always) init(_ bias: UnsafePointer<Float>) {
        let l = load(bias), h = load(bias + lanes)
        (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) = (l, l, l, l, l, l, l, l, l, l, l, l)
        (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11) = (h, h, h, h, h, h, h, h, h, h, h, h)
    }

    @inline(always) init(continuing p: UnsafePointer<Float>, stride: Int, rows: Int, width: Int) {
        (a0, b0) = loadTileRow(p, row: 0, rows: rows, stride: stride, width: width)
        (a1, b1) = loadTileRow(p, row: 1, rows: rows, stride: stride, width: width)
        (a2, b2) = loadTileRow(p, row: 2, rows: rows, stride: stride, width: width)
        (a3, b3) = loadTileRow(p, row: 3, rows: rows, stride: stride, width: width)
        (a4, b4) = loadTileRow(p, row: 4, rows: rows, stride: stride, width: width)
        (a5, b5) = loadTileRow(p, row: 5, rows: rows, stride: stride, width: width)
        (a6, b6) = loadTileRow(p, row: 6, rows: rows, stride: stride, width: width)
        (a7, b7) = loadTileRow(p, row: 7, rows: rows, stride: stride, width: width)
        (a8, b8) = loadTileRow(p, row: 8, rows: rows, stride: stride, width: width)
        (a9, b9) = loadTileRow(p, row: 9, rows: rows, stride: stride, width: width)
        (a10, b10) = loadTileRow(p, row: 10, rows: rows, stride: stride, width: width)
        (a11, b11) = loadTileRow(p, row: 11, rows: rows, stride: stride, width: width)
    }

    @inline(always) mutating func accumulate(_ x: UnsafePointer<Float>, step: Int, _ w: UnsafePointer<Float>) {
        let l = load(w), h = load(w + lanes)
        a0 = multiplyAdd(a0, x[0 * step], l); b0 = multiplyAdd(b0, x[0 * step], h)
        a1 = multiplyAdd(a1, x[1 * step], l); b1 = multiplyAdd(b1, x[1 * step], h)
        a2 = multiplyAdd(a2, x[2 * step], l); b2 = multiplyAdd(b2, x[2 * step], h)
        a3 = multiplyAdd(a3, x[3 * step], l); b3 = multiplyAdd(b3, x[3 * step], h)
        a4 = multiplyAdd(a4, x[4 * step], l); b4 = multiplyAdd(b4, x[4 * step], h)
        a5 = multiplyAdd(a5, x[5 * step], l); b5 = multiplyAdd(b5, x[5 * step], h)
        a6 = multiplyAdd(a6, x[6 * step], l); b6 = multiplyAdd(b6, x[6 * step], h)
        a7 = multiplyAdd(a7, x[7 * step], l); b7 = multiplyAdd(b7, x[7 * step], h)
        a8 = multiplyAdd(a8, x[8 * step], l); b8 = multiplyAdd(b8, x[8 * step], h)
        a9 = multiplyAdd(a9, x[9 * step], l); b9 = multiplyAdd(b9, x[9 * step], h)
        a10 = multiplyAdd(a10, x[10 * step], l); b10 = multiplyAdd(b10, x[10 * step], h)
        a11 = multiplyAdd(a11, x[11 * step], l); b11 = multiplyAdd(b11, x[11 * step], h)
    }

    @inline(always) mutating func accumulate(_ x: UnsafePointer<Float>, at o: PixelOffsets, _ w: UnsafePointer<Float>) {
        let l = load(w), h = load(w + lanes)
        a0 = multiplyAdd(a0, x[o.o0], l); b0 = multiplyAdd(b0, x[o.o0], h)
        a1 = multiplyAdd(a1, x[o.o1], l); b1 = multiplyAdd(b1, x[o.o1], h)
        a2 = multiplyAdd(a2, x[o.o2], l); b2 = multiplyAdd(b2, x[o.o2], h)
        a3 = multiplyAdd(a3, x[o.o3], l); b3 = multiplyAdd(b3, x[o.o3], h)
        a4 = multiplyAdd(a4, x[o.o4], l); b4 = multiplyAdd(b4, x[o.o4], h)
        a5 = multiplyAdd(a5, x[o.o5], l); b5 = multiplyAdd(b5, x[o.o5], h)
        a6 = multiplyAdd(a6, x[o.o6], l); b6 = multiplyAdd(b6, x[o.o6], h)
        a7 = multiplyAdd(a7, x[o.o7], l); b7 = multiplyAdd(b7, x[o.o7], h)
        a8 = multiplyAdd(a8, x[o.o8], l); b8 = multiplyAdd(b8, x[o.o8], h)
        a9 = multiplyAdd(a9, x[o.o9], l); b9 = multiplyAdd(b9, x[o.o9], h)
        a10 = multiplyAdd(a10, x[o.o10], l); b10 = multiplyAdd(b10, x[o.o10], h)
        a11 = multiplyAdd(a11, x[o.o11], l); b11 = multiplyAdd(b11, x[o.o11], h)
    }

    @inline(always) mutating func accumulate(_ x: UnsafePointer<Float>, _ y: UnsafePointer<Float>, at o: PixelOffsets,
                                             _ w: UnsafePointer<Float>) {
        let l = load(w), h = load(w + lanes)
        a0 = multiplyAdd(a0, x[o.o0], l); b0 = multiplyAdd(b0, y[o.o0], h)
        a1 = multiplyAdd(a1, x[o.o1], l); b1 = multiplyAdd(b1, y[o.o1], h)
        a2 = multiplyAdd(a2, x[o.o2], l); b2 = multiplyAdd(b2, y[o.o2], h)
        a3 = multiplyAdd(a3, x[o.o3], l); b3 = multiplyAdd(b3, y[o.o3], h)
        a4 = multiplyAdd(a4, x[o.o4], l); b4 = multiplyAdd(b4, y[o.o4], h)
        a5 = multiplyAdd(a5, x[o.o5], l); b5 = multiplyAdd(b5, y[o.o5], h)
        a6 = multiplyAdd(a6, x[o.o6], l); b6 = multiplyAdd(b6, y[o.o6], h)
        a7 = multiplyAdd(a7, x[o.o7], l); b7 = multiplyAdd(b7, y[o.o7], h)
        a8 = multiplyAdd(a8, x[o.o8], l); b8 = multiplyAdd(b8, y[o.o8], h)
        a9 = multiplyAdd(a9, x[o.o9], l); b9 = multiplyAdd(b9, y[o.o9], h)
        a10 = multiplyAdd(a10, x[o.o10], l); b10 = multiplyAdd(b10, y[o.o10], h)
        a11 = multiplyAdd(a11, x[o.o11], l); b11 = multiplyAdd(b11, y[o.o11], h)
    }

    @inline(always) func store(_ p: UnsafeMutablePointer<Float>, stride: Int, rows: Int, width: Int) {
        @inline(always) func put(_ l: Vector, _ h: Vector, _ r: Int) {
            storeTileRow(l, h, p + r * stride, row: r, rows: rows, width: width)
        }
        put(a0, b0, 0); put(a1, b1, 1); put(a2, b2, 2); put(a3, b3, 3); put(a4, b4, 4); put(a5, b5, 5)
        put(a6, b6, 6); put(a7, b7, 7); put(a8, b8, 8); put(a9, b9, 9); put(a10, b10, 10); put(a11, b11, 11)
    }
}
