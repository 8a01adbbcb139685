/// The activation between a gate's two fully connected layers.
package enum GateHiddenActivation: Sendable, Equatable {
    /// max(x, 0).
    case relu
    /// x · sigmoid(x) (SiLU / swish: ONNX Sigmoid then Mul by its input).
    case silu
}

/// The activation making a gate's values from the second fully connected layer.
package enum GateActivation: Sendable, Equatable {
    /// 1 / (1 + e^−x).
    case sigmoid
    /// max(0, min(1, alpha·x + beta)) (ONNX HardSigmoid; PyTorch's hardsigmoid is alpha 1/6, beta 0.5),
    /// the product and the sum rounded one after the other, as the reference kernel does.
    case hardSigmoid(alpha: Float, beta: Float)
}

/// The two small fully connected layers of a squeeze-and-excite or attention gate:
/// `gate = act2(W2 · act1(W1 · mean + b1) + b2)` (1x1 convolutions on a 1×1 map in ONNX), with
/// `act1` ReLU or SiLU and `act2` a sigmoid or a hard sigmoid.
package final class GateWeights {
    package let channels: Int
    package let hiddenChannels: Int
    package let hiddenActivation: GateHiddenActivation
    package let gateActivation: GateActivation
    /// ONNX's [hidden][channels] in groups of ``reduceGroup`` hidden units, each group
    /// [16-channel block][unit][16] (the last block padded with zero channels, the last group with
    /// zero units): the units a step reads together are adjacent, so the whole matrix is one stream.
    let reduce: FloatBuffer
    let reduceBias: FloatBuffer
    /// ONNX's [channels][hidden] as column panels of ``expandPanelWidth`` channels, each
    /// [hidden][expandPanelWidth] (the last panel padded with zero channels): one stream per panel.
    let expand: FloatBuffer
    let expandBias: FloatBuffer   // padded with zeros to whole panels

    /// Channels of a panel of the expansion: four vectors, four independent chains.
    static let expandPanelWidth = 4 * lanes
    /// Hidden units the reduction computes together: four independent chains sharing the means' loads.
    static let reduceGroup = 4

    /// `reduce` [hidden, channels] and `expand` [channels, hidden], row-major (ONNX 1x1 conv
    /// weights); biases zero when nil.
    package init(reduce: [Float], reduceBias: [Float]?, expand: [Float], expandBias: [Float]?,
                 channels: Int, hiddenChannels: Int, hiddenActivation: GateHiddenActivation = .relu,
                 gateActivation: GateActivation = .sigmoid) {
        precondition(channels > 0 && hiddenChannels > 0, "empty gate")
        precondition(reduce.count == channels * hiddenChannels && expand.count == channels * hiddenChannels,
                     "gate weights: wrong size")
        precondition((reduceBias?.count ?? hiddenChannels) == hiddenChannels
                     && (expandBias?.count ?? channels) == channels, "gate bias: wrong size")
        self.channels = channels
        self.hiddenChannels = hiddenChannels
        self.hiddenActivation = hiddenActivation
        self.gateActivation = gateActivation
        let group = GateWeights.reduceGroup, blocks = (channels + lanes - 1) / lanes
        let grouped = FloatBuffer(count: (hiddenChannels + group - 1) / group * blocks * group * lanes)
        for h in 0..<hiddenChannels {
            for c in 0..<channels {
                grouped.baseAddress[(((h / group) * blocks + c / lanes) * group + h % group) * lanes + c % lanes]
                    = reduce[h * channels + c]
            }
        }
        self.reduce = grouped
        self.reduceBias = FloatBuffer(reduceBias ?? [Float](repeating: 0, count: hiddenChannels))
        let width = GateWeights.expandPanelWidth, panels = (channels + width - 1) / width
        let packed = FloatBuffer(count: panels * hiddenChannels * width)
        for c in 0..<channels {
            for h in 0..<hiddenChannels {
                packed.baseAddress[((c / width) * hiddenChannels + h) * width + c % width] = expand[c * hiddenChannels + h]
            }
        }
        self.expand = packed
        let bias = FloatBuffer(count: panels * width)
        for c in 0..<channels { bias.baseAddress[c] = expandBias?[c] ?? 0 }
        self.expandBias = bias
    }

    /// Writes `gate[c]` from `mean[c]`, using `hidden` (hiddenChannels floats) as scratch.
    ///
    /// Each hidden unit is the bias plus a dot product of vector partial sums (four units at a
    /// time, sharing the loads of the means); the expansion accumulates each channel's lane
    /// hidden unit by hidden unit, four vectors of a panel at a time. Each value's operations and
    /// their order do not depend on how many units or vectors are taken together.
    func gate(mean: UnsafePointer<Float>, hidden: UnsafeMutablePointer<Float>, gate: UnsafeMutablePointer<Float>) {
        reduceUnits(groups: 0..<reduceGroups, mean: mean, hidden: hidden)
        activateHidden(hidden, count: hiddenChannels)
        expandChannels(panels: 0..<expandPanels, hidden: UnsafePointer(hidden), gate: gate)
    }

    /// Groups of ``reduceGroup`` hidden units, and panels of ``expandPanelWidth`` channels.
    var reduceGroups: Int { (hiddenChannels + GateWeights.reduceGroup - 1) / GateWeights.reduceGroup }
    var expandPanels: Int { (channels + GateWeights.expandPanelWidth - 1) / GateWeights.expandPanelWidth }

    /// The hidden units of `groups` before their activation: `hidden[h] = b1[h] + W1[h]·mean`.
    func reduceUnits(groups: Range<Int>, mean: UnsafePointer<Float>, hidden: UnsafeMutablePointer<Float>) {
        let c = channels, hiddenCount = hiddenChannels, group = GateWeights.reduceGroup
        let blocks = (c + lanes - 1) / lanes
        var units = UnsafePointer(reduce.baseAddress + groups.lowerBound * blocks * group * lanes)
        for g in groups {
            // Units h ..< h + 4 (those past the last are zero rows, computed and dropped).
            let h = g * group
            var acc0 = Vector(), acc1 = Vector(), acc2 = Vector(), acc3 = Vector()
            var i = 0
            while i < c {
                let m = i + lanes <= c ? load(mean + i) : load(mean + i, count: c - i)
                acc0 = multiplyAdd(acc0, load(units), m)
                acc1 = multiplyAdd(acc1, load(units + lanes), m)
                acc2 = multiplyAdd(acc2, load(units + 2 * lanes), m)
                acc3 = multiplyAdd(acc3, load(units + 3 * lanes), m)
                units += 4 * lanes
                i += lanes
            }
            let bias = reduceBias.baseAddress
            hidden[h] = bias[h] + horizontalSum(acc0)
            if h + 1 < hiddenCount { hidden[h + 1] = bias[h + 1] + horizontalSum(acc1) }
            if h + 2 < hiddenCount { hidden[h + 2] = bias[h + 2] + horizontalSum(acc2) }
            if h + 3 < hiddenCount { hidden[h + 3] = bias[h + 3] + horizontalSum(acc3) }
        }
    }

    /// The gate values of the channels of `panels`, from the activated hidden units.
    func expandChannels(panels: Range<Int>, hidden: UnsafePointer<Float>, gate: UnsafeMutablePointer<Float>) {
        let c = channels, hiddenCount = hiddenChannels, width = GateWeights.expandPanelWidth
        for panel in panels {
            let first = panel * width
            var column = UnsafePointer(expand.baseAddress + first * hiddenCount)
            let bias = UnsafePointer(expandBias.baseAddress + first)
            var acc0 = load(bias), acc1 = load(bias + lanes), acc2 = load(bias + 2 * lanes), acc3 = load(bias + 3 * lanes)
            for k in 0..<hiddenCount {
                let x = hidden[k]
                acc0 = multiplyAdd(acc0, x, load(column))
                acc1 = multiplyAdd(acc1, x, load(column + lanes))
                acc2 = multiplyAdd(acc2, x, load(column + 2 * lanes))
                acc3 = multiplyAdd(acc3, x, load(column + 3 * lanes))
                column += width
            }
            let n = c - first
            storeGate(acc0, gate + first, count: n)
            if n > lanes { storeGate(acc1, gate + first + lanes, count: n - lanes) }
            if n > 2 * lanes { storeGate(acc2, gate + first + 2 * lanes, count: n - 2 * lanes) }
            if n > 3 * lanes { storeGate(acc3, gate + first + 3 * lanes, count: n - 3 * lanes) }
        }
    }

    /// The hidden activation over the `count` hidden units, a vector at a time.
    func activateHidden(_ hidden: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        while i < count {
            let n = min(lanes, count - i)
            let x = load(hidden + i, count: n)
            switch hiddenActivation {
            case .relu: store(ReLU.apply(x), hidden + i, count: n)
            case .silu: store(x * sigmoidVector(x), hidden + i, count: n)
            }
            i += lanes
        }
    }

    /// The gate activation of `pre`, its first `count` lanes (all when 16 or more) stored.
    @inline(__always)
    private func storeGate(_ pre: Vector, _ p: UnsafeMutablePointer<Float>, count: Int) {
        switch gateActivation {
        case .sigmoid:
            store(sigmoidVector(pre), p, count: count)
        case .hardSigmoid(let alpha, let beta):
            store(hardSigmoidVector(pre, alpha: alpha, beta: beta), p, count: count)
        }
    }
}

