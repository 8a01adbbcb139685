// Grouped quantized convolutions on small maps with the group's output channels as the vector
// lanes: RegNet-X's 3x3 layers of 16 channels per group on 5x5 and 3x3 maps (25 groups of 16
// outputs, 9 pixels). The general kernels pad such a group to a tile of 64: 64 pixels for 9 (the
// patch matrix), or 64 channels for 16 (pixels as rows), and build a patch matrix per group.
//
// Here one 16-lane int32 vector holds 16 output channels of one pixel. For each tap and each four
// input channels of the group, one vector of weights (16 outputs × 4 signed bytes) is multiplied
// with the pixel's four input bytes broadcast to every lane (`vbg_quad_dot_add`: `vpdpbusd`), so
// no lane and no multiply-add is padding (outputs per group up to 16; fewer leave lanes of zero
// weights). The input is read in place of a patch matrix: transposed once per image into a
// bordered map of pixels × channels (each pixel's channels contiguous, unsigned: x or x + 128 for
// int8; the border the padding byte), so a tap's four channels are one 32-bit load.
//
// The sums are the patch product's (bias − paddingValue · Σ weights + Σ patch value · weight, in
// int32, modulo 2^32) and the epilogue is ``vbg_requantize`` per lane, so the outputs equal the
// reference's. Threads take whole groups.

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

    /// Whether a grouped convolution runs here: bytes, channel-minor patches of a multiple of 4
    /// channels per group, at most 16 outputs per group, on maps of at most 100 pixels, or 400
    /// with more than 8 outputs per group. Measured on RegNets (3x3, 16 or 8 channels per group):
    /// 16 outputs 27 -> 7 us on 3x3 maps (25 groups), 24 -> 7 on 5x5, 21 -> 10 on 10x10, 30 -> 21
    /// on 20x20; 8 outputs (half the lanes zero weights) 35 -> 7 on 3x3, 26 -> 16 on 10x10, but
    /// 31 -> 34 on 20x20, where the general kernel's tiles of 64 pixels pad less.
    static func applies(groups: Int, channelsPerGroup: Int, outputsPerGroup: Int, pixels: Int, bytes: Bool) -> Bool {
        groups > 1 && bytes && channelsPerGroup % 4 == 0 && outputsPerGroup <= lanes
            && (pixels <= 100 || pixels <= 400 && outputsPerGroup > lanes / 2)
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
    /// pixels × 16 bytes.
    func elements(pixels: Int, threads: Int) -> Int { (bytes + 63) / 64 * 16 + threads * pixels * lanes / 4 }
}

/// ``quantizedConvolution(_:pool:)`` on ``GroupLaneWeights``: the bordered map (calling thread),
/// then the groups (threads take whole groups), each block of 16 outputs computed into the
/// thread's pixels × 16 scratch and transposed into the output's planes.
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
        let groups = WorkerPool.range(w.groups, part: part, of: pool.threadCount)
        guard !groups.isEmpty else { return }
        let pixels = window.outputHeight * window.outputWidth, outputsPerGroup = w.outputChannels / w.groups
        let bordered = UnsafeRawPointer(c.patches).assumingMemoryBound(to: UInt8.self)
        let results = UnsafeMutableRawPointer(c.patches).assumingMemoryBound(to: UInt8.self) + (map.bytes + 63) / 64 * 64
            + part * pixels * lanes
        let channelsPerGroup = w.inputChannels / w.groups
        weights.bias.withUnsafeBufferPointer { bias in
            weights.multipliers.withUnsafeBufferPointer { multipliers in
                for g in groups {
                    for block in 0..<weights.blocks {
                        let b = g * weights.blocks + block
                        let tile = GroupLaneTile(
                            c, map, input: bordered + g * channelsPerGroup, weights: UnsafePointer(weights.values.baseAddress + b * w.depth * lanes),
                            bias: UnsafeRawPointer(bias.baseAddress! + b * lanes).loadUnaligned(as: IntVector.self),
                            multiplier: UnsafeRawPointer(multipliers.baseAddress! + b * lanes).loadUnaligned(as: Vector.self),
                            results: results)
                        // The pixels spread evenly over the fewest tiles of at most 6.
                        let tiles = (pixels + 5) / 6
                        for t in 0..<tiles {
                            let first = t * pixels / tiles, count = (t + 1) * pixels / tiles - first
                            switch count {
                            case 1: tile.run(first: first, TileRows1.self)
                            case 2: tile.run(first: first, TileRows2.self)
                            case 3: tile.run(first: first, TileRows3.self)
                            case 4: tile.run(first: first, TileRows4.self)
                            case 5: tile.run(first: first, TileRows5.self)
                            default: tile.run(first: first, TileRows6.self)
                            }
                        }
                        let channel = g * outputsPerGroup + block * lanes
                        transposeBytes(results, sourceStride: lanes, rows: pixels, columns: min(lanes, outputsPerGroup - block * lanes),
                                       c.output + channel * pixels, targetStride: pixels)
                    }
                }
            }
        }
    }
}

