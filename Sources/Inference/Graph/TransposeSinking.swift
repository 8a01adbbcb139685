import ONNXFormat

/// The fast path's second graph rewrite: Transposes pushed down through the nodes that commute
/// with them, until they meet their inverse and vanish. A channels-last exporter (tf2onnx) wraps
/// every convolution in `Transpose(0,3,1,2) → Conv → Transpose(0,2,3,1)` and runs the batch
/// normalisations, activations, squeeze-excite means and pads between them on NHWC tensors; after
/// this rewrite they run on the convolutions' NCHW outputs, where the fusion rules fold them into
/// the convolutions, and the Transposes cancel. onnxruntime's transpose optimizer does the same.
///
/// With `y = Transpose(x, perm: p)` (`y.shape[k] = x.shape[p[k]]`), a node `N` reading `y` becomes
/// `N′` reading `x`, followed by `Transpose(perm: p)` that writes `N`'s output under its name:
/// - an element-wise unary node (Relu, Clip, Sigmoid, HardSwish, …): `N′ = N`;
/// - Add, Sub, Mul, Div, Max, Min, PRelu of `y` and either another Transpose by `p` or a constant
///   initializer of rank at most `p.count`: the constant is padded to that rank with leading 1s
///   and transposed by `p`'s inverse (one element: kept as it is);
/// - ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2 and
///   ReduceSumSquare with `keepdims` 1: axis `a` becomes `p[a]` (attribute or constant input);
/// - Pad (no `axes` input): the pads of axis `k` go to axis `p[k]`;
/// - Concat of Transposes by `p` only: `axis` becomes `p[axis]`;
/// - a Transpose by `q`: one Transpose of `x` by `p∘q`, or none when that is the identity (the
///   readers of its output read `x`; when it is a graph output, the node writing `x` writes it);
/// - the quantized forms, which take their scales and zero points as one-value initializers:
///   QuantizeLinear and DequantizeLinear per tensor (no `block_size`) as element-wise unary
///   nodes; com.microsoft QLinearSigmoid and QLinearLeakyRelu likewise; com.microsoft QLinearAdd
///   and QLinearMul as the binary nodes above, on their operands A (input 0) and B (input 3).
///   onnxruntime's quantizer writes a channels-last model's batch normalisations as QLinearMul
///   and QLinearAdd by one value per channel between the Transposes (QOperator), or as Mul and
///   Add of DequantizeLinear values (QDQ); a binary node's constant may be the per-tensor
///   DequantizeLinear of an initializer, which becomes that of the permuted initializer.
/// Every rewritten node computes the same elements in the same order: the rewrite is exact, and
/// it keeps every graph input and output with its name and shape.
///
/// The Transposes no node reads afterwards are dropped. The model is returned only when it then
/// holds fewer Transposes than before; a graph with subgraphs (If, Loop, Scan) or nodes out of topological order is left as written.
enum TransposeSinking {
    static func isUnary(_ op: String) -> Bool {
        switch op {
        case "Relu", "LeakyRelu", "Elu", "Selu", "Celu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Clip", "Neg", "Abs",
             "Exp", "Log", "Sqrt", "Reciprocal", "Softplus", "Softsign", "Erf", "Gelu", "Mish", "Identity", "Floor", "Ceil",
             "Round", "Sign", "Sin", "Cos", "ThresholdedRelu", "Shrink": true
        default: false
        }
    }
    static func isBinary(_ op: String) -> Bool {
        switch op {
        case "Add", "Sub", "Mul", "Div", "Max", "Min", "PRelu": true
        default: false
        }
    }
    /// The com.microsoft ops that act on each element alone (input 0), their other inputs one-value constants.
    static func isQuantizedUnary(_ op: String) -> Bool { op == "QLinearSigmoid" || op == "QLinearLeakyRelu" }
    /// The com.microsoft element-wise ops of two operands (inputs 0 and 3), their other inputs one-value constants.
    static func isQuantizedBinary(_ op: String) -> Bool { op == "QLinearAdd" || op == "QLinearMul" }
    static func isReduction(_ op: String) -> Bool {
        switch op {
        case "ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare": true
        default: false
        }
    }

    /// The rewritten model, or nil when it would not remove a Transpose.
    static func rewrite(_ model: ModelProto) -> ModelProto? {
        var shapes: [String: [Int]] = [:]
        return rewrite(model, shapes: &shapes)
    }

