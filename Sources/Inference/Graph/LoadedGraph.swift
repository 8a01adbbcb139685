import ONNXFormat

/// A value the plan computes or reads: a graph input, a node output, or a constant a node reads.
struct PlannedValue: Sendable {
    var name: String
    var shape: [Int]
    var type: ElementType
    var elementCount: Int
    /// The value when it is a constant; nil for values computed at run time.
    var constant: ConstantTensor?

    /// Bytes of the value in the arena.
    var byteCount: Int { elementCount * type.byteSize }
    /// Floats (4-byte units) of the arena the value occupies.
    var floatCount: Int { (byteCount + 3) / 4 }
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

/// A validated graph: nodes in topological order, every shape and type inferred, constants folded.
///
/// Loading checks, in order: the opset (default domain, 1 to `OperatorVersions.newestOpset`);
/// initializers (types, sizes, finite values); graph inputs (a stored type, every dim bound);
/// that every node input is defined and the graph is acyclic; each node's domain and op version
/// and then its attributes, types and shapes (through its builder); and that the graph outputs are
/// computed with the declared shapes. A problem with the opset, an initializer or the graph's
/// structure is thrown at once. Problems with graph inputs, nodes and graph outputs are collected
/// and thrown together (`ModelError.problems`): a value such a problem leaves unknown makes the
/// nodes depending on it unchecked (their domain and op version are still checked), so one pass
/// names every node that cannot run.
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
    /// Graph inputs fixed at plan time (from the offered values), by name.
    var fixedInputs: Set<String> = []
    /// What loading noticed but accepted: graph inputs given different sizes for one `dim_param`.
    var warnings: [String] = []

    /// Values offered for graph inputs at plan time, by name; fixed only when a node needs one
    /// (`valueOnDemand`).
    private var offeredInputs: [String: ConstantTensor] = [:]
    /// The planned nodes `valueOnDemand` computed at plan time, by position in `nodes`.
    private var computedOnDemand: Set<Int> = []
    /// The values known when the plan is built, by name.
    private var constants: [String: ConstantTensor] = [:]
    /// The sequence and optional values, by name: they exist only at plan time
    /// (`PlanTimeValues.swift`).
    private var sequences: [String: PlanTimeSequence] = [:]
    private var optionals: [String: PlanTimeOptional] = [:]
    /// The string tensors, by name (`StringTensor`: known only at plan time too).
    private var strings: [String: StringTensor] = [:]
    /// The graph outputs that hold strings, by name.
    var stringOutputs: [String: StringTensor] = [:]
    /// The id of each planned value, by name.
    private var valueIDs: [String: Int] = [:]
    /// The float32 copy of each float16 value widened for a float operator, by the value's name
    /// (`FloatWidening`).
    private var widenedCopies: [String: String] = [:]
    /// The float32 result each float16 (or bfloat16) value was rounded from, by the value's name:
    /// the outputs of widened nodes and of the data-movement nodes between them
    /// (`FloatWidening.keepsFloat32`). Widened nodes read these instead of the rounded values, so
    /// a region of widened nodes computes in float32 and rounds where its values leave it, as
    /// onnxruntime's inserted casts do. (For the outputs of `FloatWidening.roundedLikeOnnxruntime`
    /// nodes, the rounded value widened.)
    private var unroundedTwins: [String: String] = [:]
    /// The graph's output names, and the values every reader of which is a `Cast` (not a graph
    /// output): where onnxruntime's `RemoveDuplicateCastTransformer` drops the Cast its
    /// InsertCastTransformer put after a widened node (`castReadsTwin`).
    private var graphOutputNames: Set<String> = []
    private var readByCastsOnly: Set<String> = []
    /// The float16 (or bfloat16) outputs of widened nodes: where onnxruntime inserts its narrowing Cast.
    private var widenedOutputs: Set<String> = []
    /// The outputs of the Casts that round widened and data-movement results to their narrow type
    /// (`planRounding`), dropped when nothing reads them (`dropUnreadNarrowings`).
    private var narrowingOutputs: Set<String> = []
    /// The model's Casts of a float32 run-time value to float16 or bfloat16: output → input. A
    /// widened node reads the float32 input (`planWidened`), as onnxruntime's does: its
    /// RemoveDuplicateCastTransformer cancels such a Cast against the widening Cast it inserts.
    private var narrowingCasts: [String: String] = [:]
    /// The outputs of the Casts that widen a rounded value for a `FloatWidening.roundedLikeOnnxruntime`
    /// node: they read the float16 value itself, never the float32 twin it was rounded from.
    private var widensRounded: Set<String> = []
    /// The version of each imported domain, by domain (`""` for the default one).
    private var opsetImports: [String: Int] = [:]
    /// Values whose shape is unknown because of a problem found earlier (a graph input that could
    /// not be bound, the output of a node with a problem or of an unchecked node).
    private var unknownValues: Set<String> = []
    /// The problems found so far, each with its place in the order they are reported: graph
    /// inputs, then nodes in the order the model lists them, then graph outputs.
    private var problems: [(order: Int, error: ModelError)] = []
    /// Nodes not checked because they read an unknown value.
    private var uncheckedNodeCount = 0

