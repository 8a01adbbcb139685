import Foundation
import Inference
import ONNXFormat

/// An ONNX model ready to run: on the fast SIMD kernels, or on the reference kernels written
/// from the ONNX operator pages (an oracle for other implementations).
///
/// ```swift
/// let session = try InferenceSession(modelPath: "model.onnx")
/// let out = try session.run(inputs: ["x": Tensor(shape: [1, 3, 224, 224], scalars: pixels)])
/// let y: [Float] = try out["y"]!.scalars(as: Float.self)
/// ```
///
/// ## Shapes
/// A symbolic or unknown input dim takes its size from the tensor passed to `run`. The session
/// plans the graph once per distinct set of input shapes (and per distinct value of an input a
/// node needs when it plans, such as a `Reshape`'s shape or a `Resize`'s scales fed as a graph
/// input) and keeps the last few plans, so a steady stream of same-shaped inputs plans once.
///
/// ## Threads
/// A session is `Sendable`: it may be made on one thread and used from others. Runs on one
/// session are serialised by a lock; use one session per thread to run in parallel. The fast
/// kernels use `Options.threads` worker threads inside each run.
///
/// ## Allocation
/// `run(inputs:into:)` writes into the caller's tensors: once they exist with the outputs' shapes
/// (after the first call) and the inputs keep their shapes, a run allocates nothing.
public final class InferenceSession: @unchecked Sendable {
    // @unchecked Sendable: `plans` and `inspection` are read and written only with `lock` held;
    // everything else is immutable after init.

    /// Which kernels run the nodes.
    public enum ExecutionPath: String, Sendable, Hashable, CaseIterable {
        /// SIMD kernels and fused layers wherever the engine has them, the reference kernels
        /// elsewhere.
        case fast
        /// Scalar kernels written from the ONNX operator pages, one node at a time: the oracle.
        case reference
    }

    /// How a session runs its model.
    public struct Options: Sendable, Hashable {
        /// The kernels; `.fast` by default.
        public var path: ExecutionPath
        /// Worker threads the fast kernels may use in a run (1 or 2; the reference path uses one).
        public var threads: Int
        /// Shapes for inputs with symbolic or unknown dims, to plan (and check) the model when the
        /// session is made rather than at the first run; a run with other shapes plans again.
        public var inputShapes: [String: [Int]]
        /// The values to compute, by name: a subset of the graph outputs, or any value a node
        /// computes; nil for the graph outputs. Only the nodes they need run.
        public var outputs: [String]?

        public init(path: ExecutionPath = .fast, threads: Int = 1, inputShapes: [String: [Int]] = [:],
                    outputs: [String]? = nil) {
            self.path = path
            self.threads = threads
            self.inputShapes = inputShapes
            self.outputs = outputs
        }
    }

    /// A value a node computed, observed by `run(inputs:observing:)`.
    public struct IntermediateValue: Sendable {
        /// The node's position among the nodes that run, in execution order.
        package let nodeIndex: Int
        /// The node's name (its first output's name when it has none).
        public let node: String
        /// The node's operator type.
        public let op: String
        /// The value's name.
        public let name: String
        public let tensor: Tensor
    }

    /// The inputs `run` takes, in graph order (initializers with defaults excluded).
    public let inputs: [TensorInfo]
    /// The values `run` returns, in the order of `Options.outputs` or of the graph outputs, as
    /// declared, or as inferred when the model is planned at init and declares no shape. (A
    /// value the model declares nothing about, in a model with symbolic input dims, shows as
    /// `FLOAT []` until a run computes it.)
    public let outputs: [TensorInfo]
    public let options: Options

