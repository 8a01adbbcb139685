import ONNXFormat

/// A parsed, validated ONNX model with every shape inferred: what `InferenceSession` runs.
///
/// Loading never executes the graph; it checks everything a run relies on (see `ModelError`)
/// and folds constant-only nodes. The model is immutable and `Sendable`: one model can back many
/// sessions on different threads.
///
/// ```swift
/// let model = try InferenceModel(contentsOfFile: "Weights/selfie_segmentation.onnx")
/// let session = try InferenceSession(model: model)
/// try session.run(input: frameTensor, output: maskTensor)
/// ```
package final class InferenceModel: Sendable {
    /// The graph inputs the caller provides (initializers and inputs fixed at plan time
    /// excluded), with every dim bound, C order.
    package let inputs: [TensorDescription]
    /// The graph outputs, C order.
    package let outputs: [TensorDescription]
    /// The graph inputs whose values were fixed at plan time (from `planTimeInputs`, and the
    /// string inputs from `planTimeStrings`).
    package let fixedInputs: Set<String>
    /// The graph outputs that hold strings, by name: computed when the model is loaded (strings
    /// exist only at plan time, `StringTensor`), so they are not among `outputs`.
    package let stringOutputs: [String: StringTensor]
    /// What loading accepted but a user may want to know: graph inputs given different sizes
    /// for one `dim_param` (each keeps its own, as in onnxruntime).
    package let warnings: [String]
    /// Nodes per op type as written in the model.
    package let opCounts: [String: Int]
    /// Elements of the float initializers (weights and biases).
    package let parameterCount: Int
    /// Multiply-accumulates per run, by op type (convolutions; other ops count 0).
    package let macsByOp: [String: Int]
    /// Bytes of the activation arena with buffer reuse (inputs and outputs included,
    /// weights excluded).
    package let peakActivationBytes: Int
    /// The default-domain opset the model was written against.
    package let opsetVersion: Int
    /// The model's `metadata_props` (a later entry with the same key wins).
    package let metadata: [String: String]
    /// For each node output as written in the model: the node's op type and its first input.
    private let producers: [String: (op: String, input: String?)]

    let graph: LoadedGraph
    /// Where every value lives in a running reference session's arena, with buffers reused:
    /// planned once here, for every such session of the model.
    let bufferPlan: BufferPlan
    /// The fast path's lowered graph with every fusion its rules find, and where its values live:
    /// planned once here, for every fast session of the model that plans them all.
    let fastPath: FastPathPlan
    /// The constants, which every session of the model reads in place.
    let constants: ConstantStore

    #if !hasFeature(Embedded)
    /// Bytes the model holds: its constants (in the `ConstantStore` its sessions read), the
    /// weights its fast sessions packed (`PackedWeights`) and its operators' tables (every session
    /// of the model shares them; a session's own bytes are `InferenceSession.heldBytes`). Walks
    /// the graph (allocates): for diagnostics.
    package var heldBytes: Int {
        var held = HeldMemory()
        held.add(graph)
        held.add(fastPath)
        held.add(bufferPlan)
        if let fastGraph {
            held.add(fastGraph.graph)
            held.add(fastGraph.fastPath)
        }
        return held.bytes + constants.byteCount + (fastGraph?.constants.byteCount ?? 0)
    }
    #endif
    /// The graph fast sessions that plan every fusion run when it differs from `graph`, with its
    /// fast-path plan and constants: the QDQ groups rewritten into QLinearConv and QLinearMatMul
    /// (`QuantizedGroupRewrite`), which the fast path runs on its integer kernel, then the
    /// Transposes pushed down until they cancel (`TransposeSinking`), then the groups that takes
    /// to channels-first shapes rewritten as well. Nil when no rewrite
    /// changed the graph.
    let fastGraph: (graph: LoadedGraph, fastPath: FastPathPlan, constants: ConstantStore)?

    /// Total multiply-accumulates per run.
    package var multiplyAccumulates: Int { macsByOp.values.reduce(0, +) }

    /// Parses and validates a serialized ONNX model.
    ///
    /// - Parameters:
    ///   - inputShapes: shapes for graph inputs whose declared dims are symbolic or unknown (a
    ///     leading dim nobody binds is 1). A graph input that is also an initializer is fed by the
    ///     caller when its shape is given here, and is a constant otherwise.
    ///   - planTimeInputs: values offered for graph inputs. Only those that a node needs as a
    ///     constant (a Reshape's shape, a Resize's scales or a Clip's bounds fed as inputs) are
    ///     used: they are fixed into the plan, listed in `fixedInputs`, and are no longer inputs.
    ///   - planTimeStrings: the values of the graph inputs that hold strings (each is required,
    ///     and is fixed as `planTimeInputs` are).
    /// - Throws: `ModelError`: `.malformed` for protobuf errors (with the byte offset and field),
    ///   `.unsupported` for ops, attributes, types or opsets this engine lacks (naming the node,
    ///   op and attribute), `.invalidShape`, `.invalidValue` (NaN/∞ in an initializer),
    ///   `.invalidGraph` (dangling inputs, cycles).
    package convenience init(bytes: [UInt8], inputShapes: [String: [Int]] = [:], planTimeInputs: [String: Tensor] = [:],
                             planTimeStrings: [String: StringTensor] = [:]) throws(ModelError) {
        guard !bytes.isEmpty else { throw ModelError(.malformed, "the model is empty (0 bytes): not an ONNX model") }
        let proto: ModelProto
        do {
            proto = try ModelProto(serializedBytes: bytes)
        } catch {
            throw ModelError(.malformed, "not a valid ONNX model: \(error.description)")
        }
        try self.init(proto: proto, inputShapes: inputShapes, planTimeInputs: planTimeInputs, planTimeStrings: planTimeStrings)
    }

    /// Validates a decoded ONNX model, as `init(bytes:inputShapes:planTimeInputs:)` does after
    /// decoding.
    package init(proto: ModelProto, inputShapes: [String: [Int]] = [:], planTimeInputs: [String: Tensor] = [:],
                 planTimeStrings: [String: StringTensor] = [:]) throws(ModelError) {
        var graph = try LoadedGraph(proto, inputShapes: inputShapes, planTimeInputs: planTimeInputs.mapValues { $0.constant },
                                    planTimeStrings: planTimeStrings)
        // The constants' bytes move to the store every session reads; the graph keeps their
        // shapes and types (loading was the last reader of the bytes).
        let constants = ConstantStore(graph)
        graph.droppingConstantContents()
        self.constants = constants
        self.graph = graph
        let describe = { (id: Int) in TensorDescription(name: graph.values[id].name, shape: graph.values[id].shape, type: graph.values[id].type) }
        inputs = graph.inputIDs.map(describe)
        outputs = graph.outputIDs.map(describe)
        fixedInputs = graph.fixedInputs
        stringOutputs = graph.stringOutputs
        warnings = graph.warnings
        opCounts = graph.opCounts
        parameterCount = graph.parameterCount
        macsByOp = graph.macsByOp
        let plan = BufferPlan(graph, reusesBuffers: true)
        guard plan.totalCount <= Shapes.maximumElementCount else {
            throw ModelError(.invalidShape, "running the model needs \(plan.totalCount / (1 << 28)) GiB of buffers; the limit is 8 GiB")
        }
        bufferPlan = plan
        fastPath = FastPathPlan(graph, constants: constants)
        guard fastPath.buffers.totalCount <= Shapes.maximumElementCount else {
            throw ModelError(.invalidShape, "running the model needs \(fastPath.buffers.totalCount / (1 << 28)) GiB of buffers; the limit is 8 GiB")
        }
        // The rewrite keeps every graph input and output; a rewritten graph that does not load
        // (it would be a bug of the rewrite) or plans more than the limit is not used.
        var shapes: [String: [Int]] = [:]
        for value in graph.values { shapes[value.name] = value.shape }
        let quantized = QuantizedGroupRewrite.rewrite(proto, shapes: shapes)
        let sunk = TransposeSinking.rewrite(quantized ?? proto, shapes: &shapes)
        // The Add and Mul groups the Transposes kept from the step's shapes (channels-last QDQ).
        let requantized = sunk.flatMap { QuantizedGroupRewrite.rewrite($0, shapes: shapes) }
        if let rewritten = requantized ?? sunk ?? quantized,
           var fast = try? LoadedGraph(rewritten, inputShapes: inputShapes, planTimeInputs: planTimeInputs.mapValues { $0.constant },
                                       planTimeStrings: planTimeStrings),
           fast.inputIDs.map({ TensorDescription(name: fast.values[$0].name, shape: fast.values[$0].shape, type: fast.values[$0].type) }) == inputs,
           fast.outputIDs.map({ TensorDescription(name: fast.values[$0].name, shape: fast.values[$0].shape, type: fast.values[$0].type) }) == outputs {
            let fastConstants = ConstantStore(fast)
            fast.droppingConstantContents()
            let fastPlan = FastPathPlan(fast, constants: fastConstants)
            fastGraph = fastPlan.buffers.totalCount <= Shapes.maximumElementCount ? (fast, fastPlan, fastConstants) : nil
        } else {
            fastGraph = nil
        }
        peakActivationBytes = plan.activationCount * MemoryLayout<Float>.size
        opsetVersion = graph.opsetVersion
        var metadata: [String: String] = [:]
        for entry in proto.metadata { metadata[entry.key] = entry.value }  // a key given twice: the last value
        self.metadata = metadata
        var producers: [String: (op: String, input: String?)] = [:]
        for node in proto.graph?.nodes ?? [] { for output in node.outputs { producers[output] = (node.opType, node.inputs.first) } }
        self.producers = producers
    }

    /// The op type of the node that computes `value`'s elements, looking back through the ops
    /// that only move elements (Reshape, Transpose, Identity, Squeeze, Unsqueeze, Flatten); nil for
    /// graph inputs and initializers. Whether an output already went through a Sigmoid or a
    /// Softmax, say.
    package func computingOp(of value: String) -> String? {
        var name = value
        for _ in 0..<producers.count {
            guard let producer = producers[name] else { return nil }
            guard ["Reshape", "Transpose", "Identity", "Squeeze", "Unsqueeze", "Flatten"].contains(producer.op),
                  let input = producer.input else { return producer.op }
            name = input
        }
        return nil
    }

    /// The nodes that run (folded ones excluded) in execution order, with their output names:
    /// what `vbg infer --dump` writes.
    package var runningNodes: [(name: String, op: String, outputs: [String])] {
        graph.nodes.map { node in (node.name, node.opType, node.outputs.map { graph.values[$0].name }) }
    }

    /// The names of the graph inputs that are not initializers (with `includingInitializers`, of
    /// every graph input: one with an initializer may be fed too), in graph order, without
    /// validating anything else.
    ///
    /// - Throws: `ModelError` when the bytes are not a decodable ONNX model.
    package static func inputNames(in bytes: [UInt8], includingInitializers: Bool = false) throws(ModelError) -> [String] {
        let proto: ModelProto
        do {
            proto = try ModelProto(serializedBytes: bytes)
        } catch {
            throw ModelError(.malformed, "not a valid ONNX model: \(error.description)")
        }
        let initializers = includingInitializers ? [] : Set(proto.graph?.initializers.map { $0.name } ?? [])
        return (proto.graph?.inputs ?? []).map { $0.name }.filter { !initializers.contains($0) }
    }

    /// The op types this engine implements (default domain).
    package static var supportedOpTypes: [String] { OperatorRegistry.supportedOpTypes.sorted() }

    /// The op types this engine implements in onnxruntime's `com.microsoft` domain.
    package static var supportedMicrosoftOpTypes: [String] { MicrosoftOperators.builders.keys.sorted() }
}

