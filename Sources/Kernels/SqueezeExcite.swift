/// The two small fully connected layers of a squeeze-and-excite or attention gate:
/// `gate = sigmoid(W2 · relu(W1 · mean + b1) + b2)` (1x1 convolutions on a 1×1 map in ONNX).
package final class GateWeights {
    package let channels: Int
    package let hiddenChannels: Int
    let reduce: FloatBuffer   // [hidden][channels]
    let reduceBias: FloatBuffer
    let expand: FloatBuffer   // [hidden][channels] (transposed from ONNX's [channels][hidden])
    let expandBias: FloatBuffer

    /// `reduce` [hidden, channels] and `expand` [channels, hidden], row-major (ONNX 1x1 conv
    /// weights); biases zero when nil.
    package init(reduce: [Float], reduceBias: [Float]?, expand: [Float], expandBias: [Float]?,
                channels: Int, hiddenChannels: Int) {
        precondition(channels > 0 && hiddenChannels > 0, "empty gate")
        precondition(reduce.count == channels * hiddenChannels && expand.count == channels * hiddenChannels,
                     "gate weights: wrong size")
        precondition((reduceBias?.count ?? hiddenChannels) == hiddenChannels
                     && (expandBias?.count ?? channels) == channels, "gate bias: wrong size")
        self.channels = channels
        self.hiddenChannels = hiddenChannels
        self.reduce = FloatBuffer(reduce)
        self.reduceBias = FloatBuffer(reduceBias ?? [Float](repeating: 0, count: hiddenChannels))
        let transposed = FloatBuffer(count: channels * hiddenChannels)
        for c in 0..<channels {
            for h in 0..<hiddenChannels { transposed.baseAddress[h * channels + c] = expand[c * hiddenChannels + h] }
        }
        self.expand = transposed
        self.expandBias = FloatBuffer(expandBias ?? [Float](repeating: 0, count: channels))
    }

    /// Writes `gate[c]` from `mean[c]`, using `hidden` (hiddenChannels floats) as scratch.
    /// Vectorised over channels: each hidden unit is a dot product of vector partial sums, and
    /// the expansion accumulates 16 channels per vector, hidden unit by hidden unit.
    func gate(mean: UnsafePointer<Float>, hidden: UnsafeMutablePointer<Float>, gate: UnsafeMutablePointer<Float>) {
        let c = channels
        for h in 0..<hiddenChannels {
            let row = UnsafePointer(reduce.baseAddress + h * c)
            var acc = Vector()
            var i = 0
            while i < c {
                let n = min(lanes, c - i)
                acc = multiplyAdd(acc, load(row + i, count: n), load(mean + i, count: n))
                i += lanes
            }
            let s = reduceBias.baseAddress[h] + horizontalSum(acc)
            hidden[h] = s < 0 ? 0 : s
        }
        var i = 0
        while i < c {
            let n = min(lanes, c - i)
            var acc = load(UnsafePointer(expandBias.baseAddress + i), count: n)
            var column = UnsafePointer(expand.baseAddress + i)
            for h in 0..<hiddenChannels {
                acc = multiplyAdd(acc, hidden[h], load(column, count: n))
                column += c
            }
            store(sigmoidVector(acc), gate + i, count: n)
            i += lanes
        }
    }
}

/// The mean of one channel's interior: vector partial sums per row, a tree at the end, then
/// one division. The order depends only on the layout, never on the thread.
@inline(always)
func channelSum(_ map: FeatureMap, _ c: Int, plus other: FeatureMap? = nil) -> Float {
    var acc0 = Vector(), acc1 = Vector()
    if map.layout.isDense && (other?.layout.isDense ?? true) {
        // The plane as one row: long vector loops even for 16-pixel-wide maps.
        accumulateRow(map.plane(c), other.map { UnsafePointer($0.plane(c)) }, count: map.pixels, into: &acc0, &acc1)
    } else {
        for y in 0..<map.layout.height {
            accumulateRow(map.plane(c) + y * map.layout.rowStride,
                          other.map { UnsafePointer($0.plane(c) + y * $0.layout.rowStride) },
                          count: map.layout.width, into: &acc0, &acc1)
        }
    }
    return horizontalSum(acc0 + acc1)
}

