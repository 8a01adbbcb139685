/// Copies every plane of `input` into `output` (any layouts on both sides): a Concat writing
/// its inputs into channel slices of a padded buffer, or a change of layout. One `memmove` when
/// both maps are dense, else a vector copy per row. Runs on the calling thread.
/// - Precondition: same channel count, width and height. `output` may be `input` itself; no
///   other overlap.
@inline(never)
package func copyChannels(_ input: FeatureMap, output: FeatureMap) {
    requireSameShape(input, output, "copyChannels")
    if input.layout.isDense && output.layout.isDense {
        if input.base != output.base {
            output.base.update(from: input.base, count: input.channels * input.pixels)
        }
        return
    }
    for c in 0..<input.channels { copyPlane(input, channel: c, output: output, channel: c) }
}

/// ShuffleNet's channel shuffle, the ONNX Reshape [1, g, C/g, H, W] → Transpose (0, 2, 1, 3, 4)
/// → Reshape [1, C, H, W]: output channel `c` is input channel `(c % groups)·(C / groups) + c / groups`.
/// Any layouts on both sides; runs on the calling thread.
/// - Precondition: `groups ≥ 1` divides the channel count; same channel count, width and
///   height. `output` must not overlap `input`.
@inline(never)
package func shuffleChannels(_ input: FeatureMap, groups: Int, output: FeatureMap) {
    requireSameShape(input, output, "shuffleChannels")
    precondition(groups >= 1 && input.channels % groups == 0, "shuffleChannels: \(groups) groups do not divide \(input.channels) channels")
    let perGroup = input.channels / groups
    for c in 0..<input.channels {
        copyPlane(input, channel: (c % groups) * perGroup + c / groups, output: output, channel: c)
    }
}

/// Plane `source` of `input` into plane `destination` of `output`.
@inline(always)
func copyPlane(_ input: FeatureMap, channel source: Int, output: FeatureMap, channel destination: Int) {
    let from = UnsafePointer(input.plane(source)), to = output.plane(destination)
    if input.layout.isDense && output.layout.isDense {
        to.update(from: from, count: input.pixels)
        return
    }
    if from == UnsafePointer(to) && input.layout.rowStride == output.layout.rowStride { return }
    let w = input.layout.width
    for y in 0..<input.layout.height {
        copyRow(from + y * input.layout.rowStride, to + y * output.layout.rowStride, count: w)
    }
}

/// `count` floats by vectors, inline: rows of a padded map are short (tens to hundreds of
/// floats), so a `memmove` call per row is mostly call overhead. The last part-vector is one
/// masked load and store with AVX-512.
@inline(always)
func copyRow(_ from: UnsafePointer<Float>, _ to: UnsafeMutablePointer<Float>, count: Int) {
    var x = 0
    while x + lanes <= count {
        store(load(from + x), to + x)
        x += lanes
    }
    if x < count {
        if wideRegisterFile {
            store(load(from + x, count: count - x), to + x, count: count - x)
        } else {
            while x < count {
                to[x] = from[x]
                x += 1
            }
        }
    }
}

/// Every `stride`-th row and column of each plane of `input`, from pixel (0, 0): `output[c][y][x]
/// = input[c][y·stride][x·stride]` (a 1x1 convolution's strided reads, gathered for a GEMM over
/// the pixels it reads). Any layouts on both sides; runs on the calling thread.
/// - Precondition: the same channel count; `stride ≥ 1`; the output's rows and columns read
///   input pixels (`(height − 1)·stride < input height`, likewise the width). `output` must not
///   overlap `input`.
@inline(never)
package func subsampleChannels(_ input: FeatureMap, stride: Int, output: FeatureMap) {
    precondition(input.channels == output.channels, "subsampleChannels: channel count differs")
    precondition(stride >= 1 && (output.layout.height - 1) * stride < input.layout.height
                 && (output.layout.width - 1) * stride < input.layout.width, "subsampleChannels: rows or columns past the input")
    let width = output.layout.width
    for c in 0..<input.channels {
        let from = UnsafePointer(input.plane(c)), to = output.plane(c)
        for y in 0..<output.layout.height {
            let source = from + y * stride * input.layout.rowStride, destination = to + y * output.layout.rowStride
            var x = 0
            if stride == 2 {
                // 16 outputs from 32 inputs while those stay within the row.
                while x + lanes <= width && 2 * (x + lanes) <= input.layout.width {
                    store(loadEven(source + 2 * x), destination + x)
                    x += lanes
                }
            }
            while x < width {
                destination[x] = source[x * stride]
                x += 1
            }
        }
    }
}
