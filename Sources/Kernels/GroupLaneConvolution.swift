// Quantized convolutions with few outputs per group on small maps, the group's output channels
// as the vector lanes: RegNet's 3x3 layers of 16 or 8 channels per group on 3x3 to 20x20 maps
// (25 groups of 16 outputs, 9 pixels) and DenseNet's 3x3 layers of one group, 128 -> 32, on 16x16
// to 4x4 maps. The general kernels pad such a group to a tile of 64: 64 pixels for 9 (the patch
// matrix), or 64 channels for 16 or 32 (pixels as rows), and build a patch matrix per group (on
// 16x16 with 128 channels, 295 KB read once per tile of 6 weight rows).
//
// Here one 16-lane int32 vector holds 16 output channels of one pixel. For each tap and each four
// input channels of the group, one vector of weights (16 outputs × 4 signed bytes) is multiplied
// with the pixel's four input bytes broadcast to every lane (`vbg_quad_dot_add`: `vpdpbusd`), so
// no multiply-add is padding but the lanes past a group's outputs (zero weights). A register tile
// is up to 6 pixels × one or two blocks of 16 outputs (each broadcast feeding both). The input is
// read in place of a patch matrix: transposed once per image into a bordered map of pixels ×
// channels (each pixel's channels contiguous, unsigned: x or x + 128 for int8; the border the
// padding byte), so a tap's four channels are one 32-bit load.
//
// The sums are the patch product's (bias − paddingValue · Σ weights + Σ patch value · weight, in
// int32, modulo 2^32) and the epilogue is ``vbg_requantize`` per lane, so the outputs equal the
// reference's. Threads take whole groups, or with fewer groups than threads ranges of pixels.

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
    /// - one group: a window of several taps, at most 32 outputs, maps of at most 256 pixels.
    static func applies(groups: Int, channelsPerGroup: Int, outputsPerGroup: Int, pixels: Int, taps: Int, bytes: Bool) -> Bool {
        guard bytes && channelsPerGroup % 4 == 0 else { return false }
        if groups > 1 { return outputsPerGroup <= lanes && (pixels <= 100 || pixels <= 400 && outputsPerGroup > lanes / 2) }
        return taps > 1 && outputsPerGroup <= 2 * lanes && pixels <= 256
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
    /// pixels × 32 bytes.
    func elements(pixels: Int, threads: Int) -> Int { (bytes + 63) / 64 * 16 + threads * pixels * 2 * lanes / 4 }
}

/// ``quantizedConvolution(_:pool:)`` on ``GroupLaneWeights``: the bordered map (calling thread),
/// then the groups (threads take whole groups, or ranges of pixels), each one or two blocks of 16
/// outputs computed into the thread's pixels × 32 scratch and transposed into the output's planes.
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
        // Threads take whole groups, or with fewer groups than threads ranges of pixels.
        let byGroups = w.groups >= pool.threadCount
        let groups = byGroups ? WorkerPool.range(w.groups, part: part, of: pool.threadCount) : 0..<w.groups
        let ownPixels = byGroups ? 0..<pixels : WorkerPool.range(pixels, part: part, of: pool.threadCount)
        guard !groups.isEmpty && !ownPixels.isEmpty else { return }
        let bordered = UnsafeRawPointer(c.patches).assumingMemoryBound(to: UInt8.self)
        let results = UnsafeMutableRawPointer(c.patches).assumingMemoryBound(to: UInt8.self) + (map.bytes + 63) / 64 * 64
            + part * pixels * 2 * lanes
        let channelsPerGroup = w.inputChannels / w.groups, blocks = weights.blocks
        weights.bias.withUnsafeBufferPointer { bias in
            weights.multipliers.withUnsafeBufferPointer { multipliers in
                for g in groups {
                    var block = 0
                    while block < blocks {
                        // Two blocks of 16 outputs at a time where there are two.
                        let pair = blocks - block >= 2, b = g * blocks + block, width = pair ? 2 * lanes : lanes
                        @inline(__always) func vector<T>(_ p: UnsafePointer<T>, _ i: Int, _: SIMD16<T>.Type) -> SIMD16<T> {
                            UnsafeRawPointer(p + (b + min(i, pair ? 1 : 0)) * lanes).loadUnaligned(as: SIMD16<T>.self)
                        }
                        let tile = GroupLaneTile(
                            c, map, input: bordered + g * channelsPerGroup,
                            weights: UnsafePointer(weights.values.baseAddress + b * w.depth * lanes),
                            bias: (vector(bias.baseAddress!, 0, IntVector.self), vector(bias.baseAddress!, 1, IntVector.self)),
                            multiplier: (vector(multipliers.baseAddress!, 0, Vector.self), vector(multipliers.baseAddress!, 1, Vector.self)),
                            results: results - ownPixels.lowerBound * width, resultStride: width)
                        // The pixels spread evenly over the fewest tiles of at most 6.
                        let count = ownPixels.count, tiles = (count + 5) / 6
                        for t in 0..<tiles {
                            let first = ownPixels.lowerBound + t * count / tiles, rows = (t + 1) * count / tiles - t * count / tiles
                            if pair { tile.run(first: first, rows: rows, LaneBlocks2.self) } else { tile.run(first: first, rows: rows, LaneBlocks1.self) }
                        }
                        let channel = g * outputsPerGroup + block * lanes
                        transposeBytes(results, sourceStride: width, rows: count, columns: min(width, outputsPerGroup - block * lanes),
                                       c.output + channel * pixels + ownPixels.lowerBound, targetStride: pixels)
                        block += pair ? 2 : 1
                    }
                }
            }
        }
    }
}

