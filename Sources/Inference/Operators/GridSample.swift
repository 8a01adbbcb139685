/// ONNX `GridSample` (16, 20): Y(n, c, o…) samples X (N, C, D1…Dr) at the normalised position
/// `grid`(n, o…, :) (N, O1…Or, r), whose last axis lists the coordinates innermost axis first (x
/// for the width, then y, then z). Version 16 takes 4-D X (r = 2) and `mode` bilinear, nearest or
/// bicubic; version 20 any r ≥ 1 and `mode` linear, nearest or cubic (N-linear and N-cubic).
///
/// A coordinate g maps to g' = ((g + 1)·L − 1) / 2 (`align_corners` 0: −1 and 1 are the outer
/// edges of the end pixels) or (g + 1) / 2·(L − 1) (`align_corners` 1: their centres). `nearest`
/// takes the tap at g' rounded half to even; linear the 2 taps ⌊g'⌋, ⌊g'⌋ + 1 per axis, weighted
/// 1 − f and f (f = g' − ⌊g'⌋); cubic the 4 taps ⌊g'⌋ − 1 … ⌊g'⌋ + 2 with Keys' coefficients
/// (a = −0.75), nested axis by axis, the innermost first. Each tap outside X is `padding_mode`'s:
/// zeros 0; border the index clamped to [0, L − 1]; reflection the index reflected at the edges
/// (−0.5 and L − 0.5, or 0 and L − 1 with `align_corners`), repeatedly. This is onnxruntime's and
/// PyTorch's rule. Arithmetic is in X's type (float32 or double; `grid` float32 or double); a
/// coordinate that is not finite gives NaN, and a position beyond ±2^22 (float32) or ±2^51 (double)
/// is first clamped there.
final class GridSample: Operator {
    enum Mode: Sendable { case nearest, linear, cubic }
    enum Padding: String, Sendable { case zeros, border, reflection }

