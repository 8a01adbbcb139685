import TargetFeatures

/// Depthwise weights with the channels in the lanes: tap `t`'s weights of channels `c ..< c + 16`
/// are one vector at `t · paddedChannels + c` (channels rounded up to 16, zero past the last, and a
/// block of zeros after the last tap), the bias likewise.
package final class ChannelLaneDepthwiseWeights {
    package let channels: Int
    package let kernelSize: Int
    /// `channels` rounded up to a multiple of 16.
    package let paddedChannels: Int
    let weights: FloatBuffer
    let bias: FloatBuffer

    /// `weights` as ONNX's [C, 1, K, K] (row-major), `bias` C values or zero when nil.
    package init(weights: [Float], bias: [Float]?, channels: Int, kernelSize: Int) {
        precondition(channels > 0 && kernelSize > 0, "empty depthwise convolution")
        precondition(weights.count == channels * kernelSize * kernelSize, "depthwise weights: expected \(channels)x\(kernelSize)x\(kernelSize)")
        precondition(bias == nil || bias!.count == channels, "depthwise bias: expected \(channels)")
        self.channels = channels
        self.kernelSize = kernelSize
        let padded = (channels + lanes - 1) / lanes * lanes
        paddedChannels = padded
        let taps = kernelSize * kernelSize
        // A block of zeros past the last tap and bias: the kernel reads whole blocks of 64.
        var lanesFirst = [Float](repeating: 0, count: taps * padded + smallMapDepthwiseBlock)
        for c in 0..<channels {
            for t in 0..<taps { lanesFirst[t * padded + c] = weights[c * taps + t] }
        }
        self.weights = FloatBuffer(lanesFirst)
        var b = [Float](repeating: 0, count: padded + smallMapDepthwiseBlock)
        if let bias { b.replaceSubrange(0..<channels, with: bias) }
        self.bias = FloatBuffer(b)
    }
}

/// Channels a block of ``smallMapDepthwise(_:weights:stride:dilation:padTop:padLeft:activation:residual:output:pool:)``
/// gathers and computes at a time: four vectors, four independent multiply-add chains per pixel.
let smallMapDepthwiseBlock = 4 * lanes

/// Pool scratch ``smallMapDepthwise(_:weights:stride:dilation:padTop:padLeft:activation:residual:output:pool:)``
/// uses: one block of channels of the input and of the output, pixel-major, in each thread's
/// scratch.
package func smallMapDepthwiseScratch(inputWidth: Int, inputHeight: Int, outputWidth: Int, outputHeight: Int) -> ScratchSize {
    ScratchSize(perThread: (smallMapGatheredRows(inputWidth: inputWidth, inputHeight: inputHeight)
                            + smallMapStagedRows(outputWidth * outputHeight)) * smallMapDepthwiseBlock)
}

/// Pixel rows of a block's gathered input: the staged rows of its pixels, or a zero-bordered
/// grid of up to 3 columns and rows beyond each side (``SmallMapDepthwiseGrid``) and the slack
/// its last row tile reads past it, whichever is more.
func smallMapGatheredRows(inputWidth: Int, inputHeight: Int) -> Int {
    max(smallMapStagedRows(inputWidth * inputHeight),
        (inputHeight + 2 * SmallMapDepthwiseGrid.largestBorder) * (inputWidth + 2 * SmallMapDepthwiseGrid.largestBorder)
            + SmallMapDepthwiseGrid.slack)
}

/// Where a block's input is gathered for the row tiles of ``smallMapDepthwiseRows(_:_:grid:staged:gathered:_:)``:
/// a grid `width` × `height` pixels (64 channels each) with the input's pixel (0, 0) at (`top`,
/// `left`) and zeros around it, so that every tap of every output reads the grid. Taken for
/// dilation 1, strides 1 and 2, output rows of 5 or more (fewer leave most of a tile's 8 rows
/// idle), and windows that reach at most ``largestBorder`` past each side.
struct SmallMapDepthwiseGrid {
    /// The widest border the gathered scratch has room for (a 7x7's 3).
    static let largestBorder = 3
    /// Pixels a row tile reads past the grid's last: its 8 outputs at stride 2 past the last output.
    static let slack = 8 * 2 + 1
    let top: Int, left: Int, width: Int, height: Int

    init?(_ input: PlaneLayout, _ output: PlaneLayout, kernelSize k: Int, stride: Int, dilation: Int, padTop: Int, padLeft: Int) {
        guard wideRegisterFile, dilation == 1, stride <= 2, output.width >= 5 else { return nil }
        top = padTop
        left = padLeft
        height = max(input.height + padTop, (output.height - 1) * stride + k)
        width = max(input.width + padLeft, (output.width - 1) * stride + k)
        let border = Self.largestBorder
        guard padTop <= border, padLeft <= border, height <= input.height + 2 * border, width <= input.width + 2 * border else {
            return nil
        }
    }
}

/// The widest output rows the fast path gives ``smallMapDepthwise(_:weights:stride:dilation:padTop:padLeft:activation:residual:output:pool:)``:
/// 24 with AVX-512 (row tiles, ``SmallMapDepthwiseGrid``; rows of 17 to 24 fill a half to three
/// quarters of the pixel-vectorised kernel's two vectors), else 8 (half a vector of the
/// pixel-vectorised kernel or less).
package var smallMapDepthwiseWidestRows: Int { wideRegisterFile ? 24 : 8 }

