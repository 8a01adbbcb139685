import Kernels

// The dynamic form on the fast path: DynamicQuantizeLinear, and ConvInteger / MatMulInteger on
// the quantized products' integer kernel (`Kernels/QuantizedProduct.swift`) with the activations'
// zero point read when the step runs, writing int32 sums or (with the epilogue the rule absorbed,
// `Rules/IntegerProductRules.swift`) Float(sum) · scale + bias and an activation
// (`Kernels/IntegerSums.swift`): the reference's integers, and its float32 operations in its order.

extension FusionRules {
    /// Whether the integer product `node` runs on the fast path: constant weights and weight zero
    /// points; a 1-D or 2-D convolution; a matrix product of a [..., M, K] by a [K, N] with one
    /// zero point for A.
    func integerProductRunsFast(_ node: PlannedNode) -> Bool {
        switch node.operation {
        case let conv as ConvInteger:
            return constants.contains(node.inputs[1]) && conv.wZero.buffer.map { constants.contains(node.inputs[$0]) } != false
                && conv.convolution.depth == .unit
        case let product as MatMulInteger:
            let a = graph.values[node.inputs[0]].shape, b = graph.values[node.inputs[1]].shape
            return constants.contains(node.inputs[1]) && product.bZero.buffer.map { constants.contains(node.inputs[$0]) } != false
                && !product.aZero.perIndex && b.count <= 2 && a.count >= 1
                && product.product.batchCount == a.dropLast(2).reduce(1, *)
        default:
            return false
        }
    }
}

/// Where a dynamic step finds its run-time operands: the activations' zero point (nil: 0), and
/// the epilogue's scale and bias (nil scale: the int32 sums).
struct DynamicSums {
    let zeroPoint: UnsafeRawPointer?, signed: Bool
    let output: UnsafeMutableRawPointer
    let scales: UnsafePointer<Float>?, scalePerChannel: Bool, scaleFactor: UnsafePointer<Float>?
    let bias: UnsafePointer<Float>?, biasPerChannel: Bool
    let activation: Activation

    /// The zero point as it is now.
    var zero: Int32 {
        guard let zeroPoint else { return 0 }
        return signed ? Int32(zeroPoint.load(as: Int8.self)) : Int32(zeroPoint.load(as: UInt8.self))
    }

    /// The kernel's output from element `offset` on, with `weightSums`.
    func output(_ weightSums: UnsafePointer<Int32>, offset: Int = 0) -> IntegerSumsOutput {
        IntegerSumsOutput(output: output + 4 * offset, weightSums: weightSums, scales: scales, scalePerChannel: scalePerChannel,
                          scaleFactor: scaleFactor?.pointee ?? 1, bias: bias, biasPerChannel: biasPerChannel, activation: activation)
    }
}

extension StepBuilder {
    /// The run-time operands of an integer product with zero point `zero`, writing `output`
    /// or, with `fusion`, its epilogue's target.
    private func dynamicSums(_ zero: ZeroPoint, _ inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>,
                             fusion: IntegerSumsFusion?) -> DynamicSums {
        DynamicSums(zeroPoint: zero.buffer.map { UnsafeRawPointer(inputs[$0]) }, signed: zero.type == .int8,
                    output: UnsafeMutableRawPointer(fusion.map { pointer($0.target) } ?? output),
                    scales: fusion.map { UnsafePointer(pointer($0.scale)) }, scalePerChannel: fusion?.scalePerChannel ?? false,
                    scaleFactor: fusion?.scaleFactor.map { UnsafePointer(pointer($0)) },
                    bias: fusion?.bias.map { UnsafePointer(pointer($0)) }, biasPerChannel: fusion?.biasPerChannel ?? false,
                    activation: fusion?.activation ?? .none)
    }

