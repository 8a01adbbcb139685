// Element-wise kernels over `count` consecutive floats (dense tensors, or the whole storage of
// a layout). In-place use (output == an input) is allowed.

/// `output = a + b`.
@inline(never)
public func add(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int) {
    var i = 0
    while i < count {
        let n = min(lanes, count - i)
        store(load(a + i, count: n) + load(b + i, count: n), output + i, count: n)
        i += lanes
    }
}

/// `output = a · b`.
@inline(never)
public func multiply(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int) {
    var i = 0
    while i < count {
        let n = min(lanes, count - i)
        store(load(a + i, count: n) * load(b + i, count: n), output + i, count: n)
        i += lanes
    }
}

/// `output = activation(input)`.
@inline(never)
public func activate(_ input: UnsafePointer<Float>, activation: Activation, output: UnsafeMutablePointer<Float>, count: Int) {
    var i = 0
    while i < count {
        let n = min(lanes, count - i)
        store(activation.apply(load(input + i, count: n)), output + i, count: n)
        i += lanes
    }
}

/// `output = 1 / (1 + e^−input)`, accurate to a few ulp, exactly 0 / 1 when saturated.
@inline(never)
public func sigmoid(_ input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int) {
    var i = 0
    while i < count {
        let n = min(lanes, count - i)
        store(sigmoidVector(load(input + i, count: n)), output + i, count: n)
        i += lanes
    }
}

/// `output[c] = input[c] · scale[c]` over the interiors of `channels` planes (a per-channel
/// broadcast multiply, as the squeeze-and-excite gate applies). `output` may be `input`.
public func multiplyChannels(_ input: FeatureMap, scale: UnsafePointer<Float>, output: FeatureMap) {
    precondition(input.channels == output.channels && input.layout.width == output.layout.width
                 && input.layout.height == output.layout.height, "channel multiply shape mismatch")
    for c in 0..<input.channels {
        scaleRows(input, channel: c, scale: scale[c], output: output)
    }
}

@inline(always)
func scaleRows(_ input: FeatureMap, channel c: Int, scale: Float, output: FeatureMap) {
    let w = input.layout.width
    if input.layout.isDense && output.layout.isDense {
        let src = UnsafePointer(input.plane(c)), dst = output.plane(c)
        let count = input.pixels
        var i = 0
        while i < count {
            let n = min(lanes, count - i)
            store(load(src + i, count: n) * scale, dst + i, count: n)
            i += lanes
        }
        return
    }
    for y in 0..<input.layout.height {
        let src = UnsafePointer(input.plane(c) + y * input.layout.rowStride)
        let dst = output.plane(c) + y * output.layout.rowStride
        var x = 0
        while x < w {
            let n = min(lanes, w - x)
            store(load(src + x, count: n) * scale, dst + x, count: n)
            x += lanes
        }
    }
}
