import Kernels

// com.microsoft QLinearSigmoid, QLinearLeakyRelu and QLinearGlobalAveragePool on the fast path:
// a function of each byte alone looked up in its 256 results (computed once with the reference's
// arithmetic), and each plane's integer sum by vectors before the reference's requantization;
// and linear Resize on bytes by vectors of 16 outputs with the reference's float operations.
// All equal the reference kernels by construction.

extension StepBuilder {
    /// QLinearSigmoid and QLinearLeakyRelu with constant scales and zero points: the 256 results
    /// computed once with the reference's arithmetic (`QLinearLookup.results`), then one lookup
    /// per byte (`byteLookup`), so the outputs equal the reference's by construction.
    func quantizedLookupStep(_ q: QLinearLookup, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                             _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard node.inputs.dropFirst().allSatisfy(rules.constants.contains) else { return nil }
        return QuantizedLookupStep(input: UnsafeRawPointer(inputs[0]).assumingMemoryBound(to: UInt8.self), table: q.results(inputs),
                                   count: q.count, output: UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: UInt8.self))
    }

    /// QLinearGlobalAveragePool of channel-major maps with constant scales and zero points: each
    /// plane's integer sum by vectors (`bytePlaneSums`, the same integers in any order), then the
    /// reference's requantization of each.
    func quantizedMeanStep(_ q: QLinearGlobalAveragePool, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                           _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard !q.channelsLast, node.inputs.dropFirst().allSatisfy(rules.constants.contains),
              [q.x.scale, q.y.scale].allSatisfy({ $0.type == .float32 }) else { return nil }
        let type = q.outputTypes[0]
        return QuantizedMeanStep(input: UnsafeRawPointer(inputs[0]), signed: type == .int8, planes: q.batch * q.channels,
                                 planeSize: q.planeSize, zeroX: q.x.zero.value(inputs, 0), zeroY: q.y.zero.value(inputs, 0),
                                 multiplier: q.x.scale.value(inputs, 0) / (q.y.scale.value(inputs, 0) * Float(q.planeSize)),
                                 range: Quantization.range(type), output: UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: UInt8.self))
    }
}

extension StepBuilder {
    /// QLinearAveragePool of channel-major 1-D or 2-D windows with constant scales and zero points:
    /// `byteWindowMeans` on a table of each byte's dequantized value, Float(x − x_zero) · x_scale
    /// as the reference computes it, summed and requantized with the reference's float operations
    /// in its order, so the outputs equal the reference's by construction.
    func quantizedAveragePoolStep(_ pool: QLinearAveragePool, _ node: PlannedNode, _ inputs: [UnsafePointer<Float>],
                                  _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        let (depth, height, width) = (pool.depth, pool.height, pool.width)
        guard !pool.channelsLast, depth.input == 1, depth.kernel == 1, depth.output == 1, depth.padBegin == 0,
              node.inputs.dropFirst().allSatisfy(rules.constants.contains),
              [pool.x.scale, pool.y.scale].allSatisfy({ $0.type == .float32 }) else { return nil }
        let type = pool.outputTypes[0], scaleX = pool.x.scale.value(inputs, 0), zeroX = pool.x.zero.value(inputs, 0)
        let values = (0..<256).map { bits in
            Float((type == .int8 ? Int32(Int8(truncatingIfNeeded: bits)) : Int32(bits)) &- zeroX) * scaleX
        }
        let geometry = BytePoolGeometry(inputHeight: height.input, inputWidth: width.input, outputHeight: height.output,
                                        outputWidth: width.output, kernelHeight: height.kernel, kernelWidth: width.kernel,
                                        strideHeight: height.stride, strideWidth: width.stride, padTop: height.padBegin,
                                        padLeft: width.padBegin)
        return QuantizedAveragePoolStep(input: UnsafeRawPointer(inputs[0]).assumingMemoryBound(to: UInt8.self),
                                        output: UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: UInt8.self),
                                        planes: pool.batch * pool.channels, geometry: geometry, countIncludesPad: pool.countIncludesPad,
                                        values: values, scale: pool.y.scale.value(inputs, 0), zero: Float(pool.y.zero.value(inputs, 0)),
                                        range: Quantization.range(type))
    }
}

final class QuantizedAveragePoolStep: Step {
    let input: UnsafePointer<UInt8>, output: UnsafeMutablePointer<UInt8>, planes: Int, geometry: BytePoolGeometry
    let countIncludesPad: Bool, values: FloatBuffer, scale: Float, zero: Float, range: ClosedRange<Int32>
    func run() {
        byteWindowMeans(input, output, planes: planes, geometry, countIncludesPad: countIncludesPad, values: values.baseAddress,
                        scale: scale, zero: zero, range: range)
    }