/// Blocks of 16 outputs in one register tile, a type so that each count is its own
/// specialisation of ``GroupLaneTile/run(first:_:_:)``.
protocol LaneBlockCount { static var count: Int { get } }
enum LaneBlocks1: LaneBlockCount { static var count: Int { 1 } }
enum LaneBlocks2: LaneBlockCount { static var count: Int { 2 } }

/// One or two blocks of 16 outputs of one group: `input` the group's first channel in the
/// bordered map, `weights` the first block's `depth` vectors (the second's follow),
/// `results` a row of `resultStride` bytes per pixel (the blocks' 16 bytes side by side).
struct GroupLaneTile {
    let input: UnsafePointer<UInt8>, weights: UnsafePointer<Int32>, results: UnsafeMutablePointer<UInt8>, resultStride: Int
    let bias: (IntVector, IntVector), multiplier: (Vector, Vector)
    let outW: Int, strideH: Int, strideW: Int, dilationH: Int, dilationW: Int, kernelH: Int, kernelW: Int
    let mapWidth: Int, channels: Int, quadsPerTap: Int, depth: Int
    let low: Float, high: Float, zero: Int32, finite: Bool

    init(_ c: QuantizedConvolution, _ map: GroupLaneMap, input: UnsafePointer<UInt8>, weights: UnsafePointer<Int32>,
         bias: (IntVector, IntVector), multiplier: (Vector, Vector), results: UnsafeMutablePointer<UInt8>, resultStride: Int) {
        let w = c.weights, window = c.window
        self.input = input; self.weights = weights; self.results = results; self.resultStride = resultStride
        self.bias = bias; self.multiplier = multiplier
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
        let count = R.count, two = B.count > 1
        @inline(__always) func start(_ i: Int) -> UnsafePointer<UInt8> {
            let p = first + (count > i ? i : 0), oh = p / outW, ow = p % outW
            return input + (oh * strideH * mapWidth + ow * strideW) * channels
        }
        let p0 = start(0), p1 = start(1), p2 = start(2), p3 = start(3), p4 = start(4), p5 = start(5)
        var a0 = bias.0, a1 = bias.0, a2 = bias.0, a3 = bias.0, a4 = bias.0, a5 = bias.0
        var b0 = bias.1, b1 = bias.1, b2 = bias.1, b3 = bias.1, b4 = bias.1, b5 = bias.1
        @inline(__always) func quad(_ p: UnsafePointer<UInt8>, _ at: Int) -> IntVector {
            IntVector(repeating: UnsafeRawPointer(p + at).loadUnaligned(as: Int32.self))
        }
        @inline(__always) func add(_ a: inout IntVector, _ b: inout IntVector, _ p: UnsafePointer<UInt8>, _ at: Int,
                                   _ v: IntVector, _ u: IntVector) {
            let x = quad(p, at)
            a = vbg_quad_dot_add(a, x, v)
            if two { b = vbg_quad_dot_add(b, x, u) }
        }
        var wp = UnsafeRawPointer(weights)
        let second = depth * 64
        for kh in 0..<kernelH {
            for kw in 0..<kernelW {
                var at = (kh * dilationH * mapWidth + kw * dilationW) * channels
                for _ in 0..<quadsPerTap {
                    let v = wp.loadUnaligned(as: IntVector.self), u = two ? wp.loadUnaligned(fromByteOffset: second, as: IntVector.self) : v
                    add(&a0, &b0, p0, at, v, u)
                    if count > 1 { add(&a1, &b1, p1, at, v, u) }
                    if count > 2 { add(&a2, &b2, p2, at, v, u) }
                    if count > 3 { add(&a3, &b3, p3, at, v, u) }
                    if count > 4 { add(&a4, &b4, p4, at, v, u) }
                    if count > 5 { add(&a5, &b5, p5, at, v, u) }
                    wp += 64; at += 4
                }
            }
        }
        @inline(__always) func bytes(_ acc: IntVector, _ m: Vector) -> SIMD16<UInt8> {
            finite ? vbg_requantize_finite(acc, m, low, high, zero) : vbg_requantize(acc, m, low, high, zero)
        }
        @inline(__always) func store(_ a: IntVector, _ b: IntVector, _ i: Int) {
            let row = UnsafeMutableRawPointer(results + (first + i) * resultStride)
            row.storeBytes(of: bytes(a, multiplier.0), as: SIMD16<UInt8>.self)
            if two { row.storeBytes(of: bytes(b, multiplier.1), toByteOffset: lanes, as: SIMD16<UInt8>.self) }
        }
        store(a0, b0, 0)
        if count > 1 { store(a1, b1, 1) }
        if count > 2 { store(a2, b2, 2) }
        if count > 3 { store(a3, b3, 3) }
        if count > 4 { store(a4, b4, 4) }
        if count > 5 { store(a5, b5, 5) }
    }
}