    /// The model with its outputs and the nodes they need, what every plan loads; nil for a
    /// planned model's only session (`init(planned:options:keepsIntermediates:fusions:isOnlySession:)`),
    /// which plans nothing else.
    let proto: ModelProto?
    private let inputIndex: [String: Int]
    private let lock = NSLock()
    private var plans: [Plan] = []
    private var inspection: Plan?
    /// The engine of the plan made by `init(planned:options:)`, which the package's buffer runs
    /// use (InferenceSession+Package.swift); nil for sessions made from a model's bytes.
    let pinned: Inference.InferenceSession?
    /// Inputs fixed into every plan (a planned model's plan-time values); they are not inputs.
    private let planTimeInputs: [String: Tensor]
    /// Plans kept for distinct input shapes, most recently used first.
    private static let planLimit = 8

    /// Loads the ONNX file at `modelPath`.
    ///
    /// - Throws: `InferenceError`: `.fileNotFound` / `.unreadable` for the file, otherwise as
    ///   `init(modelData:options:)`.
    public convenience init(modelPath: String, options: Options = Options()) throws(InferenceError) {
        let bytes: [UInt8]
        do { bytes = try InferenceModel.readFile(modelPath) } catch { throw InferenceError(error) }
        try self.init(modelData: bytes, options: options)
    }

    /// Loads a serialized ONNX model.
    ///
    /// A model whose inputs are all sized (or sized by `options.inputShapes`; a leading batch dim
    /// counts as 1) is planned now, so every problem a run would meet is thrown here; one with
    /// other symbolic dims, or a node that needs an input's value to plan, at its first run.
    ///
    /// - Throws: `InferenceError`: `.malformed` for bytes that are not ONNX, `.unsupported`
    ///   listing every node that cannot run (op, domain, reason), `.invalidShape`,
    ///   `.invalidValue`, `.invalidGraph`, or `.invalidInput` for options that do not match.
    public init(modelData: some Collection<UInt8>, options: Options = Options()) throws(InferenceError) {
        guard (1...2).contains(options.threads) else {
            throw InferenceError(.invalidInput, "threads must be 1 or 2 (got \(options.threads))")
        }
        let bytes = Array(modelData)
        guard !bytes.isEmpty else { throw InferenceError(.malformed, "the model is empty (0 bytes), not an ONNX model") }
        var proto: ModelProto
        do {
            proto = try ModelProto(serializedBytes: bytes)
        } catch {
            throw InferenceError(.malformed, "not a valid ONNX model: \(error.description)")
        }
        guard var graph = proto.graph else { throw InferenceError(.malformed, "the model has no graph") }
        if let names = options.outputs { try Self.restrict(&graph, to: names) }
        proto.graph = graph
        self.proto = proto
        self.options = options
        planTimeInputs = [:]
        pinned = nil

        let initializers = Set(graph.initializers.map(\.name))
        var inputs: [TensorInfo] = []
        for input in graph.inputs where !initializers.contains(input.name) || options.inputShapes[input.name] != nil {
            inputs.append(try Self.info(input, role: "graph input"))
        }
        for name in options.inputShapes.keys where !inputs.contains(where: { $0.name == name }) {
            throw InferenceError(.invalidInput, "the model has no input '\(name)'", input: name)
        }
        self.inputs = inputs
        inputIndex = Dictionary(uniqueKeysWithValues: inputs.enumerated().map { ($1.name, $0) })

        // An output chosen among the intermediate values may have no declared type: nil here.
        let declaredOutputs = try graph.outputs.map { output throws(InferenceError) in
            output.type == nil ? nil : try Self.info(output, role: "graph output")
        }
        // Plan now when every input has a size (a leading batch dim defaults to 1), unless a node
        // needs an input's value to plan: then at the first run, which brings it.
        var planned: Plan? = nil
        let canPlanNow = inputs.allSatisfy { info in
            info.elementType != .string
                && (options.inputShapes[info.name] != nil || info.shape.dropFirst().allSatisfy { $0 != nil })
        }
        if canPlanNow {
            let shapes = inputs.map { info in options.inputShapes[info.name] ?? info.shape.map { $0 ?? 1 } }
            do {
                planned = try Self.makePlan(proto, inputs: inputs, shapes: shapes, offered: [:], fixing: [:], options: options,
                                            keepsIntermediates: false)
            } catch let error where error.needsInputValue {
                planned = nil
            } catch {
                throw error.withoutCause
            }
        }
        plans = planned.map { [$0] } ?? []
        // Each output as declared; the plan's inferred shape and type where the model declares none.
        outputs = declaredOutputs.enumerated().map { index, declared in
            let name = graph.outputs[index].name
            if let declared, !declared.shape.isEmpty || planned == nil { return declared }
            if let strings = planned?.model.stringOutputs[name] { return TensorInfo(name: name, elementType: .string, shape: strings.shape) }
            guard let inferred = planned?.model.outputs.first(where: { $0.name == name }) else {
                return TensorInfo(name: name, elementType: .float32, shape: [])
            }
            return TensorInfo(name: name, elementType: ElementType(inferred.type), shape: inferred.shape)
        }
    }

