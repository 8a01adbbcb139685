/// The taps of a separable resize along one axis: for each output index `o`, two source
/// indices `first[o]`, `second[o]` and the weight `weight[o]` of the second (the first weighs
/// `1 − weight[o]`). Any coordinate transformation (half_pixel, align_corners, asymmetric, …)
/// and any scale reduce to such a table; indices need not be monotonic.
///
/// The table is copied at init into storage the kernels read through pointers, so a call
/// allocates nothing.
package struct ResizeAxis {
    /// Output size along the axis.
    package let count: Int
    /// The largest source index in the table (the input must be larger).
    package let largestIndex: Int
    let storage: ResizeAxisStorage

    /// - Precondition: the three arrays have the same non-zero length; indices are ≥ 0.
    package init(first: [Int], second: [Int], weight: [Float]) {
        precondition(!first.isEmpty && first.count == second.count && first.count == weight.count,
                     "resize axis: first, second and weight must have the same non-zero length")
        precondition(first.allSatisfy { $0 >= 0 } && second.allSatisfy { $0 >= 0 }, "resize axis: negative source index")
        count = first.count
        largestIndex = max(first.max()!, second.max()!)
        storage = ResizeAxisStorage(first: first, second: second, weight: weight)
    }
}

/// The owned tables of a ``ResizeAxis``.
final class ResizeAxisStorage: @unchecked Sendable {
    let first: UnsafeMutablePointer<Int>
    let second: UnsafeMutablePointer<Int>
    let weight: UnsafeMutablePointer<Float>

    init(first: [Int], second: [Int], weight: [Float]) {
        self.first = .allocate(capacity: first.count)
        self.first.initialize(from: first, count: first.count)
        self.second = .allocate(capacity: second.count)
        self.second.initialize(from: second, count: second.count)
        self.weight = .allocate(capacity: weight.count)
        self.weight.initialize(from: weight, count: weight.count)
    }

    deinit {
        first.deallocate()
        second.deallocate()
        weight.deallocate()
    }
}

/// Separable bilinear resize of every plane: output pixel (y, x) of channel c is, with
/// `top`/`bottom` the source rows `rows.first[y]`/`rows.second[y]`, `l`/`r` the source columns
/// `columns.first[x]`/`columns.second[x]`, `wx = columns.weight[x]`, `wy = rows.weight[y]`:
///
///     upper = top[l] + (top[r] − top[l])·wx
///     lower = bottom[l] + (bottom[r] − bottom[l])·wx
///     out   = upper + (lower − upper)·wy
///
/// computed in exactly that order, each `a + b·c` fused where the target has FMA (so within a
/// few ulp of the unfused formula; equal to it in the portable build).
///
/// Per output row, the two source rows are interpolated horizontally into per-thread scratch
/// (one scalar pass per source row: consecutive output rows sharing a source row reuse it),
/// then blended vertically 16 output columns per vector. Rows of all channels are split between
/// threads; every output is computed the same way on any thread count.
/// - Precondition: `output` has the input's channel count, `rows.count` rows and
///   `columns.count` columns; any layouts on both sides. Every row index is below the input's
///   height and every column index below its width. The pool's scratch holds
///   ``resizeBilinearScratch(outputWidth:)``. `output` must not overlap `input`.
@inline(never)
package func resizeBilinear(_ input: FeatureMap, rows: ResizeAxis, columns: ResizeAxis, output: FeatureMap, pool: WorkerPool) {
    precondition(output.channels == input.channels && output.layout.height == rows.count
                 && output.layout.width == columns.count, "resizeBilinear: output shape does not match the tables")
    precondition(rows.largestIndex < input.layout.height && columns.largestIndex < input.layout.width,
                 "resizeBilinear: a table indexes beyond the input")
    precondition(pool.holds(resizeBilinearScratch(outputWidth: columns.count)),
                 "resizeBilinear to width \(columns.count): pool scratch too small")
    pool.run(ResizeBilinearParts(input: input, output: output, rows: rows.storage, columns: columns.storage))
}