    /// Loads `model`, binding dynamic input dims from `inputShapes`. A graph input in
    /// `planTimeInputs` is fixed when a node needs, as a constant, a value computed from it: a
    /// shape, scales or bounds fed as an input, or computed from inputs (`Concat([1, 1], ratio,
    /// ratio)` as a Resize's scales). The value is then computed where that node is planned
    /// (`valueOnDemand`), and the nodes after it fold what they can.
    /// String graph inputs take their values from `planTimeStrings` (strings exist only at plan
    /// time, `StringTensor`).
    init(_ model: ModelProto, inputShapes: [String: [Int]] = [:],
         planTimeInputs: [String: ConstantTensor] = [:], planTimeStrings: [String: StringTensor] = [:]) throws(ModelError) {
        // Bytes that decode as protobuf but hold neither (a text file, an empty one) are not ONNX at all.
        guard model.graph != nil || !model.opsetImports.isEmpty else {
            throw ModelError(.malformed, "not an ONNX model: it has no graph and no opset import")
        }
        opsetVersion = try Self.defaultOpset(model)
        for opset in model.opsetImports {
            opsetImports[opset.domain == "ai.onnx" ? "" : opset.domain] = Int(clamping: opset.version)
        }
        opsetImports[""] = opsetVersion
        guard let graph = model.graph else { throw ModelError(.malformed, "the model has no graph") }
        guard graph.sparseInitializerCount == 0 else { throw ModelError(.unsupported, "sparse initializers are not supported") }
        offeredInputs = planTimeInputs
        try readInitializers(graph)
        try bindInputs(graph, inputShapes: inputShapes, strings: planTimeStrings)
        let defined = Set(constants.keys).union(valueIDs.keys).union(unknownValues).union(strings.keys)
        let order = try Self.topologicalOrder(graph.nodes, defined: defined)
        var producers: [String: Int] = [:]
        for (index, node) in graph.nodes.enumerated() { for output in node.outputs where !output.isEmpty { producers[output] = index } }
        graphOutputNames = Set(graph.outputs.map { $0.name })
        var readers: [String: (casts: Int, others: Int)] = [:]
        for node in graph.nodes {
            let isCast = node.opType == "Cast" && (node.domain.isEmpty || node.domain == "ai.onnx")
            for input in node.inputs where !input.isEmpty {
                if isCast { readers[input, default: (0, 0)].casts += 1 } else { readers[input, default: (0, 0)].others += 1 }
            }
        }
        readByCastsOnly = Set(readers.filter { $0.value.others == 0 && !graphOutputNames.contains($0.key) }.keys)
        for index in order {
            plan(graph.nodes[index], at: index, nodes: graph.nodes, producers: producers)
        }
        try bindOutputs(graph, after: graph.nodes.count)
        if !problems.isEmpty {
            let sorted = problems.enumerated().sorted { ($0.element.order, $0.offset) < ($1.element.order, $1.offset) }
            throw ModelError(collecting: sorted.map { $0.element.error }, uncheckedNodeCount: uncheckedNodeCount)
        }
        dropNodesComputedOnDemand()
        dropUnreadNarrowings()
    }

    // MARK: - Phases

    private mutating func readInitializers(_ graph: GraphProto) throws(ModelError) {
        for tensor in graph.initializers {
            guard !tensor.name.isEmpty else { throw ModelError(.malformed, "an initializer has no name") }
            guard constants[tensor.name] == nil else { throw ModelError(.invalidGraph, "initializer '\(tensor.name)' is defined twice") }
            let constant = try ConstantTensor(tensor, role: "initializer")
            if constant.type == .float32 { parameterCount += constant.elementCount }
            constants[tensor.name] = constant
        }
    }

