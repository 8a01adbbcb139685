import CMath

/// The per-axis arithmetic of `Resize` and `Upsample`, as onnxruntime computes it (in float):
/// where each output index lands in the input (the coordinate transformation), and which input
/// indices it reads with which weights (the mode).
enum ResizeGeometry {
    /// How the nearest mode rounds a source coordinate: the four `nearest_mode` values, and
    /// `simple` (Upsample and Resize-10: truncation, or ceil on an axis that shrinks).
    enum Rounding: String, Sendable { case roundPreferFloor = "round_prefer_floor", roundPreferCeil = "round_prefer_ceil", floor, ceil, simple }

    /// One axis: lengths, scale (output / input, or the given scale) and the region of interest
    /// (`tf_crop_and_resize` only, as fractions of the input).
    struct Axis: Sendable {
        var input: Int, output: Int, scale: Float
        var roiStart: Float = 0, roiEnd: Float = 1

        /// The input coordinate of output `index` (`coordinate_transformation_mode`), held within ±2^24 (an roi of any size gives
        /// taps far outside the input, which clamp to its edges or read the extrapolation value,
        /// and never overflow an `Int`); a non-finite one reads as −1, outside.
        func source(_ index: Int, transform: String) -> Float {
            let x = unclampedSource(index, transform: transform)
            guard x.isFinite else { return -1 }
            return min(max(x, -0x1p24), 0x1p24)
        }

        private func unclampedSource(_ index: Int, transform: String) -> Float {
            let x = Float(index), s = scale, length = Float(input), resized = Float(output)
            switch transform {
            case "align_corners": return output == 1 ? 0 : x * (length - 1) / (resized - 1)
            case "asymmetric": return x / s
            case "pytorch_half_pixel": return output > 1 ? (x + 0.5) / s - 0.5 : 0
            case "half_pixel_symmetric":
                let adjustment = resized / (s * length)
                return length / 2 * (1 - adjustment) + (x + 0.5) / s - 0.5
            case "tf_crop_and_resize":
                return output > 1 ? roiStart * (length - 1) + x * (roiEnd - roiStart) * (length - 1) / (resized - 1)
                                  : 0.5 * (roiStart + roiEnd) * (length - 1)
            default: return (x + 0.5) / s - 0.5
            }
        }
    }

    /// For each output index, `count` input indices with their weights (index −1 at tap 0: the
    /// coordinate is outside the input and the output takes the extrapolation value).
    struct Taps: Sendable {
        var count: Int
        var index: [Int] = []
        var weight: [Float] = []

        /// The identity along an axis that is not resized.
        static func identity(_ length: Int) -> Taps { Taps(count: 1, index: Array(0..<length), weight: Array(repeating: 1, count: length)) }
    }

    /// The resampling rule applied along every resized axis.
    struct Mode: Sendable {
        enum Kind: Sendable { case nearest(Rounding), linear, cubic(a: Float) }
        var kind: Kind
        var transform: String
        var excludeOutside = false
        var antialias = false
    }

    static func round(_ x: Float, _ rounding: Rounding, shrinking: Bool) -> Float {
        switch rounding {
        case .floor: return x.rounded(.down)
        case .ceil: return x.rounded(.up)
        case .simple: return shrinking ? x.rounded(.up) : x.rounded(.towardZero)
        case .roundPreferCeil: return x - x.rounded(.down) == 0.5 ? x.rounded(.up) : x.rounded(.toNearestOrAwayFromZero)
        case .roundPreferFloor: return x - x.rounded(.down) == 0.5 ? x.rounded(.down) : x.rounded(.toNearestOrAwayFromZero)
        }
    }

