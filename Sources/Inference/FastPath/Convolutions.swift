import Kernels

// The convolution steps: 1x1, depthwise and dense K×K, with the epilogue and residual Add they
// absorb; padded inputs written by their producers (`FusionPlan.paddedInputs`). The rules that
// choose them are in `Rules/ConvolutionRules.swift`.

/// What a convolution's step does besides its own sums, decided by the plan.
struct ConvolutionFusion {
    /// The BatchNormalization folded into its weights and the activation it applies.
    var epilogue: Epilogue
    /// The value added to every output element in the store (an absorbed residual `Add`).
    var residual: Int? = nil
    /// Whether the store takes max(·, 0) of the sum with the residual (an absorbed `Relu` after
    /// the residual `Add`; 1x1 kernels only).
    var rectifiesSum = false
    /// The value the step writes: the end of the epilogue, or the residual Add's sum.
    var target: Int
    /// The output values of the nodes it absorbs.
    var absorbed: [Int]
    /// Whether the kernel may write `target` over its data input (`FusionPlan.Fusion.mayOverwrite`).
    var overwritesInput = false
    /// Whether `target` is the convolution's output transposed to NHWC (a Transpose [0, 2, 3, 1]
    /// absorbed), which a small-map kernel writes pixel-major (`smallMapConvolutionChannelsLast`,
    /// `smallMapDepthwiseChannelsLast`).
    var channelsLast = false
}

/// A zero Pad of a [1, C, H, W] map's rows and columns folded into the depthwise or dense K×K
/// convolution right after it: the convolution reads the Pad's input, with the Pad's borders
/// added to its own.
struct PaddedConvolution {
    let convolutionNode: Int
    /// The convolution with the Pad's borders added to its pads.
    let conv: Conv
    let kind: ConvolutionKind
    let convolution: ConvolutionFusion
    /// The convolution's output and the nodes its fusion absorbs.
    let absorbed: [Int]
}

extension StepBuilder {
    /// Where a step writes the map of `value`: zero-bordered for its reader
    /// (`FusionPlan.paddedValues`), or dense.
    func outputMap(_ value: Int, channels: Int, height: Int, width: Int) -> FeatureMap {
        paddedMap(value) ?? FeatureMap(base: pointer(value), channels: channels, layout: .dense(width: width, height: height))
    }
}

/// How the fast path runs a convolution, or nil when it leaves it to the reference kernel.
enum ConvolutionKind: Equatable {
    /// 1x1, stride 1, no padding: one GEMM over pixels per group of channels.
    case pointwise(groups: Int)
    /// 1x1 at a stride above 1, no padding, one group: the pixels it reads gathered into a dense
    /// map of the step's own (`subsampleChannels`), then the pointwise GEMM over them.
    case subsampledPointwise(stride: Int)
    /// One K×K filter per channel (group = input channels = output channels), stride 1 or 2,
    /// any dilation, reading a zero-bordered copy of its input with this border.
    case depthwise(pad: Int)
    /// K×K of any group count (one dense convolution per group), stride 1 or 2, any dilation,
    /// reading a zero-bordered copy with this border.
    case dense(pad: Int)

    /// The border of the zero-bordered input the kernel reads (nil: it reads the arena).
    var inputPad: Int? {
        switch self {
        case .pointwise, .subsampledPointwise: nil
        case .depthwise(let pad), .dense(let pad): pad
        }
    }
}

/// Which kernel runs a node, from its shapes alone: what the rules and the step builders share.
protocol KernelChoices {}