    /// Graph inputs: an input that is also an initializer is a constant with a default unless the
    /// caller gives its shape (feeds it). Every other one is bound as a run-time value, even when
    /// a value is offered for it (`valueOnDemand` fixes it if a node needs it).
    private mutating func bindInputs(_ graph: GraphProto, inputShapes: [String: [Int]],
                                     strings planTimeStrings: [String: StringTensor]) throws(ModelError) {
        for name in Set(inputShapes.keys).union(planTimeStrings.keys) where !graph.inputs.contains(where: { $0.name == name }) {
            throw ModelError(.invalidInput, "the model has no input '\(name)'")
        }
        var dimensions = DimensionBindings(inputs: graph.inputs, given: inputShapes)
        defer { warnings = dimensions.warnings }
        for input in graph.inputs {
            if constants[input.name] != nil && inputShapes[input.name] == nil { continue }
            if input.type?.tensorType?.elementType == .string {
                guard let value = planTimeStrings[input.name] else {
                    problems.append((-1, ModelError(.unsupported, "graph input '\(input.name)' holds strings, which must be given when the model is loaded (strings are computed only then)")))
                    unknownValues.insert(input.name)
                    continue
                }
                strings[input.name] = value
                fixedInputs.insert(input.name)
                continue
            }
            if planTimeStrings[input.name] != nil {
                problems.append((-1, ModelError(.invalidInput, "graph input '\(input.name)' does not hold strings, but strings were given for it")))
                unknownValues.insert(input.name)
                continue
            }
            guard valueIDs[input.name] == nil, !unknownValues.contains(input.name) else {
                throw ModelError(.invalidGraph, "graph input '\(input.name)' is declared twice")
            }
            constants[input.name] = nil
            let shape: [Int], type: ElementType
            do {
                (shape, type) = try dimensions.bind(input, given: inputShapes[input.name])
            } catch {
                problems.append((-1, error))
                unknownValues.insert(input.name)
                continue
            }
            valueIDs[input.name] = values.count
            inputIDs.append(values.count)
            values.append(PlannedValue(name: input.name, shape: shape, type: type, elementCount: shape.reduce(1, *), constant: nil))
        }
    }

    /// Checks one node, recording its problem (and leaving its outputs unknown) rather than
    /// throwing, so one pass names every node that cannot run.
    private mutating func plan(_ proto: NodeProto, at position: Int, nodes: [NodeProto], producers: [String: Int]) {
        var node = proto
        while node.outputs.last == "" { node.outputs.removeLast() }  // omitted optional outputs
        let display = node.name.isEmpty ? (node.outputs.first ?? node.opType) : node.name
        let domain = node.domain == "ai.onnx" ? "" : node.domain
        do {
            let version = try Self.checkOperator(node, display: display, opset: opsetVersion)
            guard !node.inputs.contains(where: { !$0.isEmpty && unknownValues.contains($0) }) else {
                uncheckedNodeCount += 1
                unknownValues.formUnion(node.outputs.filter { !$0.isEmpty })
                return
            }
            try plan(node, display: display, version: version)
        } catch {
            var problem = error
            if let value = error.constantValue, let sources = runtimeSources(of: value, nodes: nodes, producers: producers),
               !sources.contains(value) {
                let names = sources.sorted().map { "'\($0)'" }.joined(separator: ", ")
                problem.message += " (it is computed at run time from graph input\(sources.count == 1 ? "" : "s") \(names))"
            }
            if problem.node == nil { (problem.node, problem.op) = (display, node.opType) }
            problem.domain = domain
            problem.opset = opsetImports[domain]
            problems.append((position, problem))
            unknownValues.formUnion(node.outputs.filter { !$0.isEmpty })
        }
    }

    /// The value of `name`, computed now, when every graph input it is computed from was offered
    /// at plan time (`offeredInputs`) with the shape and type it was bound to: those inputs are
    /// fixed (they become constants and are no longer inputs), and the planned nodes between them
    /// and `name` are run on their reference kernels. The nodes after this point then read the
    /// value as a constant; the planned ones before it read the fixed inputs as constants.
    /// Nil, changing nothing, when `name` is a constant already or cannot be computed so (a
    /// graph input not offered, or a node's output too large to fold).
    private mutating func valueOnDemand(_ name: String) -> ConstantTensor? {
        guard constants[name] == nil, !offeredInputs.isEmpty, let target = valueIDs[name] else { return nil }
        var producer: [Int: Int] = [:]
        for (index, node) in nodes.enumerated() { for output in node.outputs { producer[output] = index } }
        // The nodes and graph inputs `name` is computed from, through values that are not constants.
        var chain: Set<Int> = [], sources: Set<Int> = [], pending = [target], visited: Set<Int> = []
        while let id = pending.popLast() {
            guard visited.insert(id).inserted, constants[values[id].name] == nil else { continue }
            if let index = producer[id] {
                let node = nodes[index]
                guard node.operation.outputShapes.allSatisfy({ $0.reduce(1, *) <= Self.maximumFoldedElementCount }) else { return nil }
                chain.insert(index)
                pending.append(contentsOf: node.inputs)
            } else {
                guard inputIDs.contains(id), let offered = offeredInputs[values[id].name],
                      offered.shape == values[id].shape, offered.type == values[id].type else { return nil }
                sources.insert(id)
            }
        }
        for id in sources {
            let offered = offeredInputs[values[id].name]!
            values[id].constant = offered
            constants[values[id].name] = offered
            inputIDs.removeAll { $0 == id }
            fixedInputs.insert(values[id].name)
        }
        for index in chain.sorted() {  // nodes are planned in topological order
            let node = nodes[index]
            let folded = Self.fold(node.operation, inputs: node.inputs.map { constants[values[$0].name]! })
            for (id, value) in zip(node.outputs, folded) { constants[values[id].name] = value }
            computedOnDemand.insert(index)
        }
        return constants[name]
    }

