import TestSupport

/// The fast path's cross-node fusion rules (`FusionPlan.Fusion`), one generator each.
enum FusionFamily: String, CaseIterable, Sendable {
    /// Conv (1x1, grouped 1x1, depthwise, dense K×K) + BatchNormalization + activation + residual Add.
    case convolution
    /// A zero Pad of the spatial axes folded into the convolution reading it.
    case paddedConvolution
    /// A 1x1 convolution (+ epilogue) and the depthwise convolution reading it, in bands of rows,
    /// or on small maps as one step with the 1x1 projecting the depthwise output (`SmallMapPairFusion`).
    case pointwiseDepthwise
    /// GlobalAveragePool → 1x1 Conv → Relu or SiLU → 1x1 Conv → Sigmoid or HardSigmoid → Mul.
    case squeezeExcite
    /// `s · gate(mean(s + u)) + u`, maybe applied band by band by a 1x1 + depthwise pair after it.
    case attentionGate
    /// A bilinear ×2 Resize and the 1x1 convolution reading it.
    case resizedPointwise
    /// A 2x2 stride-2 ConvTranspose → Sigmoid (→ Reshape).
    case maskHead
    /// A Transpose and its inverse, maybe with an activation between.
    case cancelledTransposes
    /// Transpose → Softmax over the original channel axis → inverse Transpose.
    case channelSoftmax
    /// NHWC → NCHW of the image input (maybe into a convolution's zero-bordered input).
    case deinterleave
    /// The buffer plan's in-place values around fused producers: Concat inputs written in their
    /// place in its output, Split outputs read inside its input, Reshape views.
    case slices
    /// A MatMul by a constant matrix with its bias Add and GELU or activation (and GELU after a
    /// convolution, LayerNormalization, attention's products of two computed operands, Softmax).
    case matrixProduct
    /// tf2onnx's channels-last blocks: a Transpose to NHWC, element-wise nodes by constants along
    /// the last axis, a spelled-out hard-swish, a mean over rows and columns, a Pad, a Concat, and
    /// the Transpose back (`TransposeSinking`, then the convolution's epilogue).
    case channelsLast
    /// BatchNormalization → activation that no convolution absorbs (pre-activation blocks:
    /// DenseNet's Concat → BatchNormalization → Relu → Conv), mostly into a convolution, which
    /// may read it zero-bordered.
    case normalizedActivation

    /// Whether the fast session's layers (each layer's operators) show this family's fusion.
    func fired(_ layers: [[String]]) -> Bool {
        switch self {
        case .cancelledTransposes:
            // Sunk until they cancel (`TransposeSinking`), or one layer that moves nothing.
            !layers.joined().contains { $0.hasSuffix("Transpose") } || layers.contains { fired(layer: $0) }
        case .channelsLast: !layers.joined().contains { $0.hasSuffix("Transpose") }
        default: layers.contains { fired(layer: $0) }
        }
    }

    /// Whether one profiled layer's operators show this family's fusion.
    private func fired(layer operators: [String]) -> Bool {
        switch self {
        case .convolution: operators.first == "Conv" && operators.count >= 2
        case .paddedConvolution: operators.starts(with: ["Pad", "Conv"])
        case .pointwiseDepthwise: operators.first == "Conv" && operators.filter { $0 == "Conv" }.count >= 2
        case .squeezeExcite: operators.first == "GlobalAveragePool" && operators.count >= 6
        case .attentionGate: operators.first == "Add" && operators.contains("GlobalAveragePool")
        case .resizedPointwise: operators.starts(with: ["Resize", "Conv"])
        case .maskHead: operators.starts(with: ["ConvTranspose", "Sigmoid"])
        case .cancelledTransposes: operators.first == "Transpose" && operators.last == "Transpose" && operators.count >= 2
            && !operators.contains("Softmax")
        case .channelSoftmax: operators == ["Transpose", "Softmax", "Transpose"]
        case .deinterleave: operators.first == "Transpose"
        case .slices: operators.count >= 2 && operators.dropFirst().contains { ["Concat", "Split", "Reshape"].contains($0) }
        case .matrixProduct: operators.first == "MatMul" && operators.count >= 2 || operators.first != "MatMul" && operators.contains("Erf")
            && operators.count >= 5
        case .channelsLast: false
        case .normalizedActivation: operators.first == "BatchNormalization" && operators.count >= 2
        }
    }
}

/// How large the generated graphs get.
struct FuzzSize: Sendable {
    /// Channel counts to draw from: primes and the kernels' tile sizes (8 output channels, 16-lane
    /// vectors, 48-pixel tiles) ± 1.
    let channels: [Int]
    /// Heights and widths to draw from.
    let sides: [Int]
    /// The most elements of one feature map.
    let maximumElements: Int
    /// The most multiply-accumulates of one convolution.
    let maximumMultiplyAccumulates: Int
    /// The most channels of any value.
    let maximumChannels: Int
    /// The most products summed into one output of a convolution (input channels per group ×
    /// window): the tests' bound is for sums of a few thousand products (`FusionFuzzTests`).
    let maximumFanIn = 4608

    /// A debug build runs the quick subset in a few seconds.
    static let quick = FuzzSize(channels: [1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 24],
                                sides: [1, 1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17],
                                maximumElements: 2048, maximumMultiplyAccumulates: 150_000, maximumChannels: 48)
    /// Past the 1x1 kernel's scratch limits of old (170 input channels before a depthwise
    /// convolution, 512 otherwise).
    static let long = FuzzSize(channels: [1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 23, 24, 25, 31, 32, 33, 47, 48, 49, 63, 64,
                                          65, 96, 97, 127, 128, 129, 160, 170, 171, 191, 192, 255, 256, 257, 511, 512, 513, 769],
                               sides: [1, 1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 15, 16, 17, 23, 31, 32, 33, 47, 48, 49, 64],
                               maximumElements: 60_000, maximumMultiplyAccumulates: 20_000_000, maximumChannels: 1024)
}

/// One generated graph: the family it is built around, its seed, the graph.
struct FuzzCase {
    let family: FusionFamily
    let seed: UInt64
    let graph: FuzzGraph
}

/// Draws small random graphs around one fusion rule's pattern and its near misses: other
/// activations, absorbed values with a second reader or that are graph outputs, other kernel
/// sizes, strides, dilations and (asymmetric) paddings, broadcast operands in either order,
/// other permutations, shared weights, channel counts off the tile sizes, 1×1 maps. A third of
/// the cases put a block before the pattern (so its input is an intermediate whose buffer the
/// plan may reuse), a third one after it (a convolution reading a zero-bordered output, a banded
/// pair, ...).
struct FusionFuzzer {
    var g: FuzzGraph
    let size: FuzzSize
    /// Values that get a second reader when the graph is complete (after every fusion's nodes).
    private var lateReaders: [String] = []
    /// Whether this case has its patterns without near misses (`miss` is always false), so that
    /// many cases fuse; the others draw every near miss with its own probability.
    private var clean = false
    /// The SiLU draws, apart from the graph's stream, so that choosing SiLU for an epilogue
    /// changes nothing else a seed draws.
    private var siluDraws: SeededGenerator
    /// The draws of the affine nodes after a convolution, apart from the graph's stream likewise.
    private var affineDraws: SeededGenerator
    /// The draws of the activation after a residual Add, apart from the graph's stream likewise.
    private var sumDraws: SeededGenerator

