import ONNXFormat

/// The fast path's QDQ rewrite (the first of its graph rewrites; `TransposeSinking` runs on its
/// result): a QDQ group — `DequantizeLinear` of an 8-bit activation
/// and of constant 8-bit weights, into `Conv` (or `MatMul`), whose float result only a
/// `QuantizeLinear` reads — becomes the equivalent `QLinearConv` (or `QLinearMatMul`), which the
/// fast path runs on the integer kernel (`FastPath/QuantizedSteps.swift`). This is what
/// onnxruntime's QDQ transformer does at `ORT_ENABLE_ALL`.
///
/// The two differ only in rounding: the group as written sums the dequantized values in float and
/// quantizes that; the rewrite sums the integers exactly and requantizes once (multiplier
/// x_scale · w_scale / y_scale in float32). So only the fast path runs the rewrite
/// (`InferenceModel.fastGraph`); the reference path computes the graph as written, onnx's
/// semantics, and sessions that keep intermediates (inspection) do too.
///
/// A group is rewritten only when all of this holds, else it is left as written:
/// - the activation's DequantizeLinear has a scalar float32 scale and an 8-bit zero point, both
///   initializers (per-tensor);
/// - the weights, their scale and zero point are initializers (not also graph inputs), the
///   weights 8-bit; the scale float32, one value or one per output channel (Conv: axis 0;
///   MatMul: a 2-D B, axis 1, one per column), no block size;
/// - a Conv bias, if any, is the DequantizeLinear of an int32 initializer with no zero point (or 0)
///   and scale x_scale · w_scale[m] exactly, as onnxruntime's quantizer writes it;
/// - the product's float output is read only by the QuantizeLinear (not by a Relu in between, not
///   twice, not a graph output), which has a scalar float32 scale and an 8-bit zero point
///   initializer and no `output_dtype`;
/// - no DequantizeLinear has a `block_size`, and the default-domain opset is at least 10.
///
/// The activation's DequantizeLinear stays when something else reads its output.
///
/// Also, as onnxruntime does: `DequantizeLinear → MaxPool → QuantizeLinear` whose two scales are
/// the same positive normal float32 (255 · scale finite) and whose zero points are the same 8-bit
/// value becomes the MaxPool of the bytes (opset 12 or later, no Indices output, the pooled
/// floats read only by the QuantizeLinear). This one is exact: dequantizing is non-decreasing,
/// so the maximum of the dequantized taps is the dequantized maximum byte, and
/// QuantizeLinear(DequantizeLinear(b)) = b for every byte b at such a scale (|b − z| ≤ 255, so
/// (b − z)·s / s is within 255 · 2^−22 of b − z before rounding); MaxPool ignores its padding.
/// `DequantizeLinear → Transpose → QuantizeLinear` likewise becomes the Transpose of the bytes
/// (it only moves values), which `TransposeSinking` then moves on.
///
/// A `Gemm` group (alpha and beta 1, A not transposed, the bias as a Conv's) becomes
/// com.microsoft `QGemm`, as the MatMul one becomes QLinearMatMul.
///
/// And `DequantizeLinear` (A) and `DequantizeLinear` (B) into `Add` or `Mul`, whose float result
/// only a `QuantizeLinear` reads, all three per tensor with 8-bit zero points of one type (B may
/// be a constant, a BatchNorm's scale or shift), becomes com.microsoft `QLinearAdd` /
/// `QLinearMul`, as onnxruntime's QDQ transformer makes them, where the fast step takes the
/// shapes (one shape, one value per plane, or one row repeated: `fitsBinaryStep`): its arithmetic
/// (`QLinearBinary`) rather than the float operation's, another rounding of the same values,
/// like the products'. `Concat` of per-tensor 8-bit DequantizeLinear values, its float result
/// read only by a `QuantizeLinear` of the same type, becomes com.microsoft `QLinearConcat` likewise
/// (its arithmetic, a table per input, rather than dequantizing and quantizing again), and
/// `Sigmoid` and `GlobalAveragePool` groups of one 8-bit type, per tensor, become com.microsoft
/// `QLinearSigmoid` and `QLinearGlobalAveragePool` (a table of 256 results; integer plane sums
/// requantized once). A `Relu` before a `QuantizeLinear` that clamps at its zero point is dropped.
enum QuantizedGroupRewrite {
    /// The rewritten model, or nil when no group matched.
    /// `shapes`: the values' shapes by name (the loaded graph's), which the Add / Mul groups need.
    static func rewrite(_ model: ModelProto, shapes: [String: [Int]] = [:]) -> ModelProto? {
        guard var graph = model.graph else { return nil }
        let opset = model.opsetImports.first { $0.domain.isEmpty || $0.domain == "ai.onnx" }?.version ?? 0
        guard opset >= 10 else { return nil }
        let fedNames = Set(graph.inputs.map { $0.name })
        var initializers: [String: TensorProto] = [:]
        for tensor in graph.initializers where !fedNames.contains(tensor.name) { initializers[tensor.name] = tensor }
        var producer: [String: Int] = [:], readers: [String: Int] = [:]
        for (index, node) in graph.nodes.enumerated() {
            for output in node.outputs where !output.isEmpty { producer[output] = index }
            for input in node.inputs where !input.isEmpty { readers[input, default: 0] += 1 }
        }
        for output in graph.outputs { readers[output.name, default: 0] += 1 }

        func isDefaultDomain(_ node: NodeProto) -> Bool { node.domain.isEmpty || node.domain == "ai.onnx" }
        func attribute(_ node: NodeProto, _ name: String) -> AttributeProto? { node.attributes.first { $0.name == name } }
        func tensor(_ name: String) -> TensorProto? { initializers[name] }
        func elementCount(_ t: TensorProto) -> Int { t.dims.reduce(1) { $0 * Int($1) } }
        func isEightBit(_ t: TensorProto) -> Bool { t.dataType == .uint8 || t.dataType == .int8 }
        func floats(_ t: TensorProto) -> [Float]? {
            guard t.dataType == .float else { return nil }
            if !t.floatData.isEmpty { return t.floatData }
            guard t.rawData.count == 4 * elementCount(t) else { return nil }
            return (0..<elementCount(t)).map { i in
                Float(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(t.rawData[4 * i + $1]) << (8 * $1) })
            }
        }
        func int32s(_ t: TensorProto) -> [Int32]? {
            guard t.dataType == .int32 else { return nil }
            if !t.int32Data.isEmpty || t.rawData.isEmpty { return t.int32Data }
            guard t.rawData.count == 4 * elementCount(t) else { return nil }
            return (0..<elementCount(t)).map { i in
                Int32(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(t.rawData[4 * i + $1]) << (8 * $1) })
            }
        }
        func isScalar(_ t: TensorProto) -> Bool { elementCount(t) == 1 && t.dims.count <= 1 }

        /// The DequantizeLinear producing `name`, if it is one with no block size.
        func dequantize(_ name: String) -> NodeProto? {
            guard let index = producer[name] else { return nil }
            let node = graph.nodes[index]
            guard isDefaultDomain(node), node.opType == "DequantizeLinear", node.inputs.count >= 2,
                  (attribute(node, "block_size")?.i ?? 0) == 0 else { return nil }
            return node
        }
        /// A per-tensor 8-bit DequantizeLinear of a run-time value: its (quantized input, scale, zero point).
        func activation(_ node: NodeProto) -> (String, String, String)? {
            guard node.inputs.count == 3, tensor(node.inputs[0]) == nil, let scale = tensor(node.inputs[1]),
                  let zero = tensor(node.inputs[2]), isScalar(scale), scale.dataType == .float, isScalar(zero),
                  isEightBit(zero) else { return nil }
            return (node.inputs[0], node.inputs[1], node.inputs[2])
        }
        /// A per-tensor 8-bit DequantizeLinear of a run-time value or a constant: its (quantized
        /// input, scale, zero point) and the zero point's type.
        func operand(_ node: NodeProto) -> (values: String, scale: String, zero: String, type: TensorProto.DataType)? {
            guard node.inputs.count == 3, let scale = tensor(node.inputs[1]), let zero = tensor(node.inputs[2]), isScalar(scale),
                  scale.dataType == .float, isScalar(zero), isEightBit(zero) else { return nil }
            if let values = tensor(node.inputs[0]), values.dataType != zero.dataType { return nil }
            return (node.inputs[0], node.inputs[1], node.inputs[2], zero.dataType)
        }
        /// Constant 8-bit weights, per tensor or one scale per index of `axis` (of `rank`).
        func weights(_ node: NodeProto, axis wanted: Int, rank: Int) -> (scales: [Float], zeroName: String)? {
            guard node.inputs.count == 3, let w = tensor(node.inputs[0]), isEightBit(w), w.dims.count == rank,
                  let scale = tensor(node.inputs[1]), let zero = tensor(node.inputs[2]), zero.dataType == w.dataType,
                  let values = floats(scale) else { return nil }
            if isScalar(scale) && isScalar(zero) { return (values, node.inputs[2]) }
            var axis = Int(attribute(node, "axis")?.i ?? 1)
            if axis < 0 { axis += rank }
            let size = w.dims[wanted]
            guard axis == wanted, scale.dims == [size], zero.dims == [size] else { return nil }
            return (values, node.inputs[2])
        }
        /// The QuantizeLinear that alone reads `name` (per tensor, 8-bit zero point initializer).
        func quantize(readerOf name: String) -> (index: Int, node: NodeProto)? {
            guard readers[name] == 1 else { return nil }
            guard let index = graph.nodes.firstIndex(where: { $0.inputs.contains(name) }) else { return nil }
            let node = graph.nodes[index]
            guard isDefaultDomain(node), node.opType == "QuantizeLinear", node.inputs.count == 3, node.inputs[0] == name,
                  (attribute(node, "output_dtype")?.i ?? 0) == 0, let scale = tensor(node.inputs[1]), scale.dataType == .float,
                  isScalar(scale), let zero = tensor(node.inputs[2]), isEightBit(zero), isScalar(zero) else { return nil }
            return (index, node)
        }

        /// The value of a one-element 8-bit tensor, as its byte.
        func byte(_ t: TensorProto) -> UInt8? {
            guard isEightBit(t), elementCount(t) == 1 else { return nil }
            if let first = t.rawData.first { return first }
            return t.int32Data.first.map { UInt8(truncatingIfNeeded: $0) }
        }

        var replaced: [Int: NodeProto] = [:], dropped: Set<Int> = []
        var released: [String: Int] = [:]  // reads removed from each value
        for (index, node) in graph.nodes.enumerated() where isDefaultDomain(node) && (node.opType == "MaxPool" || node.opType == "Transpose") {
            guard opset >= 12 || node.opType == "Transpose", node.inputs.count == 1,
                  node.outputs.count == 1 || (node.outputs.count == 2 && node.outputs[1].isEmpty),
                  let q = quantize(readerOf: node.outputs[0]), let dqX = dequantize(node.inputs[0]), let x = activation(dqX),
                  let scale = tensor(x.1).flatMap(floats)?.first, let quantizeScale = tensor(q.node.inputs[1]).flatMap(floats)?.first,
                  scale.bitPattern == quantizeScale.bitPattern, scale > 0, scale.isNormal, (scale * 255).isFinite,
                  let zero = tensor(x.2), let quantizeZero = tensor(q.node.inputs[2]), zero.dataType == quantizeZero.dataType,
                  let zeroByte = byte(zero), byte(quantizeZero) == zeroByte else { continue }
            var rewritten = node
            rewritten.inputs = [x.0]
            rewritten.outputs = q.node.outputs
            replaced[index] = rewritten
            dropped.insert(q.index)
            released[node.inputs[0], default: 0] += 1
        }
        for (index, node) in graph.nodes.enumerated() where isDefaultDomain(node) {
            let isConv = node.opType == "Conv", isMatMul = node.opType == "MatMul"
            guard (isConv && (node.inputs.count == 2 || node.inputs.count == 3)) || (isMatMul && node.inputs.count == 2),
                  node.outputs.count == 1, let q = quantize(readerOf: node.outputs[0]),
                  let dqX = dequantize(node.inputs[0]), let x = activation(dqX),
                  let dqW = dequantize(node.inputs[1]) else { continue }
            guard let w = weights(dqW, axis: isConv ? 0 : 1, rank: isConv ? (tensor(dqW.inputs[0])?.dims.count ?? 0) : 2),
                  !isConv || (tensor(dqW.inputs[0])?.dims.count ?? 0) >= 3 else { continue }
            var rewritten = NodeProto()
            rewritten.name = node.name
            rewritten.outputs = q.node.outputs
            var reads = [node.inputs[0], node.inputs[1]]
            if isConv {
                rewritten.opType = "QLinearConv"
                rewritten.inputs = [x.0, x.1, x.2, dqW.inputs[0], dqW.inputs[1], w.zeroName, q.node.inputs[1], q.node.inputs[2]]
                rewritten.attributes = node.attributes
                if node.inputs.count == 3 && !node.inputs[2].isEmpty {
                    // The bias: int32 at scale x_scale · w_scale[m], no zero point.
                    guard let dqB = dequantize(node.inputs[2]), let b = tensor(dqB.inputs[0]), let bValues = int32s(b),
                          let bScale = tensor(dqB.inputs[1]), let bScales = floats(bScale),
                          let xScale = tensor(x.1).flatMap(floats)?.first else { continue }
                    if dqB.inputs.count == 3 && !dqB.inputs[2].isEmpty {
                        guard let zero = tensor(dqB.inputs[2]), let zeros = int32s(zero), zeros.allSatisfy({ $0 == 0 }) else { continue }
                    }
                    let channels = bValues.count
                    guard b.dims.count == 1, bScales.count == 1 || bScales.count == channels,
                          w.scales.count == 1 || w.scales.count == channels,
                          (0..<channels).allSatisfy({ m in
                              bScales[bScales.count == 1 ? 0 : m] == xScale * w.scales[w.scales.count == 1 ? 0 : m]
                          }) else { continue }
                    rewritten.inputs.append(dqB.inputs[0])
                    reads.append(node.inputs[2])
                }
            } else {
                rewritten.opType = "QLinearMatMul"
                rewritten.inputs = [x.0, x.1, x.2, dqW.inputs[0], dqW.inputs[1], w.zeroName, q.node.inputs[1], q.node.inputs[2]]
            }
            replaced[index] = rewritten
            dropped.insert(q.index)
            for name in reads { released[name, default: 0] += 1 }
        }
        // Gemm (alpha and beta 1) of a per-tensor activation and constant weights (per tensor or
        // one scale per output column), with the int32 bias at x_scale · w_scale[j] or none, whose
        // result only a QuantizeLinear reads: com.microsoft QGemm, as onnxruntime makes it.
        for (index, node) in graph.nodes.enumerated() where isDefaultDomain(node) && node.opType == "Gemm" {
            let transA = attribute(node, "transA")?.i ?? 0, transB = attribute(node, "transB")?.i ?? 0
            guard replaced[index] == nil, node.inputs.count == 2 || node.inputs.count == 3, node.outputs.count == 1,
                  (attribute(node, "alpha")?.f ?? 1) == 1, (attribute(node, "beta")?.f ?? 1) == 1, transA == 0,
                  let q = quantize(readerOf: node.outputs[0]), let dqX = dequantize(node.inputs[0]), let x = activation(dqX),
                  let dqW = dequantize(node.inputs[1]), let w = weights(dqW, axis: transB == 1 ? 0 : 1, rank: 2),
                  let xScale = tensor(x.1).flatMap(floats)?.first else { continue }
            var inputs = [x.0, x.1, x.2, dqW.inputs[0], dqW.inputs[1], w.zeroName, "", q.node.inputs[1], q.node.inputs[2]]
            var reads = [node.inputs[0], node.inputs[1]]
            if node.inputs.count == 3 && !node.inputs[2].isEmpty {
                guard let dqB = dequantize(node.inputs[2]), let b = tensor(dqB.inputs[0]), let bValues = int32s(b), b.dims.count == 1,
                      let bScales = tensor(dqB.inputs[1]).flatMap(floats) else { continue }
                if dqB.inputs.count == 3 && !dqB.inputs[2].isEmpty {
                    guard let zero = tensor(dqB.inputs[2]), let zeros = int32s(zero), zeros.allSatisfy({ $0 == 0 }) else { continue }
                }
                let columns = bValues.count
                guard bScales.count == 1 || bScales.count == columns, w.scales.count == 1 || w.scales.count == columns,
                      (0..<columns).allSatisfy({ j in
                          bScales[bScales.count == 1 ? 0 : j] == xScale * w.scales[w.scales.count == 1 ? 0 : j]
                      }) else { continue }
                inputs[6] = dqB.inputs[0]
                reads.append(node.inputs[2])
            }
            var rewritten = NodeProto()
            rewritten.name = node.name
            rewritten.opType = "QGemm"
            rewritten.domain = "com.microsoft"
            rewritten.inputs = inputs
            rewritten.outputs = q.node.outputs
            rewritten.attributes = node.attributes.filter { $0.name == "transB" }
            replaced[index] = rewritten
            dropped.insert(q.index)
            for name in reads { released[name, default: 0] += 1 }
        }
        // Add and Mul of two per-tensor 8-bit DequantizeLinear values (either may be a constant)
        // whose float result only a QuantizeLinear of the same type reads: com.microsoft
        // QLinearAdd / QLinearMul, as onnxruntime's QDQ transformer makes them (A the first input).
        for (index, node) in graph.nodes.enumerated() where isDefaultDomain(node) && (node.opType == "Add" || node.opType == "Mul") {
            guard replaced[index] == nil, node.inputs.count == 2, node.outputs.count == 1, let q = quantize(readerOf: node.outputs[0]),
                  let dqA = dequantize(node.inputs[0]), let a = operand(dqA), let dqB = dequantize(node.inputs[1]), let b = operand(dqB),
                  let zeroC = tensor(q.node.inputs[2]), a.type == zeroC.dataType, b.type == zeroC.dataType,
                  let shapeA = shapes[node.inputs[0]], let shapeB = shapes[node.inputs[1]], let shapeC = shapes[node.outputs[0]],
                  fitsBinaryStep(shapeA, shapeB, output: shapeC) else { continue }
            var rewritten = NodeProto()
            rewritten.name = node.name
            rewritten.opType = node.opType == "Add" ? "QLinearAdd" : "QLinearMul"
            rewritten.domain = "com.microsoft"
            rewritten.inputs = [a.values, a.scale, a.zero, b.values, b.scale, b.zero, q.node.inputs[1], q.node.inputs[2]]
            rewritten.outputs = q.node.outputs
            replaced[index] = rewritten
            dropped.insert(q.index)
            for name in node.inputs { released[name, default: 0] += 1 }
        }
        // Concat of per-tensor 8-bit DequantizeLinear run-time values whose float result only a
        // QuantizeLinear of the same type reads: com.microsoft QLinearConcat, as onnxruntime's QDQ
        // transformer makes it (its inputs y_scale, y_zero_point, then each input's three).
        for (index, node) in graph.nodes.enumerated() where isDefaultDomain(node) && node.opType == "Concat" {
            guard replaced[index] == nil, !node.inputs.isEmpty, node.outputs.count == 1, let q = quantize(readerOf: node.outputs[0]),
                  let zeroC = tensor(q.node.inputs[2]) else { continue }
            var inputs = [q.node.inputs[1], q.node.inputs[2]]
            for name in node.inputs {
                guard let dq = dequantize(name), let x = operand(dq), tensor(x.values) == nil, x.type == zeroC.dataType else {
                    inputs = []
                    break
                }
                inputs += [x.values, x.scale, x.zero]
            }
            guard inputs.count == 2 + 3 * node.inputs.count else { continue }
            var rewritten = NodeProto()
            rewritten.name = node.name
            rewritten.opType = "QLinearConcat"
            rewritten.domain = "com.microsoft"
            rewritten.inputs = inputs
            rewritten.outputs = q.node.outputs
            rewritten.attributes = node.attributes.filter { $0.name == "axis" }
            replaced[index] = rewritten
            dropped.insert(q.index)
            for name in node.inputs { released[name, default: 0] += 1 }
        }
        // Sigmoid and GlobalAveragePool of a per-tensor 8-bit DequantizeLinear run-time value whose
        // float result only a QuantizeLinear of the same type reads: com.microsoft QLinearSigmoid /
        // QLinearGlobalAveragePool (channels first), as onnxruntime's QDQ transformer makes them (a
        // table of the 256 results, the integer sum of each plane, rather than float values).
        for (index, node) in graph.nodes.enumerated() where isDefaultDomain(node) && (node.opType == "Sigmoid" || node.opType == "GlobalAveragePool") {
            guard replaced[index] == nil, node.inputs.count == 1, node.outputs.count == 1, let q = quantize(readerOf: node.outputs[0]),
                  let dq = dequantize(node.inputs[0]), let x = operand(dq), tensor(x.values) == nil,
                  let zeroY = tensor(q.node.inputs[2]), x.type == zeroY.dataType else { continue }
            var rewritten = NodeProto()
            rewritten.name = node.name
            rewritten.opType = node.opType == "Sigmoid" ? "QLinearSigmoid" : "QLinearGlobalAveragePool"
            rewritten.domain = "com.microsoft"
            rewritten.inputs = [x.values, x.scale, x.zero, q.node.inputs[1], q.node.inputs[2]]
            rewritten.outputs = q.node.outputs
            replaced[index] = rewritten
            dropped.insert(q.index)
            released[node.inputs[0], default: 0] += 1
        }
        // A Relu read only by a QuantizeLinear whose zero point is its type's least value (uint8 0,
        // int8 −128) is dropped, as onnxruntime's ReluQuantFusion drops it: the QuantizeLinear
        // saturates every negative value to that zero point anyway, so its bytes are the same for
        // every value but NaN.
        for (index, node) in graph.nodes.enumerated() where isDefaultDomain(node) && node.opType == "Relu" {
            guard node.inputs.count == 1, node.outputs.count == 1, let q = quantize(readerOf: node.outputs[0]),
                  replaced[q.index] == nil, !dropped.contains(q.index), let zero = tensor(q.node.inputs[2]),
                  byte(zero) == (zero.dataType == .uint8 ? 0 : 0x80) else { continue }
            var rewritten = q.node
            rewritten.inputs[0] = node.inputs[0]
            replaced[q.index] = rewritten
            dropped.insert(index)
        }
        guard !replaced.isEmpty else { return nil }
        // The DequantizeLinear nodes no one reads any more.
        for (name, count) in released where readers[name] == count {
            if let index = producer[name] { dropped.insert(index) }
        }
        var nodes: [NodeProto] = []
        for (index, node) in graph.nodes.enumerated() where !dropped.contains(index) {
            nodes.append(replaced[index] ?? node)
        }
        graph.nodes = nodes
        var result = model
        result.graph = graph
        return result
    }

    /// Whether the fast path's QLinearAdd / QLinearMul step (`quantizedBinaryStep`) takes operands
    /// of these shapes: one shape, or the smaller one value per plane of the larger (the output).
    /// Other broadcasts would run on the reference kernel, slower than the float ops as written.
    static func fitsBinaryStep(_ a: [Int], _ b: [Int], output: [Int]) -> Bool {
        let (small, large) = a.reduce(1, *) < b.reduce(1, *) ? (a, b) : (b, a)
        return large == output && (small == large || StepBuilder.planeBroadcast(small, to: large) != nil
            || StepBuilder.rowBroadcast(small, to: large) != nil)
    }
}