/// A graph input or output as the model declares it, before any dim is bound.
package struct DeclaredTensor: Sendable, Equatable, CustomStringConvertible {
    package var name: String
    /// nil when the element type is not one the engine stores.
    package var type: ElementType?
    /// Each dim's declared size, nil where it is symbolic or unknown; nil when no shape is declared.
    package var dims: [Int?]?
    /// Each dim's `dim_param`, nil where there is none (same count as `dims`).
    package var dimNames: [String?]

    /// Whether every dim has a declared size.
    package var isSized: Bool { dims.map { $0.allSatisfy { $0 != nil } } ?? false }

    /// `name [1, 3, height, width]`: each dim's size, its name, or `?`.
    package var description: String {
        guard let dims else { return "\(name) (no shape)" }
        let text = dims.indices.map { axis in dims[axis].map(String.init) ?? dimNames[axis] ?? "?" }
        return "\(name) \(type.map { $0 == .float32 ? "" : "\($0) " } ?? "")[\(text.joined(separator: ", "))]"
    }

    init(_ value: ValueInfoProto) {
        name = value.name
        let tensor = value.type?.tensorType
        type = tensor.flatMap { ElementType($0.elementType) }
        let declared = tensor?.shape?.dims
        dims = declared?.map { if case let .value(size) = $0, size >= 0, size <= Int64(Int32.max) { Int(size) } else { nil } }
        dimNames = declared?.map { if case let .parameter(name) = $0 { name } else { nil } } ?? []
    }
}

