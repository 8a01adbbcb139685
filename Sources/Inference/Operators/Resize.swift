import Foundation

/// ONNX `Resize` (Resize-11/13/18 semantics for the supported options) on the last two
/// dimensions of a 4-D tensor (N and C are never resized).
///
/// - `mode`: `nearest` (with `nearest_mode` round_prefer_floor, round_prefer_ceil, floor, ceil)
///   or `linear` (bilinear).
/// - `coordinate_transformation_mode`: `half_pixel` (default), `align_corners`, `asymmetric`,
///   `pytorch_half_pixel`. With output length `out`, input length `in` and scale `s`
///   (given, or out/in when `sizes` is given), output coordinate x maps to
///   half_pixel: (x + 0.5)/s − 0.5; pytorch_half_pixel: the same if out > 1 else 0;
///   align_corners: x·(in − 1)/(out − 1) (0 when out = 1); asymmetric: x/s.
/// - Linear clamps the source coordinate to [0, in − 1] (edge replication) and blends the two
///   neighbours; nearest rounds it and clamps the index.
/// - Either constant `scales` (output = floor(in · scale)) or constant `sizes`; `roi` is ignored
///   (it only matters for `tf_crop_and_resize`, which is rejected). Opset 18's `axes` is accepted
///   when it names the last two axes; `antialias` must be 0 and `keep_aspect_ratio_policy` stretch.
struct Resize: Operator {
    /// For each output row or column, the two source indices and the second one's weight
    /// (nearest: both indices equal, weight 0).
    struct AxisTable: Sendable {
        var first: [Int] = []
        var second: [Int] = []
        var weight: [Float] = []
    }

    let dataInputs = [0]
    let outputShapes: [[Int]]
    let planes: Int, inH: Int, inW: Int, outH: Int, outW: Int
    let rows: AxisTable, columns: AxisTable