/// Pixel rows of a block's gathered input or staged output: whole squares of 16.
func smallMapStagedRows(_ pixels: Int) -> Int { (pixels + lanes - 1) / lanes * lanes }

/// Depthwise K×K convolution on a small map, vectorised over channels instead of pixels (whose
/// rows fill few lanes of a vector there): `output[c] = act(bias[c] + Σ w[c]·window) + residual[c]`,
/// any window, stride, dilation and pads.
///
/// Per block of 64 channels, the block's input planes are gathered pixel-major (16 channels of a
/// pixel one vector; dense planes by 16 × 16 transposes in registers) into the thread's scratch;
/// each output pixel is then the bias plus one multiply-add per tap that reads an input pixel, in
/// (ky, kx) order, 16 channels per vector (four chains), activated, staged pixel-major, and moved
/// to its planes plus its residual (by transposes again where those are dense). Taps in the padding are
/// skipped: they add w·0 in the kernels that read a zero border, so each output is the same value
/// (only the sign of a zero sum can differ). Where ``SmallMapDepthwiseGrid`` fits (AVX-512, dilation
/// 1, strides 1 and 2, rows of 5 or more) the block is gathered into a zero-bordered grid instead
/// and computed by row tiles of 8 outputs × 32 channels, each tap's weights loaded once per tile
/// (``smallMapDepthwiseRows(_:_:grid:staged:gathered:_:)``); its taps in the border add w·0.
/// Channels are split between threads in blocks of 16.
///
/// The input and output may be any layouts (the padding is never read). A block writes its output
/// planes only after it read its input planes, so the output may be the input itself (the same
/// planes), as the fast path's buffer plan allows for a convolution whose output has its input's
/// shape.
///
/// - Precondition: `input`, `output` and `residual` have `weights.channels` channels; `output`
///   and `residual` the output size; the pool holds
///   ``smallMapDepthwiseScratch(inputWidth:inputHeight:outputWidth:outputHeight:)``.
package func smallMapDepthwise(
    _ input: FeatureMap, weights: ChannelLaneDepthwiseWeights, stride: Int, dilation: Int = 1, padTop: Int, padLeft: Int,
    activation: Activation, residual: FeatureMap? = nil, output: FeatureMap, pool: WorkerPool
) {
    precondition(input.channels == weights.channels && output.channels == weights.channels, "small-map depthwise channel mismatch")
    precondition(stride >= 1 && dilation >= 1 && padTop >= 0 && padLeft >= 0, "small-map depthwise: bad window")
    precondition(pool.holds(smallMapDepthwiseScratch(inputWidth: input.layout.width, inputHeight: input.layout.height,
                                                     outputWidth: output.layout.width, outputHeight: output.layout.height)),
                 "small-map depthwise on \(input.layout.width)x\(input.layout.height): pool scratch too small")
    if let residual {
        precondition(residual.channels == output.channels && residual.layout.width == output.layout.width
                     && residual.layout.height == output.layout.height, "small-map depthwise residual shape mismatch")
    }
    pool.run(SmallMapDepthwiseParts(input: input, weights: weights, stride: stride, dilation: dilation, padTop: padTop,
                                    padLeft: padLeft, activation: activation, residual: residual, output: output))
}

/// ``smallMapDepthwise(_:weights:stride:dilation:padTop:padLeft:activation:residual:output:pool:)``
/// (no residual) writing its output pixel-major, in NHWC: output pixel (y, x)'s channel c at
/// `output[(y · outputWidth + x) · C + c]`, each the same value, stored from the registers that
/// computed it instead of staged and moved to planes.
///
/// - Precondition: as the planar kernel's, for an output of `outputHeight` × `outputWidth`
///   pixels; `output` holds their `pixels × C` floats and overlaps neither `input` nor the pool's
///   scratch.
package func smallMapDepthwiseChannelsLast(
    _ input: FeatureMap, weights: ChannelLaneDepthwiseWeights, stride: Int, dilation: Int = 1, padTop: Int, padLeft: Int,
    activation: Activation, outputHeight: Int, outputWidth: Int, output: UnsafeMutablePointer<Float>, pool: WorkerPool
) {
    precondition(input.channels == weights.channels, "small-map depthwise channel mismatch")
    precondition(stride >= 1 && dilation >= 1 && padTop >= 0 && padLeft >= 0, "small-map depthwise: bad window")
    precondition(pool.holds(smallMapDepthwiseScratch(inputWidth: input.layout.width, inputHeight: input.layout.height,
                                                     outputWidth: outputWidth, outputHeight: outputHeight)),
                 "small-map depthwise on \(input.layout.width)x\(input.layout.height): pool scratch too small")
    let planes = FeatureMap(base: output, channels: weights.channels, layout: .dense(width: outputWidth, height: outputHeight))
    pool.run(SmallMapDepthwiseParts(input: input, weights: weights, stride: stride, dilation: dilation, padTop: padTop,
                                    padLeft: padLeft, activation: activation, residual: nil, output: planes,
                                    channelsLast: output))
}