    /// The rewritten model, or nil when it would not remove a Transpose; `shapes` (the values'
    /// shapes by name) gains those of the values the rewrite adds.
    static func rewrite(_ model: ModelProto, shapes: inout [String: [Int]]) -> ModelProto? {
        guard var graph = model.graph,
              graph.nodes.contains(where: { $0.opType == "Transpose" && isDefaultDomain($0) }),
              !graph.nodes.contains(where: { $0.attributes.contains { $0.hasGraph } }) else { return nil }
        let opset = model.opsetImports.first { $0.domain.isEmpty || $0.domain == "ai.onnx" }?.version ?? 0
        let fedNames = Set(graph.inputs.map { $0.name })
        var initializers: [String: TensorProto] = [:]
        for tensor in graph.initializers where !fedNames.contains(tensor.name) { initializers[tensor.name] = tensor }
        func isOneValue(_ name: String) -> Bool { initializers[name].map { $0.dims.reduce(1) { $0 * Int($1) } == 1 } == true }
        /// A per-tensor DequantizeLinear of an initializer.
        func isConstantDequantize(_ node: NodeProto) -> Bool {
            isDefaultDomain(node) && node.opType == "DequantizeLinear" && node.outputs.count == 1 && node.inputs.count >= 2
                && initializers[node.inputs[0]] != nil && node.inputs.dropFirst().allSatisfy { $0.isEmpty || isOneValue($0) }
                && !node.attributes.contains { $0.name == "block_size" && $0.i != 0 }
        }
        let graphOutputs = Set(graph.outputs.map { $0.name })
        var names = Set(graph.initializers.map { $0.name }).union(fedNames)
        var originallyRead: Set<String> = graphOutputs
        for node in graph.nodes {
            // Nodes in an order that is not topological are left as written.
            for input in node.inputs where !input.isEmpty && !names.contains(input) { return nil }
            names.formUnion(node.outputs)
            originallyRead.formUnion(node.inputs)
        }
        func fresh(_ base: String) -> String {
            var name = base, n = 1
            while names.contains(name) { name = "\(base)_\(n)"; n += 1 }
            names.insert(name)
            return name
        }

        let valueInfoNames = Set(graph.valueInfo.map { $0.name })
        /// Values renamed everywhere at the end (a graph output's new producer).
        var outputNames: [String: String] = [:]
        /// The permutation and input of the Transpose (already emitted) that writes `value`.
        var transposeOf: [String: (perm: [Int], input: String)] = [:]
        var renamed: [String: String] = [:]
        var added: [TensorProto] = []
        var nodes: [NodeProto] = []
        /// The per-tensor DequantizeLinear nodes of initializers, by output.
        var constantDequantize: [String: NodeProto] = [:]
        /// Nodes a rewrite adds before the rewritten node (DequantizeLinear of permuted constants).
        var pending: [NodeProto] = []

        func perm(_ node: NodeProto) -> [Int]? {
            guard node.inputs.count == 1, node.outputs.count == 1 else { return nil }
            guard let attribute = node.attributes.first(where: { $0.name == "perm" }) else { return nil }  // reversal: rank unknown here
            let p = attribute.ints.map(Int.init)
            guard Set(p) == Set(0..<p.count) else { return nil }
            return p
        }
        func constant(_ name: String, permutedBy p: [Int]) -> String? {
            if initializers[name] == nil, let dequantize = constantDequantize[name] {
                // The DequantizeLinear of the permuted initializer (per tensor: its scale and zero
                // point apply to every element alike).
                guard let values = constant(dequantize.inputs[0], permutedBy: p) else { return nil }
                if values == dequantize.inputs[0] { return name }
                var node = dequantize
                node.inputs[0] = values
                node.outputs = [fresh(name + "/channels_first")]
                node.name = fresh((dequantize.name.isEmpty ? name : dequantize.name) + "/channels_first")
                if let tensor = added.first(where: { $0.name == values }) ?? initializers[values] {
                    shapes[node.outputs[0]] = tensor.dims.map(Int.init)
                }
                pending.append(node)
                return node.outputs[0]
            }
            guard let tensor = initializers[name], tensor.dataLocation == 0, tensor.dims.count <= p.count else { return nil }
            let dims = tensor.dims.map(Int.init)
            if dims.reduce(1, *) == 1 { return name }
            let full = Array(repeating: 1, count: p.count - dims.count) + dims
            guard let permuted = permute(tensor, dims: full, by: inverse(p)) else { return nil }
            var result = permuted
            result.name = fresh(name + "/channels_first")
            added.append(result)
            return result.name
        }
        func axes(_ values: [Int64], rank: Int, through p: [Int]) -> [Int64]? {
            var result: [Int64] = []
            for value in values {
                let axis = value < 0 ? Int(value) + rank : Int(value)
                guard (0..<rank).contains(axis) else { return nil }
                result.append(Int64(p[axis]))
            }
            return result.sorted()
        }
        func int64s(_ name: String) -> [Int64]? {
            guard let tensor = initializers[name], tensor.dataType == .int64, tensor.dataLocation == 0 else { return nil }
            if !tensor.int64Data.isEmpty || !tensor.hasRawData { return tensor.int64Data }
            return stride(from: 0, to: tensor.rawData.count, by: 8).map { at in
                Int64(bitPattern: (0..<8).reduce(UInt64(0)) { $0 | UInt64(tensor.rawData[at + $1]) << (8 * $1) })
            }
        }
        func int64Constant(_ values: [Int64], like name: String) -> String {
            var tensor = TensorProto()
            tensor.name = fresh(name + "/channels_first")
            tensor.dataType = .int64
            tensor.dims = [Int64(values.count)]
            tensor.int64Data = values
            added.append(tensor)
            return tensor.name
        }

        /// Whether every input of `node` but those at `operands` is absent or a one-value initializer.
        func othersAreScalars(_ node: NodeProto, operands: Set<Int>) -> Bool {
            node.inputs.indices.allSatisfy { index in
                let input = node.inputs[index]
                return operands.contains(index) || input.isEmpty || isOneValue(input)
            }
        }
        /// `node`'s inputs at `operands` read the Transposes' inputs (transposed by `p`) or constants permuted to match.
        func permutedOperands(_ node: NodeProto, _ operands: [Int], _ p: [Int]) -> NodeProto? {
            var result = node
            for index in operands {
                let input = node.inputs[index]
                if let t = transposeOf[input], t.perm == p {
                    result.inputs[index] = t.input
                } else if let c = constant(input, permutedBy: p) {
                    result.inputs[index] = c
                } else {
                    return nil
                }
            }
            return result
        }

        /// `node` rewritten to read the Transposes' inputs (its output then transposed by `p`), or nil.
        func sunk(_ node: NodeProto) -> (node: NodeProto, perm: [Int])? {
            let microsoft = node.domain == "com.microsoft"
            guard isDefaultDomain(node) || microsoft, node.outputs.count == 1, !node.inputs.isEmpty,
                  let first = transposeOf[node.inputs[0]] ?? node.inputs.dropFirst().lazy.compactMap({ transposeOf[$0] }).first
            else { return nil }
            let p = first.perm, rank = p.count
            var result = node
            switch node.opType {
            case let op where microsoft:
                if isQuantizedUnary(op) {
                    guard transposeOf[node.inputs[0]]?.perm == p, othersAreScalars(node, operands: [0]) else { return nil }
                    result.inputs[0] = first.input
                } else if isQuantizedBinary(op) {
                    guard node.inputs.count >= 7, othersAreScalars(node, operands: [0, 3]),
                          let permuted = permutedOperands(node, [0, 3], p) else { return nil }
                    result = permuted
                } else {
                    return nil
                }
            case let op where isUnary(op):
                guard transposeOf[node.inputs[0]]?.perm == p else { return nil }
                result.inputs[0] = first.input
            case "QuantizeLinear", "DequantizeLinear":
                // Per tensor only: a scale per axis would need its axis moved.
                guard transposeOf[node.inputs[0]]?.perm == p, node.inputs.count >= 2, othersAreScalars(node, operands: [0]), !node.attributes.contains(where: { $0.name == "block_size" && $0.i != 0 })
                else { return nil }
                result.inputs[0] = first.input
            case let op where isBinary(op):
                guard node.inputs.count == 2, let permuted = permutedOperands(node, [0, 1], p) else { return nil }
                result = permuted
            case let op where isReduction(op):
                guard transposeOf[node.inputs[0]]?.perm == p,
                      (node.attributes.first { $0.name == "keepdims" }?.i ?? 1) == 1 else { return nil }
                result.inputs[0] = first.input
                if let index = node.attributes.firstIndex(where: { $0.name == "axes" }) {
                    guard let mapped = axes(node.attributes[index].ints, rank: rank, through: p) else { return nil }
                    result.attributes[index].ints = mapped
                } else if node.inputs.count > 1, !node.inputs[1].isEmpty {
                    guard let values = int64s(node.inputs[1]), let mapped = axes(values, rank: rank, through: p) else { return nil }
                    result.inputs[1] = int64Constant(mapped, like: node.inputs[1])
                }
            case "Pad":
                guard transposeOf[node.inputs[0]]?.perm == p, node.inputs.count <= 3 else { return nil }
                result.inputs[0] = first.input
                func moved(_ pads: [Int64]) -> [Int64]? {
                    guard pads.count == 2 * rank else { return nil }
                    var result = pads
                    for k in 0..<rank {
                        result[p[k]] = pads[k]
                        result[rank + p[k]] = pads[rank + k]
                    }
                    return result
                }
                if opset < 11 {
                    guard let index = node.attributes.firstIndex(where: { $0.name == "pads" }),
                          let mapped = moved(node.attributes[index].ints) else { return nil }
                    result.attributes[index].ints = mapped
                } else {
                    guard node.inputs.count >= 2, let pads = int64s(node.inputs[1]), let mapped = moved(pads) else { return nil }
                    result.inputs[1] = int64Constant(mapped, like: node.inputs[1])
                }
            case "Concat":
                guard node.inputs.allSatisfy({ transposeOf[$0]?.perm == p }),
                      let index = node.attributes.firstIndex(where: { $0.name == "axis" }),
                      let mapped = axes([node.attributes[index].i], rank: rank, through: p) else { return nil }
                result.inputs = node.inputs.map { transposeOf[$0]!.input }
                result.attributes[index].i = mapped[0]
            default:
                return nil
            }
            return (result, p)
        }

        for var node in graph.nodes {
            node.inputs = node.inputs.map { renamed[$0] ?? $0 }
            if isDefaultDomain(node), node.opType == "Transpose", let q = perm(node), let t = transposeOf[node.inputs[0]],
               t.perm.count == q.count {
                let composed = q.map { t.perm[$0] }
                if composed == Array(0..<q.count) {
                    if !graphOutputs.contains(node.outputs[0]) {
                        renamed[node.outputs[0]] = t.input
                        continue
                    }
                    // A graph output: the node writing the Transpose's input writes it under the
                    // output's name instead, when that input is a node's output and nothing but
                    // the graph's nodes knows its name.
                    if !fedNames.contains(t.input), initializers[t.input] == nil, !graphOutputs.contains(t.input),
                       !valueInfoNames.contains(t.input), outputNames[t.input] == nil {
                        outputNames[t.input] = node.outputs[0]
                        continue
                    }
                }
                node.inputs[0] = t.input
                node.attributes = node.attributes.map { a in
                    var a = a
                    if a.name == "perm" { a.ints = composed.map(Int64.init) }
                    return a
                }
                transposeOf[node.outputs[0]] = (composed, t.input)
                nodes.append(node)
                continue
            }
            pending = []
            if let (rewritten, p) = sunk(node) {
                var inner = rewritten
                let output = node.outputs[0]
                inner.outputs = [fresh(output + "/channels_first")]
                if let shape = shapes[output], shape.count == p.count {
                    var moved = shape
                    for k in 0..<p.count { moved[p[k]] = shape[k] }
                    shapes[inner.outputs[0]] = moved
                }
                nodes += pending
                var transpose = NodeProto()
                transpose.opType = "Transpose"
                transpose.name = fresh((node.name.isEmpty ? output : node.name) + "/transpose")
                transpose.inputs = inner.outputs
                transpose.outputs = [output]
                var attribute = AttributeProto()
                attribute.name = "perm"
                attribute.type = .ints
                attribute.ints = p.map(Int64.init)
                transpose.attributes = [attribute]
                transposeOf[output] = (p, inner.outputs[0])
                nodes += [inner, transpose]
                continue
            }
            if isDefaultDomain(node), node.opType == "Transpose", let p = perm(node) {
                transposeOf[node.outputs[0]] = (p, node.inputs[0])
            }
            if isConstantDequantize(node) { constantDequantize[node.outputs[0]] = node }
            nodes.append(node)
        }

        if !outputNames.isEmpty {
            for index in nodes.indices {
                nodes[index].inputs = nodes[index].inputs.map { outputNames[$0] ?? $0 }
                nodes[index].outputs = nodes[index].outputs.map { outputNames[$0] ?? $0 }
            }
        }
        // Drop the Transposes nobody reads, and the DequantizeLinear of constants, last first (a
        // dropped one may free its producer).
        var readers: [String: Int] = [:]
        for node in nodes { for input in node.inputs where !input.isEmpty { readers[input, default: 0] += 1 } }
        for output in graphOutputs { readers[output, default: 0] += 1 }
        var kept = [Bool](repeating: true, count: nodes.count)
        for index in nodes.indices.reversed()
        where isDefaultDomain(nodes[index]) && nodes[index].opType == "Transpose" || isConstantDequantize(nodes[index]) {
            guard readers[nodes[index].outputs[0], default: 0] == 0 else { continue }
            kept[index] = false
            for input in nodes[index].inputs { readers[input, default: 0] -= 1 }
        }
        let before = graph.nodes.count(where: { isDefaultDomain($0) && $0.opType == "Transpose" })
        let result = nodes.indices.filter { kept[$0] }.map { nodes[$0] }
        guard result.count(where: { isDefaultDomain($0) && $0.opType == "Transpose" }) < before else { return nil }
        graph.nodes = result
        // The constants that only the rewritten nodes read give way to their permuted copies.
        graph.initializers = graph.initializers.filter { fedNames.contains($0.name) || readers[$0.name, default: 0] > 0 || !originallyRead.contains($0.name) }
            + added.filter { readers[$0.name, default: 0] > 0 }
        var rewritten = model
        rewritten.graph = graph
        return rewritten
    }

