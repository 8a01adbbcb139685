import Kernels

// The fast path's quantized products: QLinearConv and QLinearMatMul on the integer kernel
// (`Kernels/QuantizedProduct.swift`): int32 sums of the zero-point-shifted 8-bit operands and
// the requantizing epilogue, with the multiplier computed here in float32 exactly as the
// reference computes it (x_scale · w_scale[m] / y_scale), so the outputs equal the reference's.

extension QuantizedWindow {
    /// The integer kernel's window of a QLinearConv's or ConvInteger's geometry.
    init(_ g: ConvolutionGeometry) {
        self.init(inputHeight: g.height.input, inputWidth: g.width.input, outputHeight: g.height.output,
                  outputWidth: g.width.output, strideHeight: g.height.stride, strideWidth: g.width.stride,
                  dilationHeight: g.height.dilation, dilationWidth: g.width.dilation,
                  padTop: g.height.padBegin, padLeft: g.width.padBegin)
    }
}

extension StepBuilder {
    /// QLinearConv (1-D or 2-D, any group, stride, dilation and padding) with constant weights,
    /// scales, zero points and bias.
    func quantizedConvolutionStep(_ q: QLinearConv, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                                  _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        let g = q.convolution
        guard hasConstantWeights(node), g.depth == .unit else { return nil }
        let (cin, cout, group) = (g.inputChannels, g.outputChannels, g.group)
        let window = QuantizedWindow(g)
        let weights = packed {
            let inner = cin / group * g.height.kernel * g.width.kernel
            let weights = UnsafeRawPointer(inputs[3])
            let xScale = q.xScale.value(inputs, 0), yScale = q.yScale.value(inputs, 0)
            var values = [Int16](repeating: 0, count: cout * inner), multipliers = [Float](repeating: 0, count: cout)
            for m in 0..<cout {
                let zero = q.wZero.value(inputs, m)
                for i in 0..<inner {
                    values[m * inner + i] = Int16(truncatingIfNeeded: Quantization.load(weights, m * inner + i, q.wType) &- zero)
                }
                multipliers[m] = xScale * q.wScale.value(inputs, m) / yScale
            }
            let bias: [Int32]? = q.hasBias ? Array(UnsafeBufferPointer(start: UnsafeRawPointer(inputs[8]).assumingMemoryBound(to: Int32.self), count: cout)) : nil
            return QuantizedConvolutionWeights(values: values, bias: bias, multipliers: multipliers, groups: group,
                                               inputChannels: cin, outputChannels: cout,
                                               kernelHeight: g.height.kernel, kernelWidth: g.width.kernel,
                                               pixels: g.height.output * g.width.output,
                                               inputSigned: q.xType == .int8, inputZero: q.xZero.value(inputs, 0))
        }
        let range = Quantization.range(q.outputTypes[0])
        return QuantizedConvolutionStep(
            input: UnsafeRawPointer(inputs[0]), weights: weights, window: window,
            output: UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: UInt8.self),
            outputZero: q.yZero.value(inputs, 0), minimum: range.lowerBound, maximum: range.upperBound,
            batch: g.batch, inputImage: cin * g.height.input * g.width.input,
            outputImage: cout * g.height.output * g.width.output, pool: pool)
    }

    /// QLinearMatMul of a [..., M, K] by a constant [K, N] with constant scales and zero points
    /// (a's scale one value): all of A's rows as one product.
    func quantizedMatrixStep(_ q: QLinearMatMul, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                             _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard hasConstantWeights(node), !q.aScale.perIndex else { return nil }
        let a = graph.values[node.inputs[0]].shape, b = graph.values[node.inputs[3]].shape
        let p = q.product
        guard b.count <= 2, a.count >= 1, p.batchCount == a.dropLast(2).reduce(1, *) else { return nil }
        let (k, n) = (p.inner, p.columns), rows = p.batchCount * p.rows
        let weights = packed {
            let bData = UnsafeRawPointer(inputs[3])
            var values = [Int16](repeating: 0, count: k * n)
            for j in 0..<n {
                let zero = q.bZero.value(inputs, j)
                for i in 0..<k { values[i * n + j] = Int16(truncatingIfNeeded: Quantization.load(bData, i * n + j, q.bType) &- zero) }
            }
            let aScale = q.aScale.value(inputs, 0), yScale = q.yScale.value(inputs, 0)
            let multipliers = (0..<n).map { aScale * q.bScale.value(inputs, $0) / yScale }
            let aZero = q.aZero.perIndex ? (0..<rows).map { q.aZero.value(inputs, $0 % p.rows) } : [q.aZero.value(inputs, 0)]
            return QuantizedMatrixWeights(values: values, inner: k, columns: n, multipliers: multipliers,
                                          aSigned: q.aType == .int8, aZero: aZero)
        }
        let range = Quantization.range(q.outputTypes[0])
        return QuantizedMatrixStep(
            a: UnsafeRawPointer(inputs[0]), rows: rows, weights: weights,
            output: UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: UInt8.self),
            outputZero: q.yZero.value(inputs, 0), minimum: range.lowerBound, maximum: range.upperBound, pool: pool)
    }
}