    static func make(_ family: FusionFamily, seed: UInt64, size: FuzzSize) -> FuzzCase {
        var fuzzer = FusionFuzzer(g: FuzzGraph(seed: seed), size: size, siluDraws: SeededGenerator(seed: seed ^ 0x5111),
                                  affineDraws: SeededGenerator(seed: seed ^ 0xAFF1), sumDraws: SeededGenerator(seed: seed ^ 0x5E1F))
        fuzzer.clean = fuzzer.chance(0.4)
        fuzzer.build(family)
        return FuzzCase(family: family, seed: seed, graph: fuzzer.g)
    }

    private mutating func build(_ family: FusionFamily) {
        var x: String
        if family == .deinterleave {
            x = deinterleave()
        } else {
            let divisor = family == .resizedPointwise || family == .maskHead ? 4 : 1
            var shape = mapShape(maximumElements: size.maximumElements / divisor)
            if family == .pointwiseDepthwise && (shape[2] < 6 || shape[3] <= 24) && chance(0.7) {
                // Bands of rows need rows: the banded step is refused on maps of a few rows, and on
                // depthwise output rows of 24 or fewer (8 without AVX-512: those run vectorised
                // over channels), which a stride-2 depthwise convolution makes of up to 48 columns.
                if shape[2] < 6 { shape[2] = pick(size.sides.filter { $0 >= 6 }) }
                if shape[3] <= 24 { shape[3] = pick(size.sides.filter { $0 > 24 } + [25]) }
                shape[1] = max(1, min(shape[1], size.maximumElements / (shape[2] * shape[3])))
            }
            x = g.input(shape)
            if chance(0.35) { x = prefix(x) }
            switch family {
            case .convolution: x = convolution(x)
            case .paddedConvolution: x = paddedConvolution(x)
            case .pointwiseDepthwise: x = pointwiseDepthwise(x)
            case .squeezeExcite: x = squeezeExcite(x)
            case .attentionGate: x = attentionGate(x)
            case .resizedPointwise: x = resizedPointwise(x)
            case .maskHead: x = maskHead(x)
            case .cancelledTransposes: x = cancelledTransposes(x)
            case .channelSoftmax: x = channelSoftmax(x)
            case .slices: x = slices(x)
            case .matrixProduct: x = matrixProduct(x)
            case .channelsLast: x = channelsLast(x)
            case .normalizedActivation: x = normalizedActivation(x)
            case .deinterleave: break
            }
        }
        if chance(0.35), g.planes(x) != nil { x = suffix(x) }
        g.output(x)
        for value in lateReaders where !g.inputs.contains(value) {
            g.output(chance(0.5) ? value : g.activation(value, .sigmoid))
        }
        if family == .channelSoftmax && miss(0.25) && !g.listing.contains(where: { $0.contains("HardSwish") || $0.contains("Split") }) {
            // Softmax-1/11: the softmax runs over the flattened axes from `axis` on.
            g.opset = 12
        }
    }

    // MARK: Drawing

    private mutating func chance(_ p: Double) -> Bool { g.random.chance(p) }
    /// A near miss, drawn with probability `p` (never in a clean case).
    private mutating func miss(_ p: Double) -> Bool { !clean && chance(p) }
    private mutating func pick<T>(_ items: [T]) -> T { g.random.pick(items) }
    private mutating func weighted<T>(_ items: [(T, Int)]) -> T {
        var n = Int.random(in: 0..<items.reduce(0) { $0 + $1.1 }, using: &g.random)
        for (item, weight) in items {
            if n < weight { return item }
            n -= weight
        }
        return items[0].0
    }

    /// With probability `p`, `value` gets a second reader after the whole pattern, or becomes a graph output.
    private mutating func expose(_ value: String, _ p: Double = 0.08) {
        if miss(p) { lateReaders.append(value) }
    }

    private mutating func channels(atMost limit: Int = .max) -> Int {
        pick(size.channels.filter { $0 <= limit })
    }

    /// A [1, C, H, W] shape within `maximumElements`.
    private mutating func mapShape(maximumElements: Int, channels c: Int? = nil) -> [Int] {
        var c = c ?? channels(), h = pick(size.sides), w = pick(size.sides)
        while c * h * w > maximumElements {
            if h >= w && h > 1 { h = max(1, h / 2) } else if w > 1 { w = max(1, w / 2) } else { c = max(1, c / 2) }
        }
        return [1, c, h, w]
    }

    private static func divisors(_ n: Int) -> [Int] { (1...max(n, 1)).filter { n % $0 == 0 } }

    private static func inverse(_ perm: [Int]) -> [Int] {
        var inverse = perm
        for (i, p) in perm.enumerated() { inverse[p] = i }
        return inverse
    }

    private mutating func permutation(_ rank: Int, keepingBatch: Bool) -> [Int] {
        let rest = Array((keepingBatch ? 1 : 0)..<rank).shuffled(using: &g.random)
        return keepingBatch ? [0] + rest : rest
    }

    /// An activation: mostly the ones kernels fuse (Relu, Clip(0, 6), HardSwish), else a near miss.
    private mutating func anyActivation() -> FuzzActivation {
        if clean { return pick([.relu, .clip(0, 6), .hardSwish]) }
        return weighted([(.relu, 4), (.clip(0, 6), 3), (.hardSwish, 3),
                  (pick([.clip(-1, 1), .clip(0, 3), .clip(0, nil), .clip(nil, 6), .clip(0, 6.5), .clip(0.5, 6)]), 2),
                  (pick([.hardSigmoid(alpha: 0.2, beta: 0.5), .hardSigmoid(alpha: 1.0 / 6, beta: 0.5)]), 1),
                  (pick([.leakyRelu(0.01), .leakyRelu(0.2), .leakyRelu(0)]), 1), (.sigmoid, 1), (.tanh, 1),
                  (.prelu(perChannel: chance(0.5)), 1)])
    }

    // MARK: Convolutions

    enum ConvChoice { case pointwise, groupedPointwise, depthwise, dense, nearMiss }

    /// Pads for a K-tap axis of `dilation`: "same", none, asymmetric, or one over the kernels' border of 8.
    private mutating func axisPads(kernel: Int, dilation: Int) -> (Int, Int) {
        let span = dilation * (kernel - 1)
        return weighted([((span / 2, span - span / 2), 4), ((0, 0), 2),
                         ((Int.random(in: 0...span, using: &g.random), Int.random(in: 0...span, using: &g.random)), 3),
                         ((9, Int.random(in: 0...2, using: &g.random)), clean ? 0 : 1)])
    }

    private mutating func convPads(kernel: (Int, Int), dilation: (Int, Int)) -> [Int] {
        let (top, bottom) = axisPads(kernel: kernel.0, dilation: dilation.0)
        if kernel.0 == kernel.1 && dilation.0 == dilation.1 && chance(0.6) { return [top, top, bottom, bottom] }
        let (left, right) = axisPads(kernel: kernel.1, dilation: dilation.1)
        return [top, left, bottom, right]
    }