/// Adds `count` values of `row` (plus those of `otherRow`) into two accumulators, alternating
/// vectors. A free function with `inout` accumulators (a nested function capturing them would
/// box them on the heap in a debug build).
@inline(__always)
private func accumulateRow(_ row: UnsafePointer<Float>, _ otherRow: UnsafePointer<Float>?, count: Int,
                           into acc0: inout Vector, _ acc1: inout Vector) {
    var x = 0
    while x + 2 * lanes <= count {
        if let otherRow {
            acc0 += load(row + x) + load(otherRow + x)
            acc1 += load(row + x + lanes) + load(otherRow + x + lanes)
        } else {
            acc0 += load(row + x)
            acc1 += load(row + x + lanes)
        }
        x += 2 * lanes
    }
    while x < count {
        let n = min(lanes, count - x)
        if let otherRow {
            acc0 += load(row + x, count: n) + load(otherRow + x, count: n)
        } else {
            acc0 += load(row + x, count: n)
        }
        x += lanes
    }
}

/// Global average pool: `output[c]` = mean of channel c's interior.
@inline(never)
package func globalAveragePool(_ input: FeatureMap, output: UnsafeMutablePointer<Float>) {
    let count = Float(input.pixels)
    for c in 0..<input.channels { output[c] = channelSum(input, c) / count }
}

/// Squeeze-and-excite: `output[c] = input[c] · gate[c]` with
/// `gate = sigmoid(W2·relu(W1·mean(input) + b1) + b2)`. `output` may be `input`.
///
/// Means and multiplies are split over channels between threads; the gate is computed once.
@inline(never)
package func squeezeExcite(_ input: FeatureMap, weights: GateWeights, output: FeatureMap, pool: WorkerPool) {
    precondition(input.channels == weights.channels && output.channels == weights.channels
                 && input.layout.width == output.layout.width && input.layout.height == output.layout.height,
                 "squeeze-excite shape mismatch")
    let (gate, hidden) = sharedGate(weights, pool: pool)
    computeGate(input, plus: nil, weights: weights, hidden: hidden, into: gate, pool: pool)
    pool.run(ChannelScaling(input: input, gate: gate, output: output))
}

/// Floats of shared scratch ``squeezeExcite(_:weights:output:pool:)`` and
/// ``attentionGate(skip:upsampled:weights:output:pool:)`` use: the means, the gate and the hidden
/// units (``sharedGate(_:pool:)``).
package func gateScratch(_ weights: GateWeights) -> ScratchSize {
    ScratchSize(shared: 2 * weights.channels + weights.hiddenChannels)
}

/// Floats of shared scratch ``attentionGateValues(skip:upsampled:weights:gate:pool:)`` uses: the
/// means and the hidden units (the gate goes to the caller's buffer).
package func gateValuesScratch(_ weights: GateWeights) -> ScratchSize {
    ScratchSize(shared: weights.channels + weights.hiddenChannels)
}

/// Where the two whole-map gates keep their gate and hidden units: in the pool's shared scratch,
/// after the means ``computeGate(_:plus:weights:hidden:into:pool:)`` puts at its start.
private func sharedGate(_ weights: GateWeights, pool: WorkerPool) -> (gate: UnsafeMutablePointer<Float>,
                                                                      hidden: UnsafeMutablePointer<Float>) {
    precondition(pool.holds(gateScratch(weights)), "gate of \(weights.channels) channels: pool shared scratch too small")
    let gate = pool.shared.baseAddress! + weights.channels
    return (gate, gate + weights.channels)
}

/// Writes `gate[c] = sigmoid(W2·relu(W1·mean(input + plus) + b1) + b2)` (`plus` optional): the
/// means are taken over channels split between threads into the start of the pool's shared
/// scratch, the hidden units (`hiddenChannels` floats) go to `hidden`; neither `gate` nor `hidden`
/// may overlap the means or each other.
private func computeGate(_ input: FeatureMap, plus: FeatureMap?, weights: GateWeights,
                         hidden: UnsafeMutablePointer<Float>, into gate: UnsafeMutablePointer<Float>, pool: WorkerPool) {
    let mean = pool.shared.baseAddress!
    pool.run(ChannelMeans(input: input, plus: plus, mean: mean, count: Float(input.pixels)))
    weights.gate(mean: mean, hidden: hidden, gate: gate)
}