struct SmallMapDepthwiseParts: PoolJob {
    let input: FeatureMap, weights: ChannelLaneDepthwiseWeights, stride: Int, dilation: Int, padTop: Int, padLeft: Int
    let activation: Activation, residual: FeatureMap?, output: FeatureMap
    /// Where the output goes pixel-major (NHWC) instead of to `output`'s planes (which then only
    /// gives the size).
    var channelsLast: UnsafeMutablePointer<Float>? = nil
    /// Where the input is instead, pixel-major and not yet activated (the products of the small-map
    /// 1x1 before it, ``smallMapPointwiseThenDepthwise(_:pointwise:pointwiseActivation:depthwise:stride:dilation:padTop:padLeft:activation:residual:output:projection:pool:)``);
    /// `input` then only gives the size.
    var pixelMajor: PixelMajorInput? = nil

    /// Where a block's outputs go: staged pixel-major (`block` floats a pixel) to be moved to the
    /// planes, or straight to the channels-last output (channels floats a pixel).
    func destination(staged: UnsafeMutablePointer<Float>, channel c0: Int) -> (base: UnsafeMutablePointer<Float>, pixel: Int) {
        channelsLast.map { ($0 + c0, weights.channels) } ?? (staged, smallMapDepthwiseBlock)
    }
    func run(part: Int, pool: WorkerPool) {
        let channels = WorkerPool.range(weights.channels, part: part, of: pool.threadCount, granularity: lanes)
        guard !channels.isEmpty else { return }
        let scratch = pool.scratch(part).baseAddress!
        switch activation {
        case .none: smallMapDepthwiseChannels(self, channels, scratch, Identity.self)
        case .relu: smallMapDepthwiseChannels(self, channels, scratch, ReLU.self)
        case .relu6: smallMapDepthwiseChannels(self, channels, scratch, ReLU6.self)
        case .hardSwish: smallMapDepthwiseChannels(self, channels, scratch, HardSwish.self)
        case .sigmoid: smallMapDepthwiseChannels(self, channels, scratch, Sigmoid.self)
        case .silu: smallMapDepthwiseChannels(self, channels, scratch, SiLU.self)
        }
    }
}

/// One output pixel's window: the taps (ky, kx) that read an input pixel are `rows` × `columns`.
struct PixelWindow {
    var rows: Range<Int>, columns: Range<Int>

    /// The taps `0 ..< k` of output `o` (stride `s`, dilation `d`, `pad` before) that land in `0 ..< size`.
    @inline(always)
    static func taps(_ o: Int, size: Int, k: Int, s: Int, d: Int, pad: Int) -> Range<Int> {
        let origin = o * s - pad
        // First tap with origin + t·d >= 0, last with origin + t·d <= size − 1.
        let first = origin >= 0 ? 0 : (-origin + d - 1) / d
        let last = origin > size - 1 ? -1 : min(k - 1, (size - 1 - origin) / d)
        return first <= last ? first..<(last + 1) : 0..<0
    }
}

@inline(never)
func smallMapDepthwiseChannels<A: ActivationFunction>(
    _ job: SmallMapDepthwiseParts, _ channels: Range<Int>, _ scratch: UnsafeMutablePointer<Float>, _: A.Type
) {
    let inL = job.input.layout, outL = job.output.layout
    let (inW, inH, outW, outH) = (inL.width, inL.height, outL.width, outL.height)
    let k = job.weights.kernelSize, padded = job.weights.paddedChannels
    let (s, d) = (job.stride, job.dilation)
    let block = smallMapDepthwiseBlock
    let gathered = scratch, staged = scratch + smallMapGatheredRows(inputWidth: inW, inputHeight: inH) * block
    if let grid = SmallMapDepthwiseGrid(inL, outL, kernelSize: k, stride: s, dilation: d, padTop: job.padTop, padLeft: job.padLeft) {
        smallMapDepthwiseRows(job, channels, grid: grid, staged: staged, gathered: gathered, A.self)
        return
    }
    var c0 = channels.lowerBound
    while c0 < channels.upperBound {
        let n = min(block, channels.upperBound - c0)
        if let source = job.pixelMajor {
            source.gather(channel: c0, count: n, vectors: block / lanes, width: inW, height: inH, rowStep: inW * block,
                          into: gathered)
        } else {
            gatherChannels(job.input, channel: c0, count: n, into: gathered)
        }
        let w = UnsafePointer(job.weights.weights.baseAddress) + c0
        let bias = UnsafePointer(job.weights.bias.baseAddress) + c0
        let (first, pixelStep) = job.destination(staged: staged, channel: c0)
        var out = first
        for yo in 0..<outH {
            let rows = PixelWindow.taps(yo, size: inH, k: k, s: s, d: d, pad: job.padTop)
            for xo in 0..<outW {
                let columns = PixelWindow.taps(xo, size: inW, k: k, s: s, d: d, pad: job.padLeft)
                // Four vectors whatever the block's channel count: lanes past it read zero weights
                // (the packed weights run a block past the last channel) and are never stored.
                var a0 = load(bias), a1 = load(bias + lanes), a2 = load(bias + 2 * lanes), a3 = load(bias + 3 * lanes)
                var inputRow = UnsafePointer(gathered)
                    + ((yo * s - job.padTop + rows.lowerBound * d) * inW + (xo * s - job.padLeft + columns.lowerBound * d)) * block
                var tapRow = w + (rows.lowerBound * k + columns.lowerBound) * padded
                for _ in rows {
                    var x = inputRow, t = tapRow
                    for _ in columns {
                        a0 = multiplyAdd(a0, load(t), load(x))
                        a1 = multiplyAdd(a1, load(t + lanes), load(x + lanes))
                        a2 = multiplyAdd(a2, load(t + 2 * lanes), load(x + 2 * lanes))
                        a3 = multiplyAdd(a3, load(t + 3 * lanes), load(x + 3 * lanes))
                        x += d * block
                        t += padded
                    }
                    inputRow += d * inW * block
                    tapRow += k * padded
                }
                if job.channelsLast == nil {
                    store(A.apply(a0), out); store(A.apply(a1), out + lanes)
                    store(A.apply(a2), out + 2 * lanes); store(A.apply(a3), out + 3 * lanes)
                } else {
                    storeChannels(A.apply(a0), out, count: n)
                    storeChannels(A.apply(a1), out + lanes, count: n - lanes)
                    storeChannels(A.apply(a2), out + 2 * lanes, count: n - 2 * lanes)
                    storeChannels(A.apply(a3), out + 3 * lanes, count: n - 3 * lanes)
                }
                out += pixelStep
            }
        }
        if job.channelsLast == nil {
            scatterChannels(staged, count: n, output: job.output, residual: job.residual, channel: c0)
        }
        c0 += block
    }
}

