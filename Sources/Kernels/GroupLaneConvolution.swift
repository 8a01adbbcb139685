// Quantized convolutions with few outputs per group, or windows of several taps, on small maps,
// the group's output channels as the vector lanes: RegNet's 3x3 layers of 16 or 8 channels per
// group on 3x3 to 20x20 maps (25 groups of 16 outputs, 9 pixels), DenseNet's 3x3 128 -> 32 and
// the ResNets' 3x3 layers (one group, 64 to 512 outputs) on 16x16 to 2x2 maps. The general
// kernels pad such a group to a tile of 64 (64 pixels for 9, or 64 channels for 16 or 32) and
// build a patch matrix per group (on 16x16 with 128 channels, 295 KB read once per tile of 6
// weight rows).
//
// Here one 16-lane int32 vector holds 16 output channels of one pixel. For each tap and each four
// input channels of the group, one vector of weights (16 outputs × 4 signed bytes) is multiplied
// with the pixel's four input bytes broadcast to every lane (`vbg_quad_dot_add`: `vpdpbusd`), so
// no multiply-add is padding but the lanes past a group's outputs (zero weights). A register tile
// is up to 6 pixels × up to four blocks of 16 outputs (24 accumulators; each broadcast feeds every
// block). The input is read in place of a patch matrix: transposed once per image into a bordered
// map of pixels × channels (each pixel's channels contiguous, unsigned: x or x + 128 for int8; the
// border the padding byte), so a tap's four channels are one 32-bit load.
//
// The sums are the patch product's (bias − paddingValue · Σ weights + Σ patch value · weight, in
// int32, modulo 2^32) and the epilogue is ``vbg_requantize`` per lane, so the outputs equal the
// reference's. Threads take whole groups, or with fewer groups than threads tiles of blocks or
// ranges of pixels.

import TargetFeatures

/// The weights of ``groupLaneConvolution(_:_:pool:)``: per group and block of 16 output channels,
/// `depth` vectors of 16 lanes (depth element q = tap · channels / 4 + four-channel step, as the
/// channel-minor patches order k), and the bias and multipliers padded to 16 lanes per block
/// (zero past the group's outputs).
struct GroupLaneWeights {
    let values: IntegerBuffer<Int32>
    let bias: [Int32], multipliers: [Float]
    /// Blocks of 16 output channels per group.
    let blocks: Int

    /// Whether a convolution runs here: bytes, channel-minor patches of a multiple of 4 channels
    /// per group, and
    /// - grouped: at most 16 outputs per group, on maps of at most 100 pixels, or 400 with more
    ///   than 8 outputs per group. Measured on RegNets (3x3, 16 or 8 channels per group): 16
    ///   outputs 27 -> 7 us on 3x3 maps (25 groups), 24 -> 7 on 5x5, 21 -> 10 on 10x10, 30 -> 21
    ///   on 20x20; 8 outputs (half the lanes zero weights) 35 -> 7 on 3x3, 26 -> 16 on 10x10, but
    ///   31 -> 34 on 20x20, where the general kernel's tiles of 64 pixels pad less;
    /// - one group: a window of several taps, at most 512 outputs, maps of at most 4096 pixels
    ///   (64x64). Measured on DenseNet's 3x3 128 -> 32: 78 -> 36 us on 16x16, 32 -> 10.7 on 8x8;
    ///   ResNets' 3x3 layers: 64 outputs on 16x16 49 -> 35 us, 256 on 4x4 48 -> 43, 512 on 2x2
    ///   104 -> 90 (resnet50), 512 on 4x4 (resnet18) 137 -> 112; GoogLeNet's 64 -> 192 on 16x16
    ///   110 -> 95; at 224x224, resnet50's 128 outputs on 28x28 270 -> 231 us (stride 2 from
    ///   56x56: 303 -> 249) and 64 on 56x56 258 -> 244, where the patch layouts pad the columns
    ///   (shifted planes: the rows' borders) or build a patch matrix of 900 KB.
    static func applies(groups: Int, channelsPerGroup: Int, outputsPerGroup: Int, pixels: Int, taps: Int, bytes: Bool) -> Bool {
        guard bytes && channelsPerGroup % 4 == 0 else { return false }
        if groups > 1 { return outputsPerGroup <= lanes && (pixels <= 100 || pixels <= 400 && outputsPerGroup > lanes / 2) }
        return taps > 1 && outputsPerGroup <= 512 && pixels <= 4096
    }
}

