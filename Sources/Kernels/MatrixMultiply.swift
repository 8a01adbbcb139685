/// A constant right-hand matrix B (K×N) and bias for ``matrixMultiply(_:rows:weights:output:pool:)``:
/// rows of B padded with zeros to a multiple of 16 columns, so every vector load is whole.
package final class MatrixWeights {
    package let inner: Int
    package let columns: Int
    let rowStride: Int
    let values: FloatBuffer
    let bias: FloatBuffer

    /// `values` row-major K×N (`inner` × `columns`); `bias` N values, or zero when nil.
    package init(values: [Float], bias: [Float]?, inner: Int, columns: Int) {
        precondition(inner > 0 && columns > 0, "empty matrix")
        precondition(values.count == inner * columns, "matrix: expected \(inner)x\(columns)")
        precondition(bias == nil || bias!.count == columns, "matrix bias: expected \(columns)")
        self.inner = inner
        self.columns = columns
        rowStride = roundUp(columns, toMultipleOf: lanes)
        self.values = FloatBuffer(count: inner * rowStride)
        for k in 0..<inner {
            for n in 0..<columns { self.values.baseAddress[k * rowStride + n] = values[k * columns + n] }
        }
        self.bias = FloatBuffer(count: rowStride)
        for n in 0..<columns { self.bias.baseAddress[n] = bias?[n] ?? 0 }
    }
}

/// `output[m][n] = bias[n] + Σ_k a[m][k] · B[k][n]` for `rows` rows of `a` (row-major, K
/// floats each) into `output` (row-major, N floats each).
///
/// Register tile: 4 rows × 32 columns (8 accumulators), one broadcast of `a[m][k]` per row and
/// two loads of B's row k per step of k. Every output is the bias followed by fused
/// multiply-adds in k order (multiply then add in the portable build), whatever the tile or the
/// thread, so results do not depend on the thread count. Rows are split between threads.
package func matrixMultiply(_ a: UnsafePointer<Float>, rows: Int, weights: MatrixWeights,
                           output: UnsafeMutablePointer<Float>, pool: WorkerPool) {
    pool.run(MatrixParts(a: a, rows: rows, weights: weights, output: output))
}

struct MatrixParts: PoolJob {
    let a: UnsafePointer<Float>, rows: Int, weights: MatrixWeights, output: UnsafeMutablePointer<Float>
    func run(part: Int, pool: WorkerPool) {
        let range = WorkerPool.range(rows, part: part, of: pool.threadCount, granularity: 4)
        matrixRows(self, range)
    }
}

@inline(never)
func matrixRows(_ job: MatrixParts, _ rows: Range<Int>) {
    let k = job.weights.inner, n = job.weights.columns, stride = job.weights.rowStride
    let b = UnsafePointer(job.weights.values.baseAddress), bias = UnsafePointer(job.weights.bias.baseAddress)
    var m = rows.lowerBound
    while m < rows.upperBound {
        let count = min(4, rows.upperBound - m)
        var column = 0
        while column < n {
            let width = min(2 * lanes, n - column)
            matrixTile(a: job.a + m * k, inner: k, rows: count, b: b + column, bStride: stride, bias: bias + column,
                       output: job.output + m * n + column, outputStride: n, width: width)
            column += 2 * lanes
        }
        m += count
    }
}

/// Up to 4 rows × up to 32 columns; B is readable for 32 columns (its padded rows) or 16 at the
/// last 16-column block.
@inline(always)
func matrixTile(a: UnsafePointer<Float>, inner: Int, rows: Int, b: UnsafePointer<Float>, bStride: Int,
                bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, outputStride: Int, width: Int) {
    let wide = width > lanes
    let bias0 = load(bias), bias1 = wide ? load(bias + lanes) : Vector()
    var acc0 = (bias0, bias0, bias0, bias0), acc1 = (bias1, bias1, bias1, bias1)
    let a1 = a + (rows > 1 ? inner : 0), a2 = a + (rows > 2 ? 2 * inner : 0), a3 = a + (rows > 3 ? 3 * inner : 0)
    var row = b
    for kk in 0..<inner {
        let b0 = load(row)
        acc0.0 = multiplyAdd(acc0.0, a[kk], b0)
        acc0.1 = multiplyAdd(acc0.1, a1[kk], b0)
        acc0.2 = multiplyAdd(acc0.2, a2[kk], b0)
        acc0.3 = multiplyAdd(acc0.3, a3[kk], b0)
        if wide {
            let b1 = load(row + lanes)
            acc1.0 = multiplyAdd(acc1.0, a[kk], b1)
            acc1.1 = multiplyAdd(acc1.1, a1[kk], b1)
            acc1.2 = multiplyAdd(acc1.2, a2[kk], b1)
            acc1.3 = multiplyAdd(acc1.3, a3[kk], b1)
        }
        row += bStride
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