/// Channels `c0 ..< c0 + count` (at most a block) of a map in any layout, pixel-major into
/// `gathered` (pixel p's channel c0 + j at p·block + j): by 16 × 16 transposes where the planes
/// are dense (``gatherTransposed(_:channel:count:into:)``), else value by value.
@inline(always)
func gatherChannels(_ input: FeatureMap, channel c0: Int, count n: Int, into gathered: UnsafeMutablePointer<Float>) {
    if input.layout.isDense {
        gatherTransposed(input, channel: c0, count: n, into: gathered)
        return
    }
    let layout = input.layout, block = smallMapDepthwiseBlock
    for j in 0..<n {
        let plane = UnsafePointer(input.plane(c0 + j))
        var destination = gathered + j
        for y in 0..<layout.height {
            let row = plane + y * layout.rowStride
            for x in 0..<layout.width {
                destination.pointee = row[x]
                destination += block
            }
        }
    }
}

/// The staged outputs of channels `c0 ..< c0 + count` (pixel-major, as gathered) to their planes
/// of `output`, plus `residual`: by 16 × 16 transposes where both are dense
/// (``scatterTransposed(_:count:output:residual:channel:)``), else pixel by pixel.
@inline(always)
func scatterChannels(_ staged: UnsafeMutablePointer<Float>, count n: Int, output: FeatureMap, residual: FeatureMap?, channel c0: Int) {
    if output.layout.isDense && (residual?.layout.isDense ?? true) {
        scatterTransposed(staged, count: n, output: output, residual: residual, channel: c0)
        return
    }
    var values = staged
    for y in 0..<output.layout.height {
        for x in 0..<output.layout.width {
            scatterPixel(values, count: n, output: output, residual: residual, channel: c0, y: y, x: x)
            values += smallMapDepthwiseBlock
        }
    }
}

/// Channels `c0 ..< c0 + count` (at most a block) of a dense map, pixel-major into `gathered`
/// (pixel p's channel c0 + j at p·block + j) by 16 × 16 transposes in registers. Whole 16-pixel
/// vectors are loaded where they stay within the map (lanes past a plane's last pixel become
/// pixels past the last, never read), so pixel rows up to the next multiple of 16 are written;
/// lanes of channels past `count` hold copies of the last channel.
@inline(never)
func gatherTransposed(_ input: FeatureMap, channel c0: Int, count: Int, into gathered: UnsafeMutablePointer<Float>) {
    let pixels = input.pixels, plane = input.layout.planeStride
    let extent = input.channels * plane
    let first = UnsafePointer(input.plane(c0))
    var j0 = 0
    while j0 < count {
        let rows = min(lanes, count - j0)
        var p = 0
        while p < pixels {
            let m = min(lanes, pixels - p)
            let source = first + j0 * plane + p
            if m == lanes || (c0 + j0 + rows - 1) * plane + p + lanes <= extent {
                gatherSquare(source, plane: plane, last: rows - 1, gathered + p * smallMapDepthwiseBlock + j0)
            } else {
                for j in 0..<rows {
                    var destination = gathered + p * smallMapDepthwiseBlock + j0 + j
                    for x in 0..<m {
                        destination.pointee = source[j * plane + x]
                        destination += smallMapDepthwiseBlock
                    }
                }
            }
            p += lanes
        }
        j0 += lanes
    }
}

