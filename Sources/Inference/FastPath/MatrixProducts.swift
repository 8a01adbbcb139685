import Kernels

// The fast path's matrix products (MatMul, Gemm and ConvTranspose as GEMMs), the element-wise
// functions a product's epilogue shares (GELU, Erf), and the Transpose pair that cancels.

extension StepBuilder {
    /// MatMul of a float [..., M, K] by a constant [K, N] (or [K]): all of A's rows as one GEMM,
    /// with the `bias` row (N values) it absorbed and `function` applied after it.
    func matMulStep(_ product: MatMul, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                    output: UnsafeMutablePointer<Float>, bias: UnsafePointer<Float>?, function: VectorFunction?) -> (any Step)? {
        guard hasConstantWeights(node),
              StepBuilder.runsAsOneProduct(product, a: graph.values[node.inputs[0]].shape, b: graph.values[node.inputs[1]].shape)
        else { return nil }
        let (k, n) = (product.inner, product.columns)
        let weights = packed {
            MatrixWeights(values: Array(UnsafeBufferPointer(start: inputs[1], count: k * n)),
                          bias: bias.map { Array(UnsafeBufferPointer(start: $0, count: n)) }, inner: k, columns: n)
        }
        return MatrixStep(a: inputs[0], rows: product.batchCount * product.rows, weights: weights, output: output,
                          function: function, pool: pool)
    }

    /// MatMul of two float32 operands computed at run time (attention's products), or by a
    /// constant B of more than two dims: each batch's B packed when the step runs.
    func batchedMatMulStep(_ product: MatMul, _ inputs: [UnsafePointer<Float>],
                           _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard product.type == .float32, product.rows > 0, product.inner > 0, product.columns > 0 else { return nil }
        var a: [Int] = [], b: [Int] = [], output: [Int] = []
        product.batches.forEach { y, x, w in
            output.append(y)
            a.append(x)
            b.append(w)
        }
        return BatchedMatrixStep(a: inputs[0], b: inputs[1], output: outputs[0],
                                 batches: MatrixBatches(a: a, b: b, output: output),
                                 shape: (product.rows, product.inner, product.columns), pool: pool)
    }

    /// Gemm alpha·A·B + beta·C with A not transposed, B constant (either orientation) and C absent
    /// or a constant row (or one value) broadcast over the rows.
    func gemmStep(_ gemm: Gemm, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                  _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        let (m, k, n) = (gemm.rows, gemm.inner, gemm.columns)
        guard gemm.aStrides == (k, 1), hasConstantWeights(node) else { return nil }
        // C read as one row: its row stride is 0 (or there is one row), its column stride 0 or 1.
        if let c = gemm.cStrides, (c.0 != 0 && m > 1) || (c.1 != 0 && c.1 != 1) { return nil }
        let (bRow, bColumn) = gemm.bStrides
        let alpha = Float(gemm.alpha), beta = Float(gemm.beta)
        let weights = packed {
            var values = [Float](repeating: 0, count: k * n)
            for p in 0..<k {
                for j in 0..<n { values[p * n + j] = alpha * inputs[1][p * bRow + j * bColumn] }
            }
            let bias = gemm.cStrides.map { c in (0..<n).map { beta * inputs[2][$0 * c.1] } }
            return MatrixWeights(values: values, bias: bias, inner: k, columns: n)
        }
        return MatrixStep(a: inputs[0], rows: m, weights: weights, output: outputs[0], function: nil, pool: pool)
    }

    /// ConvTranspose (2-D, group 1, batch 1) of any window, stride, dilation and padding as one 1x1
    /// GEMM per window tap.
    func tapTransposedConvolutionStep(_ t: ConvTranspose, _ inputs: [UnsafePointer<Float>],
                                      _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard t.outputShapes[0].count == 4, t.batch == 1, t.group == 1 else { return nil }
        let (cin, cout) = (t.inputChannels, t.outputChannels)
        let weights = packed {
            TapWeights(weights: Array(UnsafeBufferPointer(start: inputs[1], count: cin * cout * t.kH * t.kW)),
                       bias: t.hasBias ? Array(UnsafeBufferPointer(start: inputs[2], count: cout)) : nil,
                       inputChannels: cin, outputChannels: cout, kernelHeight: t.kH, kernelWidth: t.kW)
        }
        return TapTransposedConvolutionStep(
            input: StepBuilder.denseMap(inputs[0], channels: cin, height: t.inH, width: t.inW), weights: weights,
            output: StepBuilder.denseMap(outputs[0], channels: cout, height: t.outH, width: t.outW),
            geometry: (t.strideH, t.strideW, t.dilationH, t.dilationW, t.padTop, t.padLeft), pool: pool)
    }

}