/// Bytes of the bordered input map: its rows and columns, the padding on each side included, and
/// whatever rows or columns past the input the windows reach.
struct GroupLaneMap {
    let height: Int, width: Int, channels: Int
    init(_ window: QuantizedWindow, _ weights: QuantizedConvolutionWeights) {
        let spanH = (weights.kernelHeight - 1) * window.dilationHeight, spanW = (weights.kernelWidth - 1) * window.dilationWidth
        height = max(window.padTop + window.inputHeight, (window.outputHeight - 1) * window.strideHeight + spanH + 1)
        width = max(window.padLeft + window.inputWidth, (window.outputWidth - 1) * window.strideWidth + spanW + 1)
        channels = weights.inputChannels
    }
    var bytes: Int { height * width * channels }
    /// Int32 elements of scratch: the map (rounded to 64 bytes), then `threads` outputs of
    /// pixels × 64 bytes.
    func elements(pixels: Int, threads: Int) -> Int { (bytes + 63) / 64 * 16 + threads * pixels * laneTileBlocks * lanes / 4 }
}

/// ``quantizedConvolution(_:pool:)`` on ``GroupLaneWeights``: the bordered map (calling thread),
/// then the groups (threads take whole groups, tiles of blocks or ranges of pixels), up to four
/// blocks of 16 outputs at a time computed into the thread's pixels × 64 scratch and transposed
/// into the output's planes.
func groupLaneConvolution(_ c: QuantizedConvolution, _ lanesWeights: GroupLaneWeights, pool: WorkerPool) {
    let w = c.weights, window = c.window, map = GroupLaneMap(window, w)
    let bordered = UnsafeMutableRawPointer(c.patches).assumingMemoryBound(to: UInt8.self)
    let (inH, inW) = (window.inputHeight, window.inputWidth), plane = inH * inW
    bordered.update(repeating: UInt8(truncatingIfNeeded: c.paddingValue), count: map.bytes)
    let source = c.input.assumingMemoryBound(to: UInt8.self)
    for ih in 0..<inH {
        transposeBytes(source + ih * inW, sourceStride: plane, rows: map.channels, columns: inW,
                       bordered + ((ih + window.padTop) * map.width + window.padLeft) * map.channels, targetStride: map.channels,
                       flip: w.inputSigned ? 0x80 : 0)
    }
    pool.run(GroupLaneParts(convolution: c, weights: lanesWeights, map: map))
}

struct GroupLaneParts: PoolJob {
    let convolution: QuantizedConvolution, weights: GroupLaneWeights, map: GroupLaneMap
    func run(part: Int, pool: WorkerPool) {
        let c = convolution, w = c.weights, window = c.window
        let pixels = window.outputHeight * window.outputWidth, outputsPerGroup = w.outputChannels / w.groups
        // Threads take whole groups; with fewer groups than threads, tiles of blocks where each
        // thread gets two (so that each reads only its outputs' weights: 2.4 MB for 512 outputs),
        // else ranges of pixels.
        let threads = pool.threadCount, blocks = weights.blocks
        let byGroups = w.groups >= threads, byBlocks = !byGroups && blocks >= 2 * laneTileBlocks * threads
        let groups = byGroups ? WorkerPool.range(w.groups, part: part, of: threads) : 0..<w.groups
        let ownBlocks = byBlocks ? WorkerPool.range(blocks, part: part, of: threads, granularity: laneTileBlocks) : 0..<blocks
        let ownPixels = byGroups || byBlocks ? 0..<pixels : WorkerPool.range(pixels, part: part, of: threads)
        guard !groups.isEmpty && !ownBlocks.isEmpty && !ownPixels.isEmpty else { return }
        let bordered = UnsafeRawPointer(c.patches).assumingMemoryBound(to: UInt8.self)
        let results = UnsafeMutableRawPointer(c.patches).assumingMemoryBound(to: UInt8.self) + (map.bytes + 63) / 64 * 64
            + part * pixels * laneTileBlocks * lanes
        let channelsPerGroup = w.inputChannels / w.groups
        weights.bias.withUnsafeBufferPointer { bias in
            weights.multipliers.withUnsafeBufferPointer { multipliers in
                for g in groups {
                    var block = ownBlocks.lowerBound
                    while block < ownBlocks.upperBound {
                        // Up to four blocks of 16 outputs at a time.
                        let n = min(laneTileBlocks, ownBlocks.upperBound - block), b = g * blocks + block, width = n * lanes
                        @inline(__always) func vectors<T>(_ p: UnsafePointer<T>, _: SIMD16<T>.Type)
                            -> (SIMD16<T>, SIMD16<T>, SIMD16<T>, SIMD16<T>) {
                            @inline(__always) func at(_ i: Int) -> SIMD16<T> {
                                UnsafeRawPointer(p + (b + min(i, n - 1)) * lanes).loadUnaligned(as: SIMD16<T>.self)
                            }
                            return (at(0), at(1), at(2), at(3))
                        }
                        let tile = GroupLaneTile(
                            c, map, input: bordered + g * channelsPerGroup,
                            weights: UnsafePointer(weights.values.baseAddress + b * w.depth * lanes),
                            bias: vectors(bias.baseAddress!, IntVector.self), multiplier: vectors(multipliers.baseAddress!, Vector.self),
                            results: results - ownPixels.lowerBound * width, resultStride: width)
                        // The pixels spread evenly over the fewest tiles of at most 6.
                        let count = ownPixels.count, tiles = (count + 5) / 6
                        for t in 0..<tiles {
                            let first = ownPixels.lowerBound + t * count / tiles, rows = (t + 1) * count / tiles - t * count / tiles
                            switch n {
                            case 1: tile.run(first: first, rows: rows, LaneBlocks1.self)
                            case 2: tile.run(first: first, rows: rows, LaneBlocks2.self)
                            case 3: tile.run(first: first, rows: rows, LaneBlocks3.self)
                            default: tile.run(first: first, rows: rows, LaneBlocks4.self)
                            }
                        }
                        let channel = g * outputsPerGroup + block * lanes
                        transposeBytes(results, sourceStride: width, rows: count, columns: min(width, outputsPerGroup - block * lanes),
                                       c.output + channel * pixels + ownPixels.lowerBound, targetStride: pixels)
                        block += n
                    }
                }
            }
        }
    }
}