/// `mean[c] = Σ (input[c] + plus[c]) / count` (`plus` optional), split over channels.
struct ChannelMeans: PoolJob {
    let input: FeatureMap, plus: FeatureMap?, mean: UnsafeMutablePointer<Float>, count: Float
    func run(part: Int, pool: WorkerPool) {
        for ch in WorkerPool.range(input.channels, part: part, of: pool.threadCount) {
            if let plus {
                mean[ch] = channelSum(input, ch, plus: plus) / count
            } else {
                mean[ch] = channelSum(input, ch) / count
            }
        }
    }
}

/// `output[c] = input[c] · gate[c]`, split over channels.
struct ChannelScaling: PoolJob {
    let input: FeatureMap, gate: UnsafeMutablePointer<Float>, output: FeatureMap
    func run(part: Int, pool: WorkerPool) {
        for ch in WorkerPool.range(input.channels, part: part, of: pool.threadCount) {
            scaleRows(input, channel: ch, scale: gate[ch], output: output)
        }
    }
}

/// The decoder's attention gate: `output = skip · gate + upsampled` with
/// `gate = sigmoid(W2·relu(W1·mean(skip + upsampled) + b1) + b2)` (the multiply-add fused).
@inline(never)
package func attentionGate(skip: FeatureMap, upsampled: FeatureMap, weights: GateWeights, output: FeatureMap,
                          pool: WorkerPool) {
    precondition(skip.channels == weights.channels && upsampled.channels == weights.channels
                 && output.channels == weights.channels, "attention gate channel mismatch")
    precondition(skip.layout.width == upsampled.layout.width && skip.layout.height == upsampled.layout.height
                 && skip.layout.width == output.layout.width && skip.layout.height == output.layout.height,
                 "attention gate size mismatch")
    let (gate, hidden) = sharedGate(weights, pool: pool)
    computeGate(skip, plus: upsampled, weights: weights, hidden: hidden, into: gate, pool: pool)
    pool.run(GateApplication(skip: skip, upsampled: upsampled, gate: gate, output: output))
}

/// The first half of ``attentionGate(skip:upsampled:weights:output:pool:)``: writes the gate
/// (`weights.channels` floats) to `gate` and applies nothing; ``applyGate(skip:upsampled:gate:output:pool:)``
/// (on the whole map or on bands of rows) then gives the same output.
@inline(never)
package func attentionGateValues(skip: FeatureMap, upsampled: FeatureMap, weights: GateWeights,
                                gate: UnsafeMutablePointer<Float>, pool: WorkerPool) {
    precondition(pool.holds(gateValuesScratch(weights)), "gate of \(weights.channels) channels: pool shared scratch too small")
    computeGate(skip, plus: upsampled, weights: weights, hidden: pool.shared.baseAddress! + weights.channels, into: gate, pool: pool)
}

/// `output[c] = skip[c] · gate[c] + upsampled[c]` (the attention gate's second half), split
/// over channels. Maps of equal size, any layouts.
package func applyGate(skip: FeatureMap, upsampled: FeatureMap, gate: UnsafePointer<Float>, output: FeatureMap,
                      pool: WorkerPool) {
    pool.run(GateApplication(skip: skip, upsampled: upsampled, gate: UnsafeMutablePointer(mutating: gate), output: output))
}

/// `output[c] = skip[c] · gate[c] + upsampled[c]`, split over channels.
struct GateApplication: PoolJob {
    let skip: FeatureMap, upsampled: FeatureMap, gate: UnsafeMutablePointer<Float>, output: FeatureMap
    func run(part: Int, pool: WorkerPool) {
        let w = skip.layout.width
        for ch in WorkerPool.range(skip.channels, part: part, of: pool.threadCount) {
            let a = gate[ch]
            for y in 0..<skip.layout.height {
                let s = UnsafePointer(skip.plane(ch) + y * skip.layout.rowStride)
                let u = UnsafePointer(upsampled.plane(ch) + y * upsampled.layout.rowStride)
                let o = output.plane(ch) + y * output.layout.rowStride
                var x = 0
                while x < w {
                    let n = min(lanes, w - x)
                    store(multiplyAdd(load(u + x, count: n), a, load(s + x, count: n)), o + x, count: n)
                    x += lanes
                }
            }
        }
    }
}
