import ONNXFormat

/// A value the plan computes or reads: a graph input, a node output, or a constant a node reads.
struct PlannedValue: Sendable {
    var name: String
    var shape: [Int]
    var elementCount: Int
    /// The value when it is a constant; nil for values computed at run time.
    var constant: [Float]?
}

/// A node that runs at inference time (constant-only nodes were folded away).
struct PlannedNode: Sendable {
    var name: String
    var opType: String
    var operation: any Operator
    /// Value ids of the operator's data inputs, in `operation.dataInputs` order.
    var inputs: [Int]
    /// Value ids of the outputs.
    var outputs: [Int]
}

/// A validated graph: nodes in topological order, every shape inferred, constants folded.
///
/// Loading checks, in order: the opset (default domain, 11–18); initializers (types, sizes,
/// finite values); graph inputs (float, static shape); that every node input is defined and the
/// graph is acyclic; each node's op, attributes and shapes (through its builder); and that the
/// graph outputs are computed with the declared shapes. The first problem is thrown.
struct LoadedGraph: Sendable {
    var values: [PlannedValue] = []
    var nodes: [PlannedNode] = []
    var inputIDs: [Int] = []
    var outputIDs: [Int] = []
    var opsetVersion = 0
    /// Nodes per op type, as written in the model (folded and Constant nodes included).
    var opCounts: [String: Int] = [:]
    /// Multiply-accumulates per op type, for the nodes that run.
    var macsByOp: [String: Int] = [:]
    /// Float elements in the model's float initializers.
    var parameterCount = 0

