/// ONNX `Resize` (Resize-10, 11, 13, 18, 19) of any rank, on any axes.
///
/// - Resize-10: a constant `scales` input; `mode` nearest (onnxruntime's rounding: truncation,
///   ceil on a shrinking axis) or linear, asymmetric coordinates.
/// - Resize-11/13: constant `roi`, `scales` or `sizes` inputs; `mode` nearest (any element
///   type; `nearest_mode` round_prefer_floor, round_prefer_ceil, floor, ceil), linear or cubic
///   (float; linear also on uint8 and int8: `ByteResize`; `cubic_coeff_a`, `exclude_outside`); `coordinate_transformation_mode` half_pixel,
///   align_corners, asymmetric, pytorch_half_pixel, tf_crop_and_resize (`roi`,
///   `extrapolation_value`). Resize-18 adds `axes` (any order), `antialias` (linear and cubic)
///   and `keep_aspect_ratio_policy` (stretch, not_larger, not_smaller, with `sizes`);
///   Resize-19 adds half_pixel_symmetric. The mappings are `ResizeGeometry`'s.
/// - Output length: floor(in · scale), or the given size (then scale = size / in).
///
/// The operator built is this struct, the bilinear kernel on the last two axes of a 4-D float
/// tensor, for linear resizing of only those axes without antialiasing or cropping (what the
/// fast path recognises); nearest is an `AxisGather` and everything else an `Interpolation`.
final class Resize: Operator {
    /// For each output row or column, the two source indices and the second one's weight.
    struct AxisTable: Sendable {
        var first: [Int] = []
        var second: [Int] = []
        var weight: [Float] = []
    }

    let dataInputs = [0]
    let outputShapes: [[Int]]
    let planes: Int, inH: Int, inW: Int, outH: Int, outW: Int
    let rows: AxisTable, columns: AxisTable

    /// The longest output length accepted on a resized axis (4x the longest PNG side the engine
    /// reads): the tap tables cost tens of bytes per output index and are built at load time,
    /// so without this bound a 320-byte model asking for a 1 x 2^31 output made the loader
    /// allocate tens of gigabytes (found by Fuzz/ onnx).
    static let maximumOutputSide = 1 << 16