    /// A convolution of `choice` for a [1, c, h, w] input that fits it and the size limits.
    private mutating func convSpec(_ c: Int, _ h: Int, _ w: Int, _ choice: ConvChoice) -> ConvSpec {
        var spec = ConvSpec(outputChannels: c, bias: chance(0.7))
        switch choice {
        case .pointwise:
            // As many outputs as inputs a third of the time: the 1x1 may then write over its input.
            spec.outputChannels = chance(0.3) ? c : channels()
        case .groupedPointwise:
            spec.group = pick(Self.divisors(c))
            spec.outputChannels = chance(0.3) ? c : spec.group * pick([1, 1, 2, 3].filter { spec.group * $0 <= size.maximumChannels })
        case .depthwise:
            let k = pick([2, 3, 3, 3, 5, 5, 7, 9])
            spec.kernel = (k, k)
            spec.stride = chance(0.3) ? (2, 2) : (1, 1)
            let d = weighted([(1, 5), (2, 2), (3, 1)])
            spec.dilation = (d, d)
            spec.pads = convPads(kernel: spec.kernel, dilation: spec.dilation)
            spec.group = c
            if k >= 5 && chance(0.15) { spec.lattice = k == 9 ? pick([2, 4]) : 2 }
        case .dense:
            let k = pick([2, 3, 3, 5])
            spec.kernel = (k, k)
            spec.stride = chance(0.3) ? (2, 2) : (1, 1)
            let d = weighted([(1, 5), (2, 2)])
            spec.dilation = (d, d)
            spec.pads = convPads(kernel: spec.kernel, dilation: spec.dilation)
            spec.group = chance(0.7) ? 1 : pick(Self.divisors(c))
            // Groups of 16 output channels (RegNet-X's: two to a panel of the small-map kernel) where they fit.
            let paired = spec.group > 1 && spec.group * 16 <= size.maximumChannels && chance(0.4)
            spec.outputChannels = spec.group * (paired ? 16 : max(1, channels() / spec.group))
        case .nearMiss:
            switch Int.random(in: 0..<8, using: &g.random) {
            case 0: spec.stride = (2, 2); spec.outputChannels = channels()                 // 1x1, stride 2
            case 1: spec.pads = [1, 1, 1, 1]; spec.outputChannels = channels()             // 1x1 with pads
            case 2: spec.kernel = (3, 1); spec.pads = [1, 0, 1, 0]; spec.outputChannels = channels()   // not square
            case 3: spec.kernel = (3, 3); spec.stride = (1, 2); spec.pads = [1, 1, 1, 1]; spec.group = c  // unequal strides
            case 4: spec.kernel = (3, 3); spec.dilation = (1, 2); spec.pads = [1, 2, 1, 2]; spec.group = c  // unequal dilations
            case 5 where 2 * c <= size.maximumChannels:                                         // depth multiplier 2
                spec.kernel = (3, 3); spec.pads = [1, 1, 1, 1]; spec.group = c; spec.outputChannels = 2 * c
            case 6: spec.kernel = (3, 3); spec.stride = (3, 3); spec.pads = [1, 1, 1, 1]                 // stride 3
            default: spec.kernel = (13, 13); spec.pads = [6, 6, 6, 6]; spec.group = c                    // 13x13 depthwise
            }
        }
        if !spec.fits(height: h, width: w) {
            // A map smaller than the window: pad it to fit (or give up the window).
            let needH = spec.dilation.h * (spec.kernel.h - 1) + 1 - h, needW = spec.dilation.w * (spec.kernel.w - 1) + 1 - w
            if needH > 0 { spec.pads[2] += needH }
            if needW > 0 { spec.pads[3] += needW }
        }
        let out = spec.outputSize(height: h, width: w)
        let macs = { (spec: ConvSpec) in out.h * out.w * spec.outputChannels * (c / spec.group) * spec.kernel.h * spec.kernel.w }
        while spec.outputChannels > spec.group && (macs(spec) > size.maximumMultiplyAccumulates
                                                   || spec.outputChannels * out.h * out.w > size.maximumElements) {
            spec.outputChannels = max(spec.group, (spec.outputChannels / 2) / spec.group * spec.group)
        }
        if macs(spec) > size.maximumMultiplyAccumulates || spec.outputChannels * out.h * out.w > size.maximumElements * 2
            || c / spec.group * spec.kernel.h * spec.kernel.w > size.maximumFanIn {
            return ConvSpec(outputChannels: min(c, spec.outputChannels), bias: spec.bias)
        }
        return spec
    }

    private mutating func anyConvChoice() -> ConvChoice {
        weighted([(.pointwise, 3), (.groupedPointwise, 1), (.depthwise, 3), (.dense, 2), (.nearMiss, clean ? 0 : 2)])
    }

    /// BatchNormalization and activations after `y`, as exporters write them (and near misses:
    /// an activation before the normalisation, two activations).
    private mutating func epilogue(_ y: String) -> String {
        var y = y
        if chance(0.5) {
            if miss(0.1) { y = g.activation(y, anyActivation()) }
            y = g.batchNorm(y, epsilon: chance(0.9) ? 1e-5 : 1e-3, parametersAsInputs: miss(0.03))
            expose(y)
        }
        y = affine(y)
        if chance(0.7) {
            let activation = anyActivation()
            y = siluDraws.chance(0.2) ? silu(y) : g.activation(y, activation)
            expose(y)
        }
        if miss(0.08) { y = g.activation(y, anyActivation()) }
        return y
    }

    /// One or two Mul, Add or Sub nodes by a constant that is one value or one per channel, as
    /// tf2onnx writes a Keras depthwise layer's BatchNormalization, and near misses: a constant
    /// along the columns or one per pixel, a Div by a constant, the constant first in a Sub, a
    /// graph input as the operand, a second reader.
    private mutating func affine(_ y: String) -> String {
        guard let shape = g.shapes[y], shape.count == 4, affineDraws.chance(0.25) else { return y }
        func miss(_ p: Double) -> Bool { !clean && affineDraws.chance(p) }
        let c = shape[1]
        var y = y
        for _ in 0..<affineDraws.pick([1, 1, 2]) {
            let op = miss(0.08) ? "Div" : affineDraws.pick(["Mul", "Add", "Sub"])
            var operandShape = affineDraws.pick([[1, c, 1, 1], [c, 1, 1], [], [1], [1, 1, 1, 1]])
            if miss(0.08) { operandShape = [shape[3]] }
            if miss(0.05) { operandShape = [1, 1, shape[2], shape[3]] }
            let scales = op == "Mul" || op == "Div"
            let operand: String
            if op == "Mul" && miss(0.05) {
                operand = g.input(operandShape)
            } else {
                operand = scales ? g.uniform(operandShape, 0.5, 1.5, prefix: "scale") : g.uniform(operandShape, -0.5, 0.5, prefix: "shift")
            }
            // Never a constant over the map: its reciprocal of values near zero would magnify
            // the rounding of a BatchNormalization folded before it past any tolerance.
            y = op != "Div" && miss(0.1) ? g.binary(op, operand, y) : g.binary(op, y, operand)
            if miss(0.05) { lateReaders.append(y) }
        }
        return y
    }

