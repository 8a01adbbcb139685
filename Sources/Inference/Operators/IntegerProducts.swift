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

/// The shapes of a numpy `matmul` of two integer tensors, as MatMul has them.
struct IntegerMatrixProduct: Sendable {
    let rows: Int, inner: Int, columns: Int
    /// Over the broadcast batch: the first element of each output, A and B matrix.
    let batches: StridedLoop
    let batchCount: Int
    let outputShape: [Int]

    var multiplyAccumulates: Int { batchCount * rows * inner * columns }

    init(_ context: NodeContext, a: Int, b: Int) throws(ModelError) {
        let a = try context.shape(ofInput: a), b = try context.shape(ofInput: b)
        guard !a.isEmpty, !b.isEmpty else { throw context.error(.invalidShape, "the operands must have rank ≥ 1, got \(a) and \(b)") }
        let matrixA = a.count == 1 ? [1] + a : a, matrixB = b.count == 1 ? b + [1] : b
        let (m, k) = (matrixA[matrixA.count - 2], matrixA[matrixA.count - 1])
        let (kB, n) = (matrixB[matrixB.count - 2], matrixB[matrixB.count - 1])
        let batchA = Array(matrixA.dropLast(2)), batchB = Array(matrixB.dropLast(2))
        guard k == kB, let batch = Shapes.broadcast(batchA, batchB) else {
            throw context.error(.invalidShape, "shapes \(a) and \(b) cannot be multiplied")
        }
        guard batch.count <= StridedLoop.maximumRank else {
            throw context.error(.unsupported, "\(batch.count) batch dimensions are above the supported \(StridedLoop.maximumRank)")
        }
        rows = m
        inner = k
        columns = n
        outputShape = batch + (a.count == 1 ? [] : [m]) + (b.count == 1 ? [] : [n])
        batches = StridedLoop(shape: batch, strides: [Shapes.strides(batch).map { $0 * m * n },
                                                      Shapes.broadcastStrides(batchA, to: batch).map { $0 * m * k },
                                                      Shapes.broadcastStrides(batchB, to: batch).map { $0 * k * n }])
        batchCount = batch.reduce(1, *)
    }

    /// Reads the zero point of operand `index` (input `buffer` of the run): a scalar (or one
    /// element), or one per row of A (`perIndexCount` = rows) or column of B (= columns).
    static func zeroPoint(_ context: NodeContext, input index: Int, buffer: Int, operandType: ElementType,
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

/// The geometry of an integer convolution (ConvInteger, QLinearConv): Conv's, with the input at
/// node input `x` and the weights at `w`.
struct IntegerConvolution: Sendable {
    let batch: Int, inputChannels: Int, outputChannels: Int, group: Int
    let depth: WindowAxis, height: WindowAxis, width: WindowAxis
    let outputShape: [Int]

    var multiplyAccumulates: Int {
        batch * outputChannels * depth.output * height.output * width.output * (inputChannels / group)
            * depth.kernel * height.kernel * width.kernel
    }

    static let attributes: Set<String> = ["auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"]

    init(_ context: NodeContext, x xIndex: Int, w wIndex: Int) throws(ModelError) {
        let x = try context.shape(ofInput: xIndex), w = try context.shape(ofInput: wIndex)
        guard (3...5).contains(x.count) else {
            throw context.error(.unsupported, "only 1-D, 2-D and 3-D convolution (rank 3 to 5 input) is supported, input has rank \(x.count)")
        }
        guard w.count == x.count else { throw context.error(.invalidShape, "weights must have rank \(x.count), got \(w)") }
        let group = try context.int("group", default: 1, in: 1...(1 << 20))
        guard x[1] % group == 0, w[0] % group == 0, w[1] * group == x[1] else {
            throw context.error(.invalidShape, "input channels \(x[1]), weights \(w) and group \(group) disagree", attribute: "group")
        }
        let axes = try WindowGeometry.resolveSpatial(context, spatialShape: Array(x[2...]), kernelFromWeights: Array(w[2...]))
        batch = x[0]
        inputChannels = x[1]
        outputChannels = w[0]
        self.group = group
        (depth, height, width) = (axes[0], axes[1], axes[2])
        outputShape = [x[0], w[0]] + WindowGeometry.spatialOutput(axes, rank: x.count - 2)
    }

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