    /// Drops the nodes `valueOnDemand` computed whose outputs nothing reads (no node that runs, no
    /// graph output): folded, as they would have been had their inputs been constants from the start.
    private mutating func dropNodesComputedOnDemand() {
        guard !computedOnDemand.isEmpty else { return }
        var readers = [Int](repeating: 0, count: values.count)
        for node in nodes { for id in node.inputs { readers[id] += 1 } }
        for id in outputIDs { readers[id] += 1 }
        var dropped: Set<Int> = []
        for index in computedOnDemand.sorted(by: >) where nodes[index].outputs.allSatisfy({ readers[$0] == 0 }) {
            dropped.insert(index)
            for id in nodes[index].inputs { readers[id] -= 1 }
        }
        nodes = nodes.enumerated().filter { !dropped.contains($0.offset) }.map { $0.element }
        computedOnDemand = []
    }

    /// Drops the Casts whose result nothing reads (no node, no graph output): those that round a
    /// widened result to its float16 (or bfloat16) type when every reader takes the float32 twin,
    /// which would round every widened layer's output for nothing (in a converted float16 model,
    /// most of the run time), and the model's own Casts that the twins left unread. Until none is
    /// left, since a dropped Cast may have been another's only reader.
    private mutating func dropUnreadNarrowings() {
        guard !narrowingOutputs.isEmpty || !narrowingCasts.isEmpty || !widenedOutputs.isEmpty else { return }
        while true {
            var readers = [Int](repeating: 0, count: values.count)
            for node in nodes { for id in node.inputs { readers[id] += 1 } }
            for id in outputIDs { readers[id] += 1 }
            let kept = nodes.filter { node in !(node.opType == "Cast" && node.outputs.count == 1 && readers[node.outputs[0]] == 0) }
            if kept.count == nodes.count { return }
            nodes = kept
        }
    }

    /// The graph inputs a value computed at run time depends on, through the values that are not
    /// constants; nil when it depends on a value whose shape is unknown (a problem found earlier).
    private func runtimeSources(of value: String, nodes: [NodeProto], producers: [String: Int]) -> Set<String>? {
        var sources: Set<String> = [], visited: Set<String> = [], pending = [value]
        while let name = pending.popLast() {
            guard visited.insert(name).inserted, constants[name] == nil else { continue }
            if unknownValues.contains(name) { return nil }
            if let id = valueIDs[name], inputIDs.contains(id) {
                sources.insert(name)
            } else if let producer = producers[name] {
                pending.append(contentsOf: nodes[producer].inputs.filter { !$0.isEmpty })
            }
        }
        return sources
    }

    /// The version of `node`'s op that `opset` selects, when the engine implements the op in the
    /// node's domain: what can be checked without the shapes of the node's inputs.
    private static func checkOperator(_ node: NodeProto, display: String, opset: Int) throws(ModelError) -> Int {
        if node.domain == MicrosoftOperators.domain {
            guard MicrosoftOperators.builders[node.opType] != nil else {
                throw ModelError(.unsupported, "operator '\(node.opType)' of domain '\(node.domain)' is not supported (supported there: \(MicrosoftOperators.builders.keys.sorted().joined(separator: ", ")))",
                                 node: display, op: node.opType)
            }
            return MicrosoftOperators.version
        }
        guard node.domain.isEmpty || node.domain == "ai.onnx" else {
            throw ModelError(.unsupported, "operator domain '\(node.domain)' is not supported (only the default ONNX domain and some of com.microsoft)",
                             node: display, op: node.opType)
        }
        guard OperatorRegistry.supportedOpTypes.contains(node.opType) else {
            let known = OperatorVersions.sinceVersions[node.opType] != nil || node.opType == "Constant"
            throw ModelError(.unsupported, known ? "operator '\(node.opType)' is not supported"
                             : "operator '\(node.opType)' is not an ONNX operator (the node's domain is the default one, ai.onnx)",
                             node: display, op: node.opType)
        }
        return try OperatorRegistry.version(of: node.opType, opset: opset, node: display)
    }