/// A QLinearConv (or, with `dynamic`, a ConvInteger) on the integer kernel; its patch matrix and
/// (small maps) transposed product in the pool's shared scratch (the kernel uses no other scratch).
final class QuantizedConvolutionStep: Step {
    let input: UnsafeRawPointer
    let weights: QuantizedConvolutionWeights, window: QuantizedWindow
    let output: UnsafeMutablePointer<UInt8>, outputZero: Int32, minimum: Int32, maximum: Int32
    /// Images, and bytes per input image and elements per output image.
    let batch: Int, inputImage: Int, outputImage: Int
    let pool: WorkerPool
    /// The input's zero point read at run time and the int32 sums or their float epilogue
    /// written instead of bytes (`IntegerProductSteps.swift`), or nil.
    let dynamic: DynamicSums?
    /// The patches' Int32 elements for the pool's threads, then the product's bytes, 64-byte aligned.
    private var patchCount: Int { quantizedPatchCount(weights, window, threads: pool.threadCount) }
    private var productOffset: Int { (patchCount + 15) / 16 * 16 }
    private var productBytes: Int { quantizedOutputScratchCount(weights, window) }
    var scratch: ScratchSize { ScratchSize(shared: productOffset + (productBytes + 3) / 4) }
    func run() {
        precondition(pool.holds(scratch), "quantized convolution: pool shared scratch too small")
        let base = UnsafeMutableRawPointer(pool.shared.baseAddress!)
        let patches = UnsafeMutableBufferPointer(start: base.assumingMemoryBound(to: Int32.self), count: patchCount)
        let product = UnsafeMutableBufferPointer(
            start: (base + productOffset * MemoryLayout<Float>.stride).assumingMemoryBound(to: UInt8.self), count: productBytes)
        let zero = dynamic?.zero
        weights.weightSums.withUnsafeBufferPointer { weightSums in
            for image in 0..<batch {
                quantizedConvolution(QuantizedConvolution(
                    input: input + image * inputImage, weights: weights,
                    window: window, patches: patches, output: output + image * outputImage,
                    outputZero: outputZero, minimum: minimum, maximum: maximum, scratch: product,
                    inputZero: zero, sums: dynamic?.output(weightSums.baseAddress!, offset: image * outputImage)), pool: pool)
            }
        }
    }

    init(input: UnsafeRawPointer, weights: QuantizedConvolutionWeights, window: QuantizedWindow,
         output: UnsafeMutablePointer<UInt8>, outputZero: Int32, minimum: Int32, maximum: Int32, batch: Int,
         inputImage: Int, outputImage: Int, pool: WorkerPool, dynamic: DynamicSums? = nil) {
        self.dynamic = dynamic
        self.input = input
        self.weights = weights
        self.window = window
        self.output = output
        self.outputZero = outputZero
        self.minimum = minimum
        self.maximum = maximum
        self.batch = batch
        self.inputImage = inputImage
        self.outputImage = outputImage
        self.pool = pool
    }
}