/// `max(0, min(1, alpha·x + beta))` with Swift's `min` and `max`, as the scalar reference
/// computes it: the product rounded before the sum (no fused multiply-add), and a NaN sum giving 1
/// (`min(1, t)` is `t < 1 ? t : 1`).
@inline(always)
func hardSigmoidVector(_ x: Vector, alpha: Float, beta: Float) -> Vector {
    let product = x * alpha
    var t = product + beta
    t = t.replacing(with: 1, where: .!(t .< 1))
    return t.replacing(with: 0, where: t .< 0)
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

/// GlobalAveragePool as onnxruntime computes it (MLAS's `MlasPoolGlobalKernel`, what its CPU
/// GlobalAveragePool runs on float32): for each of `planes` dense planes of `planeSize` floats,
/// four float32 lane sums over the plane's runs of four (lane j takes elements 4k + j), reduced as
/// (s0 + s2) + (s1 + s3), then the last planeSize mod 4 elements added in order, then divided by
/// planeSize. Its bits on every input (a float64 sum, correctly rounded, differs from it on about
/// half the means of a 28x28 map, by up to ~20 ulp; a DynamicQuantizeLinear after it turns that
/// into quanta). Four planes at a time, so that their sums are independent chains.
@inline(never)
package func globalAveragePoolLikeOnnxruntime(_ input: UnsafePointer<Float>, planes: Int, planeSize: Int,
                                              output: UnsafeMutablePointer<Float>) {
    @inline(__always) func load4(_ p: UnsafePointer<Float>) -> SIMD4<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
    }
    let runs = planeSize / 4 * 4, size = Float(planeSize)
    @inline(__always) func mean(_ s: SIMD4<Float>, _ plane: UnsafePointer<Float>) -> Float {
        var sum = (s[0] + s[2]) + (s[1] + s[3])
        for i in runs..<planeSize { sum += plane[i] }
        return sum / size
    }
    var p = 0
    while p + 4 <= planes {
        let b0 = input + p * planeSize, b1 = b0 + planeSize, b2 = b1 + planeSize, b3 = b2 + planeSize
        var s0 = SIMD4<Float>(), s1 = SIMD4<Float>(), s2 = SIMD4<Float>(), s3 = SIMD4<Float>()
        var i = 0
        while i < runs {
            s0 += load4(b0 + i); s1 += load4(b1 + i); s2 += load4(b2 + i); s3 += load4(b3 + i)
            i += 4
        }
        output[p] = mean(s0, b0); output[p + 1] = mean(s1, b1); output[p + 2] = mean(s2, b2); output[p + 3] = mean(s3, b3)
        p += 4
    }
    while p < planes {
        let b = input + p * planeSize
        var s = SIMD4<Float>()
        var i = 0
        while i < runs { s += load4(b + i); i += 4 }
        output[p] = mean(s, b)
        p += 1
    }
}