    let type: ElementType, gridType: ElementType
    let mode: Mode, padding: Padding, alignCorners: Bool
    let dataInputs = [0, 1]
    let outputShapes: [[Int]]
    var outputTypes: [ElementType] { [type] }
    var checksInputTypes: Bool { true }
    /// X's spatial dims D1…Dr, and the number of output points per (n, c).
    let spatial: [Int]
    let points: Int
    let batch: Int, channels: Int

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 2)
        try context.checkAttributes(["mode", "padding_mode", "align_corners"])
        let type = try context.requireType(ofInput: 0, in: [.float32, .double])
        let gridType = try context.requireType(ofInput: 1, in: [.float32, .double])
        let x = try context.shape(ofInput: 0), grid = try context.shape(ofInput: 1)
        let legacy = context.opVersion < 20
        guard legacy ? x.count == 4 : x.count >= 3 else {
            throw context.error(.invalidShape, "X (shape \(x)) must be \(legacy ? "4-D (N, C, H, W) before version 20" : "(N, C, D1…Dr), r ≥ 1")")
        }
        let r = x.count - 2
        guard grid.count == x.count, grid[0] == x[0], grid[r + 1] == r else {
            throw context.error(.invalidShape, "grid (shape \(grid)) must be (N, O1…O\(r), \(r)) for X of shape \(x)")
        }
        let names = legacy ? ["bilinear", "nearest", "bicubic"] : ["linear", "nearest", "cubic"]
        let modeName = try context.choice("mode", names, default: names[0])
        let mode: Mode = modeName == names[1] ? .nearest : modeName == names[2] ? .cubic : .linear
        let paddingName = try context.choice("padding_mode", ["zeros", "border", "reflection"], default: "zeros")
        let spatial = Array(x[2...]), outputSpatial = Array(grid[1...r])
        return GridSample(type: type, gridType: gridType, mode: mode, padding: Padding(rawValue: paddingName) ?? .zeros,
                          alignCorners: try context.int("align_corners", default: 0, in: 0...1) == 1,
                          outputShapes: [[x[0], x[1]] + outputSpatial], spatial: spatial,
                          points: outputSpatial.reduce(1, *), batch: x[0], channels: x[1])
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        if type == .float32 {
            sample(x: inputs[0], grid: UnsafeRawPointer(inputs[1]), y: outputs[0])
        } else {
            sample(x: UnsafeRawPointer(inputs[0]).assumingMemoryBound(to: Double.self), grid: UnsafeRawPointer(inputs[1]),
                   y: UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: Double.self))
        }
    }

    /// Taps per axis.
    private var taps: Int {
        switch mode {
        case .nearest: 1
        case .linear: 2
        case .cubic: 4
        }
    }

    private func sample<F: BinaryFloatingPoint>(x: UnsafePointer<F>, grid: UnsafeRawPointer, y: UnsafeMutablePointer<F>) {
        let r = spatial.count, taps = self.taps
        let plane = spatial.reduce(1, *)
        // Beyond this, ⌊p⌋ + 1 is not representable in F and the linear weights would vanish.
        let limit = F(1 << (F.significandBitCount - 1))
        // Per axis (X's order): the first tap's index and the taps' weights.
        withUnsafeTemporaryAllocation(of: Int.self, capacity: r) { first in
            withUnsafeTemporaryAllocation(of: F.self, capacity: r * taps) { weights in
                for n in 0..<batch {
                    for point in 0..<points {
                        var finite = true
                        for axis in 0..<r {
                            let g = F(TensorElements.double(grid, at: (n * points + point) * r + (r - 1 - axis), gridType))
                            guard g.isFinite else { finite = false; break }
                            let length = F(spatial[axis])
                            var position = alignCorners ? (g + 1) / 2 * (length - 1) : ((g + 1) * length - 1) / 2
                            position = min(max(position, -limit), limit)
                            switch mode {
                            case .nearest:
                                first[axis] = Int(position.rounded(.toNearestOrEven))
                                weights[axis * taps] = 1
                            case .linear:
                                let floor = position.rounded(.down)
                                first[axis] = Int(floor)
                                weights[axis * taps] = floor + 1 - position
                                weights[axis * taps + 1] = position - floor
                            case .cubic:
                                let floor = position.rounded(.down)
                                first[axis] = Int(floor) - 1
                                Self.cubicCoefficients(position - floor, into: weights.baseAddress! + axis * taps)
                            }
                        }
                        for c in 0..<channels {
                            let image = x + (n * channels + c) * plane
                            y[(n * channels + c) * points + point] = finite
                                ? interpolate(image, axis: 0, offset: 0, first: UnsafePointer(first.baseAddress!),
                                              weights: UnsafePointer(weights.baseAddress!), taps: taps)
                                : .nan
                        }
                    }
                }
            }
        }
    }

    /// Σ over the taps of `axis` of weight · (the interpolation over the axes after it), the
    /// element itself past the last axis; `offset` is the flat index of the taps chosen so far,
    /// or −1 once one fell outside X under zeros padding.
    private func interpolate<F: BinaryFloatingPoint>(_ image: UnsafePointer<F>, axis: Int, offset: Int,
                                                     first: UnsafePointer<Int>, weights: UnsafePointer<F>, taps: Int) -> F {
        if axis == spatial.count { return offset < 0 ? 0 : image[offset] }
        var sum: F = 0
        for t in 0..<taps {
            let index = padded(first[axis] + t, length: spatial[axis], as: F.self)
            let next = offset < 0 || index < 0 ? -1 : offset * spatial[axis] + index
            sum += weights[axis * taps + t] * interpolate(image, axis: axis + 1, offset: next, first: first, weights: weights, taps: taps)
        }
        return sum
    }

    /// The index read for tap `index` of an axis of `length`: itself inside, else by
    /// `padding_mode` (−1 for a zero).
    private func padded<F: BinaryFloatingPoint>(_ index: Int, length: Int, as: F.Type) -> Int {
        if index >= 0 && index < length { return index }
        guard length > 0 else { return -1 }
        switch padding {
        case .zeros: return -1
        case .border: return min(max(index, 0), length - 1)
        case .reflection:
            let low: F = alignCorners ? 0 : -0.5, high: F = alignCorners ? F(length - 1) : F(length) - 0.5
            let range = high - low
            guard range > 0 else { return 0 }
            let v = F(index)
            var reflected: F
            if v < low {
                let distance = low - v, folds = (distance / range).rounded(.towardZero)
                let rest = distance - folds * range
                reflected = folds.truncatingRemainder(dividingBy: 2) == 0 ? low + rest : high - rest
            } else {
                let distance = v - high, folds = (distance / range).rounded(.towardZero)
                let rest = distance - folds * range
                reflected = folds.truncatingRemainder(dividingBy: 2) == 0 ? high - rest : low + rest
            }
            return min(max(Int(reflected.rounded(.towardZero)), 0), length - 1)
        }
    }

    /// Keys' cubic convolution weights (a = −0.75) of the 4 taps around a point at `t` ∈ [0, 1)
    /// past the second tap.
    private static func cubicCoefficients<F: BinaryFloatingPoint>(_ t: F, into c: UnsafeMutablePointer<F>) {
        let a: F = -0.75
        let x = abs(t)
        c[0] = ((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a
        c[1] = ((a + 2) * x - (a + 3)) * x * x + 1
        c[2] = ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1
        c[3] = ((a * (2 - x) - 5 * a) * (2 - x) + 8 * a) * (2 - x) - 4 * a
    }

    init(type: ElementType, gridType: ElementType, mode: Mode, padding: Padding, alignCorners: Bool,
         outputShapes: [[Int]], spatial: [Int], points: Int, batch: Int, channels: Int) {
        self.type = type
        self.gridType = gridType
        self.mode = mode
        self.padding = padding
        self.alignCorners = alignCorners
        self.outputShapes = outputShapes
        self.spatial = spatial
        self.points = points
        self.batch = batch
        self.channels = channels
    }
}