    /// Builds one node's operator, then folds it (all inputs constant) or plans it. When the node
    /// needs as a constant a value computed from graph inputs offered at plan time, the value is
    /// computed (`valueOnDemand`) and the node built again.
    /// - Parameter counted: whether the node counts in `opCounts` (false for the nodes of a float
    ///   widening, whose node was counted as written).
    private mutating func plan(_ node: NodeProto, display: String, version: Int, counted: Bool = true) throws(ModelError) {
        while true {
            do {
                try build(node, display: display, version: version, counted: counted)
                return
            } catch {
                // Each retry fixes a value that was not constant, so the loop ends.
                guard let value = error.constantValue, valueOnDemand(value) != nil else { throw error }
            }
        }
    }

    /// `plan`'s one attempt. It changes nothing before the node's own builder succeeds (the nodes
    /// it plans in its place are planned by `plan`, each attempted on its own), so an attempt
    /// that throws can be made again.
    private mutating func build(_ node: NodeProto, display: String, version: Int, counted: Bool) throws(ModelError) {
        let inputs = node.inputs.map { name -> NodeContext.Input in
            if name.isEmpty { return .absent }
            if let value = strings[name] { return .strings(value) }
            if let sequence = sequences[name] { return .sequence(sequence) }
            if let optional = optionals[name] { return .optional(optional) }
            if let constant = constants[name] { return .constant(constant) }
            let value = values[valueIDs[name]!]
            return .runtime(shape: value.shape, type: value.type)
        }
        let context = NodeContext(node: node, opVersion: version, inputs: inputs)
        let isMicrosoft = node.domain == MicrosoftOperators.domain
        if !isMicrosoft, let rewrite = try PlanTimeOperators.rewrite(context) {  // sequences and optionals
            opCounts[node.opType, default: 0] += 1
            for (name, value) in rewrite.sequences { sequences[name] = value }
            for (name, value) in rewrite.optionals { optionals[name] = value }
            for (name, value) in rewrite.constants { constants[name] = value }
            for (name, value) in rewrite.strings { strings[name] = value }
            for (step, stepVersion) in rewrite.nodes { try plan(step, display: display, version: stepVersion) }
            return
        }
        if !isMicrosoft, let upgrade = try LegacyDefinitions.upgrade(context) {  // a definition older than opset 7's
            for (name, value) in upgrade.constants { constants[name] = value }
            for step in upgrade.nodes {
                let stepVersion = try OperatorRegistry.version(of: step.opType, opset: LegacyDefinitions.targetOpset, node: display)
                try plan(step, display: display, version: stepVersion)
            }
            return
        }
        if counted { opCounts[node.opType, default: 0] += 1 }
        if node.opType == "Constant" && !isMicrosoft {
            guard node.outputs.count == 1 else { throw context.error(.malformed, "expected 1 output, got \(node.outputs.count)") }
            constants[node.outputs[0]] = try Constant.value(context)
            return
        }
        let builder = (isMicrosoft ? MicrosoftOperators.builders : OperatorRegistry.builders)[node.opType]!
        let operation: any Operator
        do {
            operation = try builder(context)
            try check(operation, context)
        } catch {
            // float16 inputs of an operator that computes float32 (`FloatWidening`). A float16 input
            // the op's definition does not allow, or float16 and float32 within one type parameter,
            // gets `FloatWidening`'s own error. A node with no float16 input, or one that fails on
            // float32 copies too, gets the error of the node as written: the widening is not what
            // went wrong, and an error about the copies would name types the model does not have.
            let original = error
            guard !isMicrosoft, let widening = try FloatWidening(context, opset: opsetImports[""]) else { throw original }
            let widened: any Operator
            do {
                widened = try builder(widening.context)
                try check(widened, widening.context)
            } catch {
                throw original
            }
            try planWidened(node, widening, narrowing: widening.narrowing(outputTypes: widened.outputTypes),
                            display: display, version: version)
            return
        }
        if !isMicrosoft, node.opType == "Cast", node.outputs.count == 1, let twin = unroundedTwins[node.inputs[0]],
           case let .runtime(_, type) = inputs[0], operation.outputTypes == [type] {
            unroundedTwins[node.outputs[0]] = twin  // a Cast to the type it has is the identity
        }
        if !isMicrosoft, node.opType == "Cast", node.outputs.count == 1, case .runtime(_, .float32) = inputs[0],
           let type = operation.outputTypes.first, FloatWidening.widenedTypes.contains(type) {
            narrowingCasts[node.outputs[0]] = node.inputs[0]
        }
        if !isMicrosoft, node.opType == "Cast", node.outputs.count == 1, widenedOutputs.contains(node.inputs[0]),
           !widensRounded.contains(node.outputs[0]),
           let twin = unroundedTwins[node.inputs[0]], case let .runtime(_, type) = inputs[0], type != .float32,
           operation.outputTypes == [.float32],
           !graphOutputNames.contains(node.outputs[0]) || readByCastsOnly.contains(node.inputs[0]) {
            // A Cast back to float32 of a widened result reads the float32 value it was rounded from,
            // as onnxruntime's does: its RemoveDuplicateCastTransformer cancels this Cast against the
            // narrowing Cast it inserted after the node (not when this Cast writes a graph output and
            // the rounded value has other readers than Casts, or is a graph output itself).
            var inner = node
            inner.inputs[0] = twin
            try plan(inner, display: display, version: version, counted: false)
            return
        }
        if !isMicrosoft, FloatWidening.keepsFloat32.contains(node.opType), let twins = twinInputs(operation, context) {
            // A data-movement node inside a widened region moves the float32 values and rounds
            // its result: the same float16 values (moving commutes with rounding), and the
            // float32 ones stay available to the widened nodes after it.
            var inner = node
            for (index, twin) in twins { inner.inputs[index] = twin }
            let rounded = operation.outputTypes.enumerated().filter { index, type in
                FloatWidening.widenedTypes.contains(type) && !node.outputs[index].isEmpty
            }
            try planRounding(inner, of: node, outputs: rounded.map { ($0.offset, $0.element) }, display: display, version: version)
            return
        }
        macsByOp[node.opType, default: 0] += operation.multiplyAccumulates

        // Fold only outputs of bounded size: folding runs the node at load time, so an
        // all-constant node with a large output (a tiny constant resized, padded or broadcast
        // to 2^31 elements) would make loading allocate that much. Larger ones run per frame.
        let isConstant = operation.dataInputs.allSatisfy { constants[node.inputs[$0]] != nil }
            && operation.outputShapes.allSatisfy { $0.reduce(1, *) <= Self.maximumFoldedElementCount }
        if isConstant {
            let folded = Self.fold(operation, inputs: operation.dataInputs.map { constants[node.inputs[$0]]! })
            for (name, value) in zip(node.outputs, folded) { constants[name] = value }
            return
        }
        let inputIDs = operation.dataInputs.map { index in materialise(node.inputs[index]) }
        var outputIDs: [Int] = []
        for (index, name) in node.outputs.enumerated() {
            valueIDs[name] = values.count
            outputIDs.append(values.count)
            let shape = operation.outputShapes[index]
            values.append(PlannedValue(name: name, shape: shape, type: operation.outputTypes[index],
                                       elementCount: shape.reduce(1, *), constant: nil))
        }
        nodes.append(PlannedNode(name: display, opType: node.opType, operation: operation, inputs: inputIDs, outputs: outputIDs))
    }