/// A QLinearMatMul or QGemm (or, with `dynamic`, a MatMulInteger) on the integer kernel; A
/// shifted and packed in the pool's shared scratch.
final class QuantizedMatrixStep: Step {
    let a: UnsafeRawPointer, rows: Int
    let weights: QuantizedMatrixWeights
    let output: UnsafeMutablePointer<UInt8>, outputZero: Int32, minimum: Int32, maximum: Int32
    let pool: WorkerPool
    let floatOutput: UnsafeMutablePointer<Float>?
    /// A's zero point read at run time and the int32 sums or their float epilogue written
    /// instead of bytes (`IntegerProductSteps.swift`), or nil.
    let dynamic: DynamicSums?
    var scratch: ScratchSize { ScratchSize(shared: quantizedShiftedCount(rows: rows, weights)) }
    func run() {
        precondition(pool.holds(scratch), "quantized matrix product: pool shared scratch too small")
        let shifted = UnsafeMutableBufferPointer(start: UnsafeMutableRawPointer(pool.shared.baseAddress!).assumingMemoryBound(to: Int32.self),
                                                 count: quantizedShiftedCount(rows: rows, weights))
        weights.weightSums.withUnsafeBufferPointer { weightSums in
            quantizedMatrixProduct(QuantizedMatrixProduct(
                a: a, rows: rows, weights: weights, shifted: shifted,
                output: output, outputZero: outputZero, minimum: minimum, maximum: maximum, floatOutput: floatOutput,
                aZero: dynamic?.zero, sums: dynamic?.output(weightSums.baseAddress!)), pool: pool)
        }
    }

    init(a: UnsafeRawPointer, rows: Int, weights: QuantizedMatrixWeights, output: UnsafeMutablePointer<UInt8>,
         outputZero: Int32, minimum: Int32, maximum: Int32, pool: WorkerPool,
         floatOutput: UnsafeMutablePointer<Float>? = nil, dynamic: DynamicSums? = nil) {
        self.dynamic = dynamic
        self.a = a
        self.rows = rows
        self.weights = weights
        self.output = output
        self.outputZero = outputZero
        self.minimum = minimum
        self.maximum = maximum
        self.pool = pool
        self.floatOutput = floatOutput
    }
}

extension StepBuilder {
    /// QuantizeLinear of float32 to uint8 or int8 with one constant float32 scale and zero point.
    func quantizeStep(_ q: QuantizeLinear, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                      _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        let type = q.outputTypes[0]
        guard hasConstantWeights(node), q.inputType == .float32, q.scaleType == .float32, q.layout == .perTensor,
              type == .uint8 || type == .int8 else { return nil }
        let range = Quantization.range(type)
        return QuantizeStep(input: inputs[0], scale: UnsafeRawPointer(inputs[1]).load(as: Float.self),
                            zeroPoint: q.hasZeroPoint ? Quantization.load(UnsafeRawPointer(inputs[2]), 0, type) : 0,
                            minimum: range.lowerBound, maximum: range.upperBound,
                            output: UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: UInt8.self), count: q.count)
    }

    /// DequantizeLinear of uint8 or int8 to float32 with one constant float32 scale and zero point.
    func dequantizeStep(_ d: DequantizeLinear, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                        _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard hasConstantWeights(node), d.inputType == .uint8 || d.inputType == .int8, d.scaleType == .float32,
              d.outputTypes[0] == .float32, d.layout == .perTensor else { return nil }
        return DequantizeStep(input: UnsafeRawPointer(inputs[0]), signed: d.inputType == .int8,
                              zeroPoint: d.hasZeroPoint ? Quantization.load(UnsafeRawPointer(inputs[2]), 0, d.inputType) : 0,
                              scale: UnsafeRawPointer(inputs[1]).load(as: Float.self), output: outputs[0], count: d.count)
    }
}

final class QuantizeStep: Step {
    let input: UnsafePointer<Float>, scale: Float, zeroPoint: Int32, minimum: Int32, maximum: Int32
    let output: UnsafeMutablePointer<UInt8>, count: Int
    func run() {
        quantizeLinear(input, scale: scale, zeroPoint: zeroPoint, minimum: minimum, maximum: maximum, output: output, count: count)
    }