    /// x · sigmoid(x) as exporters write it (a Sigmoid, then a Mul of its input by it in either
    /// order), and near misses: the sigmoid of another value, the sigmoid read elsewhere, a Mul by
    /// another value, an Add instead of the Mul.
    private mutating func silu(_ y: String) -> String {
        func miss(_ p: Double) -> Bool { !clean && siluDraws.chance(p) }
        let s = g.activation(miss(0.1) ? g.activation(y, .relu) : y, .sigmoid)
        if miss(0.1) { lateReaders.append(s) }
        let other = miss(0.1) ? g.uniform(g.shapes[y]!, -1, 1, prefix: "full") : y
        let op = miss(0.06) ? "Add" : "Mul"
        return siluDraws.chance(0.5) ? g.binary(op, other, s) : g.binary(op, s, other)
    }

    /// A residual Add (or Sub, Mul) of `y` with something of its shape or broadcast to it, in
    /// either order: the block's input, a sibling convolution (maybe reading the same weights),
    /// another graph input, constants of full, per-channel, per-pixel or scalar shape, or a value
    /// the convolution's chain already absorbed.
    private mutating func residual(_ y: String, input x: String,
                                   convolution: (input: String, output: String, spec: ConvSpec)?) -> String {
        let shape = g.shapes[y]!
        guard shape.count == 4 else { return y }
        let (c, h, w) = (shape[1], shape[2], shape[3])
        var options: [(Int, Int)] = [(1, 2), (2, 2), (3, 1)]
        if !clean { options += [(4, 1), (5, 1), (6, 1), (7, 1)] }
        if g.shapes[x] == shape { options.append((0, 6)) }
        if convolution != nil && !clean { options.append((8, 1)) }
        let other: String
        switch weighted(options) {
        case 0: other = x
        case 1:
            if let (input, output, spec) = convolution {
                // A sibling convolution of the same input, half the time reading the same initializer.
                var sibling = spec
                if chance(0.5) { sibling.weights = weightsName(of: output) }
                other = g.conv(input, sibling)
            } else {
                other = g.activation(x, .relu)
            }
            if g.shapes[other] != shape { return y }
        case 2: other = g.input(shape)
        case 3: other = g.uniform(shape, -1, 1, prefix: "full")
        case 4: other = g.uniform([1, c, 1, 1], -1, 1, prefix: "perchannel")
        case 5: other = g.uniform(pick([[1, 1, h, w], [h, w], [1, 1, h, 1], [1, 1, 1, w], [w], [1, c, 1, w], [c, 1, 1]]), -1, 1,
                                  prefix: "broadcast")
        case 6: other = g.uniform(chance(0.5) ? [] : [1], -1, 1, prefix: "scalar")
        case 7: other = y
        default: other = convolution!.output   // a value the chain absorbs, read again
        }
        let op = clean ? "Add" : weighted([("Add", 8), ("Sub", 1), ("Mul", 1)])
        let sum = chance(0.5) ? g.binary(op, y, other) : g.binary(op, other, y)
        return activation(after: sum)
    }

    /// A ResNet block's end, a Relu after the residual Add, some of the time; near misses: another
    /// activation, the sum also read later.
    private mutating func activation(after sum: String) -> String {
        guard sumDraws.chance(0.4) else { return sum }
        func miss(_ p: Double) -> Bool { !clean && sumDraws.chance(p) }
        if miss(0.15) { lateReaders.append(sum) }
        let activation: FuzzActivation = miss(0.3)
            ? sumDraws.pick([.clip(0, 6), .hardSwish, .leakyRelu(0.01), .clip(0, nil), .sigmoid]) : .relu
        return g.activation(sum, activation)
    }

    /// The weights of the Conv node that produced `output` (the listing names them second).
    private func weightsName(of output: String) -> String? {
        guard let line = g.listing.first(where: { $0.hasPrefix("\(output) = Conv(") }) else { return nil }
        let arguments = line.drop(while: { $0 != "(" }).dropFirst().prefix(while: { $0 != ")" })
        let names = arguments.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return names.count > 1 ? names[1] : nil
    }

    // MARK: Families

    /// Conv → BatchNormalization → activation → residual Add.
    private mutating func convolution(_ x: String) -> String {
        let (c, h, w) = g.planes(x)!
        var spec = convSpec(c, h, w, anyConvChoice())
        if miss(0.04) {
            // Weights the graph takes as an input: nothing may be packed from them when the step is made.
            spec.weights = g.input([spec.outputChannels, c / spec.group, spec.kernel.h, spec.kernel.w])
        }
        let conv = g.conv(x, spec)
        expose(conv)
        var y = epilogue(conv)
        if chance(0.55) { y = residual(y, input: x, convolution: (g.inputOf(conv), conv, spec)) }
        return y
    }

    /// Pad → Conv (→ epilogue, residual).
    private mutating func paddedConvolution(_ x: String) -> String {
        let (c, h, w) = g.planes(x)!
        var pads = [0, 0, Int.random(in: 0...3, using: &g.random), Int.random(in: 0...3, using: &g.random),
                    0, 0, Int.random(in: 0...3, using: &g.random), Int.random(in: 0...3, using: &g.random)]
        let preservesShape = chance(0.3)
        if preservesShape { pads = [0, 0, 1, 1, 0, 0, 1, 1] }
        var mode = "constant", value: Float? = chance(0.2) ? 0 : nil
        if miss(0.3) {
            switch Int.random(in: 0..<5, using: &g.random) {
            case 0: pads[chance(0.5) ? 1 : 5] = 1                                   // a channel pad
            case 1 where h > 2: pads[2] = -1                                          // a crop
            case 2 where h > 3 && w > 3: mode = "reflect"; pads = pads.map { min($0, 1) }
            case 3: mode = "edge"
            default: value = 0.5
            }
        }
        let padded = g.pad(x, pads, mode: mode, value: value)
        expose(padded)
        let (pc, ph, pw) = g.planes(padded)!
        var spec: ConvSpec
        if preservesShape && chance(0.8) {
            spec = ConvSpec(outputChannels: pc, kernel: (3, 3), group: chance(0.6) || 9 * pc > size.maximumFanIn ? pc : 1,
                            bias: chance(0.7))
        } else {
            spec = convSpec(pc, ph, pw, weighted([(.depthwise, 3), (.dense, 3), (.pointwise, 1), (.nearMiss, clean ? 0 : 1)]))
        }
        _ = c
        let conv = g.conv(padded, spec)
        expose(conv)
        var y = epilogue(conv)
        if chance(0.5) { y = residual(y, input: x, convolution: (g.inputOf(conv), conv, spec)) }
        return y
    }