    /// A fast or reference session of a model the package planned (the SDK's segmenter, `vbg`),
    /// with its plan made now: ``inputs`` and ``outputs`` are the planned model's, every dim
    /// sized, and the package's buffer runs (InferenceSession+Package.swift) use this plan.
    /// `options.inputShapes` and `options.outputs` are not read; `options.threads` may be 1 to 64.
    /// With `keepsIntermediates` every value stays readable after a run (`value(named:)`) and the
    /// fast path plans no fusion; otherwise `fusions` chooses the fusions it plans.
    ///
    /// With `isOnlySession`, the session is the planned model's only one, now and later (the SDK's
    /// segmenter): it keeps no decoded ONNX model, so it runs only the planned shapes and
    /// `run(inputs:observing:)` throws, and it frees the model's copy of the weights its steps
    /// packed (`Inference.InferenceSession.releasePackingSources`), so the weights are held once.
    ///
    /// - Throws: `InferenceError(.invalidInput)` for a thread count out of range,
    ///   `.invalidShape` when the arena would be too large.
    package init(planned: PlannedModel, options: Options = Options(), keepsIntermediates: Bool = false,
                 fusions: Fusions = .all, isOnlySession: Bool = false) throws(InferenceError) {
        proto = isOnlySession ? nil : planned.proto
        self.options = options
        planTimeInputs = planned.planTimeInputs
        inputs = planned.inputs.map { TensorInfo(name: $0.name, elementType: $0.elementType, shape: $0.shape) }
        outputs = planned.outputs.map { TensorInfo(name: $0.name, elementType: $0.elementType, shape: $0.shape) }
        inputIndex = Dictionary(uniqueKeysWithValues: inputs.enumerated().map { ($1.name, $0) })
        let engine: Inference.InferenceSession
        do {
            engine = try Inference.InferenceSession(model: planned.model, path: options.path == .fast ? .fast : .reference,
                                                    threads: options.threads, keepsIntermediates: keepsIntermediates,
                                                    fusions: fusions.engine)
        } catch {
            throw InferenceError(error)
        }
        let plan = Plan(model: planned.model, engine: engine, inputNames: planned.model.inputs.map(\.name),
                        shapes: Dictionary(uniqueKeysWithValues: planned.inputs.map { ($0.name, $0.shape) }), fixed: [:])
        pinned = engine
        plans = [plan]
        if isOnlySession { engine.releasePackingSources() }
    }

    // MARK: - Running

    /// Runs the model on `inputs`, one tensor per name in ``inputs``, and returns ``outputs`` by name.
    ///
    /// - Throws: `InferenceError(.invalidInput)` for a missing or unknown input, or one whose
    ///   element type or shape the model does not take (naming the input and the axis); any
    ///   error of planning the graph for new input shapes.
    public func run(inputs feeds: [String: Tensor]) throws(InferenceError) -> [String: Tensor] {
        var results: [String: Tensor] = [:]
        try run(inputs: feeds, into: &results)
        return results
    }

