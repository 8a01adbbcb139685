import Imaging

// Plain per-pixel references for the imaging ops whose results are exact (the same bytes or
// floats), shared by the imaging tests and the arm64 runner (Tests/Arm64Runner, Embedded Swift:
// no Foundation, no Testing here).

/// OpenCV's INTER_LINEAR recipe for CV_32F written out per value (see ``MaskUpsampler``).
func referenceUpsample(_ src: [Float], _ w: Int, _ h: Int, _ W: Int, _ H: Int) -> [Float] {
    func taps(_ count: Int, _ source: Int) -> [(Int, Float)] {
        let scale = 1.0 / (Double(count) / Double(source))
        return (0..<count).map { d in
            var f = Float((Double(d) + 0.5) * scale - 0.5)
            let s = Int(f.rounded(.down))
            f -= Float(s)
            return (s, f)
        }
    }
    let xs = taps(W, w), ys = taps(H, h)
    func horizontal(_ row: Int, _ x: Int) -> Float {
        var (sx, f) = xs[x]
        if sx < 0 { sx = 0; f = 0 }
        if sx >= w - 1 { return src[row * w + w - 1] }
        let p = src[row * w + sx] * (1 - f)
        let q = src[row * w + sx + 1] * f
        return p + q
    }
    var out = [Float](repeating: 0, count: W * H)
    for y in 0..<H {
        let (sy, f) = ys[y]
        let r0 = min(max(sy, 0), h - 1), r1 = min(max(sy + 1, 0), h - 1)
        for x in 0..<W {
            let p = horizontal(r0, x) * (1 - f)
            let q = horizontal(r1, x) * f
            out[y * W + x] = p + q
        }
    }
    return out
}

/// The resampling written out plainly: per output pixel and channel, the weighted sum over
/// its source rows of the weighted sum over its source columns, in the order ``CoverCrop``
/// documents (rows into a float line first, then columns), rounded half up.
func referenceCoverCrop(_ image: Image, width: Int, height: Int, format: PixelFormat) -> [UInt8] {
    let region = CoverCrop.sourceRegion(sourceWidth: image.width, sourceHeight: image.height, width: width, height: height)
    func taps(_ start: Double, _ length: Double, _ count: Int, _ source: Int) -> [(Int, [Float])] {
        let step = length / Double(count)
        return (0..<count).map { j in
            if step >= 1 {
                let a = start + Double(j) * step, b = min(a + step, Double(source))
                let i0 = max(Int(a.rounded(.down)), 0), i1 = min(Int(b.rounded(.up)), source)
                return (i0, (i0..<max(i1, i0 + 1)).map { i in Float(max(min(b, Double(i + 1)) - max(a, Double(i)), 0) / (b - a)) })
            }
            let c = start + (Double(j) + 0.5) * step - 0.5
            let i0 = Int(c.rounded(.down)), f = Float(c - Double(i0))
            let lo = min(max(i0, 0), source - 1), hi = min(max(i0 + 1, 0), source - 1)
            return lo == hi ? (lo, [1]) : (lo, [1 - f, f])
        }
    }
    let xs = taps(region.x, region.width, width, image.width), ys = taps(region.y, region.height, height, image.height)
    let order = image.format == format ? [0, 1, 2] : [2, 1, 0]
    var out = [UInt8](repeating: 255, count: 4 * width * height)
    for y in 0..<height { for x in 0..<width { for c in 0..<3 {
        var v: Float = 0
        for (kx, wx) in xs[x].1.enumerated() {
            var line: Float = 0
            for (ky, wy) in ys[y].1.enumerated() {
                line += Float(image.bytes[(ys[y].0 + ky) * image.bytesPerRow + 4 * (xs[x].0 + kx) + order[c]]) * wy
            }
            v += line * wx
        }
        out[4 * (y * width + x) + c] = UInt8(min(max(v + 0.5, 0), 255))
    } } }
    return out
}