    /// The taps of `axis` under `mode`.
    static func taps(_ axis: Axis, _ mode: Mode) -> Taps {
        let last = axis.input - 1
        let crops = mode.transform == "tf_crop_and_resize"
        var taps: Taps
        switch mode.kind {
        case let .nearest(rounding):
            taps = Taps(count: 1)
            for o in 0..<axis.output {
                let x = axis.source(o, transform: mode.transform)
                let outside = crops && (x < 0 || x > Float(last))
                taps.index.append(outside ? -1 : Int(min(max(round(x, rounding, shrinking: axis.scale < 1), 0), Float(last))))
                taps.weight.append(1)
            }
        case _ where mode.antialias:
            taps = antialiased(axis, mode)
        case .linear:
            taps = Taps(count: 2)
            for o in 0..<axis.output {
                var x = axis.source(o, transform: mode.transform)
                let outside = crops && (x < 0 || x > Float(last))
                x = min(max(x, 0), Float(last))
                let low = Int(x)
                let weight = x - Float(low)
                taps.index += [outside ? -1 : low, min(low + 1, last)]
                taps.weight += [1 - weight, weight]
            }
        case let .cubic(a):
            taps = Taps(count: 4)
            for o in 0..<axis.output {
                let x = axis.source(o, transform: mode.transform)
                let outside = crops && (x < 0 || x > Float(last))
                let base = Int(x.rounded(.down)), s = x - Float(base)
                var weights = [((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a,
                               ((a + 2) * s - (a + 3)) * s * s + 1,
                               ((a + 2) * (1 - s) - (a + 3)) * (1 - s) * (1 - s) + 1,
                               ((a * (2 - s) - 5 * a) * (2 - s) + 8 * a) * (2 - s) - 4 * a]
                let indices = (0..<4).map { base - 1 + $0 }
                if mode.excludeOutside {
                    for t in 0..<4 where indices[t] < 0 || indices[t] > last { weights[t] = 0 }
                    let total = weights.reduce(0, +)
                    weights = weights.map { total != 0 ? $0 / total : 0 }
                }
                taps.index += indices.map { min(max($0, 0), last) }
                if outside { taps.index[taps.index.count - 4] = -1 }
                taps.weight += weights
            }
        }
        return taps
    }

    /// onnxruntime's antialiasing filter: on a shrinking axis the linear or cubic kernel is
    /// stretched by 1/scale (support 1 or 2 input pixels times 1/scale), its weights normalised;
    /// taps past the ends read the edge pixel, or are dropped with `exclude_outside`. (The
    /// builders refuse antialiasing with `tf_crop_and_resize`.)
    private static func antialiased(_ axis: Axis, _ mode: Mode) -> Taps {
        let a: Float, supportSize: Float
        if case let .cubic(coefficient) = mode.kind { (a, supportSize) = (coefficient, 4) } else { (a, supportSize) = (0, 2) }
        func filter(_ value: Float) -> Float {
            let x = abs(value)
            if supportSize == 2 { return x < 1 ? 1 - x : 0 }
            if x < 1 { return ((a + 2) * x - (a + 3)) * x * x + 1 }
            if x < 2 { return (((x - 5) * x + 8) * x - 4) * a }
            return 0
        }
        let inverse = 1 / axis.scale
        let support = inverse >= 1 ? supportSize * 0.5 * inverse : supportSize * 0.5
        let stretch = inverse >= 1 ? 1 / inverse : 1
        var rows: [(index: [Int], weight: [Float])] = []
        for o in 0..<axis.output {
            let center = 0.5 + (inverse == 1 ? Float(o) : axis.source(o, transform: mode.transform))
            let first = Int((center - support + 0.5).rounded(.down)), end = Int((center + support + 0.5).rounded(.down))
            var index: [Int] = [], weight: [Float] = []
            for x in first..<max(first, end) {
                if mode.excludeOutside && (x < 0 || x >= axis.input) { continue }
                index.append(min(max(x, 0), axis.input - 1))
                weight.append(filter((Float(x) - center + 0.5) * stretch))
            }
            let total = weight.reduce(0, +)
            if total != 0 { weight = weight.map { $0 / total } }
            if index.isEmpty { index = [0]; weight = [0] }
            rows.append((index, weight))
        }
        var taps = Taps(count: rows.map { $0.index.count }.max() ?? 1)
        for row in rows {
            taps.index += row.index + Array(repeating: 0, count: taps.count - row.index.count)
            taps.weight += row.weight + Array(repeating: 0, count: taps.count - row.weight.count)
        }
        return taps
    }
}