    /// Runs the model on `inputs` and writes every output into `results` by name, reusing the
    /// bytes of a tensor already there when its element type and shape are the output's and no
    /// other tensor shares them: with the same input shapes and the tensors of a previous call,
    /// a run allocates nothing.
    ///
    /// - Throws: as `run(inputs:)`.
    public func run(inputs feeds: [String: Tensor], into results: inout [String: Tensor]) throws(InferenceError) {
        try check(feeds)
        lock.lock()
        defer { lock.unlock() }
        let plan = try cachedPlan(for: feeds)
        plan.engine.run(
            copyingInputs: { index in feeds[plan.inputNames[index]]!.storageBytes },
            readingOutputs: { index, bytes in
                let description = plan.model.outputs[index]
                let type = ElementType(description.type)
                if results[description.name]?.overwrite(type: type, shape: description.shape, bytes: bytes) != true {
                    results[description.name] = Tensor(shape: description.shape, elementType: type, bytes: bytes)
                }
            })
        for (name, strings) in plan.model.stringOutputs { results[name] = Tensor(strings) }
    }

    /// Runs the model on `inputs`, calls `observe` with every value a node computes, in execution
    /// order, and returns the outputs.
    ///
    /// For node-by-node comparisons with another implementation. The run keeps every value
    /// (no buffer reuse) and runs each node on its own kernel: on the fast path no fused layer
    /// runs, so a fault in a fusion shows in the outputs of `run(inputs:)` only. Nodes folded
    /// when the model is planned (their inputs are all constants) are not observed, nor are
    /// strings (computed when the model is planned).
    ///
    /// - Throws: as `run(inputs:)`.
    public func run(inputs feeds: [String: Tensor],
                    observing observe: (IntermediateValue) -> Void) throws(InferenceError) -> [String: Tensor] {
        try check(feeds)
        lock.lock()
        defer { lock.unlock() }
        let plan: Plan
        if let inspection, inspection.matches(feeds) {
            plan = inspection
        } else {
            plan = try Self.makePlan(try plannable(), inputs: inputs, shapes: inputs.map { feeds[$0.name]!.shape },
                                     offered: feeds, fixing: planTimeInputs, options: options, keepsIntermediates: true)
            inspection = plan
        }
        var engineFeeds: [String: Inference.Tensor] = [:]
        for name in plan.inputNames { engineFeeds[name] = feeds[name]!.engineTensor }
        let results: [String: Inference.Tensor]
        do { results = try plan.engine.run(engineFeeds) } catch { throw InferenceError(error) }
        for (index, node) in plan.model.runningNodes.enumerated() {
            for name in node.outputs {
                guard let value = plan.engine.tensor(named: name) else { continue }
                observe(IntermediateValue(nodeIndex: index, node: node.name, op: node.op, name: name, tensor: Tensor(value)))
            }
        }
        var outputs = results.mapValues(Tensor.init)
        for (name, strings) in plan.model.stringOutputs { outputs[name] = Tensor(strings) }
        return outputs
    }

    // MARK: - Plans

    /// One planned model and its session, for one set of input shapes (and fixed values).
    private struct Plan {
        let model: InferenceModel
        let engine: Inference.InferenceSession
        /// The model's inputs (fixed ones excluded), in the order the engine takes them.
        let inputNames: [String]
        /// Every caller input's shape when planned, by name.
        let shapes: [String: [Int]]
        /// Inputs fixed into the plan, with the values they were fixed to.
        let fixed: [String: Tensor]

        func matches(_ feeds: [String: Tensor]) -> Bool {
            for (name, shape) in shapes where feeds[name]?.shape != shape { return false }
            for (name, value) in fixed where feeds[name] != value { return false }
            return true
        }
    }