/// Floats of thread scratch ``resizeBilinear(_:rows:columns:output:pool:)`` uses for an output
/// `outputWidth` wide: two horizontally interpolated source rows.
package func resizeBilinearScratch(outputWidth: Int) -> ScratchSize {
    ScratchSize(perThread: 2 * outputWidth)
}

struct ResizeBilinearParts: PoolJob {
    let input: FeatureMap, output: FeatureMap
    let rows: ResizeAxisStorage, columns: ResizeAxisStorage

    func run(part: Int, pool: WorkerPool) {
        let outH = output.layout.height
        let range = WorkerPool.range(output.channels * outH, part: part, of: pool.threadCount)
        if range.isEmpty { return }
        let scratch = pool.scratch(part).baseAddress!
        for c in (range.lowerBound / outH)...((range.upperBound - 1) / outH) {
            let first = max(range.lowerBound - c * outH, 0), last = min(range.upperBound - c * outH, outH)
            resizeBilinearRows(input, channel: c, rows: first..<last, rowTable: rows, columnTable: columns,
                               output: output, scratch: scratch)
        }
    }
}

/// Output rows `rows` of channel `c`. `scratch` holds two horizontally interpolated source rows
/// (2 × output width), each tagged with its source row so that the next output row reuses it.
@inline(never)
func resizeBilinearRows(_ input: FeatureMap, channel c: Int, rows: Range<Int>, rowTable: ResizeAxisStorage,
                        columnTable: ResizeAxisStorage, output: FeatureMap, scratch: UnsafeMutablePointer<Float>) {
    let outW = output.layout.width
    let source = UnsafePointer(input.plane(c)), destination = output.plane(c)
    let slots = (scratch, scratch + outW)
    var held = (-1, -1)   // the source row in each slot
    for y in rows {
        let top = rowTable.first[y], bottom = rowTable.second[y]
        // Slot of `top`: where it is, else the one not holding `bottom`.
        let topSlot: Int
        if held.0 == top { topSlot = 0 } else if held.1 == top { topSlot = 1 } else {
            topSlot = held.0 == bottom ? 1 : 0
            interpolateRow(source + top * input.layout.rowStride, columnTable, into: topSlot == 0 ? slots.0 : slots.1, count: outW)
            if topSlot == 0 { held.0 = top } else { held.1 = top }
        }
        let bottomSlot: Int
        if held.0 == bottom { bottomSlot = 0 } else if held.1 == bottom { bottomSlot = 1 } else {
            bottomSlot = 1 - topSlot
            interpolateRow(source + bottom * input.layout.rowStride, columnTable, into: bottomSlot == 0 ? slots.0 : slots.1, count: outW)
            if bottomSlot == 0 { held.0 = bottom } else { held.1 = bottom }
        }
        let upper = UnsafePointer(topSlot == 0 ? slots.0 : slots.1)
        let lower = UnsafePointer(bottomSlot == 0 ? slots.0 : slots.1)
        let wy = rowTable.weight[y]
        let out = destination + y * output.layout.rowStride
        var x = 0
        while x + lanes <= outW {
            let u = load(upper + x)
            store(multiplyAdd(u, wy, load(lower + x) - u), out + x)
            x += lanes
        }
        if x < outW {
            let n = outW - x
            let u = load(upper + x, count: n)
            store(multiplyAdd(u, wy, load(lower + x, count: n) - u), out + x, count: n)
        }
    }
}

/// `row[l] + (row[r] − row[l])·w` for every output column.
@inline(never)
func interpolateRow(_ row: UnsafePointer<Float>, _ table: ResizeAxisStorage, into out: UnsafeMutablePointer<Float>, count: Int) {
    let first = table.first, second = table.second, weight = table.weight
    for x in 0..<count {
        let a = row[first[x]]
        out[x] = multiplyAdd(a, weight[x], row[second[x]] - a)
    }
}