extension KernelChoices {
    /// The kernel that runs `conv` (batch 1, 2-D, equal strides and dilations on both axes): the
    /// kernel of its window trimmed to the taps that read the input (`inputWindow`), which
    /// `convolutionStep` runs. A window of unequal sides (Inception's 1×7, 7×1, 1×3, 3×1) is
    /// `.dense` only with one group where it runs vectorised over output channels
    /// (`runsOverChannels`, the one direct kernel that takes such windows); nil otherwise (the
    /// patch-matrix step runs it).
    static func kind(of conv: Conv) -> ConvolutionKind? {
        let conv = inputWindow(of: conv)?.conv ?? conv
        let h = conv.height, w = conv.width
        guard conv.batch == 1, conv.depth == .unit, h.stride == w.stride, h.dilation == w.dilation else { return nil }
        let pad = max(h.padBegin, h.padEnd, w.padBegin, w.padEnd)
        if h.kernel != w.kernel {
            guard h.stride == 1 || h.stride == 2, max(h.kernel, w.kernel) <= 7, pad <= 8, conv.group == 1,
                  runsOverChannels(dense: conv) else { return nil }
            return .dense(pad: pad)
        }
        // A 1x1 whose output is smaller than its input (a window trimmed to its first tap) crops:
        // not the pointwise kernels' map-to-map product.
        if h.kernel == 1 && h.stride == 1 && pad == 0 && h.output == h.input && w.output == w.input {
            return .pointwise(groups: conv.group)
        }
        if h.kernel == 1 && h.stride > 1 && pad == 0 && conv.group == 1
            && h.output == (h.input - 1) / h.stride + 1 && w.output == (w.input - 1) / w.stride + 1 {
            return .subsampledPointwise(stride: h.stride)
        }
        // A border of 8 keeps every vector read of the kernels within the padded buffer's slack;
        // a wider one only the small-map kernel reads (`takesWideBorder`).
        guard h.kernel > 1 else { return nil }
        if pad > 8 { return takesWideBorder(conv) ? .dense(pad: pad) : nil }
        if h.stride <= 2 && conv.group == conv.inputChannels && conv.outputChannels == conv.inputChannels && h.kernel <= 16 {
            return .depthwise(pad: pad)
        }
        if h.stride <= 2 && h.kernel <= 7 { return .dense(pad: pad) }
        return runsOnlyOverChannels(dense: conv) ? .dense(pad: pad) : nil
    }

    /// Whether a dense convolution is one only the small-map kernel runs (`SmallMapConvolutionStep`,
    /// whose tiles broadcast each input value and so take any stride): one group, a window of
    /// 8 to 11 or a stride of 3 to 4 (AlexNet's 11x11 stride-4 stem), with the wide register file
    /// its chunks of 12 pixels need.
    static func runsOnlyOverChannels(dense conv: Conv) -> Bool {
        let (k, stride) = (conv.height.kernel, conv.height.stride)
        return (k > 7 || stride > 2) && k <= 11 && stride <= 4 && conv.group == 1 && smallMapTilesSpanRows
            || takesWideBorder(conv)
    }

    /// Whether a dilated convolution whose border is wider than the direct kernels' 8 runs on
    /// the small-map kernel (DeepLabV3's ASPP at rate 12 on a 16×16 map, where every tap reads
    /// the input for some output): its tiles read each tap's input value alone, never a vector
    /// past the border, and skip the rows and columns of taps that read only the border for the
    /// whole tile. One group, a square window of at most 11 at strides up to 4 (what the kernel
    /// takes), the wide register file, and a border at most the map's larger side (the bordered
    /// copy is then no larger than the patch matrix the other route builds).
    static func takesWideBorder(_ conv: Conv) -> Bool {
        let h = conv.height, w = conv.width
        let pad = max(h.padBegin, h.padEnd, w.padBegin, w.padEnd)
        return pad > 8 && pad <= max(h.input, w.input) && h.dilation > 1 && h.kernel == w.kernel && h.kernel <= 11
            && h.stride <= 4 && conv.group == 1 && conv.inputChannels > 1 && smallMapTilesSpanRows
    }