    /// Plans `node` on float32 copies of its widened inputs (a `Cast` each for run-time values,
    /// shared by every node reading the value; a converted constant for constants), then a `Cast`
    /// from each float32 result to the output it narrows.
    private mutating func planWidened(_ node: NodeProto, _ widening: FloatWidening, narrowing: [Int: ElementType],
                                      display: String, version: Int) throws(ModelError) {
        var inner = node
        let rounds = FloatWidening.roundedLikeOnnxruntime.contains(node.opType)
        for index in widening.widened.keys.sorted() {
            let name = node.inputs[index]
            if !rounds, let source = narrowingCasts[name] {
                inner.inputs[index] = source
                continue
            }
            if !rounds, let twin = unroundedTwins[name] {
                inner.inputs[index] = twin
                continue
            }
            if rounds, unroundedTwins[name] != nil {
                // Not the shared copy, which other widened nodes may read as the twin.
                let copy = FloatWidening.roundedName(name)
                if valueIDs[copy] == nil {
                    widensRounded.insert(copy)
                    try plan(FloatWidening.cast(name, to: copy, .float32, for: node), display: display,
                             version: FloatWidening.castVersion, counted: false)
                }
                inner.inputs[index] = copy
                continue
            }
            if widenedCopies[name] == nil {
                let copy = FloatWidening.widenedName(name)
                try plan(FloatWidening.cast(name, to: copy, .float32, for: node), display: display,
                         version: FloatWidening.castVersion, counted: false)
                widenedCopies[name] = copy
            }
            inner.inputs[index] = widenedCopies[name]!
        }
        for (index, copy) in widening.widenedConstants {
            let name = FloatWidening.widenedName(node.inputs[index])
            constants[name] = copy
            inner.inputs[index] = name
        }
        try planRounding(inner, of: node, outputs: narrowing.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                         display: display, version: version)
        for index in narrowing.keys.sorted() {
            let name = node.outputs[index]
            guard rounds else {
                widenedOutputs.insert(name)
                continue
            }
            // Its readers read the rounded result: as the twin, widened once (exactly), so the
            // data-movement and widened nodes after it still move and read float32.
            let copy = FloatWidening.widenedName(name)
            try plan(FloatWidening.cast(name, to: copy, .float32, for: node), display: display,
                     version: FloatWidening.castVersion, counted: false)
            widenedCopies[name] = copy
            unroundedTwins[name] = copy
            narrowingCasts[name] = nil  // the rounding Cast, which would lead its readers to the unrounded result
        }
    }

