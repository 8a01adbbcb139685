/// Fits a replacement picture to a frame the way CSS `object-fit: cover` does: scaled uniformly
/// so it covers the whole frame, centred, the overflow cropped. Never stretched.
///
/// Resampling is separable. Where the picture shrinks (the usual case: a photo larger than the
/// frame) each output pixel is the exact **area average** of the source pixels it covers
/// (fractional coverage at its borders), so fine detail does not alias; where it grows, bilinear
/// with half-pixel centres and clamped edges. Results are rounded to the nearest 8-bit value;
/// alpha is 255.
public enum CoverCrop {
    /// The source rectangle (in source pixels, fractional) that ends up on the frame.
    public static func sourceRegion(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int)
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
    public static func fit(_ image: Image, width: Int, height: Int, format: PixelFormat) -> Image {
        precondition(width > 0 && height > 0, "size must be positive")
        let region = sourceRegion(sourceWidth: image.width, sourceHeight: image.height, width: width, height: height)
        let columns = AxisWeights(start: region.x, length: region.width, count: width, sourceCount: image.width)
        let rows = AxisWeights(start: region.y, length: region.height, count: height, sourceCount: image.height)
        var out = [UInt8](repeating: 255, count: 4 * width * height)
        let swap = image.format != format
        var line = [Float](repeating: 0, count: 4 * image.width)
        image.bytes.withUnsafeBufferPointer { src in
            line.withUnsafeMutableBufferPointer { line in
                out.withUnsafeMutableBufferPointer { dst in
                    for y in 0..<height {
                        // Vertical: weighted sum of the source rows into one float line.
                        for i in 0..<line.count { line[i] = 0 }
                        for (k, weight) in rows.weights[y].enumerated() {
                            let row = src.baseAddress! + (rows.first[y] + k) * image.bytesPerRow
                            for i in 0..<4 * image.width { line[i] += Float(row[i]) * weight }
                        }
                        // Horizontal: weighted sum of the line's pixels.
                        let o = dst.baseAddress! + 4 * width * y
                        for x in 0..<width {
                            var r: Float = 0, g: Float = 0, b: Float = 0
                            for (k, weight) in columns.weights[x].enumerated() {
                                let p = 4 * (columns.first[x] + k)
                                r += line[p] * weight; g += line[p + 1] * weight; b += line[p + 2] * weight
                            }
                            func byte(_ v: Float) -> UInt8 { UInt8(min(max(v + 0.5, 0), 255)) }
                            o[4 * x] = byte(swap ? b : r)
                            o[4 * x + 1] = byte(g)
                            o[4 * x + 2] = byte(swap ? r : b)
                        }
                    }
                }
            }
        }
        return Image(width: width, height: height, format: format, bytes: out)
    }

    /// Per output index along one axis: the first source index and the weights of consecutive
    /// source pixels (summing to 1).
    struct AxisWeights {
        var first: [Int] = []
        var weights: [[Float]] = []

        init(start: Double, length: Double, count: Int, sourceCount: Int) {
            let step = length / Double(count)
            for j in 0..<count {
                if step >= 1 {
                    // Area: overlap of [a, b) with each source pixel [i, i + 1).
                    let a = start + Double(j) * step, b = min(a + step, Double(sourceCount))
                    let i0 = max(Int(a.rounded(.down)), 0), i1 = min(Int(b.rounded(.up)), sourceCount)
                    var w: [Float] = []
                    for i in i0..<max(i1, i0 + 1) {
                        let overlap = min(b, Double(i + 1)) - max(a, Double(i))
                        w.append(Float(max(overlap, 0) / (b - a)))
                    }
                    first.append(i0); weights.append(w)
                } else {
                    // Bilinear at the output pixel's centre.
                    let c = start + (Double(j) + 0.5) * step - 0.5
                    let i0 = Int(c.rounded(.down)), f = Float(c - Double(i0))
                    let lo = min(max(i0, 0), sourceCount - 1), hi = min(max(i0 + 1, 0), sourceCount - 1)
                    if lo == hi { first.append(lo); weights.append([1]) } else { first.append(lo); weights.append([1 - f, f]) }
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
public final class ReplacementBackground {
    /// The picture as loaded.
    public let picture: Image
    private var fitted: Image?

    public init(_ picture: Image) { self.picture = picture }

    /// The picture covering `width x height` in `format` (see ``CoverCrop``); computed when the
    /// size or format differs from the previous call's, cached otherwise.
    public func covering(width: Int, height: Int, format: PixelFormat) -> Image {
        if let fitted, fitted.width == width, fitted.height == height, fitted.format == format { return fitted }
        let result = CoverCrop.fit(picture, width: width, height: height, format: format)
        fitted = result
        return result
    }
}