/// One 16 × 16 square of ``gatherTransposed(_:channel:count:into:)``: rows (planes) `0 ... last`
/// at `source`, `plane` floats apart (rows past `last` repeat it), stored as 16 pixel vectors
/// `block` floats apart.
@inline(always)
func gatherSquare(_ source: UnsafePointer<Float>, plane: Int, last: Int, _ destination: UnsafeMutablePointer<Float>) {
    let block = smallMapDepthwiseBlock
    var square = Square16()
        square.r0 = load(source + min(0, last) * plane)
        square.r1 = load(source + min(1, last) * plane)
        square.r2 = load(source + min(2, last) * plane)
        square.r3 = load(source + min(3, last) * plane)
        square.r4 = load(source + min(4, last) * plane)
        square.r5 = load(source + min(5, last) * plane)
        square.r6 = load(source + min(6, last) * plane)
        square.r7 = load(source + min(7, last) * plane)
        square.r8 = load(source + min(8, last) * plane)
        square.r9 = load(source + min(9, last) * plane)
        square.r10 = load(source + min(10, last) * plane)
        square.r11 = load(source + min(11, last) * plane)
        square.r12 = load(source + min(12, last) * plane)
        square.r13 = load(source + min(13, last) * plane)
        square.r14 = load(source + min(14, last) * plane)
        square.r15 = load(source + min(15, last) * plane)
    square.transpose()
        store(square.r0, destination + 0 * block)
        store(square.r1, destination + 1 * block)
        store(square.r2, destination + 2 * block)
        store(square.r3, destination + 3 * block)
        store(square.r4, destination + 4 * block)
        store(square.r5, destination + 5 * block)
        store(square.r6, destination + 6 * block)
        store(square.r7, destination + 7 * block)
        store(square.r8, destination + 8 * block)
        store(square.r9, destination + 9 * block)
        store(square.r10, destination + 10 * block)
        store(square.r11, destination + 11 * block)
        store(square.r12, destination + 12 * block)
        store(square.r13, destination + 13 * block)
        store(square.r14, destination + 14 * block)
        store(square.r15, destination + 15 * block)
}

/// Where the rows of a transposed square of staged outputs go: channel `row`'s 16 pixels at
/// `destination + row · plane`, plus its residual; whole vectors when `whole`, else `count` lanes.
struct PlaneRowSink {
    var destination: UnsafeMutablePointer<Float>, plane: Int
    var residual: UnsafePointer<Float>?, residualPlane: Int
    var count: Int, whole: Bool

    @inline(always) func put(_ v: Vector, row: Int) {
        var y = v
        if whole {
            if let residual { y += load(residual + row * residualPlane) }
            store(y, destination + row * plane)
        } else {
            if let residual { y += load(residual + row * residualPlane, count: count) }
            store(y, destination + row * plane, count: count)
        }
    }
}

/// The staged outputs of channels `c0 ..< c0 + count` (pixel-major, as gathered; pixel rows up to
/// the next multiple of 16 readable) to their dense planes, plus their dense residual, by 16 × 16
/// transposes. A plane's last, partial vector is stored whole when the planes it runs into are
/// this block's and stored after it (one 16-pixel vector per plane, no residual: the lanes past the
/// plane land on the next planes' first pixels, which their own rows then store), else lane by lane.
@inline(never)
func scatterTransposed(_ staged: UnsafeMutablePointer<Float>, count: Int, output: FeatureMap, residual residualMap: FeatureMap?,
                       channel c0: Int) {
    let pixels = output.pixels, plane = output.layout.planeStride
    let destination = output.plane(c0)
    let residual = residualMap.map { UnsafePointer($0.plane(c0)) }
    let residualPlane = residualMap?.layout.planeStride ?? 0
    var j0 = 0
    while j0 < count {
        let rows = min(lanes, count - j0)
        var p = 0
        while p < pixels {
            let m = min(lanes, pixels - p)
            let whole = m == lanes || (residual == nil && pixels <= lanes && (j0 + rows - 1) * plane + lanes <= count * plane)
            let sink = PlaneRowSink(destination: destination + j0 * plane + p, plane: plane,
                                    residual: residual.map { $0 + j0 * residualPlane + p }, residualPlane: residualPlane,
                                    count: m, whole: whole)
            scatterSquare(staged + p * smallMapDepthwiseBlock + j0, rows: rows, sink)
            p += lanes
        }
        j0 += lanes
    }
}

@inline(always)
func scatterSquare(_ source: UnsafePointer<Float>, rows: Int, _ sink: PlaneRowSink) {
    let block = smallMapDepthwiseBlock
    var square = Square16()
        square.r0 = load(source + 0 * block)
        square.r1 = load(source + 1 * block)
        square.r2 = load(source + 2 * block)
        square.r3 = load(source + 3 * block)
        square.r4 = load(source + 4 * block)
        square.r5 = load(source + 5 * block)
        square.r6 = load(source + 6 * block)
        square.r7 = load(source + 7 * block)
        square.r8 = load(source + 8 * block)
        square.r9 = load(source + 9 * block)
        square.r10 = load(source + 10 * block)
        square.r11 = load(source + 11 * block)
        square.r12 = load(source + 12 * block)
        square.r13 = load(source + 13 * block)
        square.r14 = load(source + 14 * block)
        square.r15 = load(source + 15 * block)
    square.transpose()
        if rows > 0 { sink.put(square.r0, row: 0) }
        if rows > 1 { sink.put(square.r1, row: 1) }
        if rows > 2 { sink.put(square.r2, row: 2) }
        if rows > 3 { sink.put(square.r3, row: 3) }
        if rows > 4 { sink.put(square.r4, row: 4) }
        if rows > 5 { sink.put(square.r5, row: 5) }
        if rows > 6 { sink.put(square.r6, row: 6) }
        if rows > 7 { sink.put(square.r7, row: 7) }
        if rows > 8 { sink.put(square.r8, row: 8) }
        if rows > 9 { sink.put(square.r9, row: 9) }
        if rows > 10 { sink.put(square.r10, row: 10) }
        if rows > 11 { sink.put(square.r11, row: 11) }
        if rows > 12 { sink.put(square.r12, row: 12) }
        if rows > 13 { sink.put(square.r13, row: 13) }
        if rows > 14 { sink.put(square.r14, row: 14) }
        if rows > 15 { sink.put(square.r15, row: 15) }
}


