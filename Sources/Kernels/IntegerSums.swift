// What the quantized products write in place of requantized bytes for the dynamic form
// (ConvInteger, MatMulInteger, and the Cast → Mul → Add → activation that onnxruntime's
// `quantize_dynamic` writes after them): the int32 sums, or their float32 epilogue.
//
// The activations' zero point is known only at run time (DynamicQuantizeLinear computes it), while
// the weights were packed for some zero point `z0` (their bias carries −(z0 − offset) · Σ_k w[c][k]
// when the product runs on bytes, ``QuantizedConvolutionWeights``). The sums for zero point `z`
// are then the kernel's sums minus (z − z0) · Σ_k w[c][k], one int32 per channel: the same
// integers, modulo 2^32, as Σ (x − z) · w. On 16-bit pairs the patches are shifted by `z` itself
// and nothing is corrected.
//
// The float epilogue is the graph's own arithmetic, in its order: Float(sum) (the Cast), times
// the scale (the Mul, by x_scale · w_scale as the graph computed it), plus the bias (the Add),
// then the activation; each a float32 operation rounded on its own, so the outputs equal the
// reference kernels'.

import TargetFeatures

/// Where and how a product writes its sums for channel `c` (each pointer indexed by channel; a
/// scale or bias that is one value is read at index 0 for every channel).
package struct IntegerSumsOutput {
    /// Int32 elements, or float32 with `scales`.
    package var output: UnsafeMutableRawPointer
    /// Σ_k of each channel's (shifted) weights, and the zero point's change since packing.
    package var weightSums: UnsafePointer<Int32>, zeroShift: Int32
    /// Nil: the int32 sums. Else Float(sum) · (scale · scaleFactor) (+ bias), then `activation`
    /// (the factor 1 unless the graph's scale is a product the step computes).
    package var scales: UnsafePointer<Float>?, scalePerChannel: Bool, scaleFactor: Float
    package var bias: UnsafePointer<Float>?, biasPerChannel: Bool
    package var activation: Activation
    /// Elements between the outputs of consecutive rows and columns of the product (set by the
    /// kernel for the layout it runs).
    var rowStride = 0, columnStride = 1

    package init(output: UnsafeMutableRawPointer, weightSums: UnsafePointer<Int32>, zeroShift: Int32 = 0,
                 scales: UnsafePointer<Float>?, scalePerChannel: Bool, scaleFactor: Float = 1, bias: UnsafePointer<Float>?,
                 biasPerChannel: Bool, activation: Activation) {
        self.output = output; self.weightSums = weightSums; self.zeroShift = zeroShift
        self.scales = scales; self.scalePerChannel = scalePerChannel; self.scaleFactor = scaleFactor
        self.bias = bias; self.biasPerChannel = biasPerChannel; self.activation = activation
    }

    /// The same output from channel `channels` on, its elements from `elements` on, with the
    /// given strides.
    func advanced(channels: Int, elements: Int, rowStride: Int, columnStride: Int) -> IntegerSumsOutput {
        var copy = self
        copy.output += 4 * elements
        copy.weightSums += channels
        if scalePerChannel { copy.scales = scales.map { $0 + channels } }
        if biasPerChannel { copy.bias = bias.map { $0 + channels } }
        copy.rowStride = rowStride; copy.columnStride = columnStride
        return copy
    }

    /// Stores `count` lanes of sums at row `row`, columns `column...`: the lanes are the channels
    /// `channel...` when `lanesAreChannels`, else all channel `channel`.
    ///
    /// Out of line: inlined into `requantizeRow`, swift-frontend 6.3.1 crashes emitting its IR
    /// (a null shuffle mask in `IRBuilder::CreateShuffleVector`). One call per 16 outputs.
    @inline(never)
    func store(_ sums: IntVector, row: Int, column: Int, count: Int, channel: Int, lanesAreChannels: Bool) {
        var values = sums
        if zeroShift != 0 {
            values &-= IntVector(repeating: zeroShift) &* channelIntegers(weightSums, channel, count, lanesAreChannels)
        }
        if let scales {
            let scale = scalePerChannel ? channelFloats(scales, channel, count, lanesAreChannels) : Vector(repeating: scales[0])
            var floats = vbg_scale_sums(values, scale * Vector(repeating: scaleFactor))
            if let bias { floats = floats + (biasPerChannel ? channelFloats(bias, channel, count, lanesAreChannels) : Vector(repeating: bias[0])) }
            values = unsafeBitCast(activation.apply(floats), to: IntVector.self)
        }
        let out = output.assumingMemoryBound(to: Int32.self) + row * rowStride + column * columnStride
        if columnStride == 1 && count == lanes {
            UnsafeMutableRawPointer(out).storeBytes(of: values, as: IntVector.self)
        } else {
            for lane in 0..<count { out[lane * columnStride] = values[lane] }
        }
    }
}

/// `p[channel]` in every lane, or `p[channel + lane]` in the first `count` lanes when `lanesAreChannels`.
@inline(__always)
private func channelIntegers(_ p: UnsafePointer<Int32>, _ channel: Int, _ count: Int, _ lanesAreChannels: Bool) -> IntVector {
    guard lanesAreChannels else { return IntVector(repeating: p[channel]) }
    if count == lanes { return UnsafeRawPointer(p + channel).loadUnaligned(as: IntVector.self) }
    var v = IntVector(repeating: 0)
    for lane in 0..<count { v[lane] = p[channel + lane] }
    return v
}

/// ``channelIntegers(_:_:_:_:)`` of floats.
@inline(__always)
private func channelFloats(_ p: UnsafePointer<Float>, _ channel: Int, _ count: Int, _ lanesAreChannels: Bool) -> Vector {
    guard lanesAreChannels else { return Vector(repeating: p[channel]) }
    if count == lanes { return UnsafeRawPointer(p + channel).loadUnaligned(as: Vector.self) }
    return partialMultipliers(p + channel, count)
}
