/// Fits a replacement picture to a frame the way CSS `object-fit: cover` does: scaled uniformly
/// so it covers the whole frame, centred, the overflow cropped. Never stretched.
///
/// Resampling is separable. Where the picture shrinks (the usual case: a photo larger than the
/// frame) each output pixel is the exact **area average** of the source pixels it covers
/// (fractional coverage at its borders), so fine detail does not alias; where it grows, bilinear
/// with half-pixel centres and clamped edges. Results are rounded to the nearest 8-bit value;
/// alpha is 255.
package enum CoverCrop {
    /// The source rectangle (in source pixels, fractional) that ends up on the frame.
    package static func sourceRegion(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int)
        -> (x: Double, y: Double, width: Double, height: Double)
    {
        let scale = max(Double(width) / Double(sourceWidth), Double(height) / Double(sourceHeight))
        let w = min(Double(width) / scale, Double(sourceWidth))
        let h = min(Double(height) / scale, Double(sourceHeight))
        return ((Double(sourceWidth) - w) / 2, (Double(sourceHeight) - h) / 2, w, h)
    }

    /// `image` scaled to cover `width x height` and centre-cropped, in `format`.
    ///
    /// - Precondition: `width > 0`, `height > 0`.
    package static func fit(_ image: Image, width: Int, height: Int, format: PixelFormat) -> Image {
        precondition(width > 0 && height > 0, "size must be positive")
        let region = sourceRegion(sourceWidth: image.width, sourceHeight: image.height, width: width, height: height)
        let columns = AxisWeights(start: region.x, length: region.width, count: width, sourceCount: image.width)
        let rows = AxisWeights(start: region.y, length: region.height, count: height, sourceCount: image.height)
        var out = [UInt8](repeating: 255, count: 4 * width * height)
        let swap = image.format != format
        var line = [Float](repeating: 0, count: 4 * image.width)
        var values = [SIMD4<Float>](repeating: .zero, count: width)
        image.bytes.withUnsafeBufferPointer { src in
            line.withUnsafeMutableBufferPointer { line in
                values.withUnsafeMutableBufferPointer { values in
                    out.withUnsafeMutableBufferPointer { dst in
                        for y in 0..<height {
                            // Vertical: weighted sum of the source rows into one float line.
                            for i in 0..<line.count { line[i] = 0 }
                            for k in 0..<rows.count[y] {
                                let weight = rows.weights[rows.offset[y] + k]
                                let row = src.baseAddress! + (rows.first[y] + k) * image.bytesPerRow
                                for i in 0..<line.count { line[i] += Float(row[i]) * weight }
                            }
                            // Horizontal: weighted sum of the line's pixels, four channels at once.
                            horizontalSum(line.baseAddress!, columns: columns, swap: swap, into: values.baseAddress!)
                            toBytes(values.baseAddress!, count: width, into: dst.baseAddress! + 4 * width * y)
                        }
                    }
                }
            }
        }
        return Image(width: width, height: height, format: format, bytes: out)
    }

    /// `values[x]` = `Σ_k line[first + k] · w_k` over the taps of output pixel `x`, in tap order
    /// (the first term is the product itself: `0 + a = a`), channels in the output's order.
    private static func horizontalSum(_ line: UnsafePointer<Float>, columns: AxisWeights, swap: Bool,
                                      into values: UnsafeMutablePointer<SIMD4<Float>>) {
        let pixels = UnsafeRawPointer(line)
        columns.weights.withUnsafeBufferPointer { weights in
            columns.first.withUnsafeBufferPointer { first in
                columns.offset.withUnsafeBufferPointer { offset in
                    columns.count.withUnsafeBufferPointer { count in
                        let w = weights.baseAddress!
                        for x in 0..<first.count {
                            let p = pixels + 16 &* first[x], wx = w + offset[x]
                            var v = p.loadUnaligned(as: SIMD4<Float>.self) * wx[0]
                            var k = 1
                            while k < count[x] {
                                v += p.loadUnaligned(fromByteOffset: 16 &* k, as: SIMD4<Float>.self) * wx[k]
                                k &+= 1
                            }
                            values[x] = swap ? SIMD4(v[2], v[1], v[0], v[3]) : v
                        }
                    }
                }
            }
        }
    }

    /// Each value `v` becomes the byte `UInt8(clamp(v + 0.5, 0, 255))` (a truncation, so
    /// `floor(v + 0.5)`: round half up); alpha 255. Sixteen lanes at a time: the floor is the
    /// nearest integer (2²³ trick), one less where that is above the value, exact for these
    /// magnitudes.
    private static func toBytes(_ values: UnsafePointer<SIMD4<Float>>, count: Int, into o: UnsafeMutablePointer<UInt8>) {
        let floats = UnsafeRawPointer(values)
        let opaque = SIMD4<UInt32>(repeating: 0xFF00_0000)
        var x = 0
        while x + 4 <= count {
            var c = floats.loadUnaligned(fromByteOffset: 16 * x, as: SIMD16<Float>.self) + 0.5
            c = c.replacing(with: 0, where: c .< 0)
            c = c.replacing(with: 255, where: c .> 255)
            let nearest = FastConvert.roundedToInteger(c)
            let floor = nearest - SIMD16<Float>(repeating: 0).replacing(with: 1, where: nearest .> c)
            let bytes = FastConvert.lowBytes(FastConvert.roundedInt32(floor))
            UnsafeMutableRawPointer(o + 4 * x).storeBytes(of: unsafeBitCast(bytes, to: SIMD4<UInt32>.self) | opaque,
                                                         as: SIMD4<UInt32>.self)
            x += 4
        }
        while x < count {
            let v = values[x]
            for c in 0..<3 { o[4 * x + c] = UInt8(min(max(v[c] + 0.5, 0), 255)) }
            o[4 * x + 3] = 255
            x += 1
        }
    }

    /// Per output index `j` along one axis: the first source index `first[j]` and the weights of
    /// `count[j]` consecutive source pixels (summing to 1), stored flat from `offset[j]`.
    struct AxisWeights {
        var first: [Int] = []
        var count: [Int] = []
        var offset: [Int] = []
        var weights: [Float] = []

        init(start: Double, length: Double, count outputs: Int, sourceCount: Int) {
            func append(_ i0: Int, _ w: [Float]) {
                first.append(i0); count.append(w.count); offset.append(weights.count); weights += w
            }
            let step = length / Double(outputs)
            for j in 0..<outputs {
                if step >= 1 {
                    // Area: overlap of [a, b) with each source pixel [i, i + 1).
                    let a = start + Double(j) * step, b = min(a + step, Double(sourceCount))
                    let i0 = max(Int(a.rounded(.down)), 0), i1 = min(Int(b.rounded(.up)), sourceCount)
                    append(i0, (i0..<max(i1, i0 + 1)).map { i in
                        Float(max(min(b, Double(i + 1)) - max(a, Double(i)), 0) / (b - a))
                    })
                } else {
                    // Bilinear at the output pixel's centre.
                    let c = start + (Double(j) + 0.5) * step - 0.5
                    let i0 = Int(c.rounded(.down)), f = Float(c - Double(i0))
                    let lo = min(max(i0, 0), sourceCount - 1), hi = min(max(i0 + 1, 0), sourceCount - 1)
                    append(lo, lo == hi ? [1] : [1 - f, f])
                }
            }
        }
    }
}

/// A replacement background picture with its frame-fitted version cached: fitted on the first
/// frame of a size and pixel format, then returned as is while frames keep that size (an `Image`
/// shares its storage, so no copy). Only the latest size is kept; a size change refits.
///
/// The cache is keyed by this object's identity (one `ReplacementBackground` per picture) and the
/// frame size. Not `Sendable`: use it from the stream that owns it.
package final class ReplacementBackground {
    /// The picture as loaded.
    package let picture: Image
    private var fitted: Image?

    package init(_ picture: Image) { self.picture = picture }

    /// The picture covering `width x height` in `format` (see ``CoverCrop``); computed when the
    /// size or format differs from the previous call's, cached otherwise.
    package func covering(width: Int, height: Int, format: PixelFormat) -> Image {
        if let fitted, fitted.width == width, fitted.height == height, fitted.format == format { return fitted }
        let result = CoverCrop.fit(picture, width: width, height: height, format: format)
        fitted = result
        return result
    }
}