    /// A dense or grouped (not depthwise) 2-D convolution with its window cut down to the rows
    /// and columns of taps that read an input pixel for at least one output (the taps between
    /// the first and last such row, and column), when that removes a tap and leaves a square
    /// window and borders of at least 0; nil otherwise. The taps cut read only padding, so the
    /// sums are the same for finite weights (a skipped tap adds w · 0 to a chain of fused
    /// multiply-adds in the same order: only the sign of a zero sum can differ), and the
    /// reference path skips them too. At a dilation of at least the map size (DeepLabV3's ASPP
    /// on a small map) only the centre tap is left, a 1x1 convolution.
    ///
    /// `rows` and `columns` are the kept taps of the original window.
    static func inputWindow(of conv: Conv) -> (conv: Conv, rows: Swift.Range<Int>, columns: Swift.Range<Int>)? {
        guard conv.batch == 1, conv.depth == .unit,
              !(conv.group == conv.inputChannels && conv.outputChannels == conv.inputChannels && conv.group > 1) else { return nil }
        /// The taps from the first to the last that read the axis's input for some output.
        func used(_ a: WindowAxis) -> Swift.Range<Int>? {
            let reads = (0..<a.kernel).filter { k in
                (0..<a.output).contains { o in (0..<a.input).contains(o * a.stride - a.padBegin + k * a.dilation) }
            }
            guard let first = reads.first, let last = reads.last else { return nil }
            return first..<(last + 1)
        }
        func trimmed(_ a: WindowAxis, _ taps: Swift.Range<Int>) -> WindowAxis? {
            var t = a
            t.kernel = taps.count
            t.dilation = taps.count == 1 ? 1 : a.dilation
            t.padBegin = a.padBegin - taps.lowerBound * a.dilation
            // The border the last output's window reaches past the input (none when it stops short).
            t.padEnd = max(0, (a.output - 1) * a.stride - t.padBegin + t.effectiveKernel - a.input)
            return t.padBegin >= 0 ? t : nil
        }
        guard let rows = used(conv.height), let columns = used(conv.width), rows.count == columns.count,
              rows.count < conv.height.kernel || columns.count < conv.width.kernel,
              let height = trimmed(conv.height, rows), let width = trimmed(conv.width, columns) else { return nil }
        let cut = Conv(dataInputs: conv.dataInputs, outputShapes: conv.outputShapes, batch: conv.batch,
                       inputChannels: conv.inputChannels, outputChannels: conv.outputChannels, group: conv.group,
                       depth: conv.depth, height: height, width: width, hasBias: conv.hasBias)
        return (cut, rows, columns)
    }

    /// The weights ([Cout, Cin/group, kH, kW] at `weights`) of the taps `rows` × `columns`.
    static func windowWeights(_ weights: UnsafePointer<Float>, _ conv: Conv, rows: Swift.Range<Int>, columns: Swift.Range<Int>) -> [Float] {
        let filters = conv.outputChannels * (conv.inputChannels / conv.group)
        let (kH, kW) = (conv.height.kernel, conv.width.kernel)
        var cut: [Float] = []
        cut.reserveCapacity(filters * rows.count * columns.count)
        for f in 0..<filters {
            for ky in rows {
                for kx in columns { cut.append(weights[(f * kH + ky) * kW + kx]) }
            }
        }
        return cut
    }

    /// Whether a depthwise convolution (`kind(of:)` is `.depthwise`) runs vectorised over channels
    /// (`SmallMapDepthwiseStep`): output rows of at most `smallMapDepthwiseWidth` columns, which
    /// leave lanes of the pixel-vectorised kernel's vectors idle (and with AVX-512, whose row
    /// tiles reuse each tap's weights over 8 outputs, rows up to a vector and a half:
    /// EfficientNet-B2's 17×17 and B3's 19×19 stages), and an input small
    /// enough that a block of its channels fits a thread's scratch (512 KiB: a stride-2 layer's
    /// square input of up to 35 × 35). Rows of exactly a 16-lane vector fill the pixel kernel's lanes:
    /// there the row tiles are taken only at stride 1 with windows of 5 or more, where reusing
    /// each tap's weights outweighs gathering the input (3x3 and stride 2 measured faster on
    /// the pixel kernel, 5x5 and 7x7 at stride 1 slower). It reads its input in any layout, so
    /// no producer writes that input zero-bordered for it.
    static func runsOnSmallMap(depthwise conv: Conv) -> Bool {
        let width = conv.width.output
        guard width <= smallMapDepthwiseWidth else { return false }
        if width == 16 && (conv.width.stride > 1 || max(conv.height.kernel, conv.width.kernel) < 5) { return false }
        return smallMapDepthwiseScratch(inputWidth: conv.width.input, inputHeight: conv.height.input,
                                        outputWidth: conv.width.output, outputHeight: conv.height.output).perThread <= 1 << 17
    }