/// A decoded ONNX model before validation: what it declares (inputs, outputs, metadata), from
/// which `InferenceModel`s are planned for chosen input shapes and plan-time values without
/// decoding the bytes again.
package struct ParsedModel: Sendable {
    package let proto: ModelProto
    /// The graph inputs the caller feeds (initializers excluded), in graph order.
    package let inputs: [DeclaredTensor]
    /// The graph outputs, in graph order.
    package let outputs: [DeclaredTensor]
    /// The model's `metadata_props` (a later entry with the same key wins).
    package let metadata: [String: String]

    /// - Throws: `ModelError(.malformed)` when the bytes are not a decodable ONNX model.
    package init(bytes: [UInt8]) throws(ModelError) {
        guard !bytes.isEmpty else { throw ModelError(.malformed, "the model is empty (0 bytes): not an ONNX model") }
        do {
            self.init(proto: try ModelProto(serializedBytes: bytes))
        } catch {
            throw ModelError(.malformed, "not a valid ONNX model: \(error.description)")
        }
    }

    /// The declarations of a decoded model.
    package init(proto: ModelProto) {
        self.proto = proto
        let initializers = Set(proto.graph?.initializers.map { $0.name } ?? [])
        inputs = (proto.graph?.inputs ?? []).filter { !initializers.contains($0.name) }.map(DeclaredTensor.init)
        outputs = (proto.graph?.outputs ?? []).map(DeclaredTensor.init)
        var metadata: [String: String] = [:]
        for entry in proto.metadata { metadata[entry.key] = entry.value }  // a key given twice: the last value
        self.metadata = metadata
    }

    /// The model validated and planned, as `InferenceModel(bytes:inputShapes:planTimeInputs:planTimeStrings:)`.
    package func planned(inputShapes: [String: [Int]] = [:], planTimeInputs: [String: Tensor] = [:],
                         planTimeStrings: [String: StringTensor] = [:]) throws(ModelError) -> InferenceModel {
        try InferenceModel(proto: proto, inputShapes: inputShapes, planTimeInputs: planTimeInputs, planTimeStrings: planTimeStrings)
    }
}