    /// The longest output height or width accepted (4x the longest PNG side the engine reads).
    static let maximumOutputSide = 1 << 16

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 4)
        try context.checkAttributes(["mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a", "exclude_outside",
                                     "extrapolation_value", "antialias", "axes", "keep_aspect_ratio_policy"])
        let x = try context.shape(ofInput: 0)
        guard x.count == 4 else { throw context.error(.unsupported, "only 4-D input (resizing the last two axes) is supported, got rank \(x.count)") }
        guard x[2] > 0, x[3] > 0 else { throw context.error(.invalidShape, "input \(x) has an empty spatial axis") }
        let mode = try context.choice("mode", ["nearest", "linear"], default: "nearest")
        let transform = try context.choice("coordinate_transformation_mode",
                                           ["half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel"], default: "half_pixel")
        let nearestMode = try context.choice("nearest_mode", ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"],
                                             default: "round_prefer_floor")
        _ = try context.int("exclude_outside", default: 0, in: 0...0)
        _ = try context.int("antialias", default: 0, in: 0...0)
        _ = try context.choice("keep_aspect_ratio_policy", ["stretch"], default: "stretch")
        var axes = [0, 1, 2, 3]
        if let given = try context.ints("axes") {
            let normalised = try given.map { (axis: Int) throws(ModelError) -> Int in try context.axis(axis, rank: 4, attribute: "axes") }
            guard normalised == [2, 3] else { throw context.error(.unsupported, "only the last two axes can be resized", attribute: "axes") }
            axes = normalised
        }
        let scalesGiven = try context.constantFloats(2, "scales").flatMap { $0.isEmpty ? nil : $0 }
        let sizesGiven = try context.constantIntegers(3, "sizes").flatMap { $0.isEmpty ? nil : $0 }
        var outputShape = x
        var scales: [Float] = [1, 1, 1, 1]
        switch (scalesGiven, sizesGiven) {
        case let (scalesGiven?, nil):
            guard scalesGiven.count == axes.count else { throw context.error(.invalidShape, "'scales' has \(scalesGiven.count) values for \(axes.count) axes") }
            for (value, axis) in zip(scalesGiven, axes) {
                guard value > 0, value.isFinite else { throw context.error(.invalidValue, "scale \(value) must be positive") }
                scales[axis] = value
                let size = (Double(x[axis]) * Double(value)).rounded(.down)
                guard size >= 1, size <= Double(Shapes.maximumElementCount) else {
                    throw context.error(.invalidShape, "scale \(value) gives output length \(size) on axis \(axis)")
                }
                outputShape[axis] = Int(size)
            }
        case let (nil, sizesGiven?):
            guard sizesGiven.count == axes.count else { throw context.error(.invalidShape, "'sizes' has \(sizesGiven.count) values for \(axes.count) axes") }
            for (value, axis) in zip(sizesGiven, axes) {
                guard value >= 1, value <= Int64(Shapes.maximumElementCount) else {
                    throw context.error(.invalidShape, "size \(value) on axis \(axis) is out of range")
                }
                outputShape[axis] = Int(value)
                scales[axis] = Float(value) / Float(x[axis])
            }
        case (nil, nil):
            throw context.error(.malformed, "one of 'scales' and 'sizes' is required")
        case (_?, _?):
            throw context.error(.malformed, "only one of 'scales' and 'sizes' may be given")
        }
        guard outputShape[0] == x[0], outputShape[1] == x[1] else {
            throw context.error(.unsupported, "resizing the batch or channel axis is not supported")
        }
        guard Shapes.elementCount(outputShape) != nil else { throw context.error(.invalidShape, "output \(outputShape) has more than 2^31 elements") }
        // The axis tables below cost 20 bytes per output row and column and are built at load
        // time: without this bound a 320-byte model asking for a 1 x 2^31 output made the loader
        // allocate tens of gigabytes (found by Fuzz/ onnx).
        guard outputShape[2] <= maximumOutputSide, outputShape[3] <= maximumOutputSide else {
            throw context.error(.unsupported, "output \(outputShape) has a side longer than \(maximumOutputSide)")
        }

        func table(input: Int, output: Int, scale: Float) -> AxisTable {
            var table = AxisTable()
            for index in 0..<output {
                let position = Float(index)
                var source: Float
                switch transform {
                case "align_corners": source = output == 1 ? 0 : position * Float(input - 1) / Float(output - 1)
                case "asymmetric": source = position / scale
                case "pytorch_half_pixel": source = output > 1 ? (position + 0.5) / scale - 0.5 : 0
                default: source = (position + 0.5) / scale - 0.5
                }
                if mode == "linear" {
                    source = min(max(source, 0), Float(input - 1))
                    let low = Int(source.rounded(.down))
                    table.first.append(low)
                    table.second.append(min(low + 1, input - 1))
                    table.weight.append(source - Float(low))
                } else {
                    var rounded: Float
                    switch nearestMode {
                    case "floor": rounded = source.rounded(.down)
                    case "ceil": rounded = source.rounded(.up)
                    case "round_prefer_ceil": rounded = source.rounded(.toNearestOrAwayFromZero)
                        if source - source.rounded(.down) == 0.5 { rounded = source.rounded(.up) }
                    default: rounded = source - source.rounded(.down) == 0.5 ? source.rounded(.down) : source.rounded(.toNearestOrAwayFromZero)
                    }
                    let clamped = Int(min(max(rounded, 0), Float(input - 1)))
                    table.first.append(clamped)
                    table.second.append(clamped)
                    table.weight.append(0)
                }
            }
            return table
        }
        return Resize(outputShapes: [outputShape], planes: x[0] * x[1], inH: x[2], inW: x[3],
                      outH: outputShape[2], outW: outputShape[3],
                      rows: table(input: x[2], output: outputShape[2], scale: scales[2]),
                      columns: table(input: x[3], output: outputShape[3], scale: scales[3]))
    }

    /// Bilinear blend of four source pixels (the two rows × two columns of the tables); for
    /// nearest the weights are 0 and it copies one pixel.
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
}