/// The first `count` channels of one staged output pixel (plus their residual) to their planes.
@inline(never)
func scatterPixel(_ values: UnsafeMutablePointer<Float>, count: Int, output: FeatureMap, residual: FeatureMap?, channel c0: Int,
                  y: Int, x: Int) {
    let outL = output.layout
    var destination = output.base + outL.offset(channel: c0, y: y, x: x)
    if let residual {
        let resL = residual.layout
        var source = UnsafePointer(residual.base + resL.offset(channel: c0, y: y, x: x))
        for j in 0..<count {
            destination.pointee = values[j] + source.pointee
            destination += outL.planeStride
            source += resL.planeStride
        }
    } else {
        for j in 0..<count {
            destination.pointee = values[j]
            destination += outL.planeStride
        }
    }
}

/// A 16 × 16 block of floats in 16 vectors (row `i` is `r[i]`), transposed in registers by
/// `vbg_transpose16` (TargetFeatures' Transpose16.h): floats and pairs interleaved within 128-bit
/// lanes, then 128-bit blocks exchanged, all by immediate shuffles.
struct Square16 {
    var r0 = Vector(), r1 = Vector(), r2 = Vector(), r3 = Vector(), r4 = Vector(), r5 = Vector(), r6 = Vector(), r7 = Vector()
    var r8 = Vector(), r9 = Vector(), r10 = Vector(), r11 = Vector(), r12 = Vector(), r13 = Vector(), r14 = Vector(), r15 = Vector()

    @inline(always) mutating func transpose() {
        withUnsafeMutableBytes(of: &self) { vbg_transpose16($0.baseAddress!.assumingMemoryBound(to: Vector.self)) }
    }
}


/// The blocks of `channels` by row tiles: per block, its input gathered into the zero-bordered
/// `grid` (``gatherBordered(_:channel:count:grid:into:)``), then per output row tiles of up to 8
/// outputs × 32 channels (16 accumulators; per tap two weight vectors and sixteen input vectors
/// at constant offsets), every output the bias then one multiply-add per tap in (ky, kx) order,
/// the taps in the border adding w · 0. Staged and scattered as the pixel-by-pixel path does.
@inline(never)
func smallMapDepthwiseRows<A: ActivationFunction>(
    _ job: SmallMapDepthwiseParts, _ channels: Range<Int>, grid: SmallMapDepthwiseGrid, staged: UnsafeMutablePointer<Float>,
    gathered: UnsafeMutablePointer<Float>, _: A.Type
) {
    let outL = job.output.layout, (outW, outH) = (outL.width, outL.height)
    let k = job.weights.kernelSize, padded = job.weights.paddedChannels, s = job.stride
    let block = smallMapDepthwiseBlock
    var c0 = channels.lowerBound
    while c0 < channels.upperBound {
        let n = min(block, channels.upperBound - c0)
        gatherBordered(job.input, channel: c0, count: n, grid: grid, pixelMajor: job.pixelMajor, into: gathered)
        let (first, pixelStep) = job.destination(staged: staged, channel: c0)
        var half = 0
        while half * 2 * lanes < n {
            let taps = UnsafePointer(job.weights.weights.baseAddress) + c0 + half * 2 * lanes
            let bias = UnsafePointer(job.weights.bias.baseAddress) + c0 + half * 2 * lanes
            for yo in 0..<outH {
                var xo = 0
                while xo < outW {
                    let count = min(8, outW - xo)
                    let window = UnsafePointer(gathered) + ((yo * s) * grid.width + xo * s) * block + half * 2 * lanes
                    let out = first + (yo * outW + xo) * pixelStep + half * 2 * lanes
                    let channels = job.channelsLast == nil ? 2 * lanes : min(2 * lanes, n - half * 2 * lanes)
                    if s == 1 {
                        smallMapDepthwiseRowTile(window, taps: taps, bias: bias, k: k, gridWidth: grid.width, padded: padded,
                                                 step: block, out: out, pixelStep: pixelStep, count: count, channels: channels,
                                                 A.self)
                    } else {
                        smallMapDepthwiseRowTile(window, taps: taps, bias: bias, k: k, gridWidth: grid.width, padded: padded,
                                                 step: 2 * block, out: out, pixelStep: pixelStep, count: count, channels: channels,
                                                 A.self)
                    }
                    xo += count
                }
            }
            half += 1
        }
        if job.channelsLast == nil {
            scatterChannels(staged, count: n, output: job.output, residual: job.residual, channel: c0)
        }
        c0 += block
    }
}

/// The first `count` lanes of `v` (none when `count` ≤ 0, all from 16 on): one pixel's channels of
/// a channels-last output, whose next pixel's channels follow.
@inline(always)
func storeChannels(_ v: Vector, _ p: UnsafeMutablePointer<Float>, count: Int) {
    if count >= lanes {
        store(v, p)
    } else if count > 0 {
        store(v, p, count: count)
    }
}