/// Global average pool: `output[c]` = mean of channel c's interior, summed in float64 and
/// rounded once, as the reference kernel (and onnxruntime) compute it: a float64 sum of float32
/// values is exact whatever its order unless they span more than ~29 binary orders of magnitude,
/// so the means are the reference's. (A float32 sum was a few ulps off, enough to move a value
/// DynamicQuantizeLinear quantizes after it across a rounding boundary.)
@inline(never)
package func globalAveragePool(_ input: FeatureMap, output: UnsafeMutablePointer<Float>) {
    let count = Double(input.pixels)
    for c in 0..<input.channels {
        // Eight independent float64 sums (the lanes of one vector).
        var acc = SIMD8<Double>()
        let width = input.layout.isDense ? input.pixels : input.layout.width
        for y in 0..<(input.layout.isDense ? 1 : input.layout.height) {
            let row = UnsafePointer(input.plane(c) + y * input.layout.rowStride)
            var x = 0
            while x + 8 <= width {
                for i in 0..<8 { acc[i] += Double(row[x + i]) }
                x += 8
            }
            while x < width {
                acc[0] += Double(row[x])
                x += 1
            }
        }
        output[c] = Float(acc.sum() / count)
    }
}

/// The mean over the middle axis of a dense [outer, count, inner] array:
/// `output[o·inner + i] = (Σ_r input[(o·count + r)·inner + i]) / count`. With `inner` 1 the
/// ``globalAveragePool(_:output:)`` of `outer` planes; otherwise summed in `r` order, 16 values of
/// `i` per vector.
package func meanOverMiddleAxis(_ input: UnsafePointer<Float>, outer: Int, count: Int, inner: Int,
                                output: UnsafeMutablePointer<Float>) {
    precondition(outer >= 0 && count > 0 && inner > 0, "mean over an empty axis")
    if inner == 1 {
        globalAveragePool(FeatureMap(base: UnsafeMutablePointer(mutating: input), channels: outer,
                                     layout: .dense(width: count, height: 1)), output: output)
        return
    }
    let divisor = Vector(repeating: Float(count))
    for o in 0..<outer {
        let source = input + o * count * inner, destination = output + o * inner
        var i = 0
        while i < inner {
            let n = min(lanes, inner - i)
            var sum = Vector()
            var p = source + i
            for _ in 0..<count {
                sum += n == lanes ? load(p) : load(p, count: n)
                p += inner
            }
            store(sum / divisor, destination + i, count: n)
            i += lanes
        }
    }
}

/// Squeeze-and-excite: `output[c] = input[c] · gate[c]` with
/// `gate = act2(W2·act1(W1·mean(input) + b1) + b2)` (``GateWeights``). `output` may be `input`.
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

/// Writes `gate[c] = act2(W2·act1(W1·mean(input + plus) + b1) + b2)` (`plus` optional): the
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
/// `gate = act2(W2·act1(W1·mean(skip + upsampled) + b1) + b2)` (the multiply-add fused).
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
