/// The int32 sums under the integer and quantized products (MatMulInteger, QLinearMatMul,
/// ConvInteger, QLinearConv): Σ (a − a_zero) · (b − b_zero) over 8- or 16-bit integers, wrapping
/// in int32 as onnxruntime's accumulators do.

/// A zero point read at run time: one value, or one per row (of A) or column (of B) or output
/// channel (of a convolution's weights).
struct ZeroPoint: Sendable {
    /// The input index in the operator's `dataInputs`-ordered buffers, or nil for no zero point (0).
    let buffer: Int?
    let type: ElementType
    let perIndex: Bool

    static let none = ZeroPoint(buffer: nil, type: .int8, perIndex: false)

    /// Reads the zero point of operand `index` (input `buffer` of the run): a scalar (or one
    /// element), or one per row of A (`perIndexCount` = rows) or column of B (= columns).
    static func read(_ context: NodeContext, input index: Int, buffer: Int, operandType: ElementType,
                     perIndexCount: Int, role: String) throws(ModelError) -> ZeroPoint {
        guard context.hasInput(index) else { return .none }
        let type = try context.type(ofInput: index)
        guard type == operandType else {
            throw context.error(.invalidGraph, "\(role) has type \(type) but its operand \(operandType); they must agree")
        }
        let shape = try context.shape(ofInput: index), count = shape.reduce(1, *)
        if count == 1 && shape.count <= 1 { return ZeroPoint(buffer: buffer, type: type, perIndex: false) }
        guard shape == [perIndexCount] else {
            throw context.error(.unsupported, "\(role) has shape \(shape); supported: a scalar or [\(perIndexCount)]")
        }
        return ZeroPoint(buffer: buffer, type: type, perIndex: true)
    }

    @inline(__always)
    func value(_ inputs: [UnsafePointer<Float>], _ index: Int) -> Int32 {
        guard let buffer else { return 0 }
        return Quantization.load(UnsafeRawPointer(inputs[buffer]), perIndex ? index : 0, type)
    }
}

/// A scale read at run time (float32 or float16): one value, or one per row, column or output
/// channel.
struct ScaleParameter: Sendable {
    /// The input index in the operator's `dataInputs`-ordered buffers.
    let buffer: Int
    let type: ElementType
    let perIndex: Bool

    @inline(__always)
    func value(_ inputs: [UnsafePointer<Float>], _ index: Int) -> Float {
        Quantization.loadFloat(UnsafeRawPointer(inputs[buffer]), perIndex ? index : 0, type)
    }

    /// Reads the scale at node input `index` (required): a scalar (or one element), or, when
    /// `perIndexCount` is given, one per index.
    static func read(_ context: NodeContext, input index: Int, buffer: Int, perIndexCount: Int?, role: String) throws(ModelError) -> ScaleParameter {
        let type = try context.requireType(ofInput: index, in: [.float32, .float16])
        let shape = try context.shape(ofInput: index), count = shape.reduce(1, *)
        if count == 1 && shape.count <= 1 { return ScaleParameter(buffer: buffer, type: type, perIndex: false) }
        guard let perIndexCount, shape == [perIndexCount] else {
            throw context.error(.unsupported, "\(role) has shape \(shape); supported: a scalar\(perIndexCount.map { " or [\($0)]" } ?? "")")
        }
        return ScaleParameter(buffer: buffer, type: type, perIndex: true)
    }
}

extension MatrixProductShape {
    /// Calls `body(outputIndex, column, sum)` with every output's
    /// Σ_p (a[i, p] − a_zero[i]) · (b[p, j] − b_zero[j]).
    @inline(__always)
    func forEachSum(_ inputs: [UnsafePointer<Float>], a: Int, aType: ElementType, aZero: ZeroPoint,
                    b: Int, bType: ElementType, bZero: ZeroPoint, _ body: (Int, Int, Int32) -> Void) {
        let (m, k, n) = (rows, inner, columns)
        let aData = UnsafeRawPointer(inputs[a]), bData = UnsafeRawPointer(inputs[b])
        batches.forEach { yBase, aBase, bBase in
            for i in 0..<m {
                let zeroA = aZero.value(inputs, i)
                for j in 0..<n {
                    let zeroB = bZero.value(inputs, j)
                    var sum: Int32 = 0
                    for p in 0..<k {
                        let left = Quantization.load(aData, aBase + i * k + p, aType) &- zeroA
                        let right = Quantization.load(bData, bBase + p * n + j, bType) &- zeroB
                        sum = sum &+ left &* right
                    }
                    body(yBase + i * n + j, j, sum)
                }
            }
        }
    }
}

extension ConvolutionGeometry {
    /// Calls `body(outputChannel, outputIndex, sum)` for every output with
    /// Σ_c Σ_taps (x − x_zero) · (w[m] − w_zero[m]) over the taps inside the input: a tap in the
    /// padding adds nothing (the padding holds the input's zero point).
    @inline(__always)
    func forEachSum(_ inputs: [UnsafePointer<Float>], x: Int, xType: ElementType, xZero: ZeroPoint,
                    w: Int, wType: ElementType, wZero: ZeroPoint, _ body: (Int, Int, Int32) -> Void) {
        let xData = UnsafeRawPointer(inputs[x]), weights = UnsafeRawPointer(inputs[w])
        let (inD, inH, inW) = (depth.input, height.input, width.input)
        let (kD, kH, kW) = (depth.kernel, height.kernel, width.kernel)
        let channelsPerGroup = inputChannels / group, outputsPerGroup = outputChannels / group
        let inPlane = inD * inH * inW, outPlane = depth.output * height.output * width.output
        let kernelSize = kD * kH * kW
        let zeroX = xZero.value(inputs, 0)
        func taps(_ axis: WindowAxis, start: Int) -> Swift.Range<Int> {
            let first = max(0, Shapes.ceilDivide(-start, axis.dilation))
            return first..<max(first, min(axis.kernel, Shapes.floorDivide(axis.input - 1 - start, axis.dilation) + 1))
        }
        for n in 0..<batch {
            for m in 0..<outputChannels {
                var out = (n * outputChannels + m) * outPlane
                let firstInput = (n * inputChannels + (m / outputsPerGroup) * channelsPerGroup) * inPlane
                let kernel = m * channelsPerGroup * kernelSize
                let zeroW = wZero.value(inputs, m)
                forEachWindowStart(depth, height, width) { front, top, left in
                    var sum: Int32 = 0
                    for kd in taps(depth, start: front) {
                        for kh in taps(height, start: top) {
                            for kw in taps(width, start: left) {
                                let pixel = firstInput + ((front + kd * depth.dilation) * inH + top + kh * height.dilation) * inW
                                    + left + kw * width.dilation
                                let tap = kernel + (kd * kH + kh) * kW + kw
                                for c in 0..<channelsPerGroup {
                                    let value = Quantization.load(xData, pixel + c * inPlane, xType) &- zeroX
                                    let weight = Quantization.load(weights, tap + c * kernelSize, wType) &- zeroW
                                    sum = sum &+ value &* weight
                                }
                            }
                        }
                    }
                    body(m, out, sum)
                    out += 1
                }
            }
        }
    }
}
