/// ONNX `AffineGrid` (20): the sampling grid of a batch of affine maps, for `GridSample`.
///
/// `theta` is [N, 2, 3] (2-D) or [N, 3, 4] (3-D), float32, double or float16; `size` is the
/// constant [N, C, H, W] or [N, C, D, H, W]. Each output point is `theta[n] · (x, y, 1)` (2-D) or
/// `theta[n] · (x, y, z, 1)` (3-D), where x runs along W, y along H and z along D over the
/// normalised coordinates of the points: `−1 + 2i/(s − 1)` with `align_corners`, else the pixel
/// centres `−1 + (2i + 1)/s` (one point: −1 with `align_corners`, else 0). The output is
/// [N, H, W, 2] or [N, D, H, W, 3] of theta's type, computed in double.
final class AffineGrid: Operator {
    var checksInputTypes: Bool { true }

    let dataInputs = [0]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    /// The spatial sizes, slowest first: [H, W] or [D, H, W].
    let spatial: [Int]
    let alignCorners: Bool

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 2)
        try context.checkAttributes(["align_corners"])
        let alignCorners = try context.int("align_corners", default: 0, in: 0...1) == 1
        let type = try context.requireType(ofInput: 0, in: [.float32, .double, .float16])
        let theta = try context.shape(ofInput: 0)
        _ = try context.requireType(ofInput: 1, in: [.int64])
        guard let size = try context.constantIntegers(1, "size") else { throw context.error(.malformed, "input 1 ('size') is required") }
        guard size.count == 4 || size.count == 5, size.allSatisfy({ $0 >= 1 && $0 <= 1 << 24 }) else {
            throw context.error(.invalidValue, "input 1 ('size') is \(size); it must be [N, C, H, W] or [N, C, D, H, W] of positive sizes")
        }
        let dims = size.count - 2
        guard theta == [Int(size[0]), dims, dims + 1] else {
            throw context.error(.invalidShape, "input 0 ('theta') has shape \(theta); size \(size) needs [\(size[0]), \(dims), \(dims + 1)]")
        }
        let spatial = size.dropFirst(2).map { Int($0) }
        guard spatial.reduce(Int(size[0]) * dims, *) <= Shapes.maximumElementCount else {
            throw context.error(.invalidShape, "the grid of size \(size) is too large")
        }
        return AffineGrid(outputShapes: [[Int(size[0])] + spatial + [dims]], outputTypes: [type], spatial: spatial,
                          alignCorners: alignCorners)
    }

    /// The normalised coordinate of point `i` of an axis of `s` points.
    func coordinate(_ i: Int, of s: Int) -> Double {
        if alignCorners { return s == 1 ? -1 : -1 + 2 * Double(i) / Double(s - 1) }
        return -1 + (2 * Double(i) + 1) / Double(s)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let theta = UnsafeRawPointer(inputs[0]), y = UnsafeMutableRawPointer(outputs[0]), type = outputTypes[0]
        let dims = spatial.count, points = spatial.reduce(1, *), batch = outputShapes[0][0]
        var out = 0
        for n in 0..<batch {
            for p in 0..<points {
                // The point's coordinates (x, y[, z]): W is the fastest axis.
                var rest = p
                var homogeneous = SIMD4<Double>(repeating: 1)
                for axis in (0..<dims).reversed() {
                    let s = spatial[axis]
                    homogeneous[dims - 1 - axis] = coordinate(rest % s, of: s)
                    rest /= s
                }
                for row in 0..<dims {
                    var sum = 0.0
                    for column in 0...dims {
                        sum += TensorElements.double(theta, at: (n * dims + row) * (dims + 1) + column, type) * homogeneous[column]
                    }
                    TensorElements.setDouble(sum, y, at: out, type)
                    out += 1
                }
            }
        }
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], spatial: [Int], alignCorners: Bool) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.spatial = spatial
        self.alignCorners = alignCorners
    }
}