    /// Plans `inner` (`node` computing in float32) with each of `outputs` written unrounded under
    /// its twin's name (`unroundedTwins`), then the Cast rounding it to its type under the node's
    /// own output name.
    private mutating func planRounding(_ inner: NodeProto, of node: NodeProto, outputs: [(index: Int, type: ElementType)],
                                       display: String, version: Int) throws(ModelError) {
        var inner = inner, narrowings: [NodeProto] = []
        for (index, type) in outputs {
            let unrounded = FloatWidening.unroundedName(node.outputs[index])
            narrowings.append(FloatWidening.cast(unrounded, to: node.outputs[index], type, for: node))
            narrowingOutputs.insert(node.outputs[index])
            inner.outputs[index] = unrounded
            unroundedTwins[node.outputs[index]] = unrounded
        }
        try plan(inner, display: display, version: version, counted: false)
        for cast in narrowings { try plan(cast, display: display, version: FloatWidening.castVersion, counted: false) }
    }

    /// Node input index → the float32 twin to read instead, when `operation` (a data-movement
    /// node built as written) reads float16 or bfloat16 only from values that have one
    /// (`unroundedTwins`); nil when it reads none, or one without a twin (a graph input, the
    /// output of a node that computes float16 itself).
    /// A float16 constant input is read as its float32 copy (exact), planned as a constant.
    private mutating func twinInputs(_ operation: any Operator, _ context: NodeContext) -> [Int: String]? {
        var twins: [Int: String] = [:]
        for (index, input) in context.inputs.enumerated() {
            switch input {
            case let .runtime(_, type) where FloatWidening.widenedTypes.contains(type):
                guard operation.dataInputs.contains(index), let twin = unroundedTwins[context.node.inputs[index]] else { return nil }
                twins[index] = twin
            case let .constant(value) where FloatWidening.widenedTypes.contains(value.type):
                let name = FloatWidening.widenedName(context.node.inputs[index])
                constants[name] = FloatWidening.widen(value)
                twins[index] = name
            default:
                continue
            }
        }
        let runtime = twins.keys.contains { index in
            if case .runtime = context.inputs[index] { return true } else { return false }
        }
        return runtime ? twins : nil
    }

    /// The checks every operator's result must pass: one shape and type per output, sizes in
    /// range, and float32 data inputs for operators that do not check types themselves.
    private func check(_ operation: any Operator, _ context: NodeContext) throws(ModelError) {
        let node = context.node
        guard operation.outputShapes.count == node.outputs.count, operation.outputTypes.count == node.outputs.count else {
            throw context.error(.unsupported, "the node has \(node.outputs.count) outputs, the engine computes \(operation.outputShapes.count)")
        }
        for (name, shape) in zip(node.outputs, operation.outputShapes) where Shapes.elementCount(shape) == nil {
            throw context.error(.invalidShape, "output '\(name)' would have shape \(shape): negative, or more than 2^31 elements")
        }
        guard !operation.checksInputTypes else { return }
        for input in operation.dataInputs {
            let type = try context.type(ofInput: input)
            guard type == .float32 else {
                throw context.error(.unsupported, "input '\(node.inputs[input])' has element type \(type); this operator computes float32 only")
            }
        }
    }