    init(input: UnsafePointer<UInt8>, output: UnsafeMutablePointer<UInt8>, planes: Int, geometry: BytePoolGeometry,
         countIncludesPad: Bool, values: [Float], scale: Float, zero: Float, range: ClosedRange<Int32>) {
        self.input = input
        self.output = output
        self.planes = planes
        self.geometry = geometry
        self.countIncludesPad = countIncludesPad
        self.values = FloatBuffer(values)
        self.scale = scale
        self.zero = zero
        self.range = range
    }
}

extension StepBuilder {
    /// Linear Resize on bytes without extrapolation (`ByteResize`'s layouts): `byteBilinearResize`
    /// with the reference's tables, the same float operations per output.
    func byteResizeStep(_ resize: ByteResize, _ inputs: [UnsafePointer<Float>], _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        guard resize.fill == nil else { return nil }
        let (rows, columns) = (resize.rows, resize.columns)
        let tables = ByteBilinearTables(rowFirst: rows.first, rowSecond: rows.second, rowFirstWeight: rows.firstWeight,
                                        rowSecondWeight: rows.secondWeight, columnFirst: columns.first, columnSecond: columns.second,
                                        columnFirstWeight: columns.firstWeight, columnSecondWeight: columns.secondWeight)
        return ByteResizeStep(input: UnsafeRawPointer(inputs[0]), signed: resize.outputTypes[0] == .int8, planes: resize.planes,
                              inputHeight: resize.inH, inputWidth: resize.inW, tables: tables,
                              output: UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: UInt8.self))
    }
}

final class ByteResizeStep: Step {
    let input: UnsafeRawPointer, signed: Bool, planes: Int, inputHeight: Int, inputWidth: Int
    let tables: ByteBilinearTables, output: UnsafeMutablePointer<UInt8>
    func run() {
        byteBilinearResize(input, output, signed: signed, planes: planes, inputHeight: inputHeight, inputWidth: inputWidth, tables)
    }

    init(input: UnsafeRawPointer, signed: Bool, planes: Int, inputHeight: Int, inputWidth: Int, tables: ByteBilinearTables,
         output: UnsafeMutablePointer<UInt8>) {
        self.input = input
        self.signed = signed
        self.planes = planes
        self.inputHeight = inputHeight
        self.inputWidth = inputWidth
        self.tables = tables
        self.output = output
    }
}

final class QuantizedLookupStep: Step {
    let input: UnsafePointer<UInt8>, table: [UInt8], count: Int, output: UnsafeMutablePointer<UInt8>
    func run() {
        table.withUnsafeBufferPointer { byteLookup(input, output, count: count, table: $0.baseAddress!) }
    }

    init(input: UnsafePointer<UInt8>, table: [UInt8], count: Int, output: UnsafeMutablePointer<UInt8>) {
        self.input = input
        self.table = table
        self.count = count
        self.output = output
    }
}

final class QuantizedMeanStep: Step {
    let input: UnsafeRawPointer, signed: Bool, planes: Int, planeSize: Int
    let zeroX: Int32, zeroY: Int32, multiplier: Float, range: ClosedRange<Int32>
    let output: UnsafeMutablePointer<UInt8>
    let sums: IntegerBuffer<Int32>
    func run() {
        bytePlaneSums(input, signed: signed, planes: planes, planeSize: planeSize, sums: sums.baseAddress)
        for plane in 0..<planes {
            let biased = sums.baseAddress[plane] &- zeroX &* Int32(truncatingIfNeeded: planeSize)
            output[plane] = UInt8(truncatingIfNeeded: Quantization.requantize(biased, multiplier: multiplier, zeroPoint: zeroY, range))
        }
    }

    init(input: UnsafeRawPointer, signed: Bool, planes: Int, planeSize: Int, zeroX: Int32, zeroY: Int32, multiplier: Float,
         range: ClosedRange<Int32>, output: UnsafeMutablePointer<UInt8>) {
        self.input = input
        self.signed = signed
        self.planes = planes
        self.planeSize = planeSize
        self.zeroX = zeroX
        self.zeroY = zeroY
        self.multiplier = multiplier
        self.range = range
        self.output = output
        sums = IntegerBuffer<Int32>(count: planes)
    }
}
