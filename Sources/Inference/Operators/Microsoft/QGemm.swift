/// `com.microsoft` `QGemm` (onnxruntime's contrib op, what its quantizer writes for a `Gemm`):
/// Y = alpha · A′ · B′ + C over quantized int8 / uint8 A and B (A′, B′ transposed by `transA`,
/// `transB`), as onnxruntime's kernel computes it: the int32 sum
/// C[i, j] + Σ_p (a[i, p] − a_zero) · (b[p, j] − b_zero[j]) (C an optional int32 bias broadcast to
/// [M, N], at the scale a_scale · b_scale), times s[j] = alpha · a_scale · b_scale[j] (/ y_scale) in
/// float32; with y_scale and y_zero_point the result is requantized (round half to even, + y_zero,
/// saturated, y_zero's type), without them it is float32. `beta` is read and, as in onnxruntime,
/// not applied. Inputs: A, a_scale, a_zero_point, B, b_scale, b_zero_point, C, y_scale,
/// y_zero_point; a's parameters scalars, b's scalars or one per column.
final class QGemm: Operator {
    let dataInputs: [Int]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    var checksInputTypes: Bool { true }
    let rows: Int, inner: Int, columns: Int
    let transposeA: Bool, transposeB: Bool
    let alpha: Float
    let aType: ElementType, bType: ElementType
    let aScale: ScaleParameter, bScale: ScaleParameter, yScale: ScaleParameter?
    let aZero: ZeroPoint, bZero: ZeroPoint, yZero: ZeroPoint
    /// The bias's buffer and its strides over (row, column) (0 along a broadcast axis).
    let bias: Int?, biasStrides: (row: Int, column: Int)