    init(input: UnsafePointer<Float>, scale: Float, zeroPoint: Int32, minimum: Int32, maximum: Int32,
         output: UnsafeMutablePointer<UInt8>, count: Int) {
        self.input = input
        self.scale = scale
        self.zeroPoint = zeroPoint
        self.minimum = minimum
        self.maximum = maximum
        self.output = output
        self.count = count
    }
}

final class DequantizeStep: Step {
    let input: UnsafeRawPointer, signed: Bool, zeroPoint: Int32, scale: Float
    let output: UnsafeMutablePointer<Float>, count: Int
    func run() { dequantizeLinear(input, signed: signed, zeroPoint: zeroPoint, scale: scale, output: output, count: count) }

    init(input: UnsafeRawPointer, signed: Bool, zeroPoint: Int32, scale: Float, output: UnsafeMutablePointer<Float>,
         count: Int) {
        self.input = input
        self.signed = signed
        self.zeroPoint = zeroPoint
        self.scale = scale
        self.output = output
        self.count = count
    }
}

extension StepBuilder {
    /// QLinearAdd and QLinearMul with constant float32 scales and zero points, the operands of one
    /// shape or one of them one value per plane of the other ([…, C, 1, 1] against […, C, H, W]).
    func quantizedBinaryStep(_ q: QLinearBinary, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                             _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        let parameters = node.inputs.indices.filter { $0 != q.aBuffer && $0 != q.bBuffer }
        guard parameters.allSatisfy({ rules.constants.contains(node.inputs[$0]) }),
              [q.a.scale, q.b.scale, q.c.scale].allSatisfy({ $0.type == .float32 }) else { return nil }
        let shapeA = graph.values[node.inputs[q.aBuffer]].shape, shapeB = graph.values[node.inputs[q.bBuffer]].shape
        let type = q.outputTypes[0], range = Quantization.range(type)
        func operand(_ buffer: Int, _ scalar: QuantizedScalar) -> QuantizedOperand {
            QuantizedOperand(values: UnsafeRawPointer(inputs[buffer]), zero: scalar.zero.value(inputs, 0), scale: scalar.scale.value(inputs, 0))
        }
        var a = operand(q.aBuffer, q.a), b = operand(q.bBuffer, q.b)
        var full = shapeA, other = shapeB
        let swapped = shapeA.reduce(1, *) < shapeB.reduce(1, *)
        if swapped { swap(&a, &b); swap(&full, &other) }
        guard full == q.outputShapes[0] else { return nil }
        let planeShape = StepBuilder.planeBroadcast(other, to: full), rowLength = StepBuilder.rowBroadcast(other, to: full)
        guard planeShape != nil || rowLength != nil else { return nil }
        let scaleC = q.c.scale.value(inputs, 0)
        if q.kind == .add {
            // MLAS's arithmetic (`QLinearBinary`): scales as ratios to C's, the zero points in the constant.
            a = QuantizedOperand(values: a.values, zero: a.zero, scale: a.scale / scaleC)
            b = QuantizedOperand(values: b.values, zero: b.zero, scale: b.scale / scaleC)
        }
        let constant = QLinearBinary.addConstant(ratioFirst: a.scale, zeroFirst: a.zero, ratioSecond: b.scale, zeroSecond: b.zero,
                                                 zeroC: q.c.zero.value(inputs, 0))
        if planeShape == nil, let rowLength {
            // A and B in their order, as the reference adds them (B's term first) where B is not
            // one value per run of the innermost axis (`QLinearBinary.addsBFirst`).
            let (first, second) = swapped ? (b, a) : (a, b)
            let rowConstant = QLinearBinary.addConstant(ratioFirst: first.scale, zeroFirst: first.zero, ratioSecond: second.scale,
                                                        zeroSecond: second.zero, zeroC: q.c.zero.value(inputs, 0))
            return QuantizedRowBroadcastStep(
                kind: q.kind == .add ? .add : .mul, a: first, b: second, rowIsFirst: swapped, signed: type == .int8,
                rows: full.reduce(1, *) / rowLength, rowLength: rowLength, addConstant: rowConstant, multiplier: q.a.scale.value(inputs, 0) * q.b.scale.value(inputs, 0) / scaleC,
                outputZero: q.c.zero.value(inputs, 0), minimum: range.lowerBound, maximum: range.upperBound,
                output: UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: UInt8.self))
        }
        let (planes, planeSize) = planeShape!
        return QuantizedBinaryStep(
            kind: q.kind == .add ? .add : .mul, a: a, b: b, bPerPlane: other != full, signed: type == .int8,
            planes: other == full ? 1 : planes, planeSize: other == full ? full.reduce(1, *) : planeSize,
            addConstant: constant, multiplier: q.a.scale.value(inputs, 0) * q.b.scale.value(inputs, 0) / scaleC,
            outputZero: q.c.zero.value(inputs, 0), minimum: range.lowerBound, maximum: range.upperBound,
            output: UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: UInt8.self))
    }

    /// For `shape` broadcast to `full` as one row of at least 16 values repeated — its dimensions 1
    /// up to some axis (or absent) and those of `full` from it on — the row's length; nil otherwise
    /// (shorter rows would take the kernel's scalar tail row by row, slower than the reference).
    static func rowBroadcast(_ shape: [Int], to full: [Int]) -> Int? {
        guard shape.count <= full.count else { return nil }
        let aligned = [Int](repeating: 1, count: full.count - shape.count) + shape
        guard let first = aligned.firstIndex(where: { $0 != 1 }), (first..<full.count).allSatisfy({ aligned[$0] == full[$0] }) else { return nil }
        let length = full[first...].reduce(1, *)
        return length >= 16 ? length : nil
    }

    /// For `shape` broadcast to `full` as one value per plane — its dimensions those of `full` up to
    /// some axis (leading 1s added) and 1 after it — the planes and their size.
    static func planeBroadcast(_ shape: [Int], to full: [Int]) -> (planes: Int, planeSize: Int)? {
        guard shape.count <= full.count else { return nil }
        let aligned = [Int](repeating: 1, count: full.count - shape.count) + shape
        let last = aligned.lastIndex { $0 != 1 } ?? -1
        guard last < 0 || (0...last).allSatisfy({ aligned[$0] == full[$0] }) else { return nil }
        return (full[..<(last + 1)].reduce(1, *), full[(last + 1)...].reduce(1, *))
    }
}