    private func cachedPlan(for feeds: [String: Tensor]) throws(InferenceError) -> Plan {
        if let index = plans.firstIndex(where: { $0.matches(feeds) }) {
            if index != 0 { plans.insert(plans.remove(at: index), at: 0) }
            return plans[0]
        }
        let plan = try Self.makePlan(try plannable(), inputs: inputs, shapes: inputs.map { feeds[$0.name]!.shape },
                                     offered: feeds, fixing: planTimeInputs, options: options, keepsIntermediates: false)
        plans.insert(plan, at: 0)
        if plans.count > Self.planLimit { plans.removeLast() }
        return plan
    }

    /// The model to plan other input shapes or an inspection from.
    /// - Throws: `InferenceError(.invalidInput)` for a planned model's only session, which keeps none.
    private func plannable() throws(InferenceError) -> ModelProto {
        guard let proto else {
            throw InferenceError(.invalidInput, "this session runs only the shapes its model was planned for, and keeps no model to plan others or to inspect")
        }
        return proto
    }

    /// Inputs a node may need as plan-time constants (shapes, scales, bounds) are offered when
    /// they are this small.
    private static let offeredElementLimit = 64

    /// A plan for `shapes` (one per input), offering the small `feeds` and every `fixing` value
    /// as plan-time inputs.
    private static func makePlan(_ proto: ModelProto, inputs: [TensorInfo], shapes: [[Int]], offered feeds: [String: Tensor],
                                 fixing: [String: Tensor], options: Options, keepsIntermediates: Bool) throws(InferenceError) -> Plan {
        var inputShapes: [String: [Int]] = [:]
        for (info, shape) in zip(inputs, shapes) { inputShapes[info.name] = shape }
        // Strings exist only at plan time: every string input is fixed, whatever its size.
        var offered: [String: Tensor] = fixing
        for (name, tensor) in feeds where tensor.count <= offeredElementLimit || tensor.elementType == .string { offered[name] = tensor }
        let (values, strings) = Tensor.engineValues(offered)
        do {
            let model = try InferenceModel(proto: proto, inputShapes: inputShapes, planTimeInputs: values, planTimeStrings: strings)
            let engine = try Inference.InferenceSession(model: model, path: options.path == .fast ? .fast : .reference,
                                                        threads: options.threads, keepsIntermediates: keepsIntermediates)
            var fixed: [String: Tensor] = [:]
            for name in model.fixedInputs { fixed[name] = feeds[name] }
            return Plan(model: model, engine: engine, inputNames: model.inputs.map(\.name),
                        shapes: inputShapes.filter { !model.fixedInputs.contains($0.key) }, fixed: fixed)
        } catch {
            throw InferenceError(error, needsInputValue: error.needsPlanTimeValue)
        }
    }

    // MARK: - Checks

    /// Every input present, known, of the declared element type and rank, and sized where the
    /// model sizes it.
    private func check(_ feeds: [String: Tensor]) throws(InferenceError) {
        for name in feeds.keys where inputIndex[name] == nil {
            throw InferenceError(.invalidInput, "the model has no input of this name (its inputs: \(inputs.map(\.name).joined(separator: ", ")))", input: name)
        }
        for info in inputs {
            guard let tensor = feeds[info.name] else {
                throw InferenceError(.invalidInput, "input is missing (the model needs \(info))", input: info.name)
            }
            guard tensor.elementType == info.elementType else {
                throw InferenceError(.invalidInput, "the model needs \(info.elementType) elements, the tensor has \(tensor.elementType)", input: info.name)
            }
            guard tensor.shape.count == info.shape.count else {
                throw InferenceError(.invalidInput, "the model needs rank \(info.shape.count) \(info), the tensor has shape \(tensor.shape)", input: info.name)
            }
            for (axis, size) in info.shape.enumerated() where size != nil && size != tensor.shape[axis] {
                throw InferenceError(.invalidInput, "the model needs \(size!), the tensor has \(tensor.shape[axis])", input: info.name, axis: axis)
            }
        }
    }

    // MARK: - The model's declarations