    static let build: OperatorBuilder = { context throws(ModelError) in
        let version = context.opVersion
        let x = try context.shape(ofInput: 0)
        guard !x.isEmpty else { throw context.error(.invalidShape, "cannot resize a scalar") }
        let rank = x.count
        var mode: ResizeGeometry.Mode
        var axes = Array(0..<rank)
        var extrapolation: Float = 0
        var scalesGiven: [Float]?, sizesGiven: [Int64]?, roi: [Float]?
        var policy = "stretch"
        if version == 10 {
            try context.checkArity(inputs: 2, 2)
            try context.checkAttributes(["mode"])
            let name = try context.choice("mode", ["nearest", "linear"], default: "nearest")
            mode = .init(kind: name == "linear" ? .linear : .nearest(.simple), transform: "asymmetric")
            scalesGiven = try context.constantFloats(1, "scales")
        } else {
            try context.checkArity(inputs: 1, 4)
            let known: Set = ["mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a", "exclude_outside", "extrapolation_value"]
            try context.checkAttributes(version >= 18 ? known.union(["antialias", "axes", "keep_aspect_ratio_policy"]) : known)
            let name = try context.choice("mode", ["nearest", "linear", "cubic"], default: "nearest")
            let transform = try context.choice("coordinate_transformation_mode",
                                               ["half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "tf_crop_and_resize"]
                                                + (version >= 19 ? ["half_pixel_symmetric"] : []), default: "half_pixel")
            let rounding = try context.choice("nearest_mode", ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"],
                                              default: "round_prefer_floor")
            let kind: ResizeGeometry.Mode.Kind = switch name {
            case "linear": .linear
            case "cubic": .cubic(a: try context.float("cubic_coeff_a", default: -0.75))
            default: .nearest(ResizeGeometry.Rounding(rawValue: rounding)!)
            }
            mode = .init(kind: kind, transform: transform, excludeOutside: try context.int("exclude_outside", default: 0, in: 0...1) == 1,
                         antialias: try context.int("antialias", default: 0, in: 0...1) == 1)
            if mode.antialias, name == "nearest" || transform == "tf_crop_and_resize" {
                throw context.error(.unsupported, "antialiasing applies to linear and cubic without tf_crop_and_resize", attribute: "antialias")
            }
            extrapolation = try context.float("extrapolation_value", default: 0)
            policy = try context.choice("keep_aspect_ratio_policy", ["stretch", "not_larger", "not_smaller"], default: "stretch")
            if let given = try context.ints("axes") {
                axes = try given.map { (axis: Int) throws(ModelError) -> Int in try context.axis(axis, rank: rank, attribute: "axes") }
                guard Set(axes).count == axes.count else { throw context.error(.invalidShape, "\(given) repeats an axis", attribute: "axes") }
            }
            scalesGiven = try context.constantFloats(2, "scales")
            sizesGiven = try context.constantIntegers(3, "sizes")
            if transform == "tf_crop_and_resize" {
                guard let given = try context.constantFloats(1, "roi"), given.count == 2 * axes.count else {
                    throw context.error(.malformed, "tf_crop_and_resize needs a constant 'roi' of \(2 * axes.count) values",
                                        attribute: "coordinate_transformation_mode")
                }
                roi = given
            }
        }
        var geometry = x.map { ResizeGeometry.Axis(input: $0, output: $0, scale: 1) }
        switch (scalesGiven.flatMap { $0.isEmpty ? nil : $0 }, sizesGiven.flatMap { $0.isEmpty ? nil : $0 }) {
        case let (scales?, nil):
            guard scales.count == axes.count else { throw context.error(.invalidShape, "'scales' has \(scales.count) values for \(axes.count) axes") }
            for (value, axis) in zip(scales, axes) {
                guard value > 0, value.isFinite else { throw context.error(.invalidValue, "scale \(value) must be positive") }
                let size = (Double(x[axis]) * Double(value)).rounded(.down)
                guard size >= 1, size <= Double(Shapes.maximumElementCount) else {
                    throw context.error(.invalidShape, "scale \(value) gives output length \(size) on axis \(axis)")
                }
                geometry[axis].scale = value
                geometry[axis].output = Int(size)
            }
        case let (nil, sizes?):
            guard sizes.count == axes.count else { throw context.error(.invalidShape, "'sizes' has \(sizes.count) values for \(axes.count) axes") }
            guard sizes.allSatisfy({ (1...Int64(Shapes.maximumElementCount)).contains($0) }) else {
                throw context.error(.invalidShape, "sizes \(sizes) are out of range")
            }
            let ratios = zip(sizes, axes).map { Float($0) / Float(x[$1]) }
            for (i, axis) in axes.enumerated() {
                var scale = ratios[i]
                if policy != "stretch" { scale = policy == "not_larger" ? ratios.min()! : ratios.max()! }
                geometry[axis].scale = scale
                geometry[axis].output = policy == "stretch" ? Int(sizes[i]) : max(1, Int((scale * Float(x[axis])).rounded(.toNearestOrAwayFromZero)))
            }
        case (nil, nil):
            throw context.error(.malformed, "one of 'scales' and 'sizes' is required")
        case (_?, _?):
            throw context.error(.malformed, "only one of 'scales' and 'sizes' may be given")
        }
        if let roi {
            for (i, axis) in axes.enumerated() { (geometry[axis].roiStart, geometry[axis].roiEnd) = (roi[i], roi[i + axes.count]) }
        }
        return try make(context, geometry, mode, extrapolation: extrapolation)
    }

    /// The operator for `geometry` (one entry per input axis) under `mode`: an `AxisGather` for
    /// nearest (any element type), this struct for bilinear on the last two axes of a 4-D
    /// tensor, an `Interpolation` otherwise (float).
    static func make(_ context: NodeContext, _ geometry: [ResizeGeometry.Axis], _ mode: ResizeGeometry.Mode,
                     extrapolation: Float) throws(ModelError) -> any Operator {
        let x = geometry.map { $0.input }, output = geometry.map { $0.output }
        guard Shapes.elementCount(output) != nil else { throw context.error(.invalidShape, "output \(output) has more than 2^31 elements") }
        let resized = geometry.map { $0.output != $0.input || $0.scale != 1 || mode.transform == "tf_crop_and_resize" }
        for (axis, isResized) in zip(geometry, resized) where isResized {
            guard axis.input > 0 else { throw context.error(.invalidShape, "input \(x) has an empty axis to resize") }
            guard axis.output <= maximumOutputSide else {
                throw context.error(.unsupported, "output \(output) has a resized axis longer than \(maximumOutputSide)")
            }
        }
        let taps = zip(geometry, resized).map { $1 ? ResizeGeometry.taps($0, mode) : .identity($0.input) }
        if case .nearest = mode.kind {
            let type = try context.requireType(ofInput: 0, in: ElementCopy.anyType)
            return AxisGather(input: x, outputShape: output, type: type, sourceIndices: taps.map { $0.index },
                              fill: AxisGather.pattern(extrapolation, as: type))
        }
        if case .linear = mode.kind, case let type = try context.type(ofInput: 0), type == .uint8 || type == .int8 {
            return try ByteResize.make(context, geometry, mode, type: type, extrapolation: extrapolation)
        }
        _ = try context.requireType(ofInput: 0, in: [.float32])
        if case .linear = mode.kind, !mode.antialias, mode.transform != "tf_crop_and_resize", x.count == 4, !resized[0], !resized[1] {
            func table(_ taps: ResizeGeometry.Taps) -> AxisTable {
                let count = taps.index.count / 2
                return AxisTable(first: (0..<count).map { taps.index[2 * $0] }, second: (0..<count).map { taps.index[2 * $0 + 1] },
                                 weight: (0..<count).map { taps.weight[2 * $0 + 1] })
            }
            return Resize(outputShapes: [output], planes: x[0] * x[1], inH: x[2], inW: x[3], outH: output[2], outW: output[3],
                          rows: table(resized[2] ? taps[2] : ResizeGeometry.taps(geometry[2], mode)),
                          columns: table(resized[3] ? taps[3] : ResizeGeometry.taps(geometry[3], mode)))
        }
        return Interpolation(input: x, output: output, taps: taps, extrapolation: extrapolation)
    }

    /// Bilinear blend of four source pixels (the two rows × two columns of the tables).
    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = inputs[0], y = outputs[0]
        for p in 0..<planes {
            let plane = x + p * inH * inW
            let out = y + p * outH * outW
            for oh in 0..<outH {
                let top = plane + rows.first[oh] * inW, bottom = plane + rows.second[oh] * inW
                let wy = rows.weight[oh]
                for ow in 0..<outW {
                    let left = columns.first[ow], right = columns.second[ow], wx = columns.weight[ow]
                    let upper = top[left] + (top[right] - top[left]) * wx
                    let lower = bottom[left] + (bottom[right] - bottom[left]) * wx
                    out[oh * outW + ow] = upper + (lower - upper) * wy
                }
            }
        }
    }

    init(outputShapes: [[Int]], planes: Int, inH: Int, inW: Int, outH: Int, outW: Int, rows: AxisTable,
         columns: AxisTable) {
        self.outputShapes = outputShapes
        self.planes = planes
        self.inH = inH
        self.inW = inW
        self.outH = outH
        self.outW = outW
        self.rows = rows
        self.columns = columns
    }
}