    /// 1x1 Conv (+ epilogue) → depthwise Conv (+ epilogue, residual).
    private mutating func pointwiseDepthwise(_ x: String) -> String {
        let (c, h, w) = g.planes(x)!
        // Expanded channels: bigger maps than the other families, so that some run in several bands.
        var expanded = chance(0.5) ? min(c * pick([1, 2, 3, 4, 6]), size.maximumChannels) : channels()
        while expanded > 1 && (expanded * h * w > 4 * size.maximumElements || expanded * c * h * w > size.maximumMultiplyAccumulates) {
            expanded /= 2
        }
        var pointwise = ConvSpec(outputChannels: expanded, bias: chance(0.7))
        if miss(0.06), c % 2 == 0, expanded % 2 == 0 { pointwise.group = 2 }
        let conv = g.conv(x, pointwise)
        expose(conv)
        let v = epilogue(conv)
        if miss(0.06) { lateReaders.append(g.activation(x, .relu)) }   // a node between the two convolutions
        var depthwise = convSpec(expanded, h, w, .depthwise)
        if miss(0.15) {
            depthwise = convSpec(expanded, h, w, pick([.depthwise, .dense, .nearMiss]))
        } else if miss(0.1) {
            // Wider than the banded step takes.
            depthwise = ConvSpec(outputChannels: expanded, kernel: (11, 11), pads: [5, 5, 5, 5], group: expanded, bias: chance(0.5))
        }
        if !depthwise.fits(height: h, width: w) { depthwise = ConvSpec(outputChannels: expanded, kernel: (3, 3), pads: [1, 1, 1, 1], group: expanded) }
        let dw = g.conv(v, depthwise)
        expose(dw)
        var y = epilogue(dw)
        if chance(0.45) {
            let shape = g.shapes[y]!
            if g.shapes[v] == shape && chance(0.5) {
                y = chance(0.5) ? g.binary("Add", y, v) : g.binary("Add", v, y)
            } else {
                y = residual(y, input: x, convolution: (v, dw, depthwise))
            }
        } else if chance(0.5), let (_, outH, outW) = g.planes(y), outH == h, outW == w {
            // An inverted residual block: projected back to the input's channels and added to it
            // (which keeps the input alive, so the pair's output cannot take its buffer).
            let projected = epilogue(g.conv(y, ConvSpec(outputChannels: c, bias: chance(0.5))))
            y = chance(0.5) ? g.binary("Add", projected, x) : g.binary("Add", x, projected)
        }
        return y
    }

    /// The gate `act2(conv(act1(conv(pool(s)))))` of a [1, C, H, W] value, Relu and Sigmoid mostly.
    private mutating func gate(of s: String) -> String {
        let (c, h, w) = g.planes(s)!
        let pooled: String = clean || weighted([(0, 17), (1, 2), (2, 1)]) == 0 ? g.globalAveragePool(s)
            : chance(0.6) ? g.node("ReduceMean", [s], [.ints("axes", [2, 3]), .int("keepdims", 1)], shape: [1, c, 1, 1])
            : g.node("AveragePool", [s], [.ints("kernel_shape", [Int64(h), Int64(w)])], shape: [1, c, 1, 1])
        expose(pooled, 0.05)
        let hidden = max(1, pick([1, 2, c / 4, c / 2, c, 2 * c].filter { $0 >= 1 && $0 <= size.maximumChannels }))
        var reduce = ConvSpec(outputChannels: hidden, bias: chance(0.8))
        if miss(0.05), c % 2 == 0, hidden % 2 == 0 { reduce.group = 2 }
        if miss(0.03) { reduce.weights = g.input([hidden, c / reduce.group, 1, 1]) }   // weights the graph takes as an input
        let reduced = g.conv(pooled, reduce)
        expose(reduced, 0.05)
        if miss(0.05) { lateReaders.append(g.activation(s, .relu)) }   // a node inside the chain
        let first: FuzzActivation? = !miss(0.25) ? .relu
            : pick([nil, .hardSwish, .clip(0, 6), .leakyRelu(0.1), .sigmoid, .relu])
        let hiddenValue: String
        if case .relu? = first, chance(0.3) {
            // SiLU instead (EfficientNet's): x · sigmoid(x), maybe of another value.
            let sigmoid = g.activation(reduced, .sigmoid)
            expose(sigmoid, 0.05)
            let other = miss(0.05) ? g.activation(reduced, .relu) : reduced
            hiddenValue = chance(0.5) ? g.binary("Mul", other, sigmoid) : g.binary("Mul", sigmoid, other)
        } else {
            hiddenValue = first.map { g.activation(reduced, $0) } ?? reduced
        }
        expose(hiddenValue, 0.05)
        var expand = ConvSpec(outputChannels: c, bias: chance(0.8))
        if hidden == c && reduce.group == 1 && chance(0.3) { expand.weights = weightsName(of: reduced) }
        let expanded = g.conv(hiddenValue, expand)
        expose(expanded, 0.05)
        let second: FuzzActivation? = !miss(0.25) ? .sigmoid
            : pick([.hardSigmoid(alpha: 0.2, beta: 0.5), .hardSigmoid(alpha: 1.0 / 6, beta: 0.5), .hardSwish, nil, .relu, .sigmoid])
        let gate = second.map { g.activation(expanded, $0) } ?? expanded
        expose(gate, 0.05)
        return gate
    }

    /// `x · gate(mean(x))`.
    private mutating func squeezeExcite(_ x: String) -> String {
        var gated = x
        if miss(0.08) { gated = chance(0.5) ? g.activation(x, .relu) : g.input(g.shapes[x]!) }   // gates another value
        let gate = gate(of: x)
        let op = miss(0.06) ? "Add" : "Mul"
        return chance(0.5) ? g.binary(op, gated, gate) : g.binary(op, gate, gated)
    }

    /// A value of `x`'s shape computed from it (so that its buffer is an intermediate's).
    private mutating func branch(_ x: String) -> String {
        let (c, _, _) = g.planes(x)!
        switch Int.random(in: 0..<4, using: &g.random) {
        case 0: return x
        case 1: return g.conv(x, ConvSpec(outputChannels: c, bias: chance(0.5)))
        case 2: return g.conv(x, ConvSpec(outputChannels: c, kernel: (3, 3), pads: [1, 1, 1, 1], group: c, bias: chance(0.5)))
        default: return g.activation(x, .relu)
        }
    }

    /// `s · gate(mean(s + u)) + u` (a decoder's skip connection), maybe read by a 1x1 + depthwise pair.
    private mutating func attentionGate(_ x: String) -> String {
        let (c, h, w) = g.planes(x)!
        let s = branch(x)
        var u = chance(0.15) ? g.input(g.shapes[x]!) : branch(x)
        if u == s && !miss(0.1) { u = g.activation(x, .hardSwish) }   // else s + s
        let broadcastMiss = miss(0.04)
        let upsampled = broadcastMiss ? g.uniform([1, c, 1, 1], -1, 1, prefix: "perchannel") : u
        let sum = chance(0.5) ? g.binary("Add", s, upsampled) : g.binary("Add", upsampled, s)
        expose(sum, 0.05)
        let gate = gate(of: sum)
        // The gate multiplies s (or u: the roles swap, still the pattern).
        let (gated, other) = chance(0.8) ? (s, upsampled) : (upsampled, s)
        let product = chance(0.5) ? g.binary("Mul", gate, gated) : g.binary("Mul", gated, gate)
        expose(product, 0.05)
        let addend = miss(0.08) ? gated : other
        let op = miss(0.05) ? "Sub" : "Add"
        var out = chance(0.5) ? g.binary(op, product, addend) : g.binary(op, addend, product)
        guard chance(0.5), g.shapes[out] == [1, c, h, w] else { return out }
        // A 1x1 + depthwise pair reading the gate's output applies the gate band by band.
        if miss(0.15) { g.output(out) }
        var between: String? = nil
        if chance(0.2) {
            // Nodes between the gate and the pair, whose buffers may take the dead skip or upsampled map's.
            between = g.conv(x, ConvSpec(outputChannels: c, bias: true))
            between = g.activation(between!, .relu)
        }
        let expanded = max(1, min(c * pick([1, 2, 4]), size.maximumChannels, size.maximumElements / max(h * w, 1)))
        let conv = g.conv(out, ConvSpec(outputChannels: expanded, bias: chance(0.7)))
        let v = chance(0.5) ? g.activation(conv, chance(0.5) ? .relu : .clip(0, 6)) : conv
        out = g.conv(v, ConvSpec(outputChannels: expanded, kernel: (3, 3), pads: [1, 1, 1, 1], group: expanded, bias: chance(0.7)))
        if let between {
            let projected = g.conv(out, ConvSpec(outputChannels: c, bias: false))
            out = g.binary("Add", projected, between)
        }
        return out
    }