    private static func info(_ value: ValueInfoProto, role: String) throws(InferenceError) -> TensorInfo {
        guard let tensor = value.type?.tensorType else {
            throw InferenceError(.unsupported, "\(role) is not a tensor", input: value.name)
        }
        let type: ElementType
        if tensor.elementType == .string {
            type = .string
        } else if let engineType = Inference.ElementType(tensor.elementType) {
            type = ElementType(engineType)
        } else {
            throw InferenceError(.unsupported, "\(role) has element type \(tensor.elementType), which is not supported", input: value.name)
        }
        let dims = tensor.shape?.dims ?? []
        let shape: [Int?] = dims.map { if case let .value(size) = $0 { Int(size) } else { nil } }
        let names: [String?] = dims.map { if case let .parameter(name) = $0 { name } else { nil } }
        return TensorInfo(name: value.name, elementType: type, shape: shape, dimensionNames: names)
    }

    /// Makes `names` the graph's outputs and drops the nodes and inputs they do not need.
    private static func restrict(_ graph: inout GraphProto, to names: [String]) throws(InferenceError) {
        var producer: [String: Int] = [:]
        for (index, node) in graph.nodes.enumerated() { for output in node.outputs where !output.isEmpty { producer[output] = index } }
        let declared = Dictionary((graph.outputs + graph.valueInfo).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var outputs: [ValueInfoProto] = []
        for name in names {
            guard producer[name] != nil || graph.outputs.contains(where: { $0.name == name }) else {
                throw InferenceError(.invalidInput, "no node computes a value of this name", input: name)
            }
            var value = declared[name] ?? ValueInfoProto()
            value.name = name
            outputs.append(value)
        }
        var needed = Set<Int>(), pending = names, read = Set<String>(names)
        while let name = pending.popLast() {
            guard let index = producer[name], needed.insert(index).inserted else { continue }
            for input in graph.nodes[index].inputs where !input.isEmpty && read.insert(input).inserted { pending.append(input) }
        }
        graph.nodes = graph.nodes.indices.filter(needed.contains).map { graph.nodes[$0] }
        graph.inputs = graph.inputs.filter { read.contains($0.name) }
        graph.outputs = outputs
    }
}

extension Tensor {
    init(_ tensor: Inference.Tensor) {
        self.init(shape: tensor.shape, elementType: ElementType(tensor.type), bytes: tensor.bytes)
    }

    init(_ strings: StringTensor) {
        self.init(shape: strings.shape, strings: strings.values)
    }

    /// A tensor of a float `elementType` holding `values` (rounded to the type).
    ///
    /// - Precondition: `elementType.isFloatingPoint` and `values.count` is the product of `shape`.
    package init(elementType: ElementType, shape: [Int], doubles values: [Double]) {
        precondition(elementType.isFloatingPoint, "doubles make float tensors only (got \(elementType))")
        self.init(Inference.Tensor(type: elementType.engineType, shape: shape, doubles: values))
    }

    /// The elements as `Double`s (exact for every float and for integers up to 2^53).
    ///
    /// - Precondition: not a `string` tensor.
    package var doubles: [Double] { engineTensor.doubles }

    /// The engine's copy of a tensor that is not a `string` one.
    var engineTensor: Inference.Tensor {
        Inference.Tensor(type: elementType.engineType, shape: shape, bytes: withUnsafeBytes { Array($0) })
    }

    /// `tensors` as the engine takes them at plan time: the strings apart.
    static func engineValues(_ tensors: [String: Tensor]) -> (values: [String: Inference.Tensor], strings: [String: StringTensor]) {
        var values: [String: Inference.Tensor] = [:], strings: [String: StringTensor] = [:]
        for (name, tensor) in tensors {
            if tensor.elementType == .string {
                strings[name] = StringTensor(shape: tensor.shape, values: (try? tensor.strings()) ?? [])
            } else {
                values[name] = tensor.engineTensor
            }
        }
        return (values, strings)
    }
}