    /// Whether a depthwise convolution whose output only a Transpose to NHWC reads runs vectorised
    /// over channels, writing that Transpose's output (`FusionRules.channelsLastOutput`): also on
    /// rows of up to 32 with the wide register file (two vectors of the pixel kernel's rows; the
    /// Transpose, and the planar kernel's move to planes, cost more than the gather), within
    /// 2^17 floats of thread scratch.
    static func runsOnSmallMapChannelsLast(depthwise conv: Conv) -> Bool {
        runsOnSmallMap(depthwise: conv)
            || (smallMapTilesSpanRows && conv.width.output <= 32
                && smallMapDepthwiseScratch(inputWidth: conv.width.input, inputHeight: conv.height.input,
                                            outputWidth: conv.width.output, outputHeight: conv.height.output).perThread <= 1 << 17)
    }

    /// The widest output rows a depthwise convolution runs vectorised over channels.
    static var smallMapDepthwiseWidth: Int { smallMapDepthwiseWidestRows }

    /// Whether a dense convolution (`kind(of:)` is `.dense`) runs vectorised over output channels
    /// (`SmallMapConvolutionStep`: tiles of up to 12 consecutive pixels of the map, across row
    /// ends, the last of 4, 8 or 12, × 32 channels) rather than over pixels
    /// (`DenseConvolutionStep`: 8 channels × 32 or 16 pixels of a row): when its tiles fill at
    /// least a tenth more of their lanes, by more than the spread of its products to the planes
    /// costs (`spreadTerms`). Rows of 8 or fewer leave the pixel vectors half idle or
    /// worse (ResNet's last stages on small inputs), and so do rows just past a vector
    /// (SqueezeNet's rows of 17).
    static func runsOverChannels(dense conv: Conv) -> Bool {
        if runsOnlyOverChannels(dense: conv) { return true }
        let width = conv.width.output, pixels = width * conv.height.output, perGroup = conv.outputChannels / conv.group
        // Paired groups fill a panel with two of them.
        let panelColumns = pairsGroups(conv) ? conv.outputChannels : perGroup
        func filled(_ used: Int, of tiles: Int) -> Double { Double(used) / Double(max(tiles, 1)) }
        let overPixels = filled(width, of: width / 32 * 32 + (width % 32 + 15) / 16 * 16)
            * filled(perGroup, of: (perGroup + 7) / 8 * 8)
        // Rows of at most a vector not a multiple of 4 wide: the tiles run on across row ends
        // (`SmallMapConvolutionParts.rowTiles`). Wider rows are judged by the tiles of one row
        // (what the choice was measured with there).
        let tiled = smallMapTilesSpanRows && width <= 16 && width % 4 != 0 ? pixels : width
        let overChannels = filled(tiled, of: tiled / packedRows * packedRows + (tiled % packedRows + 3) / 4 * 4)
            * filled(panelColumns, of: (panelColumns + 31) / 32 * 32)
        let terms = Double(conv.inputChannels / conv.group * conv.height.kernel * conv.width.kernel)
        return overChannels >= overPixels + 0.1 && terms / overChannels + Self.spreadTerms(conv) <= terms / overPixels
    }

    /// Whether a grouped dense convolution runs on the small-map kernel with two groups to a
    /// weight panel: groups of ``pairedGroupWidth`` output channels (RegNet-X's 16 with
    /// AVX-512), which alone would leave half of each 32-channel panel idle.
    static func pairsGroups(_ conv: Conv) -> Bool {
        Kernels.pairsGroups && conv.group > 1 && conv.outputChannels == conv.group * pairedGroupWidth
    }

    /// The cost of spreading a small-map convolution's products to the planes (a transpose of
    /// every output), in terms of each output's sum: 3x3 stems of 27 terms on rows of 40 or 28
    /// measured faster over pixels, 72 terms broke even, 144 ran 13 % faster over channels (a 7x7
    /// stem of 147 on rows of 56: 25 %). Paired groups (``pairsGroups(_:)``) cost more: their 3x3s
    /// of 144 terms on rows of 56, 28 and 14 (7/8 of the pixel tiles' lanes) ran 1-25 % faster
    /// over pixels (RegNet's and ResNeXt's 16-channel groups), so they take channels only for a
    /// larger gain in lanes.
    static func spreadTerms(_ conv: Conv) -> Double { pairsGroups(conv) ? 30 : 14 }

    /// Maps of fewer pixels than this may run an ungrouped 1x1 convolution as the packed GEMM
    /// (`SmallMapPointwiseStep`, `runsAsMatrixProduct`).
    static var smallestPointwiseMap: Int { 64 }