/// Up to 8 outputs of a row (windows `step` floats apart from `window`) × 32 channels, stored
/// `pixelStep` floats apart (their first `channels` only when fewer than 32); rows past `count`
/// are computed on what lies there and not stored.
@inline(always)
func smallMapDepthwiseRowTile<A: ActivationFunction>(
    _ window: UnsafePointer<Float>, taps: UnsafePointer<Float>, bias: UnsafePointer<Float>, k: Int, gridWidth: Int,
    padded: Int, step: Int, out: UnsafeMutablePointer<Float>, pixelStep: Int, count: Int, channels: Int, _: A.Type
) {
    let block = smallMapDepthwiseBlock
    let bl = load(bias), bh = load(bias + lanes)
    var a0 = bl, a1 = bl, a2 = bl, a3 = bl, a4 = bl, a5 = bl, a6 = bl, a7 = bl
    var b0 = bh, b1 = bh, b2 = bh, b3 = bh, b4 = bh, b5 = bh, b6 = bh, b7 = bh
    var row = window, t = taps
    for _ in 0..<k {
        var x = row
        for _ in 0..<k {
            let wl = load(t), wh = load(t + lanes)
            a0 = multiplyAdd(a0, wl, load(x)); b0 = multiplyAdd(b0, wh, load(x + lanes))
            a1 = multiplyAdd(a1, wl, load(x + step)); b1 = multiplyAdd(b1, wh, load(x + step + lanes))
            a2 = multiplyAdd(a2, wl, load(x + 2 * step)); b2 = multiplyAdd(b2, wh, load(x + 2 * step + lanes))
            a3 = multiplyAdd(a3, wl, load(x + 3 * step)); b3 = multiplyAdd(b3, wh, load(x + 3 * step + lanes))
            a4 = multiplyAdd(a4, wl, load(x + 4 * step)); b4 = multiplyAdd(b4, wh, load(x + 4 * step + lanes))
            a5 = multiplyAdd(a5, wl, load(x + 5 * step)); b5 = multiplyAdd(b5, wh, load(x + 5 * step + lanes))
            a6 = multiplyAdd(a6, wl, load(x + 6 * step)); b6 = multiplyAdd(b6, wh, load(x + 6 * step + lanes))
            a7 = multiplyAdd(a7, wl, load(x + 7 * step)); b7 = multiplyAdd(b7, wh, load(x + 7 * step + lanes))
            x += block
            t += padded
        }
        row += gridWidth * block
    }
    @inline(always) func put(_ a: Vector, _ b: Vector, _ r: Int) {
        guard r < count else { return }
        if channels == 2 * lanes {
            store(A.apply(a), out + r * pixelStep)
            store(A.apply(b), out + r * pixelStep + lanes)
        } else {
            storeChannels(A.apply(a), out + r * pixelStep, count: channels)
            storeChannels(A.apply(b), out + r * pixelStep + lanes, count: channels - lanes)
        }
    }
    put(a0, b0, 0); put(a1, b1, 1); put(a2, b2, 2); put(a3, b3, 3)
    put(a4, b4, 4); put(a5, b5, 5); put(a6, b6, 6); put(a7, b7, 7)
}

/// Channels `c0 ..< c0 + count` (at most a block) of a map in any layout into `grid`'s interior,
/// pixel-major (pixel (y, x)'s channel c0 + j at ((y + top) · width + x + left) · block + j), its
/// border and slack zero: by 16 × 16 transposes of runs of 16 pixels (across row ends in a
/// dense map, so a 7 × 7 map takes 4 transposes, not 7; each row's runs in a padded one), lanes
/// of channels past `count` zero. With `pixelMajor` the values come from there instead (`input`
/// gives only the map's size), copied pixel by pixel and activated.
@inline(never)
func gatherBordered(_ input: FeatureMap, channel c0: Int, count: Int, grid: SmallMapDepthwiseGrid,
                    pixelMajor: PixelMajorInput? = nil, into gathered: UnsafeMutablePointer<Float>) {
    let block = smallMapDepthwiseBlock, layout = input.layout
    let (w, h) = (layout.width, layout.height)
    // The border: whole rows above and below, the columns beside each row, and the slack.
    gathered.update(repeating: 0, count: grid.top * grid.width * block)
    let below = (grid.top + h) * grid.width
    (gathered + below * block).update(repeating: 0, count: ((grid.height * grid.width - below) + SmallMapDepthwiseGrid.slack) * block)
    let right = grid.width - grid.left - w
    for y in 0..<h {
        let rowStart = gathered + (grid.top + y) * grid.width * block
        rowStart.update(repeating: 0, count: grid.left * block)
        (rowStart + (grid.left + w) * block).update(repeating: 0, count: right * block)
    }
    // The halves of the block the row tiles read.
    let gatheredChannels = min(block, (count + 2 * lanes - 1) / (2 * lanes) * 2 * lanes)
    let interior = gathered + (grid.top * grid.width + grid.left) * block
    if let pixelMajor {
        pixelMajor.gather(channel: c0, count: count, vectors: gatheredChannels / lanes, width: w, height: h,
                          rowStep: grid.width * block, into: interior)
        return
    }
    var j0 = 0
    while j0 < gatheredChannels {
        let n = max(min(lanes, count - j0), 0)
        if layout.isDense {
            var p = 0
            while p < w * h {
                let m = min(lanes, w * h - p)
                gatherSquare(input, channel: c0 + j0, channels: n, offset: p, pixels: m,
                             GridRowCursor(interior: interior + j0, pixel: p, width: w, gridWidth: grid.width, count: m))
                p += lanes
            }
        } else {
            for y in 0..<h {
                var x = 0
                while x < w {
                    let m = min(lanes, w - x)
                    gatherSquare(input, channel: c0 + j0, channels: n, offset: y * layout.rowStride + x, pixels: m,
                                 GridRowCursor(interior: interior + j0, pixel: y * w + x, width: w,
                                               gridWidth: grid.width, count: m))
                    x += lanes
                }
            }
        }
        j0 += lanes
    }
}