/// QLinearAdd / QLinearMul of a full operand and one row repeated along it (a channels-last layer
/// scale), either first: `quantizedBinary` on each row as on two operands of one shape, in their
/// order, so each element takes the arithmetic of the same-shape case.
final class QuantizedRowBroadcastStep: Step {
    let kind: QuantizedBinaryKind, a: QuantizedOperand, b: QuantizedOperand, rowIsFirst: Bool, signed: Bool, rows: Int, rowLength: Int
    let addConstant: Float, multiplier: Float, outputZero: Int32, minimum: Int32, maximum: Int32, output: UnsafeMutablePointer<UInt8>
    func run() {
        for row in 0..<rows {
            let full = rowIsFirst ? b : a
            let slice = QuantizedOperand(values: full.values + row * rowLength, zero: full.zero, scale: full.scale)
            quantizedBinary(kind, rowIsFirst ? a : slice, rowIsFirst ? slice : b, bPerPlane: false, signed: signed, planes: 1, planeSize: rowLength,
                            multiplier: multiplier, addConstant: addConstant, outputZero: outputZero,
                            minimum: minimum, maximum: maximum, output: output + row * rowLength)
        }
    }

    init(kind: QuantizedBinaryKind, a: QuantizedOperand, b: QuantizedOperand, rowIsFirst: Bool, signed: Bool, rows: Int, rowLength: Int,
         addConstant: Float, multiplier: Float, outputZero: Int32, minimum: Int32, maximum: Int32, output: UnsafeMutablePointer<UInt8>) {
        self.kind = kind
        self.a = a
        self.b = b
        self.rowIsFirst = rowIsFirst
        self.signed = signed
        self.rows = rows
        self.rowLength = rowLength
        self.addConstant = addConstant
        self.multiplier = multiplier
        self.outputZero = outputZero
        self.minimum = minimum
        self.maximum = maximum
        self.output = output
    }
}

