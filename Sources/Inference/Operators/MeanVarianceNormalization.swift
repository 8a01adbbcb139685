/// ONNX `MeanVarianceNormalization` (versions 9 and 13, float32, rank ≤ 6):
/// (x − mean) / (√variance + 1e-9) with mean and population variance over `axes` (default
/// [0, 2, 3]), as the op's function body defines it.
enum MeanVarianceNormalization {
    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes(["axes"])
        let x = try context.shape(ofInput: 0)
        guard x.count <= StridedLoop.maximumRank else { throw context.error(.unsupported, "rank \(x.count) is above 6") }
        var axes = Set<Int>()
        for axis in try context.ints("axes") ?? [0, 2, 3] { axes.insert(try context.axis(axis, rank: x.count, attribute: "axes")) }
        return Normalization(dataInputs: [0], outputShapes: [x], geometry: ReductionGeometry(input: x, axes: axes),
                             epsilon: .outsideRoot(1e-9), affine: nil, hasBias: false)
    }
}
