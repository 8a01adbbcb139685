// Element-wise per-channel kernels visit a map as spans of consecutive pixels of one channel: a
// whole run of rows when both maps are dense (rows back to back), else one row at a time.

/// A per-channel element-wise operation: `run` transforms `count` floats of channel `channel`.
protocol ChannelSpanOperation {
    func run(channel: Int, _ source: UnsafePointer<Float>, _ destination: UnsafeMutablePointer<Float>, count: Int)
}

/// Runs `operation` on the rows `rows` of the map, counted over all channels (row `r` is row
/// `r % height` of channel `r / height`), so a thread split of `0 ..< channels·height` balances
/// maps of few large channels as well as many small ones.
/// - Precondition: `input` and `output` have the same channel count, width and height.
@inline(always)
func forEachChannelSpan<Operation: ChannelSpanOperation>(
    _ input: FeatureMap, _ output: FeatureMap, rows: Range<Int>, _ operation: Operation
) {
    let h = input.layout.height, w = input.layout.width
    if rows.isEmpty { return }
    let bothDense = input.layout.isDense && output.layout.isDense
    let inRow = input.layout.rowStride, outRow = output.layout.rowStride
    for c in (rows.lowerBound / h)...((rows.upperBound - 1) / h) {
        let first = max(rows.lowerBound - c * h, 0), last = min(rows.upperBound - c * h, h)
        let source = UnsafePointer(input.plane(c)), destination = output.plane(c)
        if bothDense {
            operation.run(channel: c, source + first * w, destination + first * w, count: (last - first) * w)
        } else {
            for y in first..<last {
                operation.run(channel: c, source + y * inRow, destination + y * outRow, count: w)
            }
        }
    }
}

/// Preconditions shared by the element-wise per-channel kernels.
@inline(always)
func requireSameShape(_ input: FeatureMap, _ output: FeatureMap, _ kernel: String) {
    precondition(input.channels == output.channels && input.layout.width == output.layout.width
                 && input.layout.height == output.layout.height, "\(kernel): input and output shapes differ")
}