    var multiplyAccumulates: Int { rows * inner * columns }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try MicrosoftOperators.checkInputs(context, count: 6...9, required: [0, 1, 2, 3, 4, 5])
        try context.checkAttributes(["alpha", "beta", "transA", "transB"])
        let alpha = try context.float("alpha", default: 1)
        _ = try context.float("beta", default: 1)
        let transposeA = try context.int("transA", default: 0, in: 0...1) == 1
        let transposeB = try context.int("transB", default: 0, in: 0...1) == 1
        let aType = try context.requireType(ofInput: 0, in: [.int8, .uint8])
        let bType = try context.requireType(ofInput: 3, in: [.int8, .uint8])
        let a = try context.shape(ofInput: 0), b = try context.shape(ofInput: 3)
        guard a.count == 2, b.count == 2 else { throw context.error(.invalidShape, "A and B must be matrices, got \(a) and \(b)") }
        let (m, k) = transposeA ? (a[1], a[0]) : (a[0], a[1])
        let (kB, n) = transposeB ? (b[1], b[0]) : (b[0], b[1])
        guard k == kB else { throw context.error(.invalidShape, "A \(a) and B \(b) cannot be multiplied (transA \(transposeA), transB \(transposeB))") }
        var dataInputs = [0, 1, 2, 3, 4, 5]
        let aScale = try ScaleParameter.read(context, input: 1, buffer: 1, perIndexCount: nil, role: "a_scale")
        let aZero = try ZeroPoint.read(context, input: 2, buffer: 2, operandType: aType, perIndexCount: 1, role: "a_zero_point")
        let bScale = try ScaleParameter.read(context, input: 4, buffer: 4, perIndexCount: n, role: "b_scale")
        let bZero = try ZeroPoint.read(context, input: 5, buffer: 5, operandType: bType, perIndexCount: n, role: "b_zero_point")
        var bias: Int?, biasStrides = (row: 0, column: 0)
        if context.hasInput(6) {
            _ = try context.requireType(ofInput: 6, in: [.int32])
            let c = try context.shape(ofInput: 6)
            guard c.count <= 2, let broadcast = Shapes.broadcast(c, [m, n]), broadcast == [m, n] else {
                throw context.error(.invalidShape, "C has shape \(c); it must broadcast to [\(m), \(n)]")
            }
            let strides = Shapes.broadcastStrides(c, to: [m, n])
            bias = dataInputs.count
            biasStrides = (strides[0], strides[1])
            dataInputs.append(6)
        }
        guard context.hasInput(7) == context.hasInput(8) else {
            throw context.error(.unsupported, "y_scale and y_zero_point must be given together (a quantized Y) or both left out (a float Y)")
        }
        var yScale: ScaleParameter?, yZero = ZeroPoint.none, outputType = ElementType.float32
        if context.hasInput(7) {
            outputType = try context.requireType(ofInput: 8, in: [.int8, .uint8])
            yScale = try ScaleParameter.read(context, input: 7, buffer: dataInputs.count, perIndexCount: nil, role: "y_scale")
            yZero = try ZeroPoint.read(context, input: 8, buffer: dataInputs.count + 1, operandType: outputType,
                                                       perIndexCount: 1, role: "y_zero_point")
            dataInputs += [7, 8]
        }
        return QGemm(dataInputs: dataInputs, outputShapes: [[m, n]], outputTypes: [outputType], rows: m, inner: k, columns: n,
                     transposeA: transposeA, transposeB: transposeB, alpha: alpha, aType: aType, bType: bType,
                     aScale: aScale, bScale: bScale, yScale: yScale, aZero: aZero, bZero: bZero, yZero: yZero,
                     bias: bias, biasStrides: biasStrides)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let a = UnsafeRawPointer(inputs[0]), b = UnsafeRawPointer(inputs[3]), y = UnsafeMutableRawPointer(outputs[0])
        let c: UnsafePointer<Int32>? = bias.map { UnsafeRawPointer(inputs[$0]).assumingMemoryBound(to: Int32.self) }
        let type = outputTypes[0], range = Quantization.range(type)
        let scaleA = aScale.value(inputs, 0), zeroA = aZero.value(inputs, 0)
        let outputScale = yScale?.value(inputs, 0), outputZero = yZero.value(inputs, 0)
        let (m, k, n) = (rows, inner, columns)
        for i in 0..<m {
            for j in 0..<n {
                let zeroB = bZero.value(inputs, j)
                var sum: Int32 = c.map { $0[i * biasStrides.row + j * biasStrides.column] } ?? 0
                for p in 0..<k {
                    let left = Quantization.load(a, transposeA ? p * m + i : i * k + p, aType) &- zeroA
                    let right = Quantization.load(b, transposeB ? j * k + p : p * n + j, bType) &- zeroB
                    sum = sum &+ left &* right
                }
                var scale = alpha * scaleA * bScale.value(inputs, j)
                if let outputScale {
                    scale /= outputScale
                    Quantization.store(Quantization.requantize(sum, multiplier: scale, zeroPoint: outputZero, range), y, i * n + j, type)
                } else {
                    y.storeBytes(of: Float(sum) * scale, toByteOffset: 4 * (i * n + j), as: Float.self)
                }
            }
        }
    }

    init(dataInputs: [Int], outputShapes: [[Int]], outputTypes: [ElementType], rows: Int, inner: Int, columns: Int,
         transposeA: Bool, transposeB: Bool, alpha: Float, aType: ElementType, bType: ElementType,
         aScale: ScaleParameter, bScale: ScaleParameter, yScale: ScaleParameter?, aZero: ZeroPoint, bZero: ZeroPoint,
         yZero: ZeroPoint, bias: Int?, biasStrides: (row: Int, column: Int)) {
        self.dataInputs = dataInputs
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.rows = rows
        self.inner = inner
        self.columns = columns
        self.transposeA = transposeA
        self.transposeB = transposeB
        self.alpha = alpha
        self.aType = aType
        self.bType = bType
        self.aScale = aScale
        self.bScale = bScale
        self.yScale = yScale
        self.aZero = aZero
        self.bZero = bZero
        self.yZero = yZero
        self.bias = bias
        self.biasStrides = biasStrides
    }
}