    /// Whether an ungrouped 1x1 of `weights` floats on a map of `pixels` runs as the GEMM over
    /// output channels:
    /// - below `smallestPointwiseMap` pixels, when the GEMM's rows of pixels (4-row tiles below
    ///   `packedProductFrom`, else 12-row panels) fill at least a tenth more of their lanes than
    ///   the 1x1 kernel's 16-pixel vectors do. At 16 pixels (a 4x4 map) the 1x1 kernel fills every
    ///   lane, and measured faster (SqueezeNet's 4x4 classifier, 206 against 259 µs); at 9 pixels
    ///   (3x3) the GEMM fills 75% of its lanes against 56% and took 33 against 75 µs (MNASNet);
    /// - up to `streamedPointwiseMap` pixels when the weights outgrow a core's L2
    ///   (`largePointwiseWeights`): the 1x1 kernel reads every weight once per 48-pixel chunk,
    ///   the GEMM once.
    static func runsAsMatrixProduct(pixels: Int, weights: Int) -> Bool {
        if pixels >= smallestPointwiseMap {
            return pixels <= streamedPointwiseMap && weights >= largePointwiseWeights
        }
        let rows = pixels < packedProductFrom ? 4 : packedRows
        let matrix = Double(pixels) / Double((pixels + rows - 1) / rows * rows)
        let vectors = Double(pixels) / Double((pixels + 15) / 16 * 16)
        return matrix >= vectors + 0.1
    }

    /// Pixels up to which a 1x1 of `largePointwiseWeights` or more runs as the GEMM.
    static var streamedPointwiseMap: Int { 256 }

    /// Floats of 1x1 weights (2 MiB) from which the GEMM's single pass over them pays on maps
    /// of a few 48-pixel chunks.
    static var largePointwiseWeights: Int { 1 << 19 }

    /// A depthwise filter whose non-zero taps all lie on every `step`-th row and column (a dilated
    /// filter written out with zeros, as tf2onnx writes a SpaceToBatchND convolution), as the
    /// smaller filter of those taps, to run with `step` times the dilation. The sums are the same
    /// for finite inputs: a skipped tap adds 0 · x to a chain of fused multiply-adds in the same
    /// order (only the sign of a zero sum can differ).
    static func compactLattice(_ weights: [Float], channels: Int, kernelSize k: Int) -> (weights: [Float], kernelSize: Int, step: Int) {
        guard k > 2 else { return (weights, k, 1) }
        for step in stride(from: k - 1, through: 2, by: -1) where (k - 1) % step == 0 {
            let onLattice = (0..<channels).allSatisfy { c in
                (0..<k * k).allSatisfy { t in weights[c * k * k + t] == 0 || (t / k % step == 0 && t % k % step == 0) }
            }
            guard onLattice else { continue }
            let size = (k - 1) / step + 1
            var taps: [Float] = []
            taps.reserveCapacity(channels * size * size)
            for c in 0..<channels {
                for ky in 0..<size {
                    for kx in 0..<size { taps.append(weights[c * k * k + ky * step * k + kx * step]) }
                }
            }
            return (taps, size, step)
        }
        return (weights, k, 1)
    }
}

