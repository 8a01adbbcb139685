import Kernels

/// Runs an `InferenceModel`: one arena holds every activation, allocated when the
/// session is made, so `run(input:output:)` allocates nothing.
///
/// ## Threads
/// A session may be created on one thread and used from another, and it is `Sendable`: every
/// `run` and `value(named:)` holds an internal lock, so concurrent calls are serialised (one run
/// at a time). Use one session per thread for parallel inference.
///
/// ## Inspection
/// With `keepsIntermediates: true` no buffer is reused, and `value(named:)` returns any
/// intermediate tensor after a run (for node-by-node tests and debugging).
package final class InferenceSession: @unchecked Sendable {
    // @unchecked Sendable is safe: the arena's contents are read and written only while `lock`
    // is held; everything else is immutable after init (the steps' pointers point into the arena,
    // which lives as long as the session), except `externalInput.pointer`, which is also set and
    // cleared only while `lock` is held.
    package let model: InferenceModel
    package let path: ExecutionPath
    /// The graph this session runs: the model's, or its fast graph (`InferenceModel.fastGraph`).
    let graph: LoadedGraph
    /// The constants of `graph`, read in place.
    let constants: ConstantStore
    package let threads: Int
    package let keepsIntermediates: Bool
    /// Bytes of the arena (activations, and the fast path's zero-bordered maps and gate values;
    /// the constants are the model's, `InferenceModel.constants`).
    package let arenaBytes: Int

    private let plan: BufferPlan
    private let arena: UnsafeMutablePointer<Float>
    /// The steps that do work, in plan order: one per node, except that a fused step also does
    /// the work of the nodes it absorbed and a view moves nothing, and neither has a step.
    let steps: [any Step]
    /// For each node (by index in the graph's nodes), the index in `steps` of the step that does
    /// its work: its own, or the fused step that absorbed it; nil for a view.
    let stepOfNode: [Int?]
    /// Guards the arena for any caller. Under the SDK's segmenter, whose own lock already
    /// serialises runs, it is taken uncontended (tens of nanoseconds a frame); it stays so that a
    /// session is safe to share on its own.
    private let lock = SessionLock()
    /// Set when the fast path's first step reads the single graph input straight from the
    /// caller's buffer in `run(input:output:)` (no copy into the arena).
    private let externalInput: ExternalInput?
    /// The fast path's fusions (empty on the reference path and in sessions that keep
    /// intermediates).
    private let fusionPlan: FusionPlan
    /// The fast path's worker pool (its threads and scratch), nil on the reference path.
    let pool: WorkerPool?
    /// The model's packed weights this session's steps share, nil when it packed its own.
    private let packedWeights: PackedWeights?

    /// Which fusions across nodes a fast session plans.
    package enum Fusions: Sendable, Equatable {
        /// Every fusion the fast path's rules find (what the SDK runs).
        case all
        /// Only those led by these nodes (indices into `model.runningNodes`); every other node
        /// runs its single-node step. To find which fusion changes a result (`vbg check`).
        case ledBy(Set<Int>)
    }

    /// Plans the buffers and binds each node to its kernel.
    ///
    /// - Parameters:
    ///   - path: `.fast` uses SIMD kernels where available (the reference kernels elsewhere).
    ///   - threads: worker threads the fast kernels may use (≥ 1; the reference path uses one).
    ///   - keepsIntermediates: keep every value readable through `value(named:)` after a run;
    ///     the fast path then plans no fusion.
    ///   - fusions: the fusions a fast session that does not keep intermediates plans.
    /// - Throws: `ModelError(.invalidInput)` when `threads` is not in 1...64.
    package init(model: InferenceModel, path: ExecutionPath = .fast, threads: Int = 1,
                keepsIntermediates: Bool = false, fusions: Fusions = .all) throws(ModelError) {
        guard (1...64).contains(threads) else { throw ModelError(.invalidInput, "threads must be between 1 and 64 (got \(threads))") }
        self.model = model
        self.path = path
        self.threads = threads
        self.keepsIntermediates = keepsIntermediates
        // Fast sessions that plan every fusion run the model's fast graph when it has one (QDQ
        // groups rewritten for the integer kernels, `QuantizedGroupRewrite`; Transposes sunk until
        // they cancel, `TransposeSinking`); the reference path,
        // inspection and the fusion bisection of `vbg check` run the graph as written.
        let rewritten = path == .fast && !keepsIntermediates && fusions == .all ? model.fastGraph : nil
        let graph = rewritten?.graph ?? model.graph
        self.graph = graph
        let constants = rewritten?.constants ?? model.constants
        self.constants = constants
        // The model planned its buffers once for each path; only inspection (every value in a
        // slot of its own) and fusions led by chosen nodes plan their own.
        var fastPath: FastPathPlan? = nil
        if path == .fast {
            if keepsIntermediates {
                fastPath = FastPathPlan(keepingIntermediatesOf: graph, constants: model.constants)
            } else if case .ledBy(let leaders) = fusions {
                fastPath = FastPathPlan(graph, constants: model.constants, leaders: leaders)
            } else {
                fastPath = rewritten?.fastPath ?? model.fastPath
            }
        }
        let plan = fastPath?.buffers ?? (keepsIntermediates ? BufferPlan(graph, reusesBuffers: false) : model.bufferPlan)
        guard plan.totalCount <= Shapes.maximumElementCount else {
            throw ModelError(.invalidShape, "keeping every intermediate needs \(plan.totalCount / (1 << 28)) GiB; the limit is 8 GiB")
        }
        // The last check that may fail: from here on the session counts as a reader of the store.
        try constants.addReader(readsPackingSources: fastPath?.packedWeights == nil)
        let arena = UnsafeMutablePointer<Float>.allocate(capacity: max(plan.totalCount, 1))
        arena.initialize(repeating: 0, count: max(plan.totalCount, 1))
        self.plan = plan
        self.arena = arena
        arenaBytes = plan.totalCount * MemoryLayout<Float>.size
        // Fusion skips writing fused values to the arena, so inspection sessions run unfused.
        let fast = fastPath.map { StepBuilder(threads: threads, rules: $0.rules, plan: $0.fusions, buffers: $0.buffers, arena: arena,
                                              constants: constants, packedWeights: $0.packedWeights) }
        var steps: [any Step] = []
        var stepOfNode: [Int?] = []
        for node in graph.nodes {
            let inputs = node.inputs.map { UnsafePointer(constants.pointer($0) ?? arena + plan.offsets[$0]) }
            let outputs = node.outputs.map { arena + plan.offsets[$0] }
            switch fast?.work(for: node, inputs: inputs, outputs: outputs) ?? .reference {
            case .step(let step):
                stepOfNode.append(steps.count)
                steps.append(step)
            case .reference:
                precondition(!node.inputs.contains(where: constants.isReleased),
                             "node '\(node.name)' runs its reference kernel on weights the model freed after packing them")
                stepOfNode.append(steps.count)
                steps.append(ReferenceStep(operation: node.operation, inputs: inputs, outputs: outputs))
            case .absorbed(let leader):
                precondition(leader < stepOfNode.count, "a fused step runs before the nodes it absorbs")
                stepOfNode.append(stepOfNode[leader])
            case .view:
                stepOfNode.append(nil)
            }
        }
        self.steps = steps
        self.stepOfNode = stepOfNode
        externalInput = fast?.externalInput
        fusionPlan = fastPath?.fusions ?? FusionPlan()
        packedWeights = fastPath?.packedWeights
        pool = fast?.pool
    }

    deinit {
        arena.deallocate()
        constants.removeReader()
    }

    /// Frees the model's copy of the weights this session's steps packed (the constants only the
    /// fast path's packing reads, `ConstantStore.packingSources`), so the model holds its weights
    /// once, packed. Done only when this is the model's only session, it runs the model's lowered
    /// graph with every fusion (its packed weights are the model's), and none of its steps reads
    /// those constants when it runs (a node on its reference kernel would). A session that runs
    /// the model's fast graph (a QDQ model's rewritten one) also frees every constant of the graph
    /// as written, which no session reads. From then on the model makes only sessions like this
    /// one (they take the packed weights).
    ///
    /// - Parameter poisoning: for tests: the freed bytes are kept, filled with NaN, so a step
    ///   that still read them would compute NaN.
    /// - Returns: the bytes freed (0 when nothing was).
    @discardableResult
    package func releasePackingSources(poisoning: Bool = false) -> Int {
        guard let packedWeights else { return 0 }
        let constants = self.constants, steps = self.steps
        var freed = constants.releasePackingSources(
            poisoning: poisoning,
            isPacked: {
                #if hasFeature(Embedded)
                return false  // no reflection to look into the steps with: keep every constant
                #else
                var held = HeldAddresses(matching: constants.isPackingSource)
                return !steps.contains { held.found(in: $0) }
                #endif
            },
            seal: packedWeights.seal)
        if constants !== model.constants, constants.hasOneReader {
            freed += model.constants.releaseAll(poisoning: poisoning)
        }
        return freed
    }

    /// Where value `id` lives: the model's constant store for a constant (never written), the
    /// arena for any other.
    private func address(_ id: Int) -> UnsafeMutablePointer<Float> {
        constants.pointer(id) ?? arena + plan.offsets[id]
    }

    #if !hasFeature(Embedded)
    /// Bytes the session holds: its arena (activations, the fast path's zero-bordered maps and
    /// gate values, no constants: those are the model's), what its steps own (packed weights, copies, band
    /// buffers, workspaces) and its worker pool's scratch. The model's own bytes are
    /// `InferenceModel.heldBytes`. Walks the steps (allocates): for diagnostics.
    package var heldBytes: Int {
        var held = HeldMemory()
        // The packed weights the model shares are the model's bytes.
        if let packedWeights { held.add(packedWeights) }
        let shared = held.bytes
        for step in steps { held.add(step) }
        if let pool { held.add(pool) }
        return arenaBytes + held.bytes - shared
    }
    #endif

    /// Runs a single-input, single-output graph; allocates nothing.
    ///
    /// - Parameters:
    ///   - input: `model.inputs[0].elementCount` floats in the model's layout (C order).
    ///   - output: room for `model.outputs[0].elementCount` floats.
    /// - Throws: `ModelError(.invalidInput)` when the graph does not have exactly one input and
    ///   one output, both float32, or a buffer has the wrong size.
    package func run(input: UnsafeBufferPointer<Float>, output: UnsafeMutableBufferPointer<Float>) throws(ModelError) {
        guard self.graph.outputIDs.count == 1 else {
            throw ModelError(.invalidInput, "run(input:output:) needs a graph with one output; pick the output with run(input:output:outputAt:)")
        }
        try run(input: input, output: output, outputID: self.graph.outputIDs[0])
    }

    /// Runs a graph with one float32 input and writes the float32 output `model.outputs[index]`;
    /// allocates nothing.
    ///
    /// - Parameters:
    ///   - input: `model.inputs[0].elementCount` floats in the model's layout (C order).
    ///   - output: room for the output's element count.
    /// - Throws: `ModelError(.invalidInput)` when the graph does not have exactly one float32
    ///   input, `index` is not an output's, that output is not float32, or a buffer has the wrong size.
    package func run(input: UnsafeBufferPointer<Float>, output: UnsafeMutableBufferPointer<Float>,
                    outputAt index: Int) throws(ModelError) {
        guard self.graph.outputIDs.indices.contains(index) else {
            throw ModelError(.invalidInput, "the model has \(self.graph.outputIDs.count) outputs; there is no output \(index)")
        }
        try run(input: input, output: output, outputID: self.graph.outputIDs[index])
    }

    private func run(input: UnsafeBufferPointer<Float>, output: UnsafeMutableBufferPointer<Float>,
                     outputID: Int) throws(ModelError) {
        let graph = self.graph
        guard graph.inputIDs.count == 1, model.inputs[0].type == .float32 else {
            throw ModelError(.invalidInput, "run(input:output:) needs a graph with one float32 input; use run(_:)")
        }
        let name = graph.values[outputID].name
        guard graph.values[outputID].type == .float32 else {
            throw ModelError(.invalidInput, "output '\(name)' is \(graph.values[outputID].type), not float32; use run(_:)")
        }
        let inputID = graph.inputIDs[0], inputCount = graph.values[inputID].elementCount
        let outputCount = graph.values[outputID].elementCount
        guard input.count == inputCount, let source = input.baseAddress else {
            throw ModelError(.invalidInput, "input has \(input.count) values, '\(model.inputs[0].name)' \(model.inputs[0].shape) needs \(inputCount)")
        }
        guard output.count == outputCount, let destination = output.baseAddress else {
            throw ModelError(.invalidInput, "output has room for \(output.count) values, '\(name)' \(graph.values[outputID].shape) has \(outputCount)")
        }
        lock.lock()
        defer { lock.unlock() }
        if let externalInput {
            externalInput.pointer = UnsafePointer(source)
            runSteps()
            externalInput.pointer = nil
        } else {
            (address(inputID)).update(from: source, count: inputCount)
            runSteps()
        }
        destination.update(from: address(outputID), count: outputCount)
    }

    /// Runs the graph on named inputs and returns every graph output by name (allocates; for
    /// tests and tools).
    ///
    /// - Throws: `ModelError(.invalidInput)` for a missing or unknown input or a wrong size.
    package func run(inputs: [String: [Float]]) throws(ModelError) -> [String: [Float]] {
        let graph = self.graph
        for name in inputs.keys where !graph.inputIDs.contains(where: { graph.values[$0].name == name }) {
            throw ModelError(.invalidInput, "the model has no input '\(name)'")
        }
        lock.lock()
        defer { lock.unlock() }
        for id in graph.inputIDs {
            let value = graph.values[id]
            guard let data = inputs[value.name] else { throw ModelError(.invalidInput, "input '\(value.name)' is missing") }
            guard value.type == .float32 else { throw ModelError(.invalidInput, "input '\(value.name)' is \(value.type), not float32; use run(_:)") }
            guard data.count == value.elementCount else {
                throw ModelError(.invalidInput, "input '\(value.name)' has \(data.count) values, its shape \(value.shape) needs \(value.elementCount)")
            }
            (address(id)).update(from: data, count: data.count)
        }
        runSteps()
        var results: [String: [Float]] = [:]
        for id in graph.outputIDs {
            guard graph.values[id].type == .float32 else { throw ModelError(.invalidInput, "output '\(graph.values[id].name)' is \(graph.values[id].type), not float32; use run(_:)") }
            results[graph.values[id].name] = Array(UnsafeBufferPointer(start: address(id), count: graph.values[id].elementCount))
        }
        return results
    }

    /// Runs the graph on named tensors of any stored type and returns every graph output by name
    /// (allocates; for tests and tools).
    ///
    /// - Throws: `ModelError(.invalidInput)` for a missing or unknown input, or one whose type or
    ///   shape differs from the model's.
    package func run(_ feeds: [String: Tensor]) throws(ModelError) -> [String: Tensor] {
        let graph = self.graph
        for name in feeds.keys where !graph.inputIDs.contains(where: { graph.values[$0].name == name }) {
            throw ModelError(.invalidInput, "the model has no input '\(name)'")
        }
        lock.lock()
        defer { lock.unlock() }
        for id in graph.inputIDs {
            let value = graph.values[id]
            guard let tensor = feeds[value.name] else { throw ModelError(.invalidInput, "input '\(value.name)' is missing") }
            guard tensor.type == value.type, tensor.shape == value.shape else {
                throw ModelError(.invalidInput, "input '\(value.name)' is \(tensor.type) \(tensor.shape), the model needs \(value.type) \(value.shape)")
            }
            tensor.bytes.withUnsafeBytes { UnsafeMutableRawPointer(address(id)).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }
        runSteps()
        var results: [String: Tensor] = [:]
        for id in graph.outputIDs { results[graph.values[id].name] = tensor(id) }
        return results
    }

    /// Runs the graph on raw bytes: graph input `i` (in `model.inputs` order) is copied from
    /// `input(i)`, then graph output `j` (in `model.outputs` order) is handed to `output(j, bytes)`
    /// while the session's lock is held. Allocates nothing; what the public `ONNXInference`
    /// session runs after checking types and shapes.
    ///
    /// - Precondition: `input(i).count` is input `i`'s byte count.
    package func run(copyingInputs input: (Int) -> UnsafeRawBufferPointer,
                     readingOutputs output: (Int, UnsafeRawBufferPointer) -> Void) {
        let graph = self.graph
        lock.lock()
        defer { lock.unlock() }
        for (index, id) in graph.inputIDs.enumerated() {
            let bytes = input(index)
            precondition(bytes.count == graph.values[id].byteCount, "input \(index) has \(bytes.count) bytes, not \(graph.values[id].byteCount)")
            if let source = bytes.baseAddress { UnsafeMutableRawPointer(address(id)).copyMemory(from: source, byteCount: bytes.count) }
        }
        runSteps()
        for (index, id) in graph.outputIDs.enumerated() {
            output(index, UnsafeRawBufferPointer(start: address(id), count: graph.values[id].byteCount))
        }
    }

    private func tensor(_ id: Int) -> Tensor {
        let value = self.graph.values[id]
        return Tensor(type: value.type, shape: value.shape,
                      bytes: Array(UnsafeRawBufferPointer(start: address(id), count: value.byteCount)))
    }

    /// Runs every step in plan order. Indexing (rather than `for step in steps`) matters: a debug
    /// build copies each existential out of the array into a fresh box when iterating, one heap
    /// allocation per step; `steps[index].run()` calls it in place.
    private func runSteps() {
        for index in steps.indices { steps[index].run() }
    }

    #if !hasFeature(Embedded)
    /// Runs a single-input, single-output graph `runs` times and times every layer: each step
    /// the session runs, with the ONNX nodes whose work it does (a fused activation's node is
    /// listed with the convolution that computes it). Allocates (for tools such as
    /// `vbg bench --per-layer`, not for the per-frame path).
    ///
    /// - Returns: the layers in execution order with the median wall time of each over `runs`.
    /// - Throws: as `run(input:output:)`.
    package func profileLayers(input: UnsafeBufferPointer<Float>, output: UnsafeMutableBufferPointer<Float>,
                              runs: Int) throws(ModelError) -> [LayerProfile] {
        try run(input: input, output: output)  // validates the buffers
        let graph = self.graph
        let inputID = graph.inputIDs[0], outputID = graph.outputIDs[0]
        let layers = self.layers.map { layer in
            let nodes = layer.nodes.map { graph.nodes[$0] }
            let profile = LayerProfile(nodes: nodes.map { $0.name }, operators: nodes.map { $0.opType },
                                       multiplyAccumulates: nodes.reduce(0) { $0 + $1.operation.multiplyAccumulates },
                                       seconds: 0, runsOnReference: layer.step.map { steps[$0] is ReferenceStep } ?? false)
            return (step: layer.step, profile: profile)
        }
        var samples = Array(repeating: [Double](), count: layers.count)
        // What DispatchTime's uptime measured: time awake (a profile's layers do not sleep).
        let clock = SuspendingClock()
        lock.lock()
        defer { lock.unlock() }
        for _ in 0..<max(runs, 1) {
            (address(inputID)).update(from: input.baseAddress!, count: input.count)
            for (l, layer) in layers.enumerated() {
                let start = clock.now
                if let index = layer.step { steps[index].run() }
                let elapsed = (clock.now - start).components
                samples[l].append(Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
            }
        }
        output.baseAddress!.update(from: address(outputID), count: output.count)
        return layers.indices.map { l in
            var profile = layers[l].profile
            let sorted = samples[l].sorted()
            profile.seconds = sorted[sorted.count / 2]
            return profile
        }
    }
    #endif

    /// The session's layers in execution order: each step with the node it was built for, then
    /// the nodes after it that have no step of their own (the ones it absorbed, and views). A
    /// layer of views only (before any step) has no step.
    var layers: [(step: Int?, nodes: [Int])] {
        var layers: [(step: Int?, nodes: [Int])] = []
        var started = -1  // steps are made in node order, so a node leads its step when it is a later one
        for (node, step) in stepOfNode.enumerated() {
            if let step, step > started {
                layers.append((step, [node]))
                started = step
            } else if layers.isEmpty {
                layers.append((nil, [node]))
            } else {
                layers[layers.count - 1].nodes.append(node)
            }
        }
        return layers
    }

    #if !hasFeature(Embedded)
    /// The graph as the session runs it, in order: each step with its kernel (the step's type:
    /// `ReferenceStep` is an operator's reference kernel) and the nodes whose work it does, the
    /// first the node it was built for; a view (a node that moves nothing) is an entry of its
    /// own, with no kernel. Node indices are into `runningNodes`.
    package var loweredSteps: [(kernel: String?, nodes: [Int])] {
        var entries: [(kernel: String?, nodes: [Int])] = []
        var entryOfStep: [Int: Int] = [:]
        for (node, step) in stepOfNode.enumerated() {
            guard let step else {
                entries.append((nil, [node]))
                continue
            }
            if let entry = entryOfStep[step] {
                entries[entry].nodes.append(node)
            } else {
                entryOfStep[step] = entries.count
                entries.append((String(describing: type(of: steps[step])), [node]))
            }
        }
        return entries
    }
    #endif

    /// Each node the session runs (folded ones excluded), in execution order, with its
    /// multiply-accumulates and whether its step is the reference kernel: on the fast path, the
    /// nodes it has no fast kernel for (a node whose work a fused step does counts as fast). What
    /// `vbg inspect` reports as the fast path's share of the MACs.
    package var nodeKernels: [NodeKernel] {
        self.graph.nodes.enumerated().map { index, node in
            NodeKernel(name: node.name, op: node.opType, multiplyAccumulates: node.operation.multiplyAccumulates,
                       runsOnReference: stepOfNode[index].map { steps[$0] is ReferenceStep } ?? false)
        }
    }

    /// The nodes of the graph the session runs (folded ones excluded), in execution order, with
    /// their output names: `model.runningNodes`, or the fast graph's (`InferenceModel.fastGraph`)
    /// in a fast session that plans every fusion of a model that has one.
    package var runningNodes: [(name: String, op: String, outputs: [String])] {
        let graph = self.graph
        return graph.nodes.map { node in (node.name, node.opType, node.outputs.map { graph.values[$0].name }) }
    }

    /// Each fusion the session runs, as the indices (into `runningNodes`) of the node leading
    /// it and then the nodes whose work its step does; empty on the reference path and in
    /// sessions that keep intermediates.
    package var fusionSpans: [[Int]] { fusionPlan.spans }

    /// Runs the step of one node alone on the values its inputs have in `source` (after
    /// `source`'s last run), and returns its outputs: how far one kernel is from another on the
    /// same inputs, whatever the nodes before computed (`vbg check`). The inputs are copied
    /// into this session's buffers, so its other values are unchanged.
    ///
    /// - Parameters:
    ///   - index: the node's index in `model.runningNodes`.
    ///   - source: another session of the same model that keeps its intermediates.
    /// - Precondition: both sessions keep their intermediates, share `model`, and are distinct.
    package func replay(nodeAt index: Int, readingInputsFrom source: InferenceSession) -> [Tensor] {
        precondition(source !== self && source.model === model, "replay reads another session of the same model")
        precondition(keepsIntermediates && source.keepsIntermediates, "replay needs sessions that keep their intermediates")
        let graph = self.graph
        let node = graph.nodes[index]
        let inputs = node.inputs.map { id in (id, graph.values[id].constant == nil ? source.tensor(named: graph.values[id].name) : nil) }
        lock.lock()
        defer { lock.unlock() }
        for case let (id, tensor?) in inputs where !tensor.bytes.isEmpty {
            tensor.bytes.withUnsafeBytes { UnsafeMutableRawPointer(address(id)).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }
        guard let step = stepOfNode[index] else { preconditionFailure("node \(index) is a view: a session that keeps its intermediates has none") }
        steps[step].run()
        return node.outputs.map(tensor)
    }

    /// The value named `name` after the last run: any value when `keepsIntermediates` is true,
    /// otherwise only graph outputs and constants; nil for unknown names, for values whose buffer
    /// was reused, for values folded away at plan time, and for weights freed after packing
    /// (`releasePackingSources`).
    package func value(named name: String) -> [Float]? {
        tensor(named: name)?.floats
    }

    /// The tensor named `name` after the last run, under the same rules as `value(named:)`, of
    /// any element type.
    package func tensor(named name: String) -> Tensor? {
        let graph = self.graph
        guard let id = graph.values.firstIndex(where: { $0.name == name }) else { return nil }
        let value = graph.values[id]
        guard keepsIntermediates || value.constant != nil || graph.outputIDs.contains(id), !constants.isReleased(id) else { return nil }
        lock.lock()
        defer { lock.unlock() }
        return tensor(id)
    }

    /// The shape of a value the session computes or reads, or nil for unknown names.
    package func shape(ofValueNamed name: String) -> [Int]? {
        self.graph.values.first { $0.name == name }?.shape
    }
}

/// One layer of a profiled run (`InferenceSession.profileLayers`): a step and the ONNX nodes it covers.
package struct LayerProfile: Sendable {
    /// The ONNX node names, the first one the node whose step does the work.
    package var nodes: [String]
    /// The nodes' operator types (`Conv`, `Relu`, …), in the order of `nodes`.
    package var operators: [String]
    /// Multiply-accumulates of the covered nodes (convolutions; 0 for elementwise work).
    package var multiplyAccumulates: Int
    /// Median wall time of the layer, in seconds.
    package var seconds: Double
    /// Whether the layer runs on its operator's reference kernel (on the fast path: no fast
    /// kernel took the node).
    package var runsOnReference: Bool = false
}

/// A node of a session and the kind of kernel that runs it (`InferenceSession.nodeKernels`).
package struct NodeKernel: Sendable {
    package var name: String
    package var op: String
    /// Multiply-accumulates per run (convolutions, Gemm, MatMul; 0 for other ops).
    package var multiplyAccumulates: Int
    /// The node's step is its operator's reference (scalar) kernel.
    package var runsOnReference: Bool
}