    init(_ model: ModelProto) throws(ModelError) {
        opsetVersion = try Self.defaultOpset(model)
        guard let graph = model.graph else { throw ModelError(.malformed, "the model has no graph") }
        guard graph.sparseInitializerCount == 0 else { throw ModelError(.unsupported, "sparse initializers are not supported") }

        // Initializers.
        var constants: [String: ConstantTensor] = [:]
        for tensor in graph.initializers {
            guard !tensor.name.isEmpty else { throw ModelError(.malformed, "an initializer has no name") }
            guard constants[tensor.name] == nil else { throw ModelError(.invalidGraph, "initializer '\(tensor.name)' is defined twice") }
            let constant = try ConstantTensor(tensor, role: "initializer")
            if constant.floats != nil { parameterCount += constant.elementCount }
            constants[tensor.name] = constant
        }

        // Graph inputs (an input that is also an initializer is a constant with a default, IR < 4).
        var valueIDs: [String: Int] = [:]
        for input in graph.inputs where constants[input.name] == nil {
            guard valueIDs[input.name] == nil else { throw ModelError(.invalidGraph, "graph input '\(input.name)' is declared twice") }
            let shape = try Self.staticShape(input, role: "graph input")
            valueIDs[input.name] = values.count
            inputIDs.append(values.count)
            values.append(PlannedValue(name: input.name, shape: shape, elementCount: shape.reduce(1, *), constant: nil))
        }

        // Topological order (Kahn), with dangling inputs and cycles reported by node.
        let order = try Self.topologicalOrder(graph.nodes, defined: Set(constants.keys).union(valueIDs.keys))

        for index in order {
            var node = graph.nodes[index]
            while node.outputs.last == "" { node.outputs.removeLast() }  // omitted optional outputs
            opCounts[node.opType, default: 0] += 1
            let display = node.name.isEmpty ? (node.outputs.first ?? node.opType) : node.name
            guard node.domain.isEmpty || node.domain == "ai.onnx" else {
                throw ModelError(.unsupported, "operator domain '\(node.domain)' is not supported (only the default ONNX domain)",
                                 node: display, op: node.opType)
            }
            let inputs = node.inputs.map { name -> NodeContext.Input in
                if name.isEmpty { return .absent }
                if let constant = constants[name] { return .constant(constant) }
                return .runtime(shape: values[valueIDs[name]!].shape)
            }
            let context = NodeContext(node: node, opsetVersion: opsetVersion, inputs: inputs)
            if node.opType == "Constant" {
                guard node.outputs.count == 1 else { throw context.error(.malformed, "expected 1 output, got \(node.outputs.count)") }
                constants[node.outputs[0]] = try Constant.value(context)
                continue
            }
            guard let builder = OperatorRegistry.builders[node.opType] else {
                throw ModelError(.unsupported, "operator '\(node.opType)' is not supported", node: display, op: node.opType)
            }
            let operation = try builder(context)
            guard operation.outputShapes.count == node.outputs.count else {
                throw context.error(.unsupported, "the node has \(node.outputs.count) outputs, the engine computes \(operation.outputShapes.count)")
            }
            for (name, shape) in zip(node.outputs, operation.outputShapes) where Shapes.elementCount(shape) == nil {
                throw context.error(.invalidShape, "output '\(name)' would have shape \(shape): negative, or more than 2^31 elements")
            }
            for input in operation.dataInputs {
                if case let .constant(tensor) = inputs[input], tensor.floats == nil {
                    throw context.error(.unsupported, "input '\(node.inputs[input])' holds integers; only float tensors are computed")
                }
            }
            macsByOp[node.opType, default: 0] += operation.multiplyAccumulates

            // Fold only outputs of bounded size: folding runs the node at load time, so an
            // all-constant node with a large output (a tiny constant resized, padded or broadcast
            // to 2^31 elements) would make loading allocate that much. Larger ones run per frame.
            let isConstant = operation.dataInputs.allSatisfy { constants[node.inputs[$0]] != nil }
                && operation.outputShapes.allSatisfy { $0.reduce(1, *) <= Self.maximumFoldedElementCount }
            if isConstant {
                for (name, value) in zip(node.outputs, Self.fold(operation, inputs: operation.dataInputs.map { constants[node.inputs[$0]]!.floats! })) {
                    constants[name] = value
                }
                continue
            }
            var inputIDs: [Int] = []
            for input in operation.dataInputs {
                let name = node.inputs[input]
                if valueIDs[name] == nil, let constant = constants[name] {
                    valueIDs[name] = values.count
                    values.append(PlannedValue(name: name, shape: constant.shape, elementCount: constant.elementCount, constant: constant.floats))
                }
                inputIDs.append(valueIDs[name]!)
            }
            var outputIDs: [Int] = []
            for (name, shape) in zip(node.outputs, operation.outputShapes) {
                valueIDs[name] = values.count
                outputIDs.append(values.count)
                values.append(PlannedValue(name: name, shape: shape, elementCount: shape.reduce(1, *), constant: nil))
            }
            nodes.append(PlannedNode(name: display, opType: node.opType, operation: operation, inputs: inputIDs, outputs: outputIDs))
        }

        // Graph outputs.
        guard !graph.outputs.isEmpty else { throw ModelError(.malformed, "the graph has no outputs") }
        for output in graph.outputs {
            guard let id = valueIDs[output.name], values[id].constant == nil else {
                if constants[output.name] != nil {
                    throw ModelError(.unsupported, "graph output '\(output.name)' is a constant; only computed outputs are supported")
                }
                throw ModelError(.invalidGraph, "graph output '\(output.name)' is not computed by any node")
            }
            if let declared = output.type?.tensorType?.shape?.dims {
                let inferred = values[id].shape
                let matches = declared.count == inferred.count && zip(declared, inferred).allSatisfy { dimension, size in
                    if case let .value(value) = dimension { return value == Int64(size) }
                    return true
                }
                guard matches else {
                    throw ModelError(.invalidShape, "graph output '\(output.name)' is declared \(Self.describe(declared)) but computes \(inferred)")
                }
            }
            outputIDs.append(id)
        }
    }

    // MARK: - Pieces

    private static func defaultOpset(_ model: ModelProto) throws(ModelError) -> Int {
        guard let opset = model.opsetImports.last(where: { $0.domain.isEmpty || $0.domain == "ai.onnx" }) else {
            throw ModelError(.malformed, "the model imports no default-domain opset")
        }
        guard opset.version >= Int64(OperatorRegistry.supportedOpsets.lowerBound),
              opset.version <= Int64(OperatorRegistry.supportedOpsets.upperBound)
        else {
            throw ModelError(.unsupported, "opset \(opset.version) is not supported (supported: \(OperatorRegistry.supportedOpsets.lowerBound)–\(OperatorRegistry.supportedOpsets.upperBound))")
        }
        return Int(opset.version)
    }