/// The fast path's plan for a graph: its rules, the lowered graph they make, and the buffers of
/// the lowered graph's values.
struct FastPathPlan: Sendable {
    let rules: FusionRules
    let fusions: FusionPlan
    let buffers: BufferPlan
    /// The weights the steps of `fusions` pack, shared by every session of the plan; nil for a
    /// plan made for one session.
    let packedWeights: PackedWeights?

    /// - Parameter leaders: when given, only fusions led by these nodes (indices into
    ///   `graph.nodes`) are planned, the other nodes run their single-node steps, and the plan
    ///   is one session's (its weights are packed for it alone).
    init(_ graph: LoadedGraph, constants: ConstantStore, leaders: Set<Int>? = nil) {
        rules = FusionRules(graph, constants: constants)
        fusions = rules.plan(leaders: leaders)
        buffers = BufferPlan(graph, lowered: fusions)
        packedWeights = leaders == nil ? PackedWeights() : nil
    }

    /// No fusion, every value in a slot of its own (a session that keeps its intermediates).
    init(keepingIntermediatesOf graph: LoadedGraph, constants: ConstantStore) {
        rules = FusionRules(graph, constants: constants)
        fusions = FusionPlan()
        buffers = BufferPlan(graph, reusesBuffers: false)
        packedWeights = nil
    }
}