extension KernelChoices {
    /// Whether `matMulStep` takes a MatMul of A of shape `a` by constant B of shape `b`: float32,
    /// B one matrix and A's batch the output's, so A's rows are back to back, as are the output's.
    static func runsAsOneProduct(_ product: MatMul, a: [Int], b: [Int]) -> Bool {
        product.type == .float32 && b.count <= 2 && a.count >= 1 && product.batchCount == a.dropLast(2).reduce(1, *)
    }
}

extension StepBuilder {
    /// One copy from the first Transpose's input to the second's output (none when the buffer
    /// plan laid the output over the input), or the activation between them, element by element.
    func cancelledTransposesStep(_ t: Transpose, _ f: CancelledTransposes, _ node: PlannedNode,
                                 _ inputs: [UnsafePointer<Float>]) -> any Step {
        let count = t.inputShape.reduce(1, *)
        let output = pointer(f.output)
        if let activation = f.activation {
            return ActivationStep(input: inputs[0], output: output, count: count, activation: activation.kind)
        }
        if buffers.overwrites[f.output] == node.inputs[0] { return NoMove() }
        return BlockCopyStep(input: UnsafeRawPointer(inputs[0]), output: UnsafeMutableRawPointer(output),
                             sources: [0], blockBytes: count * t.outputTypes[0].byteSize)
    }
}

/// A Transpose and its inverse, with the activation between them if any.
struct CancelledTransposes {
    let activation: (value: Int, kind: Activation)?
    /// The inverse Transpose's output.
    let output: Int
    var absorbed: [Int] { (activation.map { [$0.value] } ?? []) + [output] }
}

/// A GEMM by constant weights: by the 12-row tiles over A where it lies from `packedProductFrom`
/// rows of A on, else by the 4-row and one-row tiles.
final class MatrixStep: Step {
    let a: UnsafePointer<Float>, rows: Int, weights: MatrixWeights, output: UnsafeMutablePointer<Float>
    let function: VectorFunction?, pool: WorkerPool
    func run() {
        if rows >= packedProductFrom {
            rowMajorMatrixMultiply(a, rows: rows, weights: weights, output: output, function: function, pool: pool)
        } else {
            matrixMultiply(a, rows: rows, weights: weights, output: output, function: function, pool: pool)
        }
    }

    init(a: UnsafePointer<Float>, rows: Int, weights: MatrixWeights, output: UnsafeMutablePointer<Float>,
         function: VectorFunction?, pool: WorkerPool) {
        self.a = a
        self.rows = rows
        self.weights = weights
        self.output = output
        self.function = function
        self.pool = pool
    }
}

final class BatchedMatrixStep: Step {
    let a: UnsafePointer<Float>, b: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, batches: MatrixBatches
    let shape: (rows: Int, inner: Int, columns: Int), pool: WorkerPool
    var scratch: ScratchSize { batchedMatrixScratch(inner: shape.inner, columns: shape.columns) }
    func run() {
        batchedMatrixMultiply(a, b, output: output, batches: batches, rows: shape.rows, inner: shape.inner,
                              columns: shape.columns, pool: pool)
    }

    init(a: UnsafePointer<Float>, b: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, batches: MatrixBatches,
         shape: (rows: Int, inner: Int, columns: Int), pool: WorkerPool) {
        self.a = a
        self.b = b
        self.output = output
        self.batches = batches
        self.shape = shape
        self.pool = pool
    }
}

/// An element-wise function with a vector kernel (Erf, Gelu, a GELU spelled as nodes).
final class FunctionStep: Step {
    let input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int, function: VectorFunction
    func run() { apply(function, input, output: output, count: count) }

    init(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int, function: VectorFunction) {
        self.input = input
        self.output = output
        self.count = count
        self.function = function
    }
}

final class TapTransposedConvolutionStep: Step {
    let input: FeatureMap, weights: TapWeights, output: FeatureMap
    var scratch: ScratchSize { transposedConvolutionScratch(weights, inputPixels: input.pixels) }
    let geometry: (strideH: Int, strideW: Int, dilationH: Int, dilationW: Int, padTop: Int, padLeft: Int)
    let pool: WorkerPool
    func run() {
        transposedConvolution(input, weights: weights, strideHeight: geometry.strideH, strideWidth: geometry.strideW,
                              dilationHeight: geometry.dilationH, dilationWidth: geometry.dilationW,
                              padTop: geometry.padTop, padLeft: geometry.padLeft, output: output, pool: pool)
    }

    init(input: FeatureMap, weights: TapWeights, output: FeatureMap,
         geometry: (strideH: Int, strideW: Int, dilationH: Int, dilationW: Int, padTop: Int, padLeft: Int),
         pool: WorkerPool) {
        self.input = input
        self.weights = weights
        self.output = output
        self.geometry = geometry
        self.pool = pool
    }
}