    private static func staticShape(_ value: ValueInfoProto, role: String) throws(ModelError) -> [Int] {
        guard let tensor = value.type?.tensorType else {
            throw ModelError(.unsupported, "\(role) '\(value.name)' is not a tensor")
        }
        guard tensor.elementType == .float else {
            throw ModelError(.unsupported, "\(role) '\(value.name)' has element type \(tensor.elementType); only FLOAT is supported")
        }
        guard let dims = tensor.shape?.dims else { throw ModelError(.unsupported, "\(role) '\(value.name)' has no declared shape") }
        var shape: [Int] = []
        for (index, dimension) in dims.enumerated() {
            switch dimension {
            case let .value(size) where size >= 0 && size <= Int64(Shapes.maximumElementCount):
                shape.append(Int(size))
            case let .value(size):
                throw ModelError(.invalidShape, "\(role) '\(value.name)' has dimension \(index) = \(size)")
            case let .parameter(name):
                throw ModelError(.unsupported, "\(role) '\(value.name)' has symbolic dimension \(index) ('\(name)'); only static shapes are supported")
            case .unknown:
                throw ModelError(.unsupported, "\(role) '\(value.name)' has an unknown dimension \(index); only static shapes are supported")
            }
        }
        guard Shapes.elementCount(shape) != nil else {
            throw ModelError(.invalidShape, "\(role) '\(value.name)' has shape \(shape): more than 2^31 elements")
        }
        return shape
    }

    /// Node indices in an order where every input is defined before use.
    private static func topologicalOrder(_ nodes: [NodeProto], defined: Set<String>) throws(ModelError) -> [Int] {
        func display(_ node: NodeProto) -> String { node.name.isEmpty ? (node.outputs.first ?? node.opType) : node.name }
        var producer: [String: Int] = [:]
        for (index, node) in nodes.enumerated() {
            for output in node.outputs where !output.isEmpty {
                guard producer[output] == nil, !defined.contains(output) else {
                    throw ModelError(.invalidGraph, "value '\(output)' is defined more than once", node: display(node), op: node.opType)
                }
                producer[output] = index
            }
        }
        var pending = [Int](repeating: 0, count: nodes.count)
        var consumers = [[Int]](repeating: [], count: nodes.count)
        for (index, node) in nodes.enumerated() {
            for input in node.inputs where !input.isEmpty && !defined.contains(input) {
                guard let source = producer[input] else {
                    throw ModelError(.invalidGraph, "input '\(input)' is not a graph input, an initializer or any node's output",
                                     node: display(node), op: node.opType)
                }
                pending[index] += 1
                consumers[source].append(index)
            }
        }
        var ready = nodes.indices.filter { pending[$0] == 0 }.reversed() as [Int]
        var order: [Int] = []
        while let index = ready.popLast() {
            order.append(index)
            for consumer in consumers[index] {
                pending[consumer] -= 1
                if pending[consumer] == 0 { ready.append(consumer) }
            }
        }
        if order.count < nodes.count, let stuck = nodes.indices.first(where: { pending[$0] > 0 }) {
            throw ModelError(.invalidGraph, "the graph has a cycle through this node", node: display(nodes[stuck]), op: nodes[stuck].opType)
        }
        return order
    }

    /// The largest output (elements) a node may have to be folded at load time (64 MB of floats).
    static let maximumFoldedElementCount = 1 << 24

    /// Runs a node whose inputs are all constant, at plan time.
    private static func fold(_ operation: any Operator, inputs: [[Float]]) -> [ConstantTensor] {
        var outputs = operation.outputShapes.map { [Float](repeating: 0, count: $0.reduce(1, *)) }
        let inputPointers = inputs.map { values -> UnsafeMutablePointer<Float> in
            let pointer = UnsafeMutablePointer<Float>.allocate(capacity: max(values.count, 1))
            pointer.initialize(from: values, count: values.count)
            return pointer
        }
        let outputPointers = outputs.map { UnsafeMutablePointer<Float>.allocate(capacity: max($0.count, 1)) }
        operation.run(inputs: inputPointers.map { UnsafePointer($0) }, outputs: outputPointers)
        for (index, pointer) in outputPointers.enumerated() {
            outputs[index] = Array(UnsafeBufferPointer(start: pointer, count: outputs[index].count))
            pointer.deallocate()
        }
        inputPointers.forEach { $0.deallocate() }
        return zip(operation.outputShapes, outputs).map { ConstantTensor(shape: $0, floats: $1) }
    }

    private static func describe(_ dims: [TensorShapeProto.Dimension]) -> String {
        "[" + dims.map { dimension in
            switch dimension {
            case let .value(value): String(value)
            case let .parameter(name): name
            case .unknown: "?"
            }
        }.joined(separator: ", ") + "]"
    }
}