/// Nearest-neighbour resize of every plane: `output[c][y][x] = input[c][rows[y]][columns[x]]`.
///
/// A plain copy of each element. An output row whose source row equals the previous row's is a
/// copy of that output row; when `columns[x] = x / 2` for every x (an ×2 upscale, as ONNX
/// nearest gives for scale 2 with asymmetric or half_pixel coordinates) a row is 16 source
/// pixels duplicated in registers per 32 outputs, otherwise one indexed load per output.
/// Rows of all channels are split between threads.
/// - Precondition: `output` has the input's channel count, `rows.count` rows and
///   `columns.count` columns; any layouts. Every index is within the input. `output` must not
///   overlap `input`.
@inline(never)
package func resizeNearest(_ input: FeatureMap, rows: [Int], columns: [Int], output: FeatureMap, pool: WorkerPool) {
    precondition(output.channels == input.channels && output.layout.height == rows.count
                 && output.layout.width == columns.count, "resizeNearest: output shape does not match the tables")
    rows.withUnsafeBufferPointer { rowTable in
        columns.withUnsafeBufferPointer { columnTable in
            let rowIndices = rowTable.baseAddress!, columnIndices = columnTable.baseAddress!
            var doubles = true, inRange = true
            for x in 0..<columnTable.count {
                let column = columnIndices[x]
                if column < 0 || column >= input.layout.width { inRange = false }
                if column != x >> 1 { doubles = false }
            }
            for y in 0..<rowTable.count where rowIndices[y] < 0 || rowIndices[y] >= input.layout.height { inRange = false }
            precondition(inRange, "resizeNearest: a table indexes beyond the input")
            pool.run(ResizeNearestParts(input: input, output: output, rows: rowIndices, columns: columnIndices, doubles: doubles))
        }
    }
}

struct ResizeNearestParts: PoolJob {
    let input: FeatureMap, output: FeatureMap
    let rows: UnsafePointer<Int>, columns: UnsafePointer<Int>
    /// `columns[x] == x / 2` for every x.
    let doubles: Bool

    func run(part: Int, pool: WorkerPool) {
        let outH = output.layout.height
        let range = WorkerPool.range(output.channels * outH, part: part, of: pool.threadCount)
        if range.isEmpty { return }
        for c in (range.lowerBound / outH)...((range.upperBound - 1) / outH) {
            let first = max(range.lowerBound - c * outH, 0), last = min(range.upperBound - c * outH, outH)
            resizeNearestRows(self, channel: c, rows: first..<last)
        }
    }
}

@inline(never)
func resizeNearestRows(_ job: ResizeNearestParts, channel c: Int, rows: Range<Int>) {
    let outW = job.output.layout.width, outRow = job.output.layout.rowStride
    let source = UnsafePointer(job.input.plane(c)), destination = job.output.plane(c)
    for y in rows {
        let out = destination + y * outRow
        if y > rows.lowerBound && job.rows[y] == job.rows[y - 1] {
            out.update(from: out - outRow, count: outW)
            continue
        }
        let row = source + job.rows[y] * job.input.layout.rowStride
        if job.doubles {
            duplicateRow(row, into: out, count: outW)
        } else {
            let columns = job.columns
            for x in 0..<outW { out[x] = row[columns[x]] }
        }
    }
}

/// `out[x] = row[x / 2]` for x in `0..<count`.
@inline(never)
func duplicateRow(_ row: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, count: Int) {
    let sources = (count + 1) / 2
    var i = 0
    while i < sources {
        let v = load(row + i, count: min(lanes, sources - i))
        let (low, high) = interleave(v, v)
        let n = count - 2 * i
        store(low, out + 2 * i, count: n)
        if n > lanes { store(high, out + 2 * i + lanes, count: n - lanes) }
        i += lanes
    }
}