    /// ConvInteger (1-D or 2-D) with constant weights and weight zero points: the weights minus
    /// their zero points packed for an input zero point of 0, the sums corrected for the one
    /// read at run time.
    func integerConvolutionStep(_ q: ConvInteger, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                                _ outputs: [UnsafeMutablePointer<Float>], fusion: IntegerSumsFusion?) -> (any Step)? {
        guard rules.integerProductRunsFast(node) else { return nil }
        let g = q.convolution
        let (cin, cout, group) = (g.inputChannels, g.outputChannels, g.group)
        let window = QuantizedWindow(g)
        let weights = packed {
            let inner = cin / group * g.height.kernel * g.width.kernel
            let weights = UnsafeRawPointer(inputs[1])
            var values = [Int16](repeating: 0, count: cout * inner)
            for m in 0..<cout {
                let zero = q.wZero.value(inputs, m)
                for i in 0..<inner {
                    values[m * inner + i] = Int16(truncatingIfNeeded: Quantization.load(weights, m * inner + i, q.wType) &- zero)
                }
            }
            return QuantizedConvolutionWeights(values: values, bias: nil, multipliers: [Float](repeating: 1, count: cout), groups: group,
                                               inputChannels: cin, outputChannels: cout,
                                               kernelHeight: g.height.kernel, kernelWidth: g.width.kernel,
                                               pixels: g.height.output * g.width.output, inputSigned: q.xType == .int8, inputZero: 0)
        }
        return QuantizedConvolutionStep(
            input: UnsafeRawPointer(inputs[0]), weights: weights, window: window,
            output: UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: UInt8.self), outputZero: 0, minimum: 0, maximum: 0,
            batch: g.batch, inputImage: cin * g.height.input * g.width.input,
            outputImage: cout * g.height.output * g.width.output, pool: pool,
            dynamic: dynamicSums(q.xZero, inputs, output: outputs[0], fusion: fusion))
    }

    /// MatMulInteger of a [..., M, K] by a constant [K, N] with one zero point for A (read at run
    /// time) and constant ones for B: all of A's rows as one product.
    func integerMatrixStep(_ q: MatMulInteger, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                           _ outputs: [UnsafeMutablePointer<Float>], fusion: IntegerSumsFusion?) -> (any Step)? {
        guard rules.integerProductRunsFast(node) else { return nil }
        let p = q.product
        let (k, n) = (p.inner, p.columns), rows = p.batchCount * p.rows
        let weights = packed {
            let bData = UnsafeRawPointer(inputs[1])
            var values = [Int16](repeating: 0, count: k * n)
            for j in 0..<n {
                let zero = q.bZero.value(inputs, j)
                for i in 0..<k { values[i * n + j] = Int16(truncatingIfNeeded: Quantization.load(bData, i * n + j, q.bType) &- zero) }
            }
            return QuantizedMatrixWeights(values: values, inner: k, columns: n, multipliers: [Float](repeating: 1, count: n),
                                          aSigned: q.aType == .int8, aZero: [0])
        }
        return QuantizedMatrixStep(
            a: UnsafeRawPointer(inputs[0]), rows: rows, weights: weights,
            output: UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: UInt8.self),
            outputZero: 0, minimum: 0, maximum: 0, pool: pool,
            dynamic: dynamicSums(q.aZero, inputs, output: outputs[0], fusion: fusion))
    }

    /// DynamicQuantizeLinear of float32.
    func dynamicQuantizeStep(_ d: DynamicQuantizeLinear, _ inputs: [UnsafePointer<Float>],
                             _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        DynamicQuantizeStep(input: inputs[0], count: d.count, output: UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: UInt8.self),
                            scale: outputs[1], zeroPoint: UnsafeMutableRawPointer(outputs[2]).assumingMemoryBound(to: UInt8.self))
    }
}

/// DynamicQuantizeLinear of float32 to uint8: the bytes, their scale and their zero point.
final class DynamicQuantizeStep: Step {
    let input: UnsafePointer<Float>, count: Int
    let output: UnsafeMutablePointer<UInt8>, scale: UnsafeMutablePointer<Float>, zeroPoint: UnsafeMutablePointer<UInt8>
    func run() {
        let (s, z) = dynamicQuantizeLinear(input, count: count, output: output)
        scale.pointee = s
        zeroPoint.pointee = UInt8(z)
    }

    init(input: UnsafePointer<Float>, count: Int, output: UnsafeMutablePointer<UInt8>, scale: UnsafeMutablePointer<Float>,
         zeroPoint: UnsafeMutablePointer<UInt8>) {
        self.input = input
        self.count = count
        self.output = output
        self.scale = scale
        self.zeroPoint = zeroPoint
    }
}