final class QuantizedBinaryStep: Step {
    let kind: QuantizedBinaryKind, a: QuantizedOperand, b: QuantizedOperand, bPerPlane: Bool, signed: Bool
    let planes: Int, planeSize: Int, addConstant: Float, multiplier: Float
    let outputZero: Int32, minimum: Int32, maximum: Int32, output: UnsafeMutablePointer<UInt8>
    func run() {
        quantizedBinary(kind, a, b, bPerPlane: bPerPlane, signed: signed, planes: planes, planeSize: planeSize,
                        multiplier: multiplier, addConstant: addConstant, outputZero: outputZero,
                        minimum: minimum, maximum: maximum, output: output)
    }

    init(kind: QuantizedBinaryKind, a: QuantizedOperand, b: QuantizedOperand, bPerPlane: Bool, signed: Bool,
         planes: Int, planeSize: Int, addConstant: Float, multiplier: Float, outputZero: Int32, minimum: Int32,
         maximum: Int32, output: UnsafeMutablePointer<UInt8>) {
        self.kind = kind
        self.a = a
        self.b = b
        self.bPerPlane = bPerPlane
        self.signed = signed
        self.planes = planes
        self.planeSize = planeSize
        self.addConstant = addConstant
        self.multiplier = multiplier
        self.outputZero = outputZero
        self.minimum = minimum
        self.maximum = maximum
        self.output = output
    }
}

extension StepBuilder {
    /// A 4-D AxisGather (Pad, Slice …) of 8-bit or float32 values that copies the batch and channel
    /// axes through, every row and column one of the input's or the fill value's (a constant Pad
    /// around a quantized convolution, on its bytes or between DequantizeLinear and
    /// QuantizeLinear): per plane, rows of copied runs and filled runs. (Float maps with no fill
    /// take `planeGatherStep` first.)
    func runPlaneGatherStep(_ gather: AxisGather, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                            _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        let type = gather.outputTypes[0]
        guard type == .uint8 || type == .int8 || type == .float32 else { return nil }
        var input = graph.values[node.inputs[0]].shape, output = gather.outputShapes[0]
        guard input.count == 4, output.count == 4, input[0] == output[0] else { return nil }
        var sources = gather.sources
        // Channels last ([N, H, W, C] with C copied through, as tf2onnx's Pad of NHWC): the same
        // gather on [N, 1, H, W·C], each output column's source W-index spread over its C values.
        let c = input[3]
        if input[1] != output[1] || sources[1] != (0..<input[1]).map({ $0 * input[2] * input[3] }),
           output[3] == c, sources[3] == Array(0..<c) {
            sources = [sources[0], [0], sources[1],
                       sources[2].flatMap { column in (0..<c).map { column < 0 ? -1 : column + $0 } }]
            input = [input[0], 1, input[1], input[2] * c]
            output = [output[0], 1, output[1], output[2] * c]
        }
        guard input[1] == output[1] else { return nil }
        let (h, w) = (input[2], input[3])
        guard sources[0] == (0..<input[0]).map({ $0 * input[1] * h * w }),
              sources[1] == (0..<input[1]).map({ $0 * h * w }),
              sources[2].allSatisfy({ $0 == -1 || ($0 >= 0 && $0 % w == 0) }),
              sources[3].allSatisfy({ $0 >= -1 }) else { return nil }
        // Output columns as runs: consecutive input columns, or the fill value (source −1).
        var columnRuns: [PlaneGatherRuns.Run] = []
        for (column, source) in sources[3].enumerated() {
            if let last = columnRuns.last, last.output + last.count == column,
               (source < 0 && last.source < 0) || (source >= 0 && last.source >= 0 && last.source + last.count == source) {
                columnRuns[columnRuns.count - 1].count += 1
            } else {
                columnRuns.append(.init(output: column, source: source, count: 1))
            }
        }
        let layout = PlaneGatherRuns(planes: input[0] * input[1], inputPlane: h * w, width: w,
                                     rows: sources[2].map { $0 < 0 ? -1 : $0 / w }, runs: columnRuns, outputWidth: output[3])
        if type == .float32 {
            return PlaneGatherRunsStep<UInt32>(input: UnsafeRawPointer(inputs[0]), output: UnsafeMutableRawPointer(outputs[0]),
                                               runs: layout, fill: UInt32(truncatingIfNeeded: gather.fill))
        }
        return PlaneGatherRunsStep<UInt8>(input: UnsafeRawPointer(inputs[0]), output: UnsafeMutableRawPointer(outputs[0]),
                                          runs: layout, fill: UInt8(truncatingIfNeeded: gather.fill))
    }
}

