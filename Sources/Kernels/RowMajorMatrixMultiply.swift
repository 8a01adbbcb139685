/// ``packedMatrixMultiply(_:rows:weights:output:function:pool:)`` reading `a` where it lies
/// (row-major, `weights.inner` floats a row): the same 12-row × 32-column register tile, its
/// twelve broadcasts per k from twelve rows `inner` floats apart (a panel's last rows repeat
/// its last row, and are not stored), so no packed copy of A is written first. The same outputs,
/// bit for bit: each is the bias followed by fused multiply-adds in k order.
///
/// Blocking: rows in blocks of whole 12-row panels whose A rows fill about a quarter of a core's
/// L2 (`rowMajorBlockRows`); per block every weight panel in turn over the block's row panels, so
/// a block of A is read from memory once and a weight panel stays in cache over the block. Row
/// panels are split between threads, or weight panels when there are fewer row panels than
/// threads.
///
/// `function`, if any, is then applied to each tile's outputs, while they are in cache.
package func rowMajorMatrixMultiply(_ a: UnsafePointer<Float>, rows: Int, weights: MatrixWeights,
                                    output: UnsafeMutablePointer<Float>, function: VectorFunction? = nil, pool: WorkerPool) {
    pool.run(RowMajorMatrixParts(a: a, rows: rows, weights: weights, output: output, function: function))
}

/// Rows of A per block of ``rowMajorMatrixMultiply(_:rows:weights:output:function:pool:)``: whole
/// 12-row panels of about 256 KiB of A (at least one panel).
func rowMajorBlockRows(inner: Int) -> Int {
    max(1, (1 << 16) / (packedRows * max(inner, 1))) * packedRows
}

struct RowMajorMatrixParts: PoolJob {
    let a: UnsafePointer<Float>, rows: Int, weights: MatrixWeights, output: UnsafeMutablePointer<Float>
    let function: VectorFunction?
    func run(part: Int, pool: WorkerPool) {
        let rowPanels = (rows + packedRows - 1) / packedRows
        if rowPanels >= pool.threadCount {
            let mine = WorkerPool.range(rowPanels, part: part, of: pool.threadCount)
            rowMajorMatrixRows(self, rows: mine.lowerBound * packedRows ..< min(rows, mine.upperBound * packedRows),
                               panels: 0..<weights.panels)
        } else {
            rowMajorMatrixRows(self, rows: 0..<rows, panels: WorkerPool.range(weights.panels, part: part, of: pool.threadCount))
        }
    }
}

@inline(never)
func rowMajorMatrixRows(_ job: RowMajorMatrixParts, rows: Range<Int>, panels: Range<Int>) {
    let k = job.weights.inner, n = job.weights.columns, width = MatrixWeights.panelWidth, function = job.function
    let block = rowMajorBlockRows(inner: k)
    var blockStart = rows.lowerBound
    while blockStart < rows.upperBound {
        let blockEnd = min(blockStart + block, rows.upperBound)
        for p in panels {
            let column = p * width, stored = min(width, n - column)
            var first = blockStart
            while first < blockEnd {
                let count = min(packedRows, blockEnd - first)
                let output = job.output + first * n + column
                rowMajorMatrixTile(a: job.a + first * k, inner: k, rows: count, b: job.weights.panel(p),
                                   bias: UnsafePointer(job.weights.bias.baseAddress + column), output: output, outputStride: n,
                                   width: stored, streamed: first == rows.lowerBound)
                if let function {
                    for row in 0..<count { apply(function, output + row * n, output: output + row * n, count: stored) }
                }
                first += count
            }
        }
        blockStart = blockEnd
    }
}

/// Up to 12 rows of A (`inner` floats apart) × one panel; stores `rows` rows of `width` columns,
/// with the smallest of the 4-, 8-, 10- and 12-row tiles that holds them. `streamed`: the panel
/// is read for the first time (``PanelReading``).
func rowMajorMatrixTile(a: UnsafePointer<Float>, inner: Int, rows: Int, b: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                        output: UnsafeMutablePointer<Float>, outputStride: Int, width: Int, streamed: Bool) {
    if streamed {
        rowMajorMatrixTile(a: a, inner: inner, rows: rows, b: b, bias: bias, output: output, outputStride: outputStride,
                           width: width, StreamedPanel.self)
    } else {
        rowMajorMatrixTile(a: a, inner: inner, rows: rows, b: b, bias: bias, output: output, outputStride: outputStride,
                           width: width, CachedPanel.self)
    }
}

@inline(never)
func rowMajorMatrixTile<R: PanelReading>(a: UnsafePointer<Float>, inner: Int, rows: Int, b: UnsafePointer<Float>,
                                         bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, outputStride: Int,
                                         width: Int, _: R.Type) {
    guard wideRegisterFile else {
        // 16 vector registers or fewer: four rows at a time.
        for first in stride(from: 0, to: rows, by: 4) {
            rowMajorMatrixTile(PackedTile4.self, a: a + first * inner, inner: inner, rows: min(4, rows - first), b: b,
                               bias: bias, output: output + first * outputStride, outputStride: outputStride, width: width, R.self)
        }
        return
    }
    switch rows {
    case ...4:
        rowMajorMatrixTile(PackedTile4.self, a: a, inner: inner, rows: rows, b: b, bias: bias, output: output,
                           outputStride: outputStride, width: width, R.self)
    case ...8:
        rowMajorMatrixTile(PackedTile8.self, a: a, inner: inner, rows: rows, b: b, bias: bias, output: output,
                           outputStride: outputStride, width: width, R.self)
    case ...10:
        rowMajorMatrixTile(PackedTile10.self, a: a, inner: inner, rows: rows, b: b, bias: bias, output: output,
                           outputStride: outputStride, width: width, R.self)
    default:
        rowMajorMatrixTile(PackedTile.self, a: a, inner: inner, rows: rows, b: b, bias: bias, output: output,
                           outputStride: outputStride, width: width, R.self)
    }
}

/// The first `rows` rows (at most `T`'s) of A from `a` with the tile `T`; its rows past `rows`
/// read row `rows − 1` again.
@inline(always)
func rowMajorMatrixTile<T: PackedRowTile, R: PanelReading>(_: T.Type, a: UnsafePointer<Float>, inner: Int, rows: Int,
                                                           b: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                                                           output: UnsafeMutablePointer<Float>, outputStride: Int, width: Int,
                                                           _: R.Type) {
    let offsets = PixelOffsets(first: 0, count: rows, width: 1, rowStep: inner, step: 0)
    var acc = T(bias)
    var ap = a, bp = b
    for _ in 0..<inner {
        R.ahead(bp)
        acc.accumulate(ap, at: offsets, bp)
        ap += 1
        bp += MatrixWeights.panelWidth
    }
    acc.store(output, stride: outputStride, rows: rows, width: width)
}