    /// Resize (bilinear ×2 mostly) → Conv (1x1 mostly) → maybe an activation.
    private mutating func resizedPointwise(_ x: String) -> String {
        let (c, h, w) = g.planes(x)!
        let mode = clean ? "linear" : weighted([("linear", 8), ("nearest", 1), ("cubic", 1)])
        let transform = clean ? pick(["half_pixel", "pytorch_half_pixel"])
            : weighted([("half_pixel", 6), ("pytorch_half_pixel", 2), ("align_corners", 1), ("asymmetric", 1)])
        let factors: [Float] = !miss(0.2) ? [2, 2] : pick([[2, 1], [1, 2], [3, 3], [2, 3]])
        let resized: String
        if chance(0.3) {
            resized = g.resize(x, mode: mode, transform: transform, scales: nil,
                               sizes: [1, c, Int(Float(h) * factors[0]), Int(Float(w) * factors[1])])
        } else {
            resized = g.resize(x, mode: mode, transform: transform, scales: [1, 1] + factors, sizes: nil)
        }
        expose(resized)
        let (_, rh, rw) = g.planes(resized)!
        var spec = ConvSpec(outputChannels: channels(), bias: chance(0.7))
        if miss(0.15) {
            switch Int.random(in: 0..<3, using: &g.random) {
            case 0 where c % 2 == 0: spec.group = 2; spec.outputChannels = 2 * max(1, spec.outputChannels / 2)
            case 1: spec.stride = (2, 2)
            default: if 9 * c <= size.maximumFanIn { spec.kernel = (3, 3); spec.pads = [1, 1, 1, 1] }
            }
        }
        while spec.outputChannels > spec.group && spec.outputChannels * rh * rw > 2 * size.maximumElements {
            spec.outputChannels = max(spec.group, spec.outputChannels / 2 / spec.group * spec.group)
        }
        let conv = g.conv(resized, spec)
        return chance(0.3) ? g.activation(conv, anyActivation()) : conv
    }

    /// ConvTranspose (2x2, stride 2 mostly) → Sigmoid → Reshape.
    private mutating func maskHead(_ x: String) -> String {
        let (c, _, _) = g.planes(x)!
        let cout = pick([1, 1, 2, 3, 5])
        let t: String
        if !miss(0.3) {
            t = g.convTranspose(x, outputChannels: cout, kernel: 2, stride: 2, bias: chance(0.7))
        } else {
            switch Int.random(in: 0..<6, using: &g.random) {
            case 0: t = g.convTranspose(x, outputChannels: cout, kernel: 3, stride: 2, pads: [1, 1, 1, 1], outputPadding: 1, bias: true)
            case 1: t = g.convTranspose(x, outputChannels: cout, kernel: 2, stride: 2, pads: [0, 0, 1, 1], outputPadding: 1, bias: true)
            case 2: t = g.convTranspose(x, outputChannels: cout, kernel: 2, stride: 1, bias: true)
            case 3 where c % 2 == 0: t = g.convTranspose(x, outputChannels: 2 * cout, kernel: 2, stride: 2, group: 2, bias: true)
            case 4: t = g.convTranspose(x, outputChannels: cout, kernel: 2, stride: 2, dilation: 2, bias: true)
            default: t = g.convTranspose(x, outputChannels: cout, kernel: 4, stride: 2, pads: [1, 1, 1, 1], bias: chance(0.5))
            }
        }
        expose(t)
        let activation: FuzzActivation? = !miss(0.2) ? .sigmoid : pick([.hardSigmoid(alpha: 0.2, beta: 0.5), .relu, nil])
        guard let activation else { return t }
        let mask = g.activation(t, activation)
        expose(mask)
        guard chance(0.6) else { return mask }
        let shape = g.shapes[mask]!
        return g.reshape(mask, chance(0.5) ? [1, shape[2], shape[3], shape[1]] : [1, shape.reduce(1, *)])
    }

    /// Transpose → (activation) → Transpose, the inverse permutation mostly.
    private mutating func cancelledTransposes(_ x: String) -> String {
        var x = x
        let (c, h, w) = g.planes(x)!
        let rank3 = chance(0.2)
        if rank3 { x = g.reshape(x, [1, c, h * w]) }
        let rank = rank3 ? 3 : 4
        let perm = chance(0.5) ? (rank3 ? [0, 2, 1] : [0, 2, 3, 1]) : permutation(rank, keepingBatch: chance(0.7))
        let back = !miss(0.2) ? Self.inverse(perm) : chance(0.5) ? perm : permutation(rank, keepingBatch: chance(0.5))
        let integers = miss(0.1)
        let input = x
        if integers {
            // Integer tensors: the pair is one move of their bytes. Made from a graph input of
            // x's shape, not x: a value a kernel computed could round to the other integer.
            x = g.cast(g.binary("Mul", g.input(g.shapes[x]!), g.constant([], [100])), to: chance(0.5) ? 6 : 7)
        }
        let t = g.transpose(x, perm)
        var y = t
        if !integers {
            expose(t)
            if chance(0.5) {
                y = g.activation(t, anyActivation())
                expose(y)
            }
        }
        y = g.transpose(y, back)
        if integers {
            y = g.binary("Mul", g.cast(y, to: 1), g.constant([], [0.01]))
            if g.shapes[y] == g.shapes[input] { y = g.binary("Add", input, y) }
        }
        if rank3 && g.shapes[y] == [1, c, h * w] { y = g.reshape(y, [1, c, h, w]) }
        return y
    }

    /// Conv mostly → Transpose to NHWC → one to four channels-last steps → the Transpose back
    /// mostly → a 1x1 Conv sometimes. Near misses: another permutation back, a mean that drops its
    /// axes, an operand neither constant nor transposed, a hard-swish by 2.5, a pad of channels.
    private mutating func channelsLast(_ x: String) -> String {
        var x = x
        if chance(0.7) {
            let (c, h, w) = g.planes(x)!
            x = g.conv(x, convSpec(c, h, w, anyConvChoice()))
        }
        var y = g.transpose(x, [0, 2, 3, 1])
        for _ in 0..<Int.random(in: 1...4, using: &g.random) {
            y = channelsLastStep(y)
            expose(y, 0.05)
        }
        let back = !miss(0.15) ? [0, 3, 1, 2] : permutation(4, keepingBatch: true)
        var z = g.transpose(y, back)
        if back == [0, 3, 1, 2] && chance(0.3), let (c, h, w) = g.planes(z) {
            z = g.conv(z, convSpec(c, h, w, .pointwise))
        }
        return z
    }