extension StepBuilder {
    /// The step of a convolution: `conv` read from `input` (the value `inputValue`, when the
    /// plan knows it), with weights and bias from their buffers, writing `output` or, when fused
    /// (`output` nil), what `fusion` says.
    func convolutionStep(_ conv: Conv, kind: ConvolutionKind, input: UnsafePointer<Float>, inputValue: Int?,
                         weights weightBuffer: UnsafePointer<Float>, bias biasBuffer: UnsafePointer<Float>?,
                         output arenaOutput: UnsafeMutablePointer<Float>?, fusion: ConvolutionFusion?) -> any Step {
        precondition((arenaOutput == nil) != (fusion == nil), "a convolution step writes its output or its fusion's target")
        let written = conv
        let window = StepBuilder.inputWindow(of: conv)
        let conv = window?.conv ?? conv
        let h = conv.height, w = conv.width
        let k = h.kernel, stride = h.stride
        let cin = conv.inputChannels, cout = conv.outputChannels
        // The weights cut to the window and folded with the epilogue, for the packing below.
        let folded = { () -> (weights: [Float], bias: [Float]?) in
            let weights = window.map { StepBuilder.windowWeights(weightBuffer, written, rows: $0.rows, columns: $0.columns) }
                ?? Array(UnsafeBufferPointer(start: weightBuffer, count: cout * (cin / conv.group) * k * w.kernel))
            let bias = biasBuffer.map { Array(UnsafeBufferPointer(start: $0, count: cout)) }
            return fusion?.epilogue.folded(weights: weights, bias: bias, outputChannels: cout) ?? (weights, bias)
        }
        let input = StepBuilder.denseMap(input, channels: cin, height: h.input, width: w.input)
        let activation = fusion?.epilogue.activation ?? .none
        let output = fusion.map { outputMap($0.target, channels: cout, height: h.output, width: w.output) }
            ?? StepBuilder.denseMap(arenaOutput!, channels: cout, height: h.output, width: w.output)
        let denseResidual = fusion?.residual.map { StepBuilder.denseMap(pointer($0), channels: cout, height: h.output, width: w.output) }
        let rectifiesSum = fusion?.rectifiesSum ?? false
        /// A 1x1 of one group over `input` (the output's size).
        func pointwiseStep(_ input: FeatureMap) -> any Step {
            guard StepBuilder.runsAsMatrixProduct(pixels: h.output * w.output, weights: cin * cout) else {
                let weights = packed {
                    let (weights, bias) = folded()
                    return PointwiseWeights(weights: weights, bias: bias, outputChannels: cout, inputChannels: cin)
                }
                return PointwiseStep(input: input, output: output, activation: activation, residual: denseResidual,
                                     rectifiesSum: rectifiesSum, pool: pool, weights: weights)
            }
            // On maps of fewer pixels than a few vectors the 1x1's pixel tiles are mostly partial:
            // the packed GEMM, vectorised over output channels, runs it, with the same fusions.
            let weights = packed {
                let (weights, bias) = folded()
                var columns = [Float](repeating: 0, count: cin * cout)
                for o in 0..<cout {
                    for i in 0..<cin { columns[i * cout + o] = weights[o * cin + i] }
                }
                return MatrixWeights(values: columns, bias: bias, inner: cin, columns: cout)
            }
            return SmallMapPointwiseStep(input: input, output: output, activation: activation, residual: denseResidual,
                                         rectifiesSum: rectifiesSum, weights: weights, pool: pool)
        }
        switch kind {
        case .pointwise(groups: 1):
            return pointwiseStep(input)
        case .subsampledPointwise(let stride):
            let subsampled = FeatureMapStorage(channels: cin, layout: .dense(width: w.output, height: h.output))
            return SubsampledStep(input: input, stride: stride, subsampled: subsampled, then: pointwiseStep(subsampled.map))
        case .pointwise(let groups):
            let (gin, gout) = (cin / groups, cout / groups)
            let parts = packed {
                let (weights, bias) = folded()
                return (0..<groups).map { g in
                    PointwiseWeights(weights: Array(weights[g * gout * gin ..< (g + 1) * gout * gin]),
                                     bias: bias.map { Array($0[g * gout ..< (g + 1) * gout]) }, outputChannels: gout, inputChannels: gin)
                }
            }
            return GroupedPointwiseStep(input: input, output: output, activation: activation, residual: denseResidual,
                                        rectifiesSum: rectifiesSum, groups: parts, pool: pool)
        case .depthwise(let pad), .dense(let pad):
            if case .depthwise = kind, StepBuilder.runsOnSmallMap(depthwise: conv) || fusion?.channelsLast == true {
                // Rows of few columns: vectorised over channels, reading the input where it is.
                let map = inputValue.flatMap(paddedMap) ?? input
                let weights = packed {
                    let (weights, bias) = folded()
                    let lattice = StepBuilder.compactLattice(weights, channels: cin, kernelSize: k)
                    return (ChannelLaneDepthwiseWeights(weights: lattice.weights, bias: bias, channels: cin,
                                                        kernelSize: lattice.kernelSize), lattice.step)
                }
                let residual = fusion?.residual != nil && fusion?.residual == inputValue ? map : denseResidual
                return SmallMapDepthwiseStep(input: map, output: output, activation: activation, residual: residual,
                                             pool: pool, weights: weights.0, stride: stride,
                                             dilation: h.dilation * weights.1, padTop: h.padBegin, padLeft: w.padBegin,
                                             channelsLast: fusion?.channelsLast == true ? pointer(fusion!.target) : nil)
            }
            // Reads its input where it lies: before the zero-bordered copy below.
            if case .dense = kind, conv.group == 1, k == 3, w.kernel == 3, stride == 1, h.dilation > 1, denseResidual == nil,
               fusion?.channelsLast != true,
               h.padBegin == h.dilation, w.padBegin == w.dilation, h.output == h.input, w.output == w.input,
               dilatedWinogradFits(inputChannels: cin, outputChannels: cout, width: w.input, height: h.input, dilation: h.dilation) {
                let weights = packed {
                    let (weights, bias) = folded()
                    return WinogradWeights(weights: weights, bias: bias, outputChannels: cout, inputChannels: cin)
                }
                return DilatedWinogradConvolutionStep(input: inputValue.flatMap(paddedMap) ?? input, output: output,
                                                      activation: activation, pool: pool,
                                                      weights: weights, dilation: h.dilation)
            }
            let source = inputValue.flatMap(paddedMap).map(PaddedInput.written)
                ?? .copy(of: input, layout: .padded(width: w.input, height: h.input, pad: pad))
            // Before the kernel choices below: the fusion's Transpose is written by this kernel only.
            if case .dense = kind, fusion?.channelsLast == true {
                precondition(conv.group == 1 && activation == .none && denseResidual == nil, "channels-last sums of one group")
                let weights = packed {
                    let (weights, bias) = folded()
                    let size = cin * k * w.kernel
                    var columns = [Float](repeating: 0, count: size * cout)
                    for m in 0..<cout {
                        for i in 0..<size { columns[i * cout + m] = weights[m * size + i] }
                    }
                    return MatrixWeights(values: columns, bias: bias, inner: size, columns: cout)
                }
                return SmallMapConvolutionStep(source: source, output: output, activation: .none, pool: pool,
                                               groups: [weights], kernelHeight: k, kernelWidth: w.kernel, stride: stride,
                                               dilation: h.dilation, padTop: h.padBegin, padLeft: w.padBegin,
                                               channelsLast: pointer(fusion!.target))
            }
            if case .dense = kind, conv.group == 1, k == 3, w.kernel == 3, stride == 1, h.dilation == 1,
               winogradFits(inputChannels: cin, outputChannels: cout, outputWidth: w.output, outputHeight: h.output) {
                let weights = packed {
                    let (weights, bias) = folded()
                    return WinogradWeights(weights: weights, bias: bias, outputChannels: cout, inputChannels: cin)
                }
                return WinogradConvolutionStep(source: source, output: output, activation: activation, residual: denseResidual,
                                               rectifiesSum: rectifiesSum, pool: pool, weights: weights,
                                               padTop: h.padBegin, padLeft: w.padBegin)
            }
            if case .dense = kind, StepBuilder.runsOverChannels(dense: conv) {
                let paired = StepBuilder.pairsGroups(conv)
                // One matrix per group, or one for all when the groups pair up (output channel o's
                // filter in column o: two groups to a panel).
                let (matrices, size) = (paired ? 1 : conv.group, (cin / conv.group) * k * w.kernel)
                let gout = cout / matrices
                let groups = packed {
                    let (weights, bias) = folded()
                    return (0..<matrices).map { g in
                        var columns = [Float](repeating: 0, count: size * gout)
                        for m in 0..<gout {
                            for i in 0..<size { columns[i * gout + m] = weights[(g * gout + m) * size + i] }
                        }
                        return MatrixWeights(values: columns, bias: bias.map { Array($0[g * gout ..< (g + 1) * gout]) },
                                             inner: size, columns: gout)
                    }
                }
                return SmallMapConvolutionStep(source: source, output: output, activation: activation,
                                               residual: denseResidual, rectifiesSum: rectifiesSum, pool: pool,
                                               groups: groups, pairedGroups: paired ? conv.group : 1, kernelHeight: k,
                                               kernelWidth: w.kernel,
                                               stride: stride, dilation: h.dilation, padTop: h.padBegin, padLeft: w.padBegin)
            }
            precondition(k == w.kernel, "a window of unequal sides runs only over output channels (kind(of:))")
            if case .dense = kind {
                let (gin, gout, size) = (cin / conv.group, cout / conv.group, (cin / conv.group) * k * k)
                let groups = packed {
                    let (weights, bias) = folded()
                    return (0..<conv.group).map { g in
                        ConvolutionWeights(weights: Array(weights[g * gout * size ..< (g + 1) * gout * size]),
                                           bias: bias.map { Array($0[g * gout ..< (g + 1) * gout]) },
                                           outputChannels: gout, inputChannels: gin, kernelSize: k)
                    }
                }
                return DenseConvolutionStep(
                    source: source, output: output, activation: activation, residual: denseResidual, rectifiesSum: rectifiesSum,
                    pool: pool, groups: groups, stride: stride, dilation: h.dilation, padTop: h.padBegin, padLeft: w.padBegin)
            }
            // `r + act(dw(r))` reads r from the zero-bordered map the convolution reads anyway.
            let residualIsInput = fusion?.residual != nil && fusion?.residual == inputValue
            let (weights, latticeStep) = packed {
                let (weights, bias) = folded()
                let lattice = StepBuilder.compactLattice(weights, channels: cin, kernelSize: k)
                return (DepthwiseWeights(weights: lattice.weights, bias: bias, channels: cin, kernelSize: lattice.kernelSize),
                        lattice.step)
            }
            return DepthwiseStep(source: source, output: output, activation: activation,
                                 residual: residualIsInput ? nil : denseResidual, residualIsInput: residualIsInput,
                                 pool: pool, weights: weights,
                                 stride: stride, dilation: h.dilation * latticeStep, padTop: h.padBegin, padLeft: w.padBegin)
        }
    }
}

