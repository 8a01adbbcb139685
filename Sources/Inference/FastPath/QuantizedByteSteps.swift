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
