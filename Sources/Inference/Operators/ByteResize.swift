/// `Resize` with `mode` linear on a uint8 or int8 tensor (what onnxruntime's QOperator quantizer
/// leaves between two quantized nodes), computed as onnxruntime's CPU kernel computes it, so the
/// bytes agree: on the last two axes of a 4-D tensor whose first two axes keep their length (or
/// on both axes of a 2-D one), each output is the float32 sum, in this order, of
/// (dx2·dy2)·x11 + (dx1·dy2)·x21 + (dx2·dy1)·x12 + (dx1·dy1)·x22 (the products of the weights
/// first), truncated toward zero to the type. Per axis, the source coordinate c of the
/// coordinate transformation (float32), held within [0, length − 1], gives i1 = ⌊c⌋,
/// i2 = min(i1 + 1, length − 1), d1 = |c − i1| (the weight of i2) and d2 = |c − i2| (the
/// weight of i1), and 0.5 each where i1 = i2. With `tf_crop_and_resize`, an output whose
/// unclamped coordinate lies outside the input on either axis is `extrapolation_value`
/// converted to the type (truncated, saturated here).
///
/// (onnxruntime resizes other layouts of bytes differently: a 4-D tensor resized on its middle
/// axes with integer weights, 3-D and 5-D ones trilinearly; those are refused by name.)
final class ByteResize: Operator {
    /// Per output row or column: the two source indices, their weights, and whether the
    /// coordinate is outside the input (extrapolated).
    struct AxisTable: Sendable {
        var first: [Int] = [], second: [Int] = []
        var firstWeight: [Float] = [], secondWeight: [Float] = []
        var outside: [Bool] = []
    }

    let dataInputs = [0]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    var checksInputTypes: Bool { true }
    let planes: Int, inH: Int, inW: Int, outH: Int, outW: Int
    let rows: AxisTable, columns: AxisTable
    /// The extrapolated value, as stored (nil without `tf_crop_and_resize`).
    let fill: Int32?

    /// onnxruntime's bilinear table for one axis.
    static func table(_ axis: ResizeGeometry.Axis, transform: String) -> AxisTable {
        var table = AxisTable()
        let last = Float(axis.input - 1)
        for o in 0..<axis.output {
            let original = axis.source(o, transform: transform)
            table.outside.append(original < 0 || original > last)
            let c = max(0, min(original, last))
            let i1 = min(Int(c), axis.input - 1), i2 = min(i1 + 1, axis.input - 1)
            table.first.append(i1)
            table.second.append(i2)
            table.firstWeight.append(i1 == i2 ? 0.5 : abs(c - Float(i2)))
            table.secondWeight.append(i1 == i2 ? 0.5 : abs(c - Float(i1)))
        }
        return table
    }

    /// The operator for linear resizing of `geometry` (one entry per input axis) on bytes.
    static func make(_ context: NodeContext, _ geometry: [ResizeGeometry.Axis], _ mode: ResizeGeometry.Mode, type: ElementType,
                     extrapolation: Float) throws(ModelError) -> ByteResize {
        let rank = geometry.count
        let resized = geometry.map { $0.output != $0.input || $0.scale != 1 }
        guard !mode.antialias else {
            throw context.error(.unsupported, "linear resizing of \(type) supports no antialiasing", attribute: "antialias")
        }
        guard rank == 2 || (rank == 4 && !resized[0] && !resized[1]) else {
            throw context.error(.unsupported, "linear resizing of \(type) is supported on both axes of a 2-D tensor or the last two of a 4-D one "
                                + "(onnxruntime's bilinear kernel); got \(geometry.map { $0.input }) → \(geometry.map { $0.output })")
        }
        let h = geometry[rank - 2], w = geometry[rank - 1]
        let range = Quantization.range(type)
        let crops = mode.transform == "tf_crop_and_resize"
        let fill = crops ? Int32(min(max(extrapolation.rounded(.towardZero), Float(range.lowerBound)), Float(range.upperBound))) : nil
        return ByteResize(outputShapes: [geometry.map { $0.output }], outputTypes: [type], planes: rank == 4 ? geometry[0].input * geometry[1].input : 1,
                          inH: h.input, inW: w.input, outH: h.output, outW: w.output,
                          rows: table(h, transform: mode.transform), columns: table(w, transform: mode.transform), fill: fill)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        if outputTypes[0] == .int8 {
            resize(UnsafeRawPointer(inputs[0]).assumingMemoryBound(to: Int8.self), UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: Int8.self))
        } else {
            resize(UnsafeRawPointer(inputs[0]).assumingMemoryBound(to: UInt8.self), UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: UInt8.self))
        }
    }

    @inline(__always)
    private func resize<T: FixedWidthInteger>(_ x: UnsafePointer<T>, _ y: UnsafeMutablePointer<T>) {
        for p in 0..<planes {
            let plane = x + p * inH * inW, out = y + p * outH * outW
            for oh in 0..<outH {
                let top = plane + rows.first[oh] * inW, bottom = plane + rows.second[oh] * inW
                let dy1 = rows.secondWeight[oh], dy2 = rows.firstWeight[oh]
                for ow in 0..<outW {
                    if let fill, rows.outside[oh] || columns.outside[ow] {
                        out[oh * outW + ow] = T(truncatingIfNeeded: fill)
                        continue
                    }
                    let left = columns.first[ow], right = columns.second[ow]
                    let dx1 = columns.secondWeight[ow], dx2 = columns.firstWeight[ow]
                    var sum = (dx2 * dy2) * Float(top[left])
                    sum += (dx1 * dy2) * Float(top[right])
                    sum += (dx2 * dy1) * Float(bottom[left])
                    sum += (dx1 * dy1) * Float(bottom[right])
                    out[oh * outW + ow] = T(truncatingIfNeeded: Int32(sum.rounded(.towardZero)))
                }
            }
        }
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], planes: Int, inH: Int, inW: Int, outH: Int, outW: Int,
         rows: AxisTable, columns: AxisTable, fill: Int32?) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.planes = planes
        self.inH = inH
        self.inW = inW
        self.outH = outH
        self.outW = outW
        self.rows = rows
        self.columns = columns
        self.fill = fill
    }
}
