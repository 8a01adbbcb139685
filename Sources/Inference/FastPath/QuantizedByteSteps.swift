import Kernels

// com.microsoft QLinearSigmoid, QLinearLeakyRelu and QLinearGlobalAveragePool on the fast path:
// a function of each byte alone looked up in its 256 results (computed once with the reference's
// arithmetic), and each plane's integer sum by vectors before the reference's requantization.
// Both equal the reference kernels by construction.

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