    /// The id of a value a planned node reads, adding a constant to the plan on first use.
    private mutating func materialise(_ name: String) -> Int {
        if let id = valueIDs[name] { return id }
        let constant = constants[name]!
        valueIDs[name] = values.count
        values.append(PlannedValue(name: name, shape: constant.shape, type: constant.type,
                                   elementCount: constant.elementCount, constant: constant))
        return values.count - 1
    }

    private mutating func bindOutputs(_ graph: GraphProto, after position: Int) throws(ModelError) {
        guard !graph.outputs.isEmpty else { throw ModelError(.malformed, "the graph has no outputs") }
        for output in graph.outputs where !unknownValues.contains(output.name) {
            if let value = strings[output.name] {
                stringOutputs[output.name] = value
                continue
            }
            if sequences[output.name] != nil || optionals[output.name] != nil {
                let kind = sequences[output.name] != nil ? "a sequence" : "an optional"
                problems.append((position, ModelError(.unsupported, "graph output '\(output.name)' is \(kind); this engine's graph outputs are tensors")))
                continue
            }
            guard valueIDs[output.name] != nil || constants[output.name] != nil else {
                problems.append((position, ModelError(.invalidGraph, "graph output '\(output.name)' is not computed by any node")))
                continue
            }
            let id = materialise(output.name)
            if let declared = output.type?.tensorType?.shape?.dims {
                let inferred = values[id].shape
                let matches = declared.count == inferred.count && zip(declared, inferred).allSatisfy { dimension, size in
                    if case let .value(value) = dimension { return value == Int64(size) }
                    return true
                }
                guard matches else {
                    problems.append((position, ModelError(.invalidShape, "graph output '\(output.name)' is declared \(Self.describe(declared)) but computes \(inferred)")))
                    continue
                }
            }
            outputIDs.append(id)
        }
    }

    // MARK: - Pieces

    /// Drops the constants' contents (every constant keeps its shape and type): for a model whose
    /// constants moved to a `ConstantStore`, once loading, the last reader of the bytes, is done.
    mutating func droppingConstantContents() {
        constants = [:]
        for id in values.indices where values[id].constant != nil { values[id].constant!.bytes = [] }
    }

    private static func defaultOpset(_ model: ModelProto) throws(ModelError) -> Int {
        guard let opset = model.opsetImports.last(where: { $0.domain.isEmpty || $0.domain == "ai.onnx" }) else {
            throw ModelError(.malformed, "the model imports no default-domain opset")
        }
        let supported = OperatorRegistry.supportedOpsets
        guard opset.version >= Int64(supported.lowerBound), opset.version <= Int64(supported.upperBound) else {
            throw ModelError(.unsupported, "opset \(opset.version) is not supported (supported: \(supported.lowerBound)–\(supported.upperBound))")
        }
        return Int(opset.version)
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
    private static func fold(_ operation: any Operator, inputs: [ConstantTensor]) -> [ConstantTensor] {
        func buffer(floats count: Int) -> UnsafeMutablePointer<Float> {
            let pointer = UnsafeMutablePointer<Float>.allocate(capacity: max(count, 1))
            pointer.initialize(repeating: 0, count: max(count, 1))
            return pointer
        }
        let inputPointers = inputs.map { tensor -> UnsafeMutablePointer<Float> in
            let pointer = buffer(floats: (tensor.bytes.count + 3) / 4)
            tensor.bytes.withUnsafeBytes { UnsafeMutableRawPointer(pointer).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            return pointer
        }
        let byteCounts = zip(operation.outputShapes, operation.outputTypes).map { $0.reduce(1, *) * $1.byteSize }
        let outputPointers = byteCounts.map { buffer(floats: ($0 + 3) / 4) }
        operation.run(inputs: inputPointers.map { UnsafePointer($0) }, outputs: outputPointers)
        defer { (inputPointers + outputPointers).forEach { $0.deallocate() } }
        return outputPointers.indices.map { index in
            let bytes = Array(UnsafeRawBufferPointer(start: outputPointers[index], count: byteCounts[index]))
            return ConstantTensor(shape: operation.outputShapes[index], type: operation.outputTypes[index], bytes: bytes)
        }
    }

    static func describe(_ dims: [TensorShapeProto.Dimension]) -> String {
        "[" + dims.map { dimension in
            switch dimension {
            case let .value(value): String(value)
            case let .parameter(name): name
            case .unknown: "?"
            }
        }.joined(separator: ", ") + "]"
    }
}
