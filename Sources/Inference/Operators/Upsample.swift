/// ONNX `Upsample` (Upsample-7: `scales` attribute; Upsample-9: constant `scales` input), one
/// scale ≥ 1 per axis, output length floor(in · scale), asymmetric coordinates as onnxruntime
/// computes them: `mode` nearest (truncated source index, any element type) or linear (float;
/// on any axes, the last two of a 4-D tensor by the bilinear `Resize` kernel). Upsample-10 is
/// deprecated in favour of Resize and refused.
enum Upsample {
    static let build: OperatorBuilder = { context throws(ModelError) in
        guard context.opVersion < 10 else { throw context.error(.unsupported, "Upsample-10 (deprecated) is not supported; use Resize") }
        let x = try context.shape(ofInput: 0)
        let scales: [Float]
        if context.opVersion >= 9 {
            try context.checkArity(inputs: 2, 2)
            try context.checkAttributes(["mode"])
            guard let given = try context.constantFloats(1, "scales") else { throw context.error(.malformed, "input 'scales' is required") }
            scales = given
        } else {
            try context.checkArity(inputs: 1, 1)
            try context.checkAttributes(["mode", "scales"])
            guard let attribute = context.attribute("scales"), attribute.type == .floats || attribute.type == .undefined else {
                throw context.error(.malformed, "is required (floats)", attribute: "scales")
            }
            scales = attribute.floats
        }
        guard scales.count == x.count, scales.allSatisfy({ $0 >= 1 && $0.isFinite }) else {
            throw context.error(.invalidValue, "scales \(scales) must be \(x.count) values ≥ 1", attribute: context.opVersion < 9 ? "scales" : nil)
        }
        let mode = try context.choice("mode", ["nearest", "linear"], default: "nearest")
        var geometry: [ResizeGeometry.Axis] = []
        for (length, scale) in zip(x, scales) {
            let size = (Double(length) * Double(scale)).rounded(.down)
            guard size <= Double(Shapes.maximumElementCount) else {
                throw context.error(.invalidShape, "scale \(scale) gives output length \(size) on an axis of length \(length)")
            }
            geometry.append(ResizeGeometry.Axis(input: length, output: Int(size), scale: scale))
        }
        return try Resize.make(context, geometry, .init(kind: mode == "linear" ? .linear : .nearest(.simple), transform: "asymmetric"),
                               extrapolation: 0)
    }
}