extension StepBuilder {
    /// A 2-D convolution no direct kernel takes (grouped at a stride above 2, windows above 11,
    /// strides above 4, borders above 8, unequal axes), batch 1: per group, every output pixel's window gathered into a row
    /// of a patch matrix, one GEMM with the weights, and the pixel-major result spread to planes.
    func patchConvolutionStep(_ conv: Conv, _ inputs: [UnsafePointer<Float>],
                              _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        // The window cut to the taps that read the input, as the direct kernels run it.
        let window = conv.depth == .unit ? StepBuilder.inputWindow(of: conv) : nil
        let written = conv
        let conv = window?.conv ?? conv
        let h = conv.height, w = conv.width
        let (cin, cout, groups) = (conv.inputChannels, conv.outputChannels, conv.group)
        let (gin, gout) = (cin / groups, cout / groups)
        let patch = gin * h.kernel * w.kernel, pixels = h.output * w.output
        guard conv.batch == 1, conv.depth == .unit, pixels > 0, patch > 0, pixels * patch <= 1 << 24 else { return nil }
        let weights = packed {
            let cutWeights = window.map { StepBuilder.windowWeights(inputs[1], written, rows: $0.rows, columns: $0.columns) }
            return (0..<groups).map { g in
                var values = [Float](repeating: 0, count: patch * gout)
                for m in 0..<gout {
                    for k in 0..<patch {
                        let index = ((g * gout) + m) * patch + k
                        values[k * gout + m] = cutWeights?[index] ?? inputs[1][index]
                    }
                }
                return MatrixWeights(values: values, bias: conv.hasBias ? (0..<gout).map { inputs[2][g * gout + $0] } : nil,
                                     inner: patch, columns: gout)
            }
        }
        // Per patch column (channel, ky, kx) and output row or column: the input row or column, or −1 (padding).
        let rows = (0..<h.output).map { oy in (0..<h.kernel).map { ky in
            let y = oy * h.stride - h.padBegin + ky * h.dilation
            return y >= 0 && y < h.input ? y : -1
        } }
        let columns = (0..<w.output).map { ox in (0..<w.kernel).map { kx in
            let x = ox * w.stride - w.padBegin + kx * w.dilation
            return x >= 0 && x < w.input ? x : -1
        } }
        return PatchConvolutionStep(input: inputs[0], output: outputs[0], weights: weights,
                                    geometry: PatchGeometry(inputChannels: gin, inputHeight: h.input, inputWidth: w.input,
                                                            rows: rows, columns: columns),
                                    pool: pool)
    }
}

