/// `rows` rows of `columns` floats, each standardised and scaled: y = ((x − mean) · inverse) ·
/// scale[c] + bias[c], with the row's mean, its population variance v and
/// inverse = 1 / √(v + epsilon) (ONNX LayerNormalization over the last axis). `bias` nil adds
/// nothing. `output` may be `input`.
///
/// The mean and the variance (over x − mean, a second pass) are float sums in vector lanes,
/// added up in Double; x − mean is taken against the mean's float and its remainder, and the
/// inverse is computed in Double. The reference computes the sums in Double, so the two differ
/// by the lanes' roundings (a few ulp of the statistics) and the final products' roundings.
package func layerNormalize(_ input: UnsafePointer<Float>, rows: Int, columns: Int, scale: UnsafePointer<Float>,
                            bias: UnsafePointer<Float>?, epsilon: Double, output: UnsafeMutablePointer<Float>,
                            pool: WorkerPool) {
    pool.run(RowNormalizationParts(input: input, rows: rows, columns: columns, scale: scale, bias: bias, epsilon: epsilon,
                                   output: output))
}

struct RowNormalizationParts: PoolJob {
    let input: UnsafePointer<Float>, rows: Int, columns: Int, scale: UnsafePointer<Float>, bias: UnsafePointer<Float>?
    let epsilon: Double, output: UnsafeMutablePointer<Float>

    func run(part: Int, pool: WorkerPool) {
        for row in WorkerPool.range(rows, part: part, of: pool.threadCount) {
            normalizeRow(input + row * columns, output + row * columns)
        }
    }

    @inline(always)
    func normalizeRow(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>) {
        let n = columns
        var sum0 = Vector(), sum1 = Vector()
        var i = 0
        while i + 2 * lanes <= n {
            sum0 += load(x + i)
            sum1 += load(x + i + lanes)
            i += 2 * lanes
        }
        while i < n {
            sum0 += load(x + i, count: min(lanes, n - i))
            i += lanes
        }
        // The mean as a float and its remainder: (x − high) − low keeps x − mean exact to a
        // rounding where x is close to the mean (x − high is then exact), as the reference's
        // Double arithmetic does.
        let mean = (lanesSum(sum0) + lanesSum(sum1)) / Double(n)
        let high = Float(mean)
        let m = Vector(repeating: high), low = Vector(repeating: Float(mean - Double(high)))
        sum0 = Vector()
        sum1 = Vector()
        i = 0
        while i + 2 * lanes <= n {
            let d0 = load(x + i) - m - low, d1 = load(x + i + lanes) - m - low
            sum0 = multiplyAdd(sum0, d0, d0)
            sum1 = multiplyAdd(sum1, d1, d1)
            i += 2 * lanes
        }
        while i < n {
            let count = min(lanes, n - i)
            // The lanes past `count` load as 0 and must add 0, not mean².
            let d = (load(x + i, count: count) - m - low).replacing(with: 0, where: laneMask(from: count))
            sum0 = multiplyAdd(sum0, d, d)
            i += lanes
        }
        let variance = (lanesSum(sum0) + lanesSum(sum1)) / Double(n)
        let inverse = Vector(repeating: Float(1 / (variance + epsilon).squareRoot()))
        i = 0
        while i < n {
            let count = min(lanes, n - i)
            let normalized = (load(x + i, count: count) - m - low) * inverse
            var v = normalized * load(scale + i, count: count)
            if let bias { v += load(bias + i, count: count) }
            store(v, y + i, count: count)
            i += lanes
        }
    }
}

/// The sum of a vector's lanes in Double.
@inline(always)
func lanesSum(_ v: Vector) -> Double {
    var total = 0.0
    for lane in 0..<lanes { total += Double(v[lane]) }
    return total
}
