import TargetFeatures

// The depthwise QLinearConv on small maps with 16 channels to a vector, on bytes: the input of 16
// channels as a bordered plane of positions × 16 bytes (its byte transpose), so that the 64 bytes
// at a position are four neighbouring taps of a kernel row for all 16 channels; one `vpermb`
// (`vbg_channel_quads`) makes each channel's four taps one 32-bit lane and one `vpdpbusd`
// (`vbg_quad_dot_add`) adds their products with the channel's four weight bytes. A 3x3 kernel
// is three of each per output position and 16 channels, its three weight vectors held in
// registers; the result is requantized per position and the positions × 16 bytes transposed
// back to the channels' planes.
//
// The integers are those of ``quantizedDepthwise`` (bias + Σ patch value · weight, modulo 2^32;
// a kernel row's fourth tap past its end has weight 0), like ``byteDepthwise``'s.

/// Whether a depthwise convolution of these weights and window runs ``channelByteDepthwise``:
/// weights on bytes (``QuantizedConvolutionWeights/depthwiseQuads``), the byte transpose and
/// gather in one instruction each (AVX512-VBMI, BW and VL), taps of a kernel row on neighbouring
/// columns (dilation 1 along the rows), and outputs at most `maximumWidth` wide.
func runsChannelBytes(_ window: QuantizedWindow, _ weights: QuantizedConvolutionWeights) -> Bool {
    byteGatherIsFast && VBG_TARGET_AVX512VL != 0 && weights.depthwiseQuads != nil && window.dilationWidth == 1
        && window.outputWidth <= channelByteMaximumWidth
}

/// The widest output rows ``channelByteDepthwise`` takes.
let channelByteMaximumWidth = 64

/// Channels 16 · block ..< 16 · block + 16 (the valid ones) of the depthwise convolution `c` on
/// the plane of ``QuantizedDepthwisePlane/channelBytes``: `plane` (its bytes, then the output's
/// positions × 16 bytes) is the part's scratch.
@inline(never)
func channelByteDepthwise(_ c: QuantizedConvolution, block: Int, _ geometry: QuantizedDepthwisePlane,
                          _ plane: UnsafeMutablePointer<UInt8>) {
    let w = c.weights, window = c.window, vectors = w.depthwiseVectors!, quads = w.depthwiseQuadVectors!
    let first = block * lanes, valid = min(lanes, w.outputChannels - first)
    let (inH, inW, width) = (window.inputHeight, window.inputWidth, geometry.width)
    let (kH, sH, sW, dH) = (w.kernelHeight, window.strideHeight, window.strideWidth, window.dilationHeight)
    let (outH, outW) = (window.outputHeight, window.outputWidth), perRow = w.quadsPerRow
    let flip: UInt8 = w.inputSigned ? 0x80 : 0
    // The border and the lanes past `valid` hold the padding byte; the inside the input, made unsigned.
    plane.update(repeating: UInt8(truncatingIfNeeded: c.paddingValue), count: geometry.height * width * lanes)
    let source = c.input.assumingMemoryBound(to: UInt8.self) + first * inH * inW
    for ih in 0..<inH {
        transposeBytes(source + ih * inW, sourceStride: inH * inW, rows: valid, columns: inW,
                       plane + ((ih + window.padTop) * width + window.padLeft) * lanes, targetStride: lanes, flip: flip)
    }
    let outputBytes = plane + geometry.planeCount * 4
    let low = Float(c.minimum - c.outputZero), high = Float(c.maximum - c.outputZero), finite = w.finiteMultipliers
    let sums = c.sums?.advanced(channels: 0, elements: 0, rowStride: 1, columnStride: outH * outW)
    let bias = vectors.bias.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress! + first).loadUnaligned(as: IntVector.self) }
    let multiplier = vectors.multipliers.withUnsafeBufferPointer {
        UnsafeRawPointer($0.baseAddress! + first).loadUnaligned(as: Vector.self)
    }
    let taps = kH * perRow, rowStep = dH * width * lanes
    quads.withUnsafeBufferPointer { buffer in
        let weights = UnsafeRawPointer(buffer.baseAddress! + block * taps * lanes)
        @inline(__always) func weight(_ t: Int) -> IntVector { weights.loadUnaligned(fromByteOffset: 64 * t, as: IntVector.self) }
        @inline(__always) func finish(_ acc: IntVector, _ position: Int) {
            if let sums {
                sums.store(acc, row: position, column: first, count: valid, channel: first, lanesAreChannels: true)
                return
            }
            let bytes = finite ? vbg_requantize_finite(acc, multiplier, low, high, c.outputZero)
                : vbg_requantize(acc, multiplier, low, high, c.outputZero)
            UnsafeMutableRawPointer(outputBytes + position * lanes).storeBytes(of: bytes, as: SIMD16<UInt8>.self)
        }
        if kH == 3 && perRow == 1 {
            // Three kernel rows of at most four taps (3x3): the weights stay in registers.
            let w0 = weight(0), w1 = weight(1), w2 = weight(2)
            for oh in 0..<outH {
                var p = plane + oh * sH * width * lanes
                for ow in 0..<outW {
                    var acc = vbg_quad_dot_add(bias, vbg_channel_quads(p), w0)
                    acc = vbg_quad_dot_add(acc, vbg_channel_quads(p + rowStep), w1)
                    acc = vbg_quad_dot_add(acc, vbg_channel_quads(p + 2 * rowStep), w2)
                    finish(acc, oh * outW + ow)
                    p += sW * lanes
                }
            }
        } else {
            for oh in 0..<outH {
                for ow in 0..<outW {
                    let p = plane + (oh * sH * width + ow * sW) * lanes
                    var acc = bias
                    for kh in 0..<kH {
                        for q in 0..<perRow {
                            acc = vbg_quad_dot_add(acc, vbg_channel_quads(p + kh * rowStep + 4 * q * lanes), weight(kh * perRow + q))
                        }
                    }
                    finish(acc, oh * outW + ow)
                }
            }
        }
    }
    guard sums == nil else { return }
    transposeBytes(outputBytes, sourceStride: lanes, rows: outH * outW, columns: valid, c.output + first * outH * outW,
                   targetStride: outH * outW)
}