/// Blocks of 16 outputs in one register tile, at most.
let laneTileBlocks = 4

/// Blocks of 16 outputs in one register tile, a type so that each count is its own
/// specialisation of ``GroupLaneTile/run(first:_:_:)``.
protocol LaneBlockCount { static var count: Int { get } }
enum LaneBlocks1: LaneBlockCount { static var count: Int { 1 } }
enum LaneBlocks2: LaneBlockCount { static var count: Int { 2 } }
enum LaneBlocks3: LaneBlockCount { static var count: Int { 3 } }
enum LaneBlocks4: LaneBlockCount { static var count: Int { 4 } }

/// One pixel's accumulators (or one tap's weights) for up to four blocks of 16 outputs.
struct LaneRow {
    var a, b, c, d: IntVector
    /// `x` (a pixel's four bytes in every lane) times each block's weights in `w`, added.
    @inline(__always) mutating func add<B: LaneBlockCount>(_ x: IntVector, _ w: LaneRow, _: B.Type) {
        a = vbg_quad_dot_add(a, x, w.a)
        if B.count > 1 { b = vbg_quad_dot_add(b, x, w.b) }
        if B.count > 2 { c = vbg_quad_dot_add(c, x, w.c) }
        if B.count > 3 { d = vbg_quad_dot_add(d, x, w.d) }
    }
}

/// Up to four blocks of 16 outputs of one group: `input` the group's first channel in the
/// bordered map, `weights` the first block's `depth` vectors (the others' follow),
/// `results` a row of `resultStride` bytes per pixel (the blocks' 16 bytes side by side).
struct GroupLaneTile {
    let input: UnsafePointer<UInt8>, weights: UnsafePointer<Int32>, results: UnsafeMutablePointer<UInt8>, resultStride: Int
    let bias: LaneRow, multiplier: (Vector, Vector, Vector, Vector)
    let outW: Int, strideH: Int, strideW: Int, dilationH: Int, dilationW: Int, kernelH: Int, kernelW: Int
    let mapWidth: Int, channels: Int, quadsPerTap: Int, depth: Int
    let low: Float, high: Float, zero: Int32, finite: Bool

