/// Where each batch's matrices start in the operands of ``batchedMatrixMultiply(_:_:output:batches:rows:inner:columns:pool:)``
/// (offsets in floats; a broadcast operand repeats its offset).
package final class MatrixBatches: Sendable {
    package let a: [Int]
    package let b: [Int]
    package let output: [Int]

    package init(a: [Int], b: [Int], output: [Int]) {
        precondition(a.count == b.count && b.count == output.count, "one offset per batch in each operand")
        self.a = a
        self.b = b
        self.output = output
    }

    var count: Int { output.count }
}

/// For each batch i, the `rows` × `columns` matrix at `output + batches.output[i]` is the
/// product of the `rows` × `inner` matrix at `a + batches.a[i]` and the `inner` × `columns` one at
/// `b + batches.b[i]` (all row-major and dense): a MatMul of two operands computed at run time
/// (attention's query · keyᵀ and weights · values).
///
/// Each batch's right operand is packed into a thread's scratch in the panels of
/// ``MatrixWeights``, then multiplied by the register tiles of ``matrixMultiply(_:rows:weights:output:function:pool:)``:
/// every output is fused multiply-adds from 0 in k order, whatever the thread. Batches are split
/// between threads; when there are fewer batches than threads, rows are, each thread packing the
/// right operand for itself.
package func batchedMatrixMultiply(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
                                   batches: MatrixBatches, rows: Int, inner: Int, columns: Int, pool: WorkerPool) {
    precondition(pool.holds(batchedMatrixScratch(inner: inner, columns: columns)), "batched product: scratch too small")
    pool.run(BatchedMatrixParts(a: a, b: b, output: output, batches: batches, rows: rows, inner: inner, columns: columns))
}

/// The scratch ``batchedMatrixMultiply(_:_:output:batches:rows:inner:columns:pool:)`` needs: one
/// packed right operand and a zero bias row per thread.
package func batchedMatrixScratch(inner: Int, columns: Int) -> ScratchSize {
    let width = MatrixWeights.panelWidth, panels = (columns + width - 1) / width
    return ScratchSize(perThread: panels * width * (inner + 1))
}

struct BatchedMatrixParts: PoolJob {
    let a: UnsafePointer<Float>, b: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, batches: MatrixBatches
    let rows: Int, inner: Int, columns: Int

    func run(part: Int, pool: WorkerPool) {
        let width = MatrixWeights.panelWidth, panels = (columns + width - 1) / width
        let packed = pool.scratch(part).baseAddress!, zeros = packed + panels * width * inner
        zeros.initialize(repeating: 0, count: panels * width)
        let splitsRows = batches.count < pool.threadCount
        let mine = splitsRows ? 0..<batches.count : WorkerPool.range(batches.count, part: part, of: pool.threadCount)
        let rowRange = splitsRows ? WorkerPool.range(rows, part: part, of: pool.threadCount, granularity: 4) : 0..<rows
        for batch in mine where !rowRange.isEmpty {
            packPanels(b + batches.b[batch], into: packed, panels: panels)
            panelRows(a: a + batches.a[batch], inner: inner, columns: columns, b: packed, bias: zeros, rows: rowRange,
                      panels: 0..<panels, output: output + batches.output[batch], function: nil)
        }
    }

    /// The `inner` × `columns` matrix at `source` as `panels` panels of 32 columns (the last
    /// one padded with zeros).
    @inline(always)
    func packPanels(_ source: UnsafePointer<Float>, into packed: UnsafeMutablePointer<Float>, panels: Int) {
        let width = MatrixWeights.panelWidth
        for p in 0..<panels {
            let column = p * width, count = min(width, columns - column)
            var destination = packed + p * inner * width
            var row = source + column
            for _ in 0..<inner {
                store(load(row, count: min(lanes, count)), destination)
                store(count > lanes ? load(row + lanes, count: count - lanes) : Vector(), destination + lanes)
                row += columns
                destination += width
            }
        }
    }
}