    private mutating func channelsLastStep(_ y: String) -> String {
        let shape = g.shapes[y]!, c = shape[3]
        switch Int.random(in: 0..<7, using: &g.random) {
        case 0, 1:
            // An affine node by a constant along the last axis, one value, or (a near miss for the
            // convolution, not for the sinking) one per pixel.
            let constantShape = pick([[c], [1, 1, 1, c], [], [1], [shape[2], c], [1, shape[1], shape[2], c]])
            let k = g.uniform(constantShape, 0.5, 1.5)
            let op = pick(["Mul", "Add", "Sub", "Div"])
            return chance(0.5) && op != "Div" ? g.binary(op, k, y) : g.binary(op, y, k)
        case 2:
            return g.activation(y, anyActivation())
        case 3:
            // hard_swish as tf2onnx writes Keras's (and older PyTorch exports theirs).
            let a = g.binary("Add", y, g.constant([], [miss(0.15) ? 2.5 : 3]))
            let t = g.activation(a, .clip(0, 6))
            if chance(0.5) { return g.binary("Mul", y, g.binary("Mul", t, g.constant([], [Float(1) / 6]))) }
            return g.binary("Div", g.binary("Mul", t, y), g.constant([], [6]))
        case 4:
            // Squeeze-excite's mean over the rows and columns, and the product by its sigmoid.
            let keeps = !miss(0.2)
            let mean = g.node("ReduceMean", [y], [.ints("axes", [1, 2]), .int("keepdims", keeps ? 1 : 0)],
                              shape: keeps ? [1, 1, 1, c] : [1, c])
            return g.binary("Mul", y, g.activation(mean, .sigmoid))
        case 5:
            var pads = [0, Int.random(in: 0...2, using: &g.random), Int.random(in: 0...2, using: &g.random), 0,
                        0, Int.random(in: 0...2, using: &g.random), Int.random(in: 0...2, using: &g.random), 0]
            if miss(0.2) { pads[3] = 1 }
            return g.pad(y, pads)
        default:
            if miss(0.2) {
                // A value the graph takes in NHWC: it has no Transpose to sink through.
                return g.binary("Add", y, g.input(shape))
            }
            guard shape.reduce(1, *) * 2 <= size.maximumElements else { return g.activation(y, .relu) }
            return g.concat([y, g.activation(y, anyActivation())], axis: chance(0.5) ? 3 : -1)
        }
    }

    /// Transpose → Softmax over the original channel axis mostly → the inverse Transpose mostly.
    private mutating func channelSoftmax(_ x: String) -> String {
        var x = x
        if g.planes(x)!.c < 2 { x = g.conv(x, ConvSpec(outputChannels: pick([2, 3, 5, 16]))) }
        let perm = chance(0.6) ? pick([[0, 2, 3, 1], [0, 3, 2, 1], [0, 2, 1, 3], [0, 1, 3, 2]]) : permutation(4, keepingBatch: chance(0.7))
        var axis = perm.firstIndex(of: 1)!
        if miss(0.15) { axis = Int.random(in: 0..<4, using: &g.random) }
        if chance(0.15) { axis -= 4 }
        let back = !miss(0.15) ? Self.inverse(perm) : permutation(4, keepingBatch: true)
        let t = g.transpose(x, perm)
        expose(t)
        let s = g.softmax(t, axis: axis, log: miss(0.1))
        expose(s)
        return g.transpose(s, back)
    }

    /// Tokens × channels by a constant matrix, as transformers write it: the map's channels last
    /// (a Transpose to NHWC, maybe a Reshape to [1, H·W, C]), maybe a LayerNormalization over
    /// them, the MatMul, a bias Add of a row (either order), then a GELU in one of its spellings,
    /// an activation or nothing; sometimes attention's products of two computed operands with a
    /// Softmax along the rows after it, or a GELU straight after a convolution. Near misses: a
    /// bias per row, GELU constants a little off, the product, the sum or the erf read
    /// elsewhere.
    private mutating func matrixProduct(_ x: String) -> String {
        if chance(0.2) {
            let (c, h, w) = g.planes(x)!
            return gelu(g.conv(x, convSpec(c, h, w, chance(0.5) ? .depthwise : .pointwise)))
        }
        let (c, h, w) = g.planes(x)!
        var t = g.transpose(x, [0, 2, 3, 1])
        if chance(0.4) { t = g.reshape(t, [1, h * w, c]) }
        if chance(0.3) {
            let scale = g.uniform([c], 0.5, 1.5), shift = g.uniform([c], -0.5, 0.5)
            t = g.node("LayerNormalization", chance(0.8) ? [t, scale, shift] : [t, scale], [.int("axis", -1)], shape: g.shapes[t]!)
        }
        let n = channels()
        let rows = Array(g.shapes[t]!.dropLast())
        let bound = 1 / Float(c).squareRoot()
        var y = g.node("MatMul", [t, g.uniform([c, n], -bound, bound)], shape: rows + [n])
        if chance(0.8) {
            expose(y)
            let row = miss(0.15) && rows.last! > 1 ? [rows.last!, n] : Array(repeating: 1, count: Int.random(in: 0...1, using: &g.random)) + [n]
            let bias = g.uniform(row, -1, 1, prefix: "bias")
            y = chance(0.5) ? g.binary("Add", y, bias) : g.binary("Add", bias, y)
        }
        switch weighted([(0, 4), (1, 2), (2, 1)]) {
        case 0: y = gelu(y)
        case 1: y = g.activation(y, anyActivation())
        default: break
        }
        if chance(0.3) {
            // Attention: y · yᵀ (batched over the leading axes), a softmax along the rows, times y.
            let shape = g.shapes[y]!, r = shape.count
            var perm = Array(0..<r)
            perm.swapAt(r - 1, r - 2)
            let scores = g.node("MatMul", [y, g.transpose(y, perm)], shape: Array(shape.dropLast()) + [shape[r - 2]])
            let weights = g.softmax(scores, axis: -1, log: miss(0.1))
            y = g.node("MatMul", [weights, y], shape: shape)
        }
        return y
    }

    /// x · ½ · (1 + erf(x / √2)) of `x` in one of the spellings exporters write (Div by √2 or Mul
    /// by 1/√2; the halving before, after or on the sum), with near misses: a constant a little
    /// off, the erf, the sum or x read elsewhere.
    private mutating func gelu(_ x: String) -> String {
        let shape = g.shapes[x]!
        expose(x, 0.06)
        let divides = chance(0.6)
        let scaled = divides ? g.binary("Div", x, g.constant([], [miss(0.08) ? 1.4142 : 1.414_213_54], prefix: "sqrt2"))
            : g.binary("Mul", x, g.constant([], [miss(0.08) ? 0.7071 : 0.707_106_769], prefix: "isqrt2"))
        let erf = g.node("Erf", [scaled], shape: shape)
        expose(erf, 0.06)
        let one = g.constant([], [miss(0.06) ? 2 : 1], prefix: "one")
        let sum = chance(0.5) ? g.binary("Add", erf, one) : g.binary("Add", one, erf)
        expose(sum, 0.06)
        let half = g.constant([], [miss(0.06) ? 0.49 : 0.5], prefix: "half")
        switch Int.random(in: 0..<3, using: &g.random) {
        case 0: return g.binary("Mul", g.binary("Mul", x, sum), half)
        case 1: return g.binary("Mul", g.binary("Mul", half, x), sum)
        default: return g.binary("Mul", x, g.binary("Mul", sum, half))
        }
    }

