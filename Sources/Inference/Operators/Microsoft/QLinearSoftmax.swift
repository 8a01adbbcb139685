import CMath

/// `com.microsoft` `QLinearSoftmax` (onnxruntime's contrib op): the softmax of a quantized int8
/// or uint8 tensor, computed as onnxruntime's CPU kernel computes it, so the bytes agree:
///
/// - a table of 256 float32 values t[i] = float32(exp((i − 255 + b) · x_scale)) in double, with
///   b = max(0, ln(float32(FLT_MAX / D)) − 5) / x_scale so that a sum of D of them stays finite
///   (D the length of the reduced axis);
/// - per row: m = its largest element, s = the float32 sum in order of t[255 − m + x] over the
///   row, and y = round_half_even(t[255 − m + x] · Y / s) + y_zero_point with
///   Y = floor(1 / y_scale) (a whole number: onnxruntime's reciprocal of the output scale);
///   x_zero_point cancels and is not read;
///   the sum saturated to the type (onnxruntime 1.32; some of its sources wrap an int8 result of
///   128, the top element of a row that takes the whole mass at y_zero_point −128, to −128: the
///   fixture `qlinearsoftmax_int8_opset13_dominant` pins the saturation).
///
/// Attributes: `opset` (required: the opset of the Softmax the quantizer replaced) and `axis`
/// (default −1 whatever `opset` says: the contrib schema's default, which onnxruntime reads before
/// its own rule for a missing axis could apply). Below opset 13 the input is a [N, D] matrix split
/// at `axis` (D the product of the dimensions from `axis` on), as Softmax-1/11 defines it; from
/// 13 the softmax runs along `axis` alone. Inputs: X, X_scale, x_zero_point (may be empty), y_scale,
/// y_zero_point (may be omitted: 0), the parameters scalars.
final class QLinearSoftmax: Operator {
    let dataInputs: [Int]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    var checksInputTypes: Bool { true }
    let xScale: ScaleParameter
    let y: QuantizedScalar
    /// The rows: `outer` blocks of `inner` interleaved rows of `length` elements each.
    let outer: Int, length: Int, inner: Int

    static let build: OperatorBuilder = { context throws(ModelError) in
        try MicrosoftOperators.checkInputs(context, count: 4...5, required: [0, 1, 3])
        try context.checkAttributes(["axis", "opset"])
        guard context.attribute("opset") != nil else {
            throw context.error(.malformed, "is required (the opset of the Softmax this node replaces)", attribute: "opset")
        }
        let opset = try context.int("opset", default: 13, in: 1...1000)
        let type = try context.requireType(ofInput: 0, in: [.int8, .uint8])
        let shape = try context.shape(ofInput: 0)
        guard !shape.isEmpty else { throw context.error(.invalidShape, "X must have rank ≥ 1, got a scalar") }
        let axis = try context.axis(try context.int("axis", default: -1), rank: shape.count, attribute: "axis")
        var dataInputs = [0]
        let xScale = try ScaleParameter.read(context, input: 1, buffer: dataInputs.count, perIndexCount: nil, role: "X_scale")
        guard xScale.type == .float32 else { throw context.error(.unsupported, "X_scale must be float32, got \(xScale.type)") }
        dataInputs.append(1)
        if context.hasInput(2) {
            // Checked (a scalar of X's type) though the arithmetic does not read it: it cancels.
            _ = try ZeroPoint.read(context, input: 2, buffer: dataInputs.count, operandType: type, perIndexCount: 1, role: "x_zero_point")
        }
        let (y, yInputs) = try QuantizedScalar.read(context, scaleInput: 3, type: type, buffer: dataInputs.count, role: "y")
        guard y.scale.type == .float32 else { throw context.error(.unsupported, "y_scale must be float32, got \(y.scale.type)") }
        dataInputs += yInputs
        let (outer, length, inner) = opset < 13
            ? (shape[..<axis].reduce(1, *), shape[axis...].reduce(1, *), 1)
            : (shape[..<axis].reduce(1, *), shape[axis], shape[(axis + 1)...].reduce(1, *))
        return QLinearSoftmax(dataInputs: dataInputs, outputShapes: [shape], outputTypes: [type], xScale: xScale, y: y,
                              outer: outer, length: length, inner: inner)
    }

    /// onnxruntime's table for `scale` and rows of `length`: entry i is e^((i − 255 + b) · scale).
    static func fillTable(_ table: UnsafeMutableBufferPointer<Float>, scale: Float, length: Int) {
        let bound = Double(Float.greatestFiniteMagnitude / Float(length))
        let shift = max(0, log(bound) - 5) / Double(scale)
        for i in 0..<256 { table[i] = Float(exp((Double(i) - 255 + shift) * Double(scale))) }
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let signed = outputTypes[0] == .int8
        let source = UnsafeRawPointer(inputs[0]), target = UnsafeMutableRawPointer(outputs[0])
        let reciprocal = (1 / y.scale.value(inputs, 0)).rounded(.down), zeroY = y.zero.value(inputs, 0)
        let (length, inner) = (self.length, self.inner), range = Quantization.range(outputTypes[0])
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 256) { table in
            Self.fillTable(table, scale: xScale.value(inputs, 0), length: length)
            @inline(__always) func load(_ index: Int) -> Int32 {
                signed ? Int32(source.load(fromByteOffset: index, as: Int8.self)) : Int32(source.load(fromByteOffset: index, as: UInt8.self))
            }
            for o in 0..<outer {
                for i in 0..<inner {
                    let base = o * length * inner + i
                    var largest = Int32.min
                    for k in 0..<length { largest = max(largest, load(base + k * inner)) }
                    // The sum holds t[255] = e^(b · x_scale) ≥ 1 (the row's largest element), so it is never 0,
                    // and each of its D terms is below FLT_MAX / D, so it is finite.
                    var sum: Float = 0
                    for k in 0..<length { sum += table[Int(255 - largest + load(base + k * inner))] }
                    for k in 0..<length {
                        let index = base + k * inner
                        let quotient = (table[Int(255 - largest + load(index))] * reciprocal / sum).rounded(.toNearestOrEven)
                        // Held within ±2^30 (NaN to −2^30) before the conversion: a y_scale under 2^-30, zero or NaN
                        // would overflow it, where onnxruntime's cast is undefined.
                        let held = quotient < 0x1p30 ? (quotient > -0x1p30 ? quotient : -0x1p30) : 0x1p30
                        let value = min(max(Int32(held) &+ zeroY, range.lowerBound), range.upperBound)
                        target.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: index, as: UInt8.self)
                    }
                }
            }
        }
    }

    init(dataInputs: [Int], outputShapes: [[Int]], outputTypes: [ElementType], xScale: ScaleParameter,
         y: QuantizedScalar, outer: Int, length: Int, inner: Int) {
        self.dataInputs = dataInputs
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.xScale = xScale
        self.y = y
        self.outer = outer
        self.length = length
        self.inner = inner
    }
}