struct PlaneGatherRuns {
    struct Run { var output: Int, source: Int, count: Int }
    let planes: Int, inputPlane: Int, width: Int
    /// Per output row, the input row (−1: the fill value); per output row, `runs` of columns.
    let rows: [Int], runs: [Run], outputWidth: Int
}

/// ``PlaneGatherRuns`` over elements of `Element`'s size (bytes, or float32 bit patterns).
final class PlaneGatherRunsStep<Element: FixedWidthInteger>: Step {
    let input: UnsafeRawPointer, output: UnsafeMutableRawPointer, runs: PlaneGatherRuns, fill: Element
    func run() {
        let g = runs
        let input = self.input.assumingMemoryBound(to: Element.self)
        var out = output.assumingMemoryBound(to: Element.self)
        for plane in 0..<g.planes {
            let source = input + plane * g.inputPlane
            for row in g.rows {
                if row < 0 {
                    out.update(repeating: fill, count: g.outputWidth)
                } else {
                    let line = source + row * g.width
                    for run in g.runs {
                        if run.source < 0 { (out + run.output).update(repeating: fill, count: run.count) }
                        else { (out + run.output).update(from: line + run.source, count: run.count) }
                    }
                }
                out += g.outputWidth
            }
        }
    }

    init(input: UnsafeRawPointer, output: UnsafeMutableRawPointer, runs: PlaneGatherRuns, fill: Element) {
        self.input = input
        self.output = output
        self.runs = runs
        self.fill = fill
    }
}

extension StepBuilder {
    /// com.microsoft QGemm with A not transposed and constant B, scales, zero points and bias (one
    /// per column, or any for one row): the quantized matrix product, its epilogue requantizing or,
    /// without y_scale, writing Float(sum) · alpha · a_scale · b_scale[j].
    func quantizedGemmStep(_ q: QGemm, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                           _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard hasConstantWeights(node), !q.transposeA, q.bias == nil || q.biasStrides.row == 0 || q.rows == 1 else { return nil }
        let (m, k, n) = (q.rows, q.inner, q.columns)
        let weights = packed {
            let b = UnsafeRawPointer(inputs[3])
            var values = [Int16](repeating: 0, count: k * n)
            for j in 0..<n {
                let zero = q.bZero.value(inputs, j)
                for p in 0..<k {
                    values[p * n + j] = Int16(truncatingIfNeeded: Quantization.load(b, q.transposeB ? j * k + p : p * n + j, q.bType) &- zero)
                }
            }
            let scaleA = q.aScale.value(inputs, 0), outputScale = q.yScale?.value(inputs, 0)
            let multipliers = (0..<n).map { j in
                var scale = q.alpha * scaleA * q.bScale.value(inputs, j)
                if let outputScale { scale /= outputScale }
                return scale
            }
            let bias = q.bias.map { buffer in
                let c = UnsafeRawPointer(inputs[buffer]).assumingMemoryBound(to: Int32.self)
                return (0..<n).map { c[$0 * q.biasStrides.column] }
            }
            return QuantizedMatrixWeights(values: values, inner: k, columns: n, multipliers: multipliers,
                                          aSigned: q.aType == .int8, aZero: [q.aZero.value(inputs, 0)], bias: bias)
        }
        let type = q.outputTypes[0], range = type == .float32 ? 0...0 : Quantization.range(type)
        return QuantizedMatrixStep(
            a: UnsafeRawPointer(inputs[0]), rows: m, weights: weights,
            output: UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: UInt8.self),
            outputZero: q.yZero.value(inputs, 0), minimum: range.lowerBound, maximum: range.upperBound, pool: pool,
            floatOutput: type == .float32 ? outputs[0] : nil)
    }
}