    /// The image input NHWC → NCHW (other permutations as near misses), read by a convolution mostly.
    private mutating func deinterleave() -> String {
        let shape = mapShape(maximumElements: size.maximumElements, channels: pick([1, 3, 3, 4, 5, 8, 16]))
        let image = g.input([1, shape[2], shape[3], shape[1]])
        if miss(0.15) { lateReaders.append(g.node("Identity", [image], shape: g.shapes[image]!)) }   // a second reader of the input
        let perm = !miss(0.25) ? [0, 3, 1, 2] : pick([[0, 3, 2, 1], [0, 2, 1, 3], [0, 1, 3, 2], [0, 2, 3, 1], [0, 1, 2, 3]])
        let t = g.transpose(image, perm)
        expose(t)
        let (c, h, w) = g.planes(t)!
        switch weighted([(0, 4), (1, 3), (2, 1)]) {
        case 0: return g.conv(t, convSpec(c, h, w, chance(0.5) ? .depthwise : .dense))
        case 1: return g.conv(t, convSpec(c, h, w, .pointwise))
        default: return t
        }
    }

    /// A branch of `x` of its height and width: `x`, a Relu, a 1x1 or 3x3 depthwise convolution
    /// with its epilogue, a banded pair, or another graph input.
    private mutating func sameSizeBranch(_ x: String, channels: Int? = nil) -> String {
        let (c, h, w) = g.planes(x)!
        switch weighted([(0, 1), (1, 1), (2, 3), (3, 2), (4, 1), (5, 1)]) {
        case 0 where channels == nil || channels == c: return x
        case 1 where channels == nil || channels == c: return g.activation(x, .relu)
        case 3 where channels == nil || channels == c:
            return epilogue(g.conv(x, ConvSpec(outputChannels: c, kernel: (3, 3), pads: [1, 1, 1, 1], group: c, bias: chance(0.5))))
        case 4:
            let expanded = g.conv(x, ConvSpec(outputChannels: min(2 * c, size.maximumChannels), bias: chance(0.5)))
            let v = chance(0.5) ? g.activation(expanded, .relu) : expanded
            let dw = g.conv(v, ConvSpec(outputChannels: g.planes(v)!.c, kernel: (3, 3), pads: [1, 1, 1, 1], group: g.planes(v)!.c))
            return g.conv(dw, ConvSpec(outputChannels: channels ?? self.channels(), bias: chance(0.5)))
        case 5: return g.input([1, channels ?? self.channels(), h, w])
        default: return epilogue(g.conv(x, ConvSpec(outputChannels: channels ?? self.channels(), bias: chance(0.7))))
        }
    }

    /// A BatchNormalization of the input or of a Concat of it with branches (DenseNet's), then an
    /// activation, then mostly a convolution (1x1, depthwise or dense: the last two read it
    /// zero-bordered). Near misses: a second reader of the normalised or activated value, the
    /// parameters fed as graph inputs, a node between the two, an activation the kernels lack.
    private mutating func normalizedActivation(_ x: String) -> String {
        var y = x
        if chance(0.4) {
            let parts = [x] + (0..<pick([1, 2])).map { _ in sameSizeBranch(x) }
            y = g.concat(parts, axis: 1)
            if chance(0.5) { lateReaders.append(y) }   // DenseNet's next Concat reads it too
        }
        y = g.batchNorm(y, epsilon: chance(0.9) ? 1e-5 : 1e-3, parametersAsInputs: miss(0.05))
        expose(y, 0.1)
        if miss(0.08) { y = g.activation(y, .tanh) }
        y = siluDraws.chance(0.15) ? silu(y) : g.activation(y, anyActivation())
        expose(y)
        if chance(0.7) {
            let (c, h, w) = g.planes(y)!
            y = g.conv(y, convSpec(c, h, w, weighted([(.pointwise, 2), (.depthwise, 1), (.dense, 2)])))
        }
        return y
    }

    /// Concat of branches (along the channels mostly), Split of a value into branches, Reshape
    /// round trips, around fused producers and readers.
    private mutating func slices(_ x: String) -> String {
        let (c, h, w) = g.planes(x)!
        var y = x
        if chance(0.7) {
            let spatial = miss(0.2)
            var parts = (0..<pick([2, 2, 3])).map { _ in sameSizeBranch(x, channels: spatial ? c : nil) }
            if miss(0.1) { parts.append(parts[0]) }   // one value twice
            for part in parts { expose(part) }
            let axis = spatial ? pick([2, 3, -1]) : pick([1, 1, -3])
            y = g.concat(parts, axis: axis)
            if spatial { return chance(0.5) ? convolution(y) : y }
        }
        if chance(0.3) {
            let (yc, yh, yw) = g.planes(y)!
            y = g.reshape(g.reshape(y, chance(0.5) ? [1, yc, yh * yw] : [1, yc * yh * yw]), [1, yc, yh, yw])
        }
        let (yc, _, _) = g.planes(y)!
        if yc >= 2 && chance(0.7) {
            let count = min(yc, pick([2, 2, 3]))
            var lengths = (0..<count).map { _ in 1 }
            for _ in 0..<(yc - count) { lengths[Int.random(in: 0..<count, using: &g.random)] += 1 }
            let pieces = g.split(y, axis: 1, lengths: lengths).map { piece in
                chance(0.7) ? sameSizeBranch(piece, channels: g.planes(piece)!.c) : piece
            }
            for piece in pieces.dropFirst() { expose(piece) }
            y = chance(0.6) ? g.concat(pieces, axis: 1) : pieces[0]
            if y == pieces[0] { for piece in pieces.dropFirst() where !g.inputs.contains(piece) { g.output(piece) } }
        }
        _ = (h, w)
        return chance(0.4) ? convolution(y) : y
    }

    // MARK: Around the pattern

    /// A block before the pattern, so that its input is an intermediate.
    private mutating func prefix(_ x: String) -> String {
        let (c, h, w) = g.planes(x)!
        switch Int.random(in: 0..<4, using: &g.random) {
        case 0: return g.conv(x, convSpec(c, h, w, .pointwise))
        case 1: return g.conv(x, ConvSpec(outputChannels: c, kernel: (3, 3), pads: [1, 1, 1, 1], group: c, bias: true))
        case 2: return g.batchNorm(x)
        default: return g.activation(x, .relu)
        }
    }

    /// A block after the pattern: mostly a convolution with a zero-bordered input, which the
    /// pattern's step may write for it.
    private mutating func suffix(_ x: String) -> String {
        let (c, h, w) = g.planes(x)!
        switch weighted([(0, 5), (1, 2), (2, 1), (3, 1), (4, 1)]) {
        case 0:
            let conv = g.conv(x, convSpec(c, h, w, chance(0.6) ? .depthwise : .dense))
            return chance(0.5) ? epilogue(conv) : conv
        case 1: return pointwiseDepthwise(x)
        case 2: return squeezeExcite(x)
        case 3: return convolution(x)
        default:
            if !clean { g.output(x) }   // the pattern's output is read by the next block and is a graph output
            return g.conv(x, ConvSpec(outputChannels: c, kernel: (3, 3), pads: [1, 1, 1, 1], group: c, bias: true))
        }
    }
}