    init(_ c: QuantizedConvolution, _ map: GroupLaneMap, input: UnsafePointer<UInt8>, weights: UnsafePointer<Int32>,
         bias: (IntVector, IntVector, IntVector, IntVector), multiplier: (Vector, Vector, Vector, Vector),
         results: UnsafeMutablePointer<UInt8>, resultStride: Int) {
        let w = c.weights, window = c.window
        self.input = input; self.weights = weights; self.results = results; self.resultStride = resultStride
        self.bias = LaneRow(a: bias.0, b: bias.1, c: bias.2, d: bias.3); self.multiplier = multiplier
        outW = window.outputWidth; strideH = window.strideHeight; strideW = window.strideWidth
        dilationH = window.dilationHeight; dilationW = window.dilationWidth; kernelH = w.kernelHeight; kernelW = w.kernelWidth
        mapWidth = map.width; channels = map.channels; quadsPerTap = w.inputChannels / w.groups / 4; depth = w.depth
        low = Float(c.minimum - c.outputZero); high = Float(c.maximum - c.outputZero); zero = c.outputZero
        finite = w.finiteMultipliers
    }

    /// Pixels `first ..< first + rows` (raster order, 1...6 of them).
    @inline(__always)
    func run<B: LaneBlockCount>(first: Int, rows: Int, _: B.Type) {
        switch rows {
        case 1: run(first: first, TileRows1.self, B.self)
        case 2: run(first: first, TileRows2.self, B.self)
        case 3: run(first: first, TileRows3.self, B.self)
        case 4: run(first: first, TileRows4.self, B.self)
        case 5: run(first: first, TileRows5.self, B.self)
        default: run(first: first, TileRows6.self, B.self)
        }
    }

    @inline(never)
    func run<R: TileRowCount, B: LaneBlockCount>(first: Int, _: R.Type, _: B.Type) {
        let count = R.count, blocks = B.count
        @inline(__always) func start(_ i: Int) -> UnsafePointer<UInt8> {
            let p = first + (count > i ? i : 0), oh = p / outW, ow = p % outW
            return input + (oh * strideH * mapWidth + ow * strideW) * channels
        }
        let p0 = start(0), p1 = start(1), p2 = start(2), p3 = start(3), p4 = start(4), p5 = start(5)
        var a0 = bias, a1 = bias, a2 = bias, a3 = bias, a4 = bias, a5 = bias
        @inline(__always) func quad(_ p: UnsafePointer<UInt8>, _ at: Int) -> IntVector {
            IntVector(repeating: UnsafeRawPointer(p + at).loadUnaligned(as: Int32.self))
        }
        var wp = UnsafeRawPointer(weights)
        let next = depth * 64
        for kh in 0..<kernelH {
            for kw in 0..<kernelW {
                var at = (kh * dilationH * mapWidth + kw * dilationW) * channels
                for _ in 0..<quadsPerTap {
                    @inline(__always) func load(_ i: Int) -> IntVector {
                        wp.loadUnaligned(fromByteOffset: min(i, blocks - 1) * next, as: IntVector.self)
                    }
                    let v = LaneRow(a: load(0), b: load(1), c: load(2), d: load(3))
                    a0.add(quad(p0, at), v, B.self)
                    if count > 1 { a1.add(quad(p1, at), v, B.self) }
                    if count > 2 { a2.add(quad(p2, at), v, B.self) }
                    if count > 3 { a3.add(quad(p3, at), v, B.self) }
                    if count > 4 { a4.add(quad(p4, at), v, B.self) }
                    if count > 5 { a5.add(quad(p5, at), v, B.self) }
                    wp += 64; at += 4
                }
            }
        }
        @inline(__always) func bytes(_ acc: IntVector, _ m: Vector) -> SIMD16<UInt8> {
            finite ? vbg_requantize_finite(acc, m, low, high, zero) : vbg_requantize(acc, m, low, high, zero)
        }
        @inline(__always) func store(_ acc: LaneRow, _ i: Int) {
            let row = UnsafeMutableRawPointer(results + (first + i) * resultStride)
            row.storeBytes(of: bytes(acc.a, multiplier.0), as: SIMD16<UInt8>.self)
            if blocks > 1 { row.storeBytes(of: bytes(acc.b, multiplier.1), toByteOffset: lanes, as: SIMD16<UInt8>.self) }
            if blocks > 2 { row.storeBytes(of: bytes(acc.c, multiplier.2), toByteOffset: 2 * lanes, as: SIMD16<UInt8>.self) }
            if blocks > 3 { row.storeBytes(of: bytes(acc.d, multiplier.3), toByteOffset: 3 * lanes, as: SIMD16<UInt8>.self) }
        }
        store(a0, 0)
        if count > 1 { store(a1, 1) }
        if count > 2 { store(a2, 2) }
        if count > 3 { store(a3, 3) }
        if count > 4 { store(a4, 4) }
        if count > 5 { store(a5, 5) }
    }
}