/// Channels `c ..< c + channels` (0 to 16; lanes past them zero) of the `pixels` consecutive
/// floats at `offset` in each plane, by one 16 × 16 transpose, each pixel's vector to where `sink`
/// puts it.
@inline(never)
func gatherSquare(_ input: FeatureMap, channel c: Int, channels n: Int, offset: Int, pixels m: Int,
                  _ sink: GridRowCursor) {
    let planeStride = input.layout.planeStride
    let first = UnsafePointer(input.plane(0)) + offset
    @inline(always) func run(_ i: Int) -> Vector {
        i < n ? load(first + (c + i) * planeStride, count: m) : Vector()
    }
    var square = Square16()
    square.r0 = run(0); square.r1 = run(1); square.r2 = run(2); square.r3 = run(3)
    square.r4 = run(4); square.r5 = run(5); square.r6 = run(6); square.r7 = run(7)
    square.r8 = run(8); square.r9 = run(9); square.r10 = run(10); square.r11 = run(11)
    square.r12 = run(12); square.r13 = run(13); square.r14 = run(14); square.r15 = run(15)
    square.transpose()
    var sink = sink
    sink.put(square.r0); sink.put(square.r1); sink.put(square.r2); sink.put(square.r3)
    sink.put(square.r4); sink.put(square.r5); sink.put(square.r6); sink.put(square.r7)
    sink.put(square.r8); sink.put(square.r9); sink.put(square.r10); sink.put(square.r11)
    sink.put(square.r12); sink.put(square.r13); sink.put(square.r14); sink.put(square.r15)
}

/// Where ``gatherSquare(_:channel:channels:offset:pixels:_:)`` stores its pixels' vectors, one
/// after the other from pixel `p` of a map `width` pixels wide: the first `count`, then nothing;
/// pixel (y, x)'s vector at `interior` + (y · gridWidth + x) · block.
struct GridRowCursor {
    var row: UnsafeMutablePointer<Float>, x: Int, left: Int
    let width: Int, rowStep: Int

    @inline(always) init(interior: UnsafeMutablePointer<Float>, pixel p: Int, width w: Int, gridWidth: Int, count: Int) {
        let y = p / w
        x = p - y * w
        row = interior + y * gridWidth * smallMapDepthwiseBlock
        left = count
        width = w
        rowStep = gridWidth * smallMapDepthwiseBlock
    }

    @inline(always) mutating func put(_ v: Vector) {
        guard left > 0 else { return }
        store(v, row + x * smallMapDepthwiseBlock)
        left -= 1
        x += 1
        if x == width { x = 0; row += rowStep }
    }
}

/// A depthwise convolution's input held pixel-major and not yet activated: pixel p's channel c is
/// `activation(values[p · channels + c])` (the products of the small-map 1x1 before it).
struct PixelMajorInput {
    let values: UnsafePointer<Float>, channels: Int, activation: Activation

    /// Channels `c0 ..< c0 + count` of the `width` × `height` pixels, activated, as `vectors`
    /// vectors a pixel (lanes past `count` from zero): pixel (y, x)'s at
    /// `destination + y · rowStep + x · block`.
    func gather(channel c0: Int, count: Int, vectors: Int, width: Int, height: Int, rowStep: Int,
                into destination: UnsafeMutablePointer<Float>) {
        switch activation {
        case .none: gatherActivated(self, c0, count, vectors, width, height, rowStep, destination, Identity.self)
        case .relu: gatherActivated(self, c0, count, vectors, width, height, rowStep, destination, ReLU.self)
        case .relu6: gatherActivated(self, c0, count, vectors, width, height, rowStep, destination, ReLU6.self)
        case .hardSwish: gatherActivated(self, c0, count, vectors, width, height, rowStep, destination, HardSwish.self)
        case .sigmoid: gatherActivated(self, c0, count, vectors, width, height, rowStep, destination, Sigmoid.self)
        case .silu: gatherActivated(self, c0, count, vectors, width, height, rowStep, destination, SiLU.self)
        }
    }
}

@inline(never)
func gatherActivated<P: ActivationFunction>(_ source: PixelMajorInput, _ c0: Int, _ count: Int, _ vectors: Int, _ width: Int,
                                            _ height: Int, _ rowStep: Int, _ destination: UnsafeMutablePointer<Float>,
                                            _: P.Type) {
    let block = smallMapDepthwiseBlock
    var pixel = source.values + c0
    for y in 0..<height {
        var d = destination + y * rowStep
        for _ in 0..<width {
            for v in 0..<vectors {
                let m = count - v * lanes
                let x = m >= lanes ? load(pixel + v * lanes) : m > 0 ? load(pixel + v * lanes, count: m) : Vector()
                store(P.apply(x), d + v * lanes)
            }
            pixel += source.channels
            d += block
        }
    }
}