    static func isDefaultDomain(_ node: NodeProto) -> Bool { node.domain.isEmpty || node.domain == "ai.onnx" }

    static func inverse(_ p: [Int]) -> [Int] {
        var result = p
        for (k, axis) in p.enumerated() { result[axis] = k }
        return result
    }

    /// `tensor` (of dims `dims`, its own padded with leading 1s) transposed by `q`: dims
    /// `dims[q[k]]`, element `i` taken from `j` with `j[q[k]] = i[k]`. Nil for external data or
    /// element types other than whole bytes.
    static func permute(_ tensor: TensorProto, dims: [Int], by q: [Int]) -> TensorProto? {
        let rank = dims.count, count = dims.reduce(1, *)
        var strides = [Int](repeating: 1, count: rank)
        for k in stride(from: rank - 2, through: 0, by: -1) { strides[k] = strides[k + 1] * dims[k + 1] }
        let outDims = q.map { dims[$0] }
        // source[i] for each destination index i in C order.
        var source = [Int](repeating: 0, count: count)
        var index = [Int](repeating: 0, count: rank)
        for i in 0..<count {
            var at = 0
            for k in 0..<rank { at += index[k] * strides[q[k]] }
            source[i] = at
            var k = rank - 1
            while k >= 0 {
                index[k] += 1
                if index[k] < outDims[k] { break }
                index[k] = 0
                k -= 1
            }
        }
        var result = TensorProto()
        result.dataType = tensor.dataType
        result.dims = outDims.map(Int64.init)
        if tensor.hasRawData || !tensor.rawData.isEmpty {
            guard let size = tensor.dataType.rawElementSize, tensor.rawData.count == size * count else { return nil }
            result.hasRawData = true
            result.rawData = [UInt8](repeating: 0, count: tensor.rawData.count)
            for i in 0..<count { for b in 0..<size { result.rawData[i * size + b] = tensor.rawData[source[i] * size + b] } }
        } else if tensor.floatData.count == count {
            result.floatData = source.map { tensor.floatData[$0] }
        } else if tensor.int32Data.count == count {
            result.int32Data = source.map { tensor.int32Data[$0] }
        } else if tensor.int64Data.count == count {
            result.int64Data = source.map { tensor.int64Data[$0] }
        } else if tensor.doubleData.count == count {
            result.doubleData = source.map { tensor.doubleData[$0] }
        } else {
            return nil
        }
        return result
    }
}