extension StepBuilder {
    /// MaxPool of uint8 or int8 maps (2-D, any stride, padding and dilation, no Indices output)
    /// whose every window has a tap inside the input.
    func byteMaxPoolStep(_ p: Pool, _ inputs: [UnsafePointer<Float>], _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard p.kind == .max, p.elementType == .uint8 || p.elementType == .int8, p.indexOrder == nil, p.depth == .unit,
              let rows = PoolTaps(input: p.height.input, output: p.height.output, kernel: p.height.kernel, stride: p.height.stride,
                                  dilation: p.height.dilation, padBegin: p.height.padBegin),
              // Every column window has a tap inside (the row kernel's border is the type's minimum).
              PoolTaps(input: p.width.input, output: p.width.output, kernel: p.width.kernel, stride: p.width.stride,
                       dilation: p.width.dilation, padBegin: p.width.padBegin) != nil else { return nil }
        return ByteMaxPoolStep(input: UnsafeRawPointer(inputs[0]), output: UnsafeMutableRawPointer(outputs[0]),
                               signed: p.elementType == .int8, planes: p.planes, inputPlane: p.height.input * p.width.input,
                               inputWidth: p.width.input, rows: rows, width: p.width)
    }
}

/// MaxPool of 8-bit planes: per output row the maximum of its window's rows, then of each
/// window's columns (`byteMaxPool(...line:)`), in a bordered row the step owns; planes under 16
/// wide by gathered bytes where the build gathers them in one instruction (`SmallPlanePool`).
final class ByteMaxPoolStep: Step {
    let input: UnsafeRawPointer, output: UnsafeMutableRawPointer, signed: Bool
    let planes: Int, inputPlane: Int, inputWidth: Int, rows: PoolTaps, width: WindowAxis
    let line: IntegerBuffer<UInt8>
    let smallPlanes: SmallPlanePool?
    func run() {
        if let smallPlanes {
            smallPlaneByteMaxPool(input, output, signed: signed, planes: planes, smallPlanes)
            return
        }
        byteMaxPool(input, output, signed: signed, planes: planes, inputPlane: inputPlane, inputWidth: inputWidth, rows: rows,
                    outputWidth: width.output, kernel: width.kernel, stride: width.stride, dilation: width.dilation,
                    padBegin: width.padBegin, line: UnsafeMutableRawPointer(line.baseAddress))
    }

    init(input: UnsafeRawPointer, output: UnsafeMutableRawPointer, signed: Bool, planes: Int, inputPlane: Int,
         inputWidth: Int, rows: PoolTaps, width: WindowAxis) {
        self.input = input
        self.output = output
        self.signed = signed
        self.planes = planes
        self.inputPlane = inputPlane
        self.inputWidth = inputWidth
        self.rows = rows
        self.width = width
        line = IntegerBuffer<UInt8>(count: bytePoolLineCount(inputWidth: inputWidth, outputWidth: width.output, kernel: width.kernel,
                                                             stride: width.stride, dilation: width.dilation, padBegin: width.padBegin))
        let columns = PoolTaps(input: width.input, output: width.output, kernel: width.kernel, stride: width.stride,
                               dilation: width.dilation, padBegin: width.padBegin)
        smallPlanes = byteGatherIsFast && inputWidth < 16 && columns != nil
            ? SmallPlanePool(inputHeight: inputPlane / inputWidth, inputWidth: inputWidth, rows: rows, columns: columns!) : nil
    }
}