/// One group's block of 16 outputs: `input` its first channel in the bordered map, `weights`
/// its `depth` vectors, `results` pixels × 16 bytes.
struct GroupLaneTile {
    let input: UnsafePointer<UInt8>, weights: UnsafePointer<Int32>, results: UnsafeMutablePointer<UInt8>
    let bias: IntVector, multiplier: Vector
    let outW: Int, strideH: Int, strideW: Int, dilationH: Int, dilationW: Int, kernelH: Int, kernelW: Int
    let mapWidth: Int, channels: Int, quadsPerTap: Int
    let low: Float, high: Float, zero: Int32, finite: Bool

    init(_ c: QuantizedConvolution, _ map: GroupLaneMap, input: UnsafePointer<UInt8>, weights: UnsafePointer<Int32>,
         bias: IntVector, multiplier: Vector, results: UnsafeMutablePointer<UInt8>) {
        let w = c.weights, window = c.window
        self.input = input; self.weights = weights; self.results = results; self.bias = bias; self.multiplier = multiplier
        outW = window.outputWidth; strideH = window.strideHeight; strideW = window.strideWidth
        dilationH = window.dilationHeight; dilationW = window.dilationWidth; kernelH = w.kernelHeight; kernelW = w.kernelWidth
        mapWidth = map.width; channels = map.channels; quadsPerTap = w.inputChannels / w.groups / 4
        low = Float(c.minimum - c.outputZero); high = Float(c.maximum - c.outputZero); zero = c.outputZero
        finite = w.finiteMultipliers
    }

    /// Pixels `first ..< first + R.count` (raster order).
    @inline(never)
    func run<R: TileRowCount>(first: Int, _: R.Type) {
        let count = R.count
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
        for kh in 0..<kernelH {
            for kw in 0..<kernelW {
                var at = (kh * dilationH * mapWidth + kw * dilationW) * channels
                for _ in 0..<quadsPerTap {
                    let v = wp.loadUnaligned(as: IntVector.self)
                    a0 = vbg_quad_dot_add(a0, quad(p0, at), v)
                    if count > 1 { a1 = vbg_quad_dot_add(a1, quad(p1, at), v) }
                    if count > 2 { a2 = vbg_quad_dot_add(a2, quad(p2, at), v) }
                    if count > 3 { a3 = vbg_quad_dot_add(a3, quad(p3, at), v) }
                    if count > 4 { a4 = vbg_quad_dot_add(a4, quad(p4, at), v) }
                    if count > 5 { a5 = vbg_quad_dot_add(a5, quad(p5, at), v) }
                    wp += 64; at += 4
                }
            }
        }
        @inline(__always) func store(_ acc: IntVector, _ i: Int) {
            let bytes = finite ? vbg_requantize_finite(acc, multiplier, low, high, zero) : vbg_requantize(acc, multiplier, low, high, zero)
            UnsafeMutableRawPointer(results + (first + i) * lanes).storeBytes(of: bytes, as: SIMD16<UInt8>.self)
        }
        store(a0, 0)
        if count > 1 { store(a1, 1) }
        if count > 2 { store(a2, 2) }
        if count > 3 { store(a3, 3) }
        if count > 4 { store(a4, 4) }
        if count > 5 { store(a5, 5) }
    }
}
