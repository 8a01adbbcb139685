/// `count` row-major `rows` × `columns` matrices back to back, each transposed into `output`
/// (`output[b][j][i] = input[b][i][j]`): a Transpose that swaps the last two axes (attention's
/// keyᵀ). Plain copies in 16 × 16 blocks, so a block's reads and writes stay in L1; matrices are
/// split between threads, or row blocks when there are fewer matrices than threads.
/// - Precondition: `output` does not overlap `input`.
package func transposeMatrices(_ input: UnsafePointer<Float>, count: Int, rows: Int, columns: Int,
                               output: UnsafeMutablePointer<Float>, pool: WorkerPool) {
    pool.run(MatrixTransposeParts(input: input, count: count, rows: rows, columns: columns, output: output))
}

struct MatrixTransposeParts: PoolJob {
    let input: UnsafePointer<Float>, count: Int, rows: Int, columns: Int, output: UnsafeMutablePointer<Float>

    func run(part: Int, pool: WorkerPool) {
        let byRows = count < pool.threadCount
        let matrices = byRows ? 0..<count : WorkerPool.range(count, part: part, of: pool.threadCount)
        let rowRange = byRows ? WorkerPool.range(rows, part: part, of: pool.threadCount, granularity: 16) : 0..<rows
        let size = rows * columns
        for m in matrices {
            let source = input + m * size, destination = output + m * size
            var i0 = rowRange.lowerBound
            while i0 < rowRange.upperBound {
                let i1 = min(i0 + 16, rowRange.upperBound)
                var j0 = 0
                while j0 < columns {
                    let j1 = min(j0 + 16, columns)
                    for i in i0..<i1 {
                        for j in j0..<j1 { destination[j * rows + i] = source[i * columns + j] }
                    }
                    j0 = j1
                }
                i0 = i1
            }
        }
    }
}
